/**
 * Whether the user paused wakes, kept in the store (`wakes-paused.json` beside `wakes.json`) so that the
 * pause survives a reload, a crash or an update, and every window of the store sees it at once (a
 * window's globalState is flushed late and was lost when the window went away abruptly).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicFile';

export const WAKE_PAUSE_FILE = 'wakes-paused.json';

/** The pause as the store has it; undefined when it was never set (or the file cannot be read). */
export function readWakesPaused(dir: string): boolean | undefined {
  try {
    const v = (JSON.parse(readFileSync(join(dir, WAKE_PAUSE_FILE), 'utf8')) as { paused?: unknown }).paused;
    return typeof v === 'boolean' ? v : undefined;
  } catch {
    return undefined;
  }
}

export async function writeWakesPaused(dir: string, paused: boolean, now = new Date()): Promise<void> {
  await writeFileAtomic(join(dir, WAKE_PAUSE_FILE), `${JSON.stringify({ paused, at: now.toISOString() })}\n`);
}
