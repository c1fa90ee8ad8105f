/**
 * The durable wake row (`wakes.json`; README "Wakes") and its lifecycle, pure. The store
 * applies these transitions under the table's lock, so each step is on disk before it has effect:
 *
 *   pending ──trigger/due──▶ delivering ──received──▶ fired
 *      │                        │  ▲                     (`fact.delivered`: the receiver had it)
 *      │                        ▼  │ release
 *      │                       held (paused | cap | busy | unreachable) ──2 min unreachable──▶ fired via notification
 *      └─▶ missed (a timer past the catch-up limit) · cancelled (by its token or from the sidebar)
 *
 * `delivering` carries a claim (holder + heartbeat) like a running schedule row (../claim.ts): when its
 * holder is gone, a window that may deliver the wake takes it over, so a reload or crash never strands
 * it; its pulse is then marked `redelivered` (the gone holder may have sent it already). A `job.done`
 * wake whose watching window is gone is triggered as `lost` (a job status, not a row status) and
 * delivered like any other. Fired, missed and cancelled rows are kept 24 h.
 */
import { z } from 'zod';
import { deadClaimReason, mayFire, newClaim, refreshHeartbeats, type Holder, type Liveness } from '../claim';
import { landingRefSchema, type LandingRef } from '../landing';
import { claimSchema, isoInstant, ownerSchema, type Owner } from '../schema';
import { describeInstant } from '../time/describe';
import { isCommandId, isRunJobId, WAKE_ID } from '../ids';
import { jobStatus } from './jobStatus';
import { wakeSenderSchema, type WakeSender } from './sender';
import {
  CANCEL_TOKEN_MAX,
  deskStateSchema,
  describeWhen,
  JOB_ID_MAX,
  jobStatusSchema,
  jsonValueSchema,
  THREAD_ID_MAX,
  WAKE_RETENTION_MS,
  WAKE_TEXT_MAX,
  wakeWhenSchema,
  type DeskState,
  type JobStatus,
  type NewWake,
} from './contract';

export const wakeStatusSchema = z.enum(['pending', 'held', 'delivering', 'fired', 'missed', 'cancelled']);
export const heldReasonSchema = z.enum(['paused', 'cap', 'busy', 'unreachable']);
export type HeldReason = z.infer<typeof heldReasonSchema>;
/** How a pulse reached its receiver. */
export const wakeViaSchema = z.enum(['life', 'agent', 'mcp', 'wait', 'notification']);

/** After this long unreachable, a pulse goes to a notification and the feed instead. */
export const UNREACHABLE_FALLBACK_MS = 2 * 60_000;

export const wakeFactSchema = z
  .object({
    delivered: z.boolean().optional(),
    via: wakeViaSchema.optional(),
    /** Submitted where no receipt can be seen (chat agent mode). */
    unverified: z.boolean().optional(),
    /** Why it was not delivered where it was meant to go. */
    reason: z.string().max(400).optional(),
    error: z.string().max(2000).optional(),
    lateMs: z.number().nonnegative().optional(),
    jobStatus: jobStatusSchema.optional(),
    exitCode: z.number().int().nullable().optional(),
    /** Our timeout killed the job (jobStatus failed, exitCode null); see ./jobStatus.ts. */
    timedOut: z.boolean().optional(),
    summary: z.string().max(400).optional(),
    /** The pulse's length in characters (the wake_chars metric). */
    wakeChars: z.number().int().nonnegative().optional(),
    /** From the job's end to the landing shown (time-to-report-locus). */
    timeToLocusMs: z.number().nonnegative().optional(),
    /** Delivery attempts that found no receiver. */
    attempts: z.number().int().nonnegative().optional(),
    /** Taken over from a holder that died after its claim: the pulse may have gone out already (at least once, a repeat marked). */
    redelivered: z.boolean().optional(),
    /** Delivered to a later MCP session of the same client and folder than the one that set it. */
    earlierSession: z.boolean().optional(),
    /** Beside the job's own landing, outside a window: the failing line its output names (`/abs/path:19`) and its report page's URL. */
    locus: z.string().min(3).max(4200).optional(),
    report: z.string().min(1).max(8192).optional(),
  })
  .strict();
export type WakeFact = z.infer<typeof wakeFactSchema>;

export const wakeIdSchema = z.string().regex(WAKE_ID, 'must be a wake id (w-…)');

export const wakeRowSchema = z
  .object({
    id: wakeIdSchema,
    text: z.string().min(1).max(WAKE_TEXT_MAX).optional(),
    payload: jsonValueSchema.optional(),
    when: wakeWhenSchema,
    jobId: z.string().min(1).max(JOB_ID_MAX).optional(),
    threadId: z.string().min(1).max(THREAD_ID_MAX).optional(),
    cancelToken: z.string().min(1).max(CANCEL_TOKEN_MAX).optional(),
    /** The owner's zone the wake was read in, for showing its time back. */
    tz: z.string().min(1).max(64).optional(),
    owner: z.optional(ownerSchema),
    /** Who set it (./sender.ts); none reads as `life`. */
    sender: wakeSenderSchema.optional(),
    status: wakeStatusSchema,
    heldReason: heldReasonSchema.optional(),
    heldAt: z.optional(isoInstant),
    /** Timer: when it fires; event wakes: null. */
    nextRunAt: z.nullable(isoInstant),
    createdAt: isoInstant,
    /** When its trigger came (the job ended, the timer came due, …). */
    triggeredAt: z.optional(isoInstant),
    /** The first delivery that found no receiver: the notification fallback counts from here. */
    unreachableSince: z.optional(isoInstant),
    firedAt: z.optional(isoInstant),
    cancelledAt: z.optional(isoInstant),
    fact: wakeFactSchema.optional(),
    claim: z.optional(claimSchema),
    /** job.done: when the watching window saw the job start. */
    jobStartedAt: z.optional(isoInstant),
    /** job.done on a `life-thread run` job: that run's latest heartbeat, for a waiter that cannot check its pid. */
    watchedAt: z.optional(isoInstant),
    /** Where the pulse lands (the caller's landing, or the job's evidence or code locus). */
    landing: landingRefSchema.optional(),
    desk: deskStateSchema.optional(),
    /** A short note for presence and scm events ("branch main → fix"). */
    detail: z.string().max(200).optional(),
    /** Rows written before owners existed name their watching window here. */
    window: z.string().min(1).max(80).optional(),
  })
  .strict()
  .superRefine((row, ctx) => {
    if ((row.text === undefined) === (row.payload === undefined)) ctx.addIssue({ code: 'custom', path: ['text'], message: 'a wake holds exactly one of text and payload' });
    if (row.when === 'job.done' && row.jobId === undefined) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'a job.done wake needs jobId' });
    if (row.when !== 'job.done' && row.jobId !== undefined) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'only a job.done wake has jobId' });
    if (row.when === 'timer' && row.status === 'pending' && row.nextRunAt === null) ctx.addIssue({ code: 'custom', path: ['nextRunAt'], message: 'a pending timer wake needs nextRunAt' });
    if ((row.status === 'held') !== (row.heldReason !== undefined)) ctx.addIssue({ code: 'custom', path: ['heldReason'], message: 'a held wake (and only a held wake) has heldReason' });
    if ((row.status === 'delivering') !== (row.claim !== undefined)) ctx.addIssue({ code: 'custom', path: ['claim'], message: 'a delivering wake (and only a delivering wake) has a claim' });
  });
export type WakeRow = z.infer<typeof wakeRowSchema>;

/** The row for a parsed wake, owned by whoever set it. */
export function newWakeRow(parsed: NewWake, opts: { id: string; now: Date; owner?: Owner; sender?: WakeSender; jobStartedAt?: Date; watchedAt?: Date; landing?: LandingRef }): WakeRow {
  return {
    id: opts.id,
    ...(parsed.text !== undefined ? { text: parsed.text } : {}),
    ...(parsed.payload !== undefined ? { payload: parsed.payload } : {}),
    when: parsed.when,
    ...(parsed.jobId !== undefined ? { jobId: parsed.jobId } : {}),
    ...(parsed.threadId !== undefined ? { threadId: parsed.threadId } : {}),
    ...(parsed.cancelToken !== undefined ? { cancelToken: parsed.cancelToken } : {}),
    tz: parsed.tz,
    ...(opts.owner ? { owner: opts.owner } : {}),
    ...(opts.sender ? { sender: opts.sender } : {}),
    status: 'pending',
    nextRunAt: parsed.nextRunAt === null ? null : parsed.nextRunAt.toISOString(),
    createdAt: opts.now.toISOString(),
    ...(parsed.when === 'job.done' && opts.jobStartedAt !== undefined ? { jobStartedAt: opts.jobStartedAt.toISOString() } : {}),
    ...(parsed.when === 'job.done' && opts.watchedAt !== undefined ? { watchedAt: opts.watchedAt.toISOString() } : {}),
    ...(opts.landing ? { landing: opts.landing } : {}),
  };
}

/** The wake's state in words, in `tz` (default its own zone). */
export function describeWake(row: WakeRow, now: Date, tz = row.tz ?? 'UTC'): string {
  const at = (iso: string | undefined): string => (iso ? describeInstant(new Date(iso), tz, now) : '');
  switch (row.status) {
    case 'fired':
      return `fired ${at(row.firedAt)}${row.fact?.via ? ` via ${row.fact.via}` : ''}`.trim();
    case 'missed':
      return 'missed';
    case 'cancelled':
      return `cancelled ${at(row.cancelledAt)}`.trim();
    case 'held':
      return `held: ${HELD_WORDS[row.heldReason ?? 'unreachable']}`;
    case 'delivering':
      return 'delivering now';
    case 'pending':
      break;
  }
  if (row.when === 'timer') return row.nextRunAt ? `at ${at(row.nextRunAt)}` : 'timer without an instant';
  const cond = describeWhen(row.when, row.jobId);
  if (row.when === 'job.done') return `${cond}${row.jobStartedAt ? ' (running)' : ' (waiting for it to start)'}`;
  return cond;
}

export const HELD_WORDS: Record<HeldReason, string> = {
  paused: 'wakes are paused; it is delivered when you resume them',
  cap: 'the hourly cap of wakes is reached; it is delivered when the hour allows',
  busy: 'its chat agent is answering (@life, or Agent mode on a Life Thread model); it is delivered when the answer ends',
  unreachable: 'the chat could not be reached; trying again',
};

// ---------------------------------------------------------------------------------------------
// Transitions (src/node/wakes.ts applies them under the table lock)

export interface ClaimContext {
  now: Date;
  holder: Holder;
  newToken: () => string;
}

/** The outcome of a trigger, written on the wakes it fires. */
export interface WakeOutcome extends Pick<WakeFact, 'locus' | 'report'> {
  jobStatus?: JobStatus;
  exitCode?: number | null;
  timedOut?: boolean;
  summary?: string;
  landing?: LandingRef;
  desk?: DeskState;
  detail?: string;
  jobStartedAt?: Date;
}

/** A wake taken for delivery by this holder: deliver it after checking `token` is still on the row. */
export interface ClaimedWake {
  id: string;
  token: string;
  /** The row as claimed. */
  row: WakeRow;
}

export interface Transition {
  rows: WakeRow[];
  claimed: ClaimedWake[];
  changed: boolean;
}

function iso(d: Date): string {
  return d.toISOString();
}

function withOutcome(row: WakeRow, o: WakeOutcome | undefined): WakeRow {
  if (!o) return row;
  const fact: WakeFact = {
    ...(row.fact ?? {}),
    ...(o.jobStatus !== undefined ? { jobStatus: o.jobStatus } : {}),
    ...(o.exitCode !== undefined ? { exitCode: o.exitCode === null || Number.isInteger(o.exitCode) ? o.exitCode : null } : {}),
    ...(o.timedOut === true ? { timedOut: true } : {}),
    ...(o.summary !== undefined ? { summary: o.summary.slice(0, 400) } : {}),
    ...(row.landing ? {} : { ...(o.locus !== undefined ? { locus: o.locus } : {}), ...(o.report !== undefined ? { report: o.report } : {}) }),
  };
  return {
    ...row,
    ...(Object.keys(fact).length > 0 ? { fact } : {}),
    // The caller's own landing wins over the job's evidence.
    ...(o.landing && !row.landing ? { landing: o.landing } : {}),
    ...(o.desk ? { desk: o.desk } : {}),
    ...(o.detail !== undefined ? { detail: o.detail.slice(0, 200) } : {}),
    ...(o.jobStartedAt && !row.jobStartedAt ? { jobStartedAt: iso(o.jobStartedAt) } : {}),
  };
}

/** `row` claimed for delivery by the context's holder. */
function claimOne(row: WakeRow, ctx: ClaimContext, outcome?: WakeOutcome): ClaimedWake {
  const token = ctx.newToken();
  const { heldReason: _r, heldAt: _a, ...rest } = withOutcome(row, outcome);
  const claimed: WakeRow = { ...rest, status: 'delivering', claim: newClaim(ctx.holder, token, ctx.now, new Date(row.triggeredAt ?? ctx.now)), triggeredAt: row.triggeredAt ?? iso(ctx.now) };
  return { id: row.id, token, row: claimed };
}

function apply(rows: readonly WakeRow[], take: Map<string, WakeRow>, claimed: ClaimedWake[]): Transition {
  return take.size === 0 ? { rows: [...rows], claimed, changed: false } : { rows: rows.map((r) => take.get(r.id) ?? r), claimed, changed: true };
}

/**
 * A wake set through MCP is its session's while the MCP server lives: its timers and
 * its `j-…` jobs (`life-thread run`) wait for that server or a `life-thread wait`, not for a window.
 * Once the server is gone, or it gave the wake up (held), a window of its folder delivers it.
 */
export function keptBySession(row: WakeRow, alive: Liveness | undefined): boolean {
  const owner = row.owner;
  if (owner?.kind !== 'mcp' || row.status !== 'pending' || alive === undefined) return false;
  if (row.when !== 'timer' && !(row.when === 'job.done' && isRunJobId(row.jobId))) return false;
  return alive(owner) === true;
}

/** Whether this dispatcher (a window with these folders, or the CLI/MCP with none) may deliver the wake. */
export function mayDeliver(row: WakeRow, folders: readonly string[] | undefined, alive?: Liveness): boolean {
  return mayFire(row.owner, folders) && !keptBySession(row, alive);
}

/** What a wake set through MCP says in its fact when it went elsewhere than its session. */
export function sessionFallbackNote(row: WakeRow, via: WakeFact['via']): string | undefined {
  const o = row.owner;
  if (o?.kind !== 'mcp' || via === 'mcp' || via === 'wait' || via === undefined) return undefined;
  const who = `${o.client ?? 'an MCP client'}${o.pid !== undefined ? `, pid ${o.pid}` : ''}${o.cwd ? `, in ${o.cwd}` : ''}`;
  const where = via === 'notification' ? 'a notification' : via === 'agent' ? 'chat agent mode' : '@life in a VS Code window';
  return `set through MCP (${who}); that session could not take it (gone, or no push and no life-thread wait), so it went to ${where}`;
}

/** Claims the pending wakes `match` selects (a job's end, the user's return, a repository change), writing the event's outcome on them. */
export function claimTriggered(rows: readonly WakeRow[], match: (row: WakeRow) => boolean, ctx: ClaimContext, outcome: WakeOutcome): Transition {
  const take = new Map<string, WakeRow>();
  const claimed: ClaimedWake[] = [];
  for (const r of rows) {
    if (r.status !== 'pending' || !match(r)) continue;
    const c = claimOne(r, ctx, outcome);
    take.set(r.id, c.row);
    claimed.push(c);
  }
  return apply(rows, take, claimed);
}

/**
 * Claims the timers that came due (earliest first) among those `eligible` selects; a timer later than
 * `maxLatenessMs` is marked missed instead.
 */
export function claimDueTimers(rows: readonly WakeRow[], ctx: ClaimContext, opts: { eligible: (row: WakeRow) => boolean; maxLatenessMs?: number }): Transition & { missed: string[] } {
  const nowMs = ctx.now.getTime();
  const due = rows
    .filter((r) => r.status === 'pending' && r.when === 'timer' && r.nextRunAt !== null && Date.parse(r.nextRunAt) <= nowMs && opts.eligible(r))
    .sort((a, b) => Date.parse(a.nextRunAt ?? '') - Date.parse(b.nextRunAt ?? ''));
  const take = new Map<string, WakeRow>();
  const claimed: ClaimedWake[] = [];
  const missed: string[] = [];
  for (const r of due) {
    const at = Date.parse(r.nextRunAt ?? '');
    const lateMs = nowMs - at;
    if (opts.maxLatenessMs !== undefined && lateMs > opts.maxLatenessMs) {
      take.set(r.id, { ...r, status: 'missed', firedAt: iso(ctx.now), fact: { ...(r.fact ?? {}), lateMs, error: 'missed: past the catch-up limit' } });
      missed.push(r.id);
      continue;
    }
    const c = claimOne({ ...r, triggeredAt: iso(new Date(at)), fact: { ...(r.fact ?? {}), lateMs } }, ctx);
    take.set(r.id, c.row);
    claimed.push(c);
  }
  return { ...apply(rows, take, claimed), missed };
}

/** Claims held wakes `eligible` selects (their reason no longer applies), at most `max`, oldest trigger first. */
export function claimHeld(rows: readonly WakeRow[], ctx: ClaimContext, opts: { eligible: (row: WakeRow) => boolean; max?: number }): Transition {
  const held = rows.filter((r) => r.status === 'held' && opts.eligible(r)).sort((a, b) => Date.parse(a.triggeredAt ?? a.createdAt) - Date.parse(b.triggeredAt ?? b.createdAt));
  const room = opts.max === undefined ? Infinity : Math.max(0, Math.floor(opts.max));
  const take = new Map<string, WakeRow>();
  const claimed: ClaimedWake[] = [];
  for (const r of held.slice(0, room === Infinity ? held.length : room)) {
    const c = claimOne(r, ctx);
    take.set(r.id, c.row);
    claimed.push(c);
  }
  return apply(rows, take, claimed);
}

/** Releases this holder's claims to `held` with a reason (paused, over the cap, @life busy, no chat). */
export function holdClaimed(rows: readonly WakeRow[], claims: readonly Pick<ClaimedWake, 'id' | 'token'>[], reason: HeldReason, now: Date): { rows: WakeRow[]; held: string[] } {
  const tokens = new Map(claims.map((c) => [c.id, c.token]));
  const held: string[] = [];
  const out = rows.map((r) => {
    if (r.status !== 'delivering' || r.claim === undefined || tokens.get(r.id) !== r.claim.token) return r;
    held.push(r.id);
    const { claim: _c, ...rest } = r;
    const attempts = reason === 'unreachable' ? (r.fact?.attempts ?? 0) + 1 : r.fact?.attempts;
    return {
      ...rest,
      status: 'held' as const,
      heldReason: reason,
      heldAt: iso(now),
      ...(reason === 'unreachable' && !r.unreachableSince ? { unreachableSince: iso(now) } : {}),
      ...(attempts !== undefined ? { fact: { ...(r.fact ?? {}), attempts } } : {}),
    };
  });
  return { rows: held.length > 0 ? out : [...rows], held };
}

/**
 * The receiver had the pulse: the wakes become fired with the delivery fact. A wake still claimed or
 * held (a receipt that came after the sender gave up waiting) counts; one already fired does not.
 */
export function markDelivered(rows: readonly WakeRow[], ids: readonly string[], fact: WakeFact, now: Date): { rows: WakeRow[]; delivered: string[] } {
  const want = new Set(ids);
  const delivered: string[] = [];
  const out = rows.map((r) => {
    if (!want.has(r.id) || (r.status !== 'delivering' && r.status !== 'held')) return r;
    delivered.push(r.id);
    const { claim: _c, heldReason: _h, heldAt: _a, ...rest } = r;
    const note = sessionFallbackNote(r, fact.via);
    const reason = note === undefined ? fact.reason : fact.reason ? `${fact.reason}; ${note}` : note;
    return { ...rest, status: 'fired' as const, firedAt: iso(now), fact: { ...(r.fact ?? {}), ...fact, ...(reason !== undefined ? { reason: reason.slice(0, 400) } : {}) } };
  });
  return { rows: delivered.length > 0 ? out : [...rows], delivered };
}

/** Updates the fact (wake_chars, time to locus, the landing as shown) of wakes of this delivery. */
export function annotate(rows: readonly WakeRow[], ids: readonly string[], fact: WakeFact, extra: { landing?: LandingRef; desk?: DeskState } = {}): { rows: WakeRow[]; changed: boolean } {
  const want = new Set(ids);
  let changed = false;
  const out = rows.map((r) => {
    if (!want.has(r.id)) return r;
    changed = true;
    return { ...r, fact: { ...(r.fact ?? {}), ...fact }, ...(extra.landing ? { landing: extra.landing } : {}), ...(extra.desk ? { desk: extra.desk } : {}) };
  });
  return { rows: changed ? out : [...rows], changed };
}

/**
 * Takes over what a gone holder left: a delivering wake whose holder died is claimed again
 * by this holder; a job.done wake whose watching window died is triggered as `lost` and claimed. Only
 * the wakes `eligible` selects (this window may deliver them) are touched.
 */
export function takeOverOrphans(
  rows: readonly WakeRow[],
  ctx: ClaimContext,
  opts: { eligible: (row: WakeRow) => boolean; alive?: Liveness; ownLiveTokens?: ReadonlySet<string>; staleMs?: number },
): Transition & { lost: string[]; resumed: string[] } {
  const take = new Map<string, WakeRow>();
  const claimed: ClaimedWake[] = [];
  const lost: string[] = [];
  const resumed: string[] = [];
  for (const r of rows) {
    if (!opts.eligible(r)) continue;
    if (r.status === 'delivering' && r.claim) {
      const dead = deadClaimReason(r.claim, ctx.now, { holder: ctx.holder, ownLiveTokens: opts.ownLiveTokens, alive: opts.alive, staleMs: opts.staleMs });
      if (dead === undefined) continue;
      const { claim: _c, ...rest } = r;
      // The gone holder may have printed or sent the pulse before it could record it: the repeat says so.
      const c = claimOne({ ...rest, status: 'held', heldReason: 'unreachable', fact: { ...(r.fact ?? {}), redelivered: true } }, ctx);
      take.set(r.id, c.row);
      claimed.push(c);
      resumed.push(r.id);
    } else if (r.status === 'pending' && r.when === 'job.done' && !isCommandId(r.jobId) && watcherGone(r, ctx.holder, opts.alive)) {
      const c = claimOne(r, ctx, { jobStatus: jobStatus({ lost: true }), exitCode: null, summary: `the window watching ${r.jobId ?? 'the job'} closed or reloaded before the job ended` });
      take.set(r.id, c.row);
      claimed.push(c);
      lost.push(r.id);
    }
  }
  return { ...apply(rows, take, claimed), lost, resumed };
}

/** The window that watches a task or terminal job is gone (not this one, and its process is not alive). */
function watcherGone(row: WakeRow, me: Holder, alive: Liveness | undefined): boolean {
  const window = row.owner?.window ?? row.window;
  // Set outside a window (CLI, MCP): any window may see the job end; nothing watches it to lose it.
  if (window === undefined) return false;
  if (window === me.window.slice(0, 80)) return false;
  if (row.owner?.pid === undefined) return true;
  return alive?.(row.owner) === false;
}

/** Cancels the wakes holding `token` that have not fired; returns them. */
export function cancelRows(rows: readonly WakeRow[], select: (r: WakeRow) => boolean, now: Date): { rows: WakeRow[]; cancelled: WakeRow[] } {
  const cancelled: WakeRow[] = [];
  const out = rows.map((r) => {
    if (!select(r) || (r.status !== 'pending' && r.status !== 'held' && r.status !== 'delivering')) return r;
    const { claim: _c, heldReason: _h, heldAt: _a, ...rest } = r;
    const row: WakeRow = { ...rest, status: 'cancelled', cancelledAt: iso(now) };
    cancelled.push(row);
    return row;
  });
  return { rows: cancelled.length > 0 ? out : [...rows], cancelled };
}

/** Refreshes the heartbeat of deliveries still in flight. */
export function heartbeatRows(rows: readonly WakeRow[], tokens: ReadonlySet<string>, now: Date): { rows: WakeRow[]; changed: boolean } {
  return refreshHeartbeats(rows, tokens, now);
}

/** Removes fired, missed and cancelled wakes older than `retentionMs`. */
export function cleanRows(rows: readonly WakeRow[], now: Date, retentionMs = WAKE_RETENTION_MS): { rows: WakeRow[]; cleaned: string[] } {
  const cleaned: string[] = [];
  const out = rows.filter((r) => {
    if (r.status !== 'fired' && r.status !== 'missed' && r.status !== 'cancelled') return true;
    const since = Date.parse(r.firedAt ?? r.cancelledAt ?? r.createdAt);
    if (now.getTime() - since < retentionMs) return true;
    cleaned.push(r.id);
    return false;
  });
  return { rows: cleaned.length > 0 ? out : [...rows], cleaned };
}

/** The earliest instant a pending timer comes due. */
export function nextDueAt(rows: readonly WakeRow[]): Date | null {
  let best = Infinity;
  for (const r of rows) if (r.status === 'pending' && r.when === 'timer' && r.nextRunAt !== null) best = Math.min(best, Date.parse(r.nextRunAt));
  return Number.isFinite(best) ? new Date(best) : null;
}

/**
 * Room under the hourly cap: pulses started in the last hour, across windows and
 * restarts, are the fired rows delivered to a chat and the deliveries in flight. When there is no
 * room, `retryAt` is when the oldest counted leaves the hour.
 */
export function capRoom(rows: readonly WakeRow[], now: Date, maxPerHour: number): { room: number; retryAt: number | null } {
  const HOUR = 3600_000;
  const max = Math.max(1, Math.floor(maxPerHour));
  const t = now.getTime();
  const starts: number[] = [];
  for (const r of rows) {
    if (r.status === 'delivering') starts.push(t);
    else if (r.status === 'fired' && r.firedAt && (r.fact?.via === 'life' || r.fact?.via === 'agent')) {
      const at = Date.parse(r.firedAt);
      if (at > t - HOUR) starts.push(at);
    }
  }
  const room = max - starts.length;
  if (room > 0) return { room, retryAt: null };
  starts.sort((a, b) => a - b);
  return { room: 0, retryAt: (starts[starts.length - max] ?? t) + HOUR };
}

/** The notification fallback is due for a wake unreachable this long. */
export function unreachableTooLong(row: WakeRow, now: Date): boolean {
  return row.unreachableSince !== undefined && now.getTime() - Date.parse(row.unreachableSince) >= UNREACHABLE_FALLBACK_MS;
}
