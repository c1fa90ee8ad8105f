/**
 * The durable wakes (design §3, `wakes.json`, §8): add, list, cancel by token, and the transitions
 * of src/core/wake.ts applied under the table's cross-process lock, so a wake is claimed by one
 * window exactly once. Shared by the extension host and the CLI (which never fires wakes: only the
 * extension can start a chat turn).
 */
import { open } from 'node:fs/promises';
import type { Holder } from '../core/dispatch';
import { InputError } from '../core/errors';
import {
  claimDueRows,
  claimMatching,
  cleanRows,
  heartbeatRows,
  LOG_TAIL_BYTES,
  markLostRows,
  matchesJob,
  newWakeRow,
  nextDueAt,
  recordWakeFact,
  settleStaleRows,
  wakeRowSchema,
  watchJobRows,
  type ClaimedWake,
  type DeskState,
  type EventWhen,
  type NewWake,
  type WakeFact,
  type WakeOutcome,
  type WakeRow,
} from '../core/wake';
import type { LandingRef } from '../core/landing';
import type { FsSeam } from './fs-seam';
import { newId, randomBase36 } from './ids';
import { Table, type TableSnapshot } from './store';

export interface WakeStoreOptions {
  dir: string;
  fs?: FsSeam;
  lockWaitMs?: number;
  lockStaleMs?: number;
}

/** Who claims, and how tokens are made (default: 16 random base36 characters). */
export interface WakeClaimer {
  now: Date;
  holder: Holder;
  newToken?: () => string;
}

function ctxOf(c: WakeClaimer): { now: Date; holder: Holder; newToken: () => string } {
  return { now: c.now, holder: c.holder, newToken: c.newToken ?? (() => randomBase36(16)) };
}

export class WakeStore {
  readonly dir: string;
  readonly table: Table<WakeRow>;

  constructor(opts: WakeStoreOptions) {
    this.dir = opts.dir;
    this.table = new Table<WakeRow>({ dir: opts.dir, fs: opts.fs, lockWaitMs: opts.lockWaitMs, lockStaleMs: opts.lockStaleMs, name: 'wakes', rowSchema: wakeRowSchema });
  }

  /**
   * Writes a parsed wake (parseWakeInput's `kind: 'wake'` result) as a pending row `w-…`. `window`:
   * the window adding it, kept as the watcher of a task or terminal job; `jobStartedAt`: the job is
   * already running there.
   */
  async add(parsed: NewWake, opts: { now: Date; window?: string; jobStartedAt?: Date }): Promise<WakeRow> {
    const row = newWakeRow(parsed, { id: newId('w'), ...opts });
    await this.table.update((rows) => ({ rows: [...rows, row], result: undefined }));
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
   * Removes the pending wakes holding `token` and returns them. No wake with it →
   * InputError(field); only fired ones → InputError(field) saying so (they are kept for the list).
   */
  async cancel(token: string, field = 'cancel_token'): Promise<WakeRow[]> {
    const t = typeof token === 'string' ? token.trim() : '';
    if (t === '') throw new InputError(field, 'is missing: give the cancel token the wake was added with');
    return this.table.update((rows) => {
      const holding = rows.filter((r) => r.cancelToken === t);
      const pending = holding.filter((r) => r.status === 'pending');
      if (holding.length === 0) throw new InputError(field, `no wake holds the cancel token '${t}'`);
      if (pending.length === 0) {
        throw new InputError(field, `the wake${holding.length === 1 ? '' : 's'} holding '${t}' already ${holding.length === 1 ? 'has' : 'have'} fired (${holding.map((r) => r.id).join(', ')}); nothing to cancel`);
      }
      const gone = new Set(pending.map((r) => r.id));
      return { rows: rows.filter((r) => !gone.has(r.id)), result: pending };
    });
  }

  /** Removes one wake by id (the sidebar's remove); unknown id → InputError(field). */
  async remove(id: string, field = 'id'): Promise<WakeRow> {
    return this.table.update((rows) => {
      const found = rows.find((r) => r.id === id);
      if (!found) throw new InputError(field, `no wake with id ${id}`);
      return { rows: rows.filter((r) => r.id !== id), result: found };
    });
  }

  /**
   * Claims the due wakes, each exactly once across windows and processes: pending timers whose
   * nextRunAt ≤ now, and event wakes triggered while paused or capped once their time came. At most
   * `max` (the hourly cap's room). Fired wakes older than a day are cleaned in the same write.
   */
  async claimDueTimers(now: Date, holder: Holder, newToken?: () => string, opts: { max?: number; maxLatenessMs?: number; retentionMs?: number } = {}): Promise<ClaimedWake[]> {
    const ctx = ctxOf({ now, holder, newToken });
    return this.table.update((rows) => {
      const c = claimDueRows(rows, ctx, opts);
      const cleaned = cleanRows(c.rows, now, opts.retentionMs);
      const changed = c.changed || cleaned.cleaned.length > 0;
      return { rows: changed ? cleaned.rows : rows, result: c.claimed };
    });
  }

  /**
   * A job ended: claims every pending job.done wake for `jobId` with the outcome on it. With
   * `trigger` (wakes paused, or over the hourly cap) they are only triggered and ignite through
   * claimDueTimers from `trigger.dueAt`; the result is then empty.
   */
  async claimJob(jobId: string, event: WakeOutcome, claimer: WakeClaimer, opts: { trigger?: { dueAt: Date } } = {}): Promise<ClaimedWake[]> {
    return this.claim(matchesJob(jobId), event, claimer, opts);
  }

  /** presence.online or scm.changed happened: claims (or triggers) the pending wakes of that kind, of one thread if given. */
  async claimKind(when: EventWhen, claimer: WakeClaimer, opts: { threadId?: string; outcome?: WakeOutcome; trigger?: { dueAt: Date } } = {}): Promise<ClaimedWake[]> {
    const match = (r: WakeRow): boolean => r.when === when && (opts.threadId === undefined || r.threadId === opts.threadId);
    return this.claim(match, opts.outcome ?? {}, claimer, opts);
  }

  private async claim(match: (r: WakeRow) => boolean, outcome: WakeOutcome, claimer: WakeClaimer, opts: { trigger?: { dueAt: Date } }): Promise<ClaimedWake[]> {
    const ctx = ctxOf(claimer);
    return this.table.update((rows) => {
      const r = claimMatching(rows, match, ctx, outcome, opts);
      return { rows: r.changed ? r.rows : rows, result: r.claimed };
    });
  }

  /** A window saw `jobId` start: its waiting job.done wakes are watched by that window from now. */
  async watchJob(jobId: string, window: string, startedAt: Date): Promise<string[]> {
    return this.table.update((rows) => {
      const r = watchJobRows(rows, jobId, window, startedAt);
      const ids = r.rows.filter((x, i) => x !== rows[i]).map((x) => x.id);
      return { rows: r.changed ? r.rows : rows, result: ids };
    });
  }

  /**
   * `window` is gone (closed or reloaded): the job.done wakes it watched fire with jobStatus lost
   * (returned as claims to deliver); those still waiting for their job to start are released.
   */
  async markLost(window: string, claimer: WakeClaimer): Promise<{ lost: ClaimedWake[]; released: string[] }> {
    const ctx = ctxOf(claimer);
    return this.table.update((rows) => {
      const r = markLostRows(rows, window, ctx);
      return { rows: r.changed ? r.rows : rows, result: { lost: r.claimed, released: r.released } };
    });
  }

  /** Re-reads the row and returns it only if this claim's token is still on it. */
  async verifyClaim(claimed: Pick<ClaimedWake, 'id' | 'token'>): Promise<WakeRow | undefined> {
    return (await this.list()).find((r) => r.id === claimed.id && r.claim?.token === claimed.token);
  }

  /** Writes the delivery fact (delivered, via, wakeChars, timeToLocusMs, …) if the claim is still ours; false when the row is gone. */
  async recordFact(id: string, token: string, fact: WakeFact, extra: { landing?: LandingRef; desk?: DeskState } = {}): Promise<boolean> {
    return this.table.update((rows) => {
      const r = recordWakeFact(rows, id, token, fact, extra);
      return { rows: r.applied ? r.rows : rows, result: r.applied };
    });
  }

  async heartbeat(tokens: ReadonlySet<string>, now: Date): Promise<void> {
    if (tokens.size === 0) return;
    await this.table.update((rows) => {
      const r = heartbeatRows(rows, tokens, now);
      return { rows: r.changed ? r.rows : rows, result: undefined };
    });
  }

  /** Deliveries whose holder died get `delivered: false`; returns their ids. */
  async settleStale(now: Date, opts: { holder?: Holder; ownLiveTokens?: ReadonlySet<string>; staleMs?: number } = {}): Promise<string[]> {
    return this.table.update((rows) => {
      const r = settleStaleRows(rows, now, opts);
      return { rows: r.settled.length > 0 ? r.rows : rows, result: r.settled };
    });
  }

  /** The earliest due instant of a timer (or a triggered event wake), for the host's one timer. */
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
