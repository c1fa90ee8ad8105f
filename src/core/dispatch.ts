/**
 * The dispatcher's transitions over rows, pure: the clock, tokens and the holder are passed
 * in. The store applies them under its lock; a second fire is impossible because a claim is one
 * transition `pending → fired` (or a recurring row's advance) written atomically with its token.
 */
import { deadClaimReason, HEARTBEAT_STALE_MS, mayFire, newClaim, refreshHeartbeats, type Holder, type Liveness } from './claim';
import type { CommandRow, Fact, ScheduleRow } from './schema';
import { missedRunsBetween, nextRunAfter } from './time/runs';

export type { Holder, Liveness };


export function kindOf(row: ScheduleRow): 'reminder' | 'command' {
  return row.id.startsWith('c-') ? 'command' : 'reminder';
}

export interface PassOptions {
  now: Date;
  holder: Holder;
  newToken: () => string;
  /** Catch-up limits per kind: a row later than this is marked missed instead of run. */
  maxLatenessMs: { reminder: number; command: number };
  /** Claims whose holder did not heartbeat for this long are declared dead. */
  heartbeatStaleMs?: number;
  /** Claims held by this holder that it no longer runs (e.g. it restarted): declared interrupted at once. */
  ownLiveTokens?: ReadonlySet<string>;
  /** Fired or missed one-shot reminders are kept this long for List, then cleaned. */
  retentionMs?: number;
  /** Tells whether a claim's holder still runs (the process on this host); else its heartbeat decides. */
  alive?: Liveness;
  /** The dispatcher's workspace folders (a window's), or undefined for the CLI: reminders owned by a workspace fire only there. */
  folders?: readonly string[];
}

export { HEARTBEAT_STALE_MS };
export const RETENTION_MS = 24 * 3600_000;

/** A row taken by this pass: the caller fires it after re-reading that `token` is still on the row. */
export interface ClaimedRun {
  id: string;
  token: string;
  scheduledFor: string;
  firedAt: string;
  lateMs: number;
  missedRuns: number;
}

export interface PassResult<R extends ScheduleRow> {
  rows: R[];
  claimed: ClaimedRun[];
  /** Rows marked missed (one-shot) or advanced past missed runs (recurring) without running. */
  missed: { id: string; scheduledFor: string; lateMs: number; missedRuns: number }[];
  /** Running rows whose holder died: a fact was written for them. */
  interrupted: string[];
  /** Rows removed by retention. */
  cleaned: string[];
  changed: boolean;
}

export function isRunning(row: ScheduleRow): boolean {
  return row.claim !== undefined;
}

/** `YYYY-MM-DDTHH:mm:ss.sssZ`, the one form toISOString writes: such strings order as their instants. */
function isUtcIso(s: string): boolean {
  return s.length === 24 && s.charCodeAt(23) === 90 && s.charCodeAt(10) === 84;
}

function iso(d: Date): string {
  return d.toISOString();
}

function interruptedFact(row: ScheduleRow, reason: string): Fact {
  const base: Fact = { ...(row.fact ?? {}), interrupted: true, error: reason };
  return kindOf(row) === 'reminder' ? { ...base, delivered: false } : base;
}

/**
 * One pass over a table: clean expired rows, settle dead claims, then claim every due row that is not
 * running. Recurring rows advance in the same transition and stay pending.
 */
export function duePass<R extends ScheduleRow>(rows: readonly R[], opts: PassOptions): PassResult<R> {
  const now = opts.now;
  const nowMs = now.getTime();
  const retention = opts.retentionMs ?? RETENTION_MS;
  const out: R[] = [];
  const nowIso = now.toISOString();
  const result: PassResult<R> = { rows: out, claimed: [], missed: [], interrupted: [], cleaned: [], changed: false };

  for (const original of rows) {
    let row: R = original;
    const kind = kindOf(row);

    // Retention: fired or missed one-shot reminders go after 24 h; command rows stay until removed.
    if (kind === 'reminder' && row.status !== 'pending' && !row.claim) {
      const since = Date.parse(row.firedAt ?? row.nextRunAt ?? row.createdAt);
      if (nowMs - since >= retention) {
        result.cleaned.push(row.id);
        result.changed = true;
        continue;
      }
    }

    if (row.claim) {
      const reason = deadClaimReason(row.claim, now, { holder: opts.holder, ownLiveTokens: opts.ownLiveTokens, alive: opts.alive, staleMs: opts.heartbeatStaleMs });
      if (reason !== undefined) {
        const { claim: _dropped, ...rest } = row;
        row = { ...rest, fact: interruptedFact(row, reason) } as R;
        if (kind === 'command') delete (row as CommandRow).runningTimeoutMinutes;
        result.interrupted.push(row.id);
        result.changed = true;
      }
      out.push(row);
      continue; // a running row is never claimed again until its fact is written
    }

    // A reminder of a workspace waits for a window of that workspace (docs/architecture.md, Flow 2).
    if (kind === 'reminder' && !mayFire(row.owner, opts.folders)) {
      out.push(row);
      continue;
    }

    if (row.status !== 'pending' || row.nextRunAt === null) {
      out.push(row);
      continue;
    }
    // Most rows are not due: instants this code wrote compare as text (same UTC format), no parse.
    if (isUtcIso(row.nextRunAt) && row.nextRunAt > nowIso) {
      out.push(row);
      continue;
    }
    const due = Date.parse(row.nextRunAt);
    if (due > nowMs) {
      out.push(row);
      continue;
    }

    // Catch-up: everything whose time passed is taken once; a recurring row that missed several runs runs once.
    const recurring = row.schedule.kind !== 'once';
    let scheduledFor = new Date(due);
    let missedRuns = 0;
    let missedRunsCapped = false;
    if (recurring) {
      // missedRuns is exact up to 1,000 (the run taken now is the 1,001st), then capped and marked.
      const span = missedRunsBetween(row.schedule, new Date(due - 1), now, 1001);
      if (span.latest && span.latest.getTime() >= due) {
        scheduledFor = span.latest;
        missedRuns = Math.max(0, span.count - 1);
        missedRunsCapped = span.capped;
      }
    }
    const capped: Pick<Fact, 'missedRunsCapped'> = missedRunsCapped ? { missedRunsCapped: true } : {};
    const lateMs = nowMs - scheduledFor.getTime();
    const next = recurring ? nextRunAfter(row.schedule, now) : null;
    const limit = opts.maxLatenessMs[kind];

    if (lateMs > limit) {
      const fact: Fact = { ...(row.fact ?? {}), lateMs, missedRuns: (row.fact?.missedRuns ?? 0) + missedRuns + 1, ...capped };
      if (!recurring) {
        row = { ...row, status: 'missed', nextRunAt: null, firedAt: iso(now), fact: { lateMs, missedRuns: 1, error: `missed: ${formatLate(lateMs)} late, past the ${formatLate(limit)} catch-up limit` } } as R;
      } else {
        row = { ...row, nextRunAt: next ? iso(next) : null, fact } as R;
      }
      result.missed.push({ id: row.id, scheduledFor: iso(scheduledFor), lateMs, missedRuns: missedRuns + 1 });
      result.changed = true;
      out.push(row);
      continue;
    }

    const token = opts.newToken();
    const claim = newClaim(opts.holder, token, now, scheduledFor);
    const fact: Fact = missedRuns > 0 ? { lateMs, missedRuns, ...capped } : { lateMs };
    const claimed = {
      ...row,
      status: recurring && next ? 'pending' : 'fired',
      nextRunAt: recurring && next ? iso(next) : null,
      firedAt: iso(now),
      fact,
      claim,
    } as R;
    if (kind === 'command') {
      const cmd = claimed as CommandRow;
      (claimed as CommandRow).runningTimeoutMinutes = cmd.timeoutMinutes;
    }
    out.push(claimed);
    result.claimed.push({ id: row.id, token, scheduledFor: iso(scheduledFor), firedAt: iso(now), lateMs, missedRuns });
    result.changed = true;
  }
  return result;
}

/** Writes a run's fact, only if the row still exists and still carries this run's token. */
export function recordFact<R extends ScheduleRow>(rows: readonly R[], id: string, token: string, fact: Fact): { rows: R[]; applied: boolean } {
  let applied = false;
  const out = rows.map((row) => {
    if (row.id !== id || row.claim?.token !== token) return row;
    applied = true;
    const { claim: _claim, ...rest } = row;
    const merged: Fact = { ...(row.fact ?? {}), ...fact };
    const next = { ...rest, fact: merged } as R;
    if (kindOf(row) === 'command') delete (next as CommandRow).runningTimeoutMinutes;
    return next;
  });
  return { rows: applied ? out : [...rows], applied };
}

/** Refreshes the heartbeat of runs this holder still has in flight. */
export function heartbeat<R extends ScheduleRow>(rows: readonly R[], tokens: ReadonlySet<string>, now: Date): { rows: R[]; changed: boolean } {
  return refreshHeartbeats(rows, tokens, now);
}

/** The earliest instant a pass has work: a due row, or a running row whose holder may go stale. */
export function nextWorkAt(rows: readonly ScheduleRow[], heartbeatStaleMs = HEARTBEAT_STALE_MS): Date | null {
  let best = Infinity;
  // Instants this code wrote compare as text (same UTC format): the earliest is parsed once.
  let earliestIso: string | undefined;
  for (const row of rows) {
    if (row.claim) {
      best = Math.min(best, Date.parse(row.claim.heartbeatAt) + heartbeatStaleMs + 1);
    } else if (row.status === 'pending' && row.nextRunAt) {
      if (!isUtcIso(row.nextRunAt)) best = Math.min(best, Date.parse(row.nextRunAt));
      else if (earliestIso === undefined || row.nextRunAt < earliestIso) earliestIso = row.nextRunAt;
    }
  }
  if (earliestIso !== undefined) best = Math.min(best, Date.parse(earliestIso));
  return Number.isFinite(best) ? new Date(best) : null;
}

/** Make a row due on the next pass; a recurring row keeps its cadence afterwards. */
export function runNow<R extends ScheduleRow>(row: R, now: Date): { row: R; running: boolean } {
  const running = isRunning(row);
  // A one-shot is now due at `now`; a recurring row keeps its schedule (and so its cadence).
  const schedule = row.schedule.kind === 'once' ? { kind: 'once' as const, at: iso(now) } : row.schedule;
  const moved = { ...row, schedule, status: 'pending', nextRunAt: iso(now) } as R;
  return { row: moved, running };
}

/** Reschedule a row, keeping its id and text; a run in flight keeps its own timeout. */
export function moveRow<R extends ScheduleRow>(row: R, schedule: R['schedule'], nextRunAt: Date, tz: string, timeoutMinutes?: number): { row: R; running: boolean } {
  const running = isRunning(row);
  const moved = { ...row, schedule, tz, status: 'pending', nextRunAt: iso(nextRunAt) } as R;
  if (kindOf(row) === 'command' && timeoutMinutes !== undefined) {
    const cmd = moved as CommandRow;
    if (running && cmd.runningTimeoutMinutes === undefined) cmd.runningTimeoutMinutes = (row as CommandRow).timeoutMinutes;
    cmd.timeoutMinutes = timeoutMinutes;
  }
  return { row: moved, running };
}

export function formatLate(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (min < 120) return `${min} min`;
  const h = ms / 3600_000;
  return h < 48 ? `${Math.round(h * 10) / 10} h` : `${Math.round(h / 24)} days`;
}

