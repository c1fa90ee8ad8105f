/**
 * A job's log: `<store>/logs/<id>.log`, the last run's capped, redacted output of a command row (`c-…`)
 * or a `life-thread run` job (`j-…`). Its own module because both the job runner (which writes it) and
 * the schedule (whose `remove` deletes it with the row) need it, and neither may import the other.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isLoggedJobId } from '../core/ids';
import type { CommandRow } from '../core/schema';
import { forgetAlerts } from './alerts';
import { writeFileAtomic } from './atomicFile';
import type { Table } from './store/table';

/** The commands table and the store folder it lives in: what a log written under its lock needs. */
export interface CommandsHolder {
  dir: string;
  commands: Table<CommandRow>;
}

export function logPath(storeDir: string, id: string): string {
  if (!isLoggedJobId(id)) throw new Error(`not a command id: ${JSON.stringify(id)}`);
  return path.join(path.resolve(storeDir), 'logs', `${id}.log`);
}

/**
 * Writes the log while holding the commands table's lock, only if the row still carries `token`.
 * Because `remove` takes the same lock and then removes the log, either the removal sees the log or
 * this write sees no row: no log outlives its row.
 */
export async function writeLogIfRowExists(store: CommandsHolder, id: string, token: string, log: string): Promise<boolean> {
  const holds = (rows: readonly CommandRow[]): boolean => rows.some((r) => r.id === id && r.claim?.token === token);
  const snap = await store.commands.read();
  if (!holds(snap.rows)) return false;
  return store.commands.update(async (rows) => {
    const ok = holds(rows);
    if (ok) await writeLogFile(store.dir, id, log);
    return { rows, result: ok };
  });
}

/** Temp file in logs/, then rename over the log: a reader sees the old log or the new one, never half. */
export async function writeLogFile(storeDir: string, id: string, log: string): Promise<void> {
  await writeFileAtomic(logPath(storeDir, id), log);
}

/** The last run's log, or null when there is none (never run, removed, or not a command id). */
export async function readLog(storeDir: string, id: string): Promise<string | null> {
  if (!isLoggedJobId(id)) return null;
  try {
    return await fsp.readFile(logPath(storeDir, id), 'utf8');
  } catch (e) {
    if (errCode(e) === 'ENOENT') return null;
    throw e;
  }
}

export async function removeLog(storeDir: string, id: string): Promise<void> {
  try {
    await fsp.unlink(logPath(storeDir, id));
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
}

/** What `remove` calls after the row is gone: the log and the alert keys. Missing pieces are fine. */
export async function removeJobArtifacts(storeDir: string, id: string): Promise<void> {
  if (!isLoggedJobId(id)) return;
  await removeLog(storeDir, id);
  await forgetAlerts(storeDir, id);
}

function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}
