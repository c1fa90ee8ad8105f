/**
 * Which stores belong to which installed Life Thread, kept outside every store and every extension
 * folder (`$XDG_CONFIG_HOME/life-thread/stores.json`, else `~/.config/life-thread/stores.json`). VS
 * Code runs the uninstall hook (dist/uninstall.js, package.json `vscode:uninstall`) with no way to
 * learn where the extension's global storage was; each window records its store here at its start,
 * so the hook can remove the OS timers of exactly the stores of the Life Thread being removed.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../atomicFile';
import { acquireLock } from '../lock';

const registrySchema = z.object({
  stores: z.record(z.string(), z.object({ extensionsDir: z.string(), seenAt: z.string() })),
});
type Registry = z.infer<typeof registrySchema>;

export function registryPath(env: NodeJS.ProcessEnv, home: string): string {
  const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return path.join(config, 'life-thread', 'stores.json');
}

async function readRegistry(file: string): Promise<Registry> {
  try {
    const parsed = registrySchema.safeParse(JSON.parse(await fsp.readFile(file, 'utf8')));
    return parsed.success ? parsed.data : { stores: {} };
  } catch {
    return { stores: {} };
  }
}

async function change(file: string, edit: (r: Registry) => boolean): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const lock = await acquireLock(`${file}.lock`, { waitMs: 10_000 });
  try {
    const r = await readRegistry(file);
    if (edit(r)) await writeFileAtomic(file, `${JSON.stringify(r, null, 1)}\n`);
  } finally {
    await lock.release();
  }
}

/** Records that `storeDir` belongs to the Life Thread installed in `extensionsDir`; writes only when that changed. */
export async function recordStore(file: string, storeDir: string, extensionsDir: string, now = new Date()): Promise<void> {
  const current = (await readRegistry(file)).stores[storeDir];
  if (current?.extensionsDir === extensionsDir) return;
  await change(file, (r) => {
    if (r.stores[storeDir]?.extensionsDir === extensionsDir) return false;
    r.stores[storeDir] = { extensionsDir, seenAt: now.toISOString() };
    return true;
  });
}

/** The stores of the Life Thread installed in `extensionsDir`. */
export async function storesOf(file: string, extensionsDir: string): Promise<string[]> {
  const r = await readRegistry(file);
  return Object.entries(r.stores)
    .filter(([, v]) => v.extensionsDir === extensionsDir)
    .map(([k]) => k);
}

export async function forgetStores(file: string, stores: readonly string[]): Promise<void> {
  if (stores.length === 0) return;
  await change(file, (r) => {
    let changed = false;
    for (const s of stores) {
      if (Object.hasOwn(r.stores, s)) {
        delete r.stores[s];
        changed = true;
      }
    }
    return changed;
  });
}
