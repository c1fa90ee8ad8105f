/**
 * The durable wakes (`wakes.json`): add, list, cancel, and the lifecycle of
 * ../core/wake/row.ts applied under the table's cross-process lock, so every step is on disk before it
 * has effect and a wake is delivered by one holder at a time. Shared by the extension host, the CLI and
 * the MCP server.
 */
import { open } from 'node:fs/promises';
import type { Holder, Liveness } from '../core/claim';
import { InputError } from '../core/errors';
import type { LandingRef } from '../core/landing';
import { LOG_TAIL_BYTES, type NewWake } from '../core/wake/contract';
import {
  annotate,
  cancelRows,
  claimDueTimers,
  claimHeld,
  claimTriggered,
  cleanRows,
  heartbeatRows,
  holdClaimed,
  markDelivered,
  newWakeRow,
  nextDueAt,
  takeOverOrphans,
  wakeRowSchema,
  type ClaimContext,
  type ClaimedWake,
  type HeldReason,
  type WakeFact,
  type WakeOutcome,
  type WakeRow,
} from '../core/wake/row';
import { refreshWatched } from '../core/wake/runWatch';
import { markAgentReceipt, markVerified } from '../core/wake/receipt';
import type { WakeSender } from '../core/wake/sender';
import type { Owner } from '../core/schema';
import type { FsSeam } from './fs-seam';
import { newId, randomBase36 } from './ids';
import { Table, type TableSnapshot } from './store/table';

export interface WakeStoreOptions {
  dir: string;
  fs?: FsSeam;
  lockWaitMs?: number;
}

/** Who claims, and when. */
export interface WakeClaimer {
  now: Date;
  holder: Holder;
  newToken?: () => string;
}

function ctxOf(c: WakeClaimer): ClaimContext {
  return { now: c.now, holder: c.holder, newToken: c.newToken ?? (() => randomBase36(16)) };
}

export class WakeStore {
  readonly dir: string;
  readonly table: Table<WakeRow>;

  constructor(opts: WakeStoreOptions) {
    this.dir = opts.dir;
    this.table = new Table<WakeRow>({ dir: opts.dir, fs: opts.fs, lockWaitMs: opts.lockWaitMs, name: 'wakes', rowSchema: wakeRowSchema });
  }

  /** Writes a parsed wake (parseWakeInput's `kind: 'wake'` result) as a pending row `w-…`, owned by its setter. */
  async add(parsed: NewWake, opts: { now: Date; owner?: Owner; sender?: WakeSender; jobStartedAt?: Date; watchedAt?: Date; landing?: LandingRef }): Promise<WakeRow> {
    const row = newWakeRow(parsed, { id: newId('w'), ...opts });
    await this.table.append(row);
    return row;
  }

  async list(): Promise<WakeRow[]> {
    return (await this.table.read()).rows;
  }

  async read(): Promise<TableSnapshot<WakeRow>> {
    return this.table.read();
  }

  async get(id: string): Promise<WakeRow | undefined> {
    return (await this.list()).find((r) => r.id === id);
  }

  /**
   * Cancels the wakes holding `token` that have not fired and returns them. No wake with it →
   * InputError(field); only fired ones → InputError(field) saying so (they are kept for the list).
   */
  async cancel(token: string, field = 'cancel_token', now = new Date()): Promise<WakeRow[]> {
    const t = typeof token === 'string' ? token.trim() : '';
    if (t === '') throw new InputError(field, 'is missing: give the cancel token the wake was added with');
    return this.table.update((rows) => {
      const holding = rows.filter((r) => r.cancelToken === t);
      if (holding.length === 0) throw new InputError(field, `no wake holds the cancel token '${t}'`);
      const r = cancelRows(rows, (x) => x.cancelToken === t, now);
      if (r.cancelled.length === 0) {
        throw new InputError(field, `the wake${holding.length === 1 ? '' : 's'} holding '${t}' ${holding.length === 1 ? 'is' : 'are'} no longer waiting (${holding.map((x) => `${x.id} ${x.status}`).join(', ')}); nothing to cancel`);
      }
      return { rows: r.rows, result: r.cancelled };
    });
  }

  /** Cancels one wake by id (the sidebar's remove); unknown id or one no longer waiting → InputError(field). */
  async cancelById(id: string, field = 'id', now = new Date()): Promise<WakeRow> {
    return this.table.update((rows) => {
      const found = rows.find((r) => r.id === id);
      if (!found) throw new InputError(field, `no wake with id ${id}`);
      const r = cancelRows(rows, (x) => x.id === id, now);
      const row = r.cancelled[0];
      if (!row) throw new InputError(field, `wake ${id} is ${found.status}; only a waiting wake can be cancelled`);
      return { rows: r.rows, result: row };
    });
  }

  /**
   * Claims the timers that came due among those `eligible` selects (one holder each, across windows and
   * processes); one past `maxLatenessMs` becomes missed. Settled wakes older than a day are cleaned
   * in the same write. An idle pass (nothing due, nothing to clean) reads without the lock and writes
   * nothing (idle_store_writes_per_hour).
   */
  async claimDue(claimer: WakeClaimer, opts: { eligible: (row: WakeRow) => boolean; maxLatenessMs?: number; retentionMs?: number }): Promise<{ claimed: ClaimedWake[]; missed: string[] }> {
    const ctx = ctxOf(claimer);
    return this.table.maybeUpdate((rows) => {
      const c = claimDueTimers(rows, ctx, opts);
      const cleaned = cleanRows(c.rows, ctx.now, opts.retentionMs);
      const changed = c.changed || cleaned.cleaned.length > 0;
      return { rows: changed ? cleaned.rows : rows, result: { claimed: c.claimed, missed: c.missed } };
    });
  }

  /** A trigger happened (a job ended, the user is back, the repository changed): claims the pending wakes `match` selects. */
  async claimTriggered(match: (row: WakeRow) => boolean, outcome: WakeOutcome, claimer: WakeClaimer): Promise<ClaimedWake[]> {
    const ctx = ctxOf(claimer);
    return this.table.update((rows) => {
      const r = claimTriggered(rows, match, ctx, outcome);
      return { rows: r.changed ? r.rows : rows, result: r.claimed };
    });
  }

  /** Claims held wakes that may go now (their reason no longer applies), at most `max`. */
  async claimHeld(claimer: WakeClaimer, opts: { eligible: (row: WakeRow) => boolean; max?: number }): Promise<ClaimedWake[]> {
    const ctx = ctxOf(claimer);
    return this.table.update((rows) => {
      const r = claimHeld(rows, ctx, opts);
      return { rows: r.changed ? r.rows : rows, result: r.claimed };
    });
  }

  /** Puts this holder's claimed wakes back on disk as held, with the reason they wait. */
  async hold(claims: readonly Pick<ClaimedWake, 'id' | 'token'>[], reason: HeldReason, now = new Date()): Promise<string[]> {
    if (claims.length === 0) return [];
    return this.table.update((rows) => {
      const r = holdClaimed(rows, claims, reason, now);
      return { rows: r.held.length > 0 ? r.rows : rows, result: r.held };
    });
  }

  /** The receiver had the pulse of these wakes: they become fired with the delivery fact. */
  async delivered(ids: readonly string[], fact: WakeFact, now = new Date()): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.table.update((rows) => {
      const r = markDelivered(rows, ids, fact, now);
      return { rows: r.delivered.length > 0 ? r.rows : rows, result: r.delivered };
    });
  }

  /** A tool answer carried the pulse of these wakes, recorded unverified when pushed: they lose `unverified`. */
  async verified(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.table.update((rows) => {
      const r = markVerified(rows, ids);
      return { rows: r.verified.length > 0 ? r.rows : rows, result: r.verified };
    });
  }

  /** What Life Thread's provider saw of pulses sent into Agent mode (../core/wake/receipt.ts agentReceipt): the rows it changed. */
  async agentReceipt(seen: { verified: readonly string[]; elsewhere: readonly string[] }): Promise<string[]> {
    if (seen.verified.length === 0 && seen.elsewhere.length === 0) return [];
    return this.table.update((rows) => {
      const r = markAgentReceipt(rows, seen);
      return { rows: r.changed.length > 0 ? r.rows : rows, result: r.changed };
    });
  }

  /** Adds to the fact of wakes (wake_chars, time to locus) and the landing as it was shown. */
  async annotate(ids: readonly string[], fact: WakeFact, extra: { landing?: LandingRef } = {}): Promise<void> {
    if (ids.length === 0) return;
    await this.table.update((rows) => {
      const r = annotate(rows, ids, fact, extra);
      return { rows: r.changed ? r.rows : rows, result: undefined };
    });
  }

  /** Takes over deliveries whose holder is gone and triggers as lost the jobs whose watching window is gone. */
  async takeOverOrphans(
    claimer: WakeClaimer,
    opts: { eligible: (row: WakeRow) => boolean; alive?: Liveness; ownLiveTokens?: ReadonlySet<string> },
  ): Promise<{ claimed: ClaimedWake[]; lost: string[]; resumed: string[] }> {
    const ctx = ctxOf(claimer);
    return this.table.maybeUpdate((rows) => {
      const r = takeOverOrphans(rows, ctx, opts);
      return { rows: r.changed ? r.rows : rows, result: { claimed: r.claimed, lost: r.lost, resumed: r.resumed } };
    });
  }

  async heartbeat(tokens: ReadonlySet<string>, now: Date): Promise<void> {
    if (tokens.size === 0) return;
    await this.table.maybeUpdate((rows) => {
      const r = heartbeatRows(rows, tokens, now);
      return { rows: r.changed ? r.rows : rows, result: undefined };
    });
  }

  /** A `life-thread run` still watches these wakes' job (src/core/wake/row.ts runWatcherGone). */
  async refreshWatched(ids: ReadonlySet<string>, now: Date): Promise<void> {
    if (ids.size === 0) return;
    await this.table.maybeUpdate((rows) => {
      const r = refreshWatched(rows, ids, now);
      return { rows: r.changed ? r.rows : rows, result: undefined };
    });
  }

  /** The earliest instant a pending timer comes due, for one timer. */
  async nextTimerAt(): Promise<Date | null> {
    return nextDueAt(await this.list());
  }
}

/**
 * The last `bytes` of a file as text, without reading the rest (a 100 MB log costs one 64 KB read).
 * A start inside a UTF-8 sequence is skipped; `truncated` says whether the file was longer.
 */
export async function readLogTail(file: string, bytes = LOG_TAIL_BYTES): Promise<{ text: string; truncated: boolean; size: number }> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const length = Math.min(size, Math.max(0, Math.floor(bytes)));
    const buf = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const r = await handle.read(buf, read, length - read, size - length + read);
      if (r.bytesRead === 0) break;
      read += r.bytesRead;
    }
    let start = 0;
    const truncated = size > length;
    if (truncated) while (start < read && start < 4 && ((buf[start] ?? 0) & 0xc0) === 0x80) start++;
    return { text: buf.subarray(start, read).toString('utf8'), truncated, size };
  } finally {
    await handle.close();
  }
}
