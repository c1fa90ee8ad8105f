/**
 * The heartbeat of a `life-thread run` on the `job.done` wakes it watches (README "How the lock
 * works"): a waiter that cannot check the run's pid (another PID namespace or host) fires the wake as
 * lost once the heartbeat is stale. Pure: whether a process runs is asked of an injected `Liveness`.
 */
import { HEARTBEAT_STALE_MS, type Liveness } from '../claim';
import { isRunJobId } from '../ids';
import type { WakeRow } from './row';

/** How often a `life-thread run` renews `watchedAt` on its wakes: well inside HEARTBEAT_STALE_MS. */
export const RUN_HEARTBEAT_MS = HEARTBEAT_STALE_MS / 4;

/**
 * Why the `life-thread run` watching a pending `job.done` wake is gone before its job ended, or
 * undefined while it may still run. Its process decides where `alive` can check it (this host, same
 * PID namespace); elsewhere (a sandbox with its own namespace) its heartbeat does, and a row with no
 * heartbeat (written before runs had one) is never declared gone that way.
 */
export function runWatcherGone(row: WakeRow, now: Date, alive: Liveness): string | undefined {
  if (row.status !== 'pending' || row.when !== 'job.done' || !isRunJobId(row.jobId) || row.owner?.kind !== 'cli') return undefined;
  const job = row.jobId ?? 'the job';
  const verdict = alive(row.owner);
  if (verdict === true) return undefined;
  if (verdict === false) return `the life-thread run watching ${job} stopped before the job ended`;
  if (row.watchedAt === undefined) return undefined;
  const silentMs = now.getTime() - Date.parse(row.watchedAt);
  if (silentMs <= HEARTBEAT_STALE_MS) return undefined;
  return `the life-thread run watching ${job} (pid ${row.owner.pid ?? '?'}, not visible from here) sent no heartbeat for ${Math.round(silentMs / 1000)} s before the job ended`;
}

/** Renews the heartbeat of the pending wakes a `life-thread run` watches. */
export function refreshWatched(rows: readonly WakeRow[], ids: ReadonlySet<string>, now: Date): { rows: WakeRow[]; changed: boolean } {
  let changed = false;
  const out = rows.map((r) => {
    if (!ids.has(r.id) || r.status !== 'pending' || r.watchedAt === undefined) return r;
    changed = true;
    return { ...r, watchedAt: now.toISOString() };
  });
  return { rows: changed ? out : [...rows], changed };
}
