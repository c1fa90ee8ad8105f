/**
 * The dispatcher's health, decided and worded once for every surface: the status bar, the sidebar
 * and @life's Doctor (a window's own dispatcher), the tools' answers and `life-thread mcp` (the pulse
 * file only), and `life-thread doctor`. A dispatcher is alive while its last pass is at most 120 s old:
 * passes come every few seconds, so two minutes of silence means a stopped or frozen process.
 */
import type { Health } from '../shared/protocol';
import { formatDuration } from './time/describe';

export const HEALTHY_WITHIN_MS = 120_000;

/** True when a pass at `lastPassAt` is recent enough at `now`. */
export function passIsAlive(lastPassAt: Date | null, now: Date): boolean {
  return lastPassAt !== null && now.getTime() - lastPassAt.getTime() <= HEALTHY_WITHIN_MS;
}

export interface PassFacts {
  /** The last pass seen: the window's own, or the store's pulse file. */
  lastPassAt: Date | null;
  /** The store refuses writes (the reason). */
  readOnly?: string;
  /** The last pass failed (the reason). */
  error?: string;
  /** The window's wakes are paused (the dispatcher still passes). */
  paused?: boolean;
  /** Asked by a window whose dispatcher has not passed yet (it is starting), not by a process that reads the pulse. */
  ownDispatcher?: boolean;
}

/** The state and its one line. */
export function dispatcherHealth(f: PassFacts, now: Date): Health & { healthy: boolean } {
  const lastPassAt = f.lastPassAt?.toISOString() ?? null;
  if (f.readOnly !== undefined) return { state: 'readonly', healthy: false, line: `Store is read-only: ${f.readOnly}`, lastPassAt };
  if (f.error !== undefined) return { state: 'stalled', healthy: false, line: `STALLED: ${f.error}`, lastPassAt };
  if (f.lastPassAt === null) {
    return f.ownDispatcher ? { state: 'starting', healthy: false, line: 'Dispatcher starting…', lastPassAt } : { state: 'stalled', healthy: false, line: 'No dispatcher has run on this store yet', lastPassAt };
  }
  const age = Math.max(0, now.getTime() - f.lastPassAt.getTime());
  if (!passIsAlive(f.lastPassAt, now)) return { state: 'stalled', healthy: false, line: `STALLED: no dispatcher pass for ${formatDuration(age / 1000)}`, lastPassAt };
  if (f.paused) return { state: 'paused', healthy: true, line: 'Wakes paused · dispatcher healthy', lastPassAt };
  return { state: 'healthy', healthy: true, line: `Dispatcher healthy · last pass ${Math.round(age / 1000)} s ago`, lastPassAt };
}

/**
 * The status bar's text (without its icon) and its state tag. A window whose dispatcher has not
 * passed yet says only "starting": a run that looks overdue then is one its first pass will take.
 */
export function statusBarWords(health: Pick<Health, 'state'>, nextWords: string): { words: string; tag: string } {
  const tag = health.state === 'healthy' ? 'healthy' : health.state === 'stalled' || health.state === 'readonly' ? 'STALLED' : health.state;
  if (health.state === 'starting') return { words: 'starting', tag };
  return { words: `${nextWords} · ${tag}`, tag };
}
