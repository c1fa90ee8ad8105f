/**
 * Which VS Code windows are open on this store, and on which folders (`<store>/windows/<id>.json`):
 * a window writes its record when it starts and when its folders change, and removes it when it
 * closes; a record whose process is gone counts for nothing. `life-thread mcp` reads them to give a
 * wake the folders of a window that holds its working directory, so that window is
 * where the wake falls back to when the agent's session is gone.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Holder, Liveness } from '../core/claim';
import { fileUriOfPath, hostPathRules, uriInsideFolder, type PathRules } from '../core/folderUri';
import { writeFileAtomic } from './atomicFile';

export const WINDOWS_DIR = 'windows';

const presenceSchema = z
  .object({
    window: z.string().min(1).max(80),
    pid: z.number().int().nonnegative(),
    host: z.string().max(255).optional(),
    boot: z.string().max(64).optional(),
    start: z.string().max(32).optional(),
    pidns: z.string().min(1).max(64).optional(),
    folders: z.array(z.string().min(1).max(4096)).max(64),
    at: z.string().max(40),
  })
  .strict();
export type WindowPresence = z.infer<typeof presenceSchema>;

function fileOf(storeDir: string, window: string): string {
  return path.join(storeDir, WINDOWS_DIR, `${window.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
}

export async function announceWindow(storeDir: string, holder: Holder, folders: readonly string[], now = new Date()): Promise<void> {
  const record: WindowPresence = {
    window: holder.window.slice(0, 80),
    pid: holder.pid,
    ...(holder.host !== undefined ? { host: holder.host } : {}),
    ...(holder.boot !== undefined ? { boot: holder.boot } : {}),
    ...(holder.start !== undefined ? { start: holder.start } : {}),
    ...(holder.pidns !== undefined ? { pidns: holder.pidns } : {}),
    folders: folders.slice(0, 64),
    at: now.toISOString(),
  };
  await writeFileAtomic(fileOf(storeDir, holder.window), `${JSON.stringify(record)}\n`);
}

export async function withdrawWindow(storeDir: string, window: string): Promise<void> {
  await fsp.unlink(fileOf(storeDir, window)).catch(() => undefined);
}

/** The windows whose process still runs (an unreadable or foreign record is skipped). */
export async function liveWindows(storeDir: string, alive: Liveness): Promise<WindowPresence[]> {
  let names: string[];
  try {
    names = await fsp.readdir(path.join(storeDir, WINDOWS_DIR));
  } catch {
    return [];
  }
  const out: WindowPresence[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).slice(0, 500)) {
    try {
      const r = presenceSchema.safeParse(JSON.parse(await fsp.readFile(path.join(storeDir, WINDOWS_DIR, name), 'utf8')));
      if (r.success && alive(r.data) !== false) out.push(r.data);
    } catch {
      // A record being replaced or left half-written by a crash: not a window.
    }
  }
  return out;
}

/** The folder URIs of open windows that hold `dir` (the folder itself or a parent of it), whatever their scheme. */
export function foldersHolding(windows: readonly WindowPresence[], dir: string, rules: PathRules = hostPathRules()): string[] {
  const target = fileUriOfPath(dir, rules);
  const found = new Set<string>();
  for (const w of windows) {
    for (const uri of w.folders) if (uriInsideFolder(target, uri, rules)) found.add(uri);
  }
  return [...found];
}
