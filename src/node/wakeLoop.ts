/**
 * The one wake loop, free of `vscode` so a window, `life-thread wait` and `life-thread mcp` run the
 * same policy (and unit tests run it with a fake clock): one timer armed at the earliest work
 * (clamped to 60 s); each pass takes over orphaned deliveries, claims due timers and releases held
 * wakes whose reason passed; claims of one thread due together (COALESCE_WINDOW_MS) go out as one
 * batch; a batch waits on disk, held, while wakes are paused, over the hourly cap or the receiver is
 * busy or unreachable, and is tried again; claims in flight keep their heartbeat. Every claim is
 * made under the table lock by ../core/wake/row.ts, so a wake is delivered by exactly one process.
 * What differs between receivers is handed in: `deliver`, and the pause, cap, busy and reach.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Holder, Liveness } from '../core/claim';
import { COALESCE_WINDOW_MS } from '../core/wake/contract';
import { pulsesOf } from '../core/wake/coalesce';
import { pulseEventOfRow, type PulseEvent } from '../core/wake/pulse';
import { capRoom, unreachableTooLong, type ClaimedWake, type HeldReason, type WakeFact, type WakeRow } from '../core/wake/row';
import { mark, type WakeTrace } from '../core/wake/trace';
import { HEARTBEAT_EVERY_MS, MAX_SLEEP_MS, realTimers, type Timers } from './dispatchLoop';
import { processLiveness } from './liveness';
import { DEFAULT_LIMITS } from './schedule';
import { SerialPasses } from './serialPasses';
import { StoreError } from './store/errors';
import type { WakeStore } from './wakes';

/** A wake held because its receiver could not be reached is tried again after this long (when the receiver cannot say it is back). */
export const RETRY_UNREACHABLE_MS = 20_000;
/** How long a sent pulse may take to reach its receiver before the wake waits and is tried again. */
const RECEIPT_TIMEOUT_MS = 20_000;
/** How soon a due wake that its MCP session still keeps (../core/wake/row.ts keptBySession) is looked at again. */
const KEPT_RECHECK_MS = 2_000;
/** After the receiver's last turn ends, wakes held as busy go out this much later. */
const BUSY_RELEASE_MS = 300;
const WATCH_DEBOUNCE_MS = 5;
/** Between attempts to record a pulse that went out; a busy lock is waited out for as long as it takes. */
const RECORD_RETRY_MS = 250;
/** Attempts to record a pulse when the table fails otherwise than by a busy lock. */
const RECORD_ATTEMPTS = 5;

/** Claims of one thread that go out as one pulse. */
export interface WakeBatch {
  claims: ClaimedWake[];
  event: PulseEvent;
  /** When the job that triggered it ended (epoch ms). */
  endedAt?: number;
  threadId?: string;
  trace?: WakeTrace;
}

/**
 * What became of a batch: delivered with this fact (the loop records it), recorded by the receiver
 * itself (a window's receipt), or held with a reason. A receiver unreachable for too long falls back:
 * the loop records the fallback's fact, then it notifies.
 */
export type Delivery = { fact: WakeFact } | { recorded: true } | { hold: HeldReason; fallBack?: { fact: WakeFact; notify(): Promise<void> }; held?(): void };

/** What happened before a claim (a job's end, a repository change): when, and how far it was followed. */
export interface TriggerMeta {
  at?: number;
  endedAt?: number;
  trace?: WakeTrace;
}

export interface WakeLoopOptions {
  store: WakeStore;
  holder: Holder;
  /** The wakes this process may claim: due timers, held (triggered) wakes and deliveries orphaned by a gone holder. */
  claimable(row: WakeRow): boolean;
  /** Rows whose due time arms the timer; default claimable (a window also watches those an MCP session still keeps). */
  watches?(row: WakeRow): boolean;
  /** How long after its due time this process claims a timer (an MCP session without push leaves the first moment to a waiter). */
  dueDelayMs?(row: WakeRow): number;
  /** Whether the receiver of a held wake can be reached now; without it, an unreachable wake is tried again RETRY_UNREACHABLE_MS after it was held. */
  reachable?(row: WakeRow): boolean;
  /** Delivers one batch. */
  deliver(batch: WakeBatch): Promise<Delivery>;
  paused?(): boolean;
  maxPerHour?(): number;
  /** The receiver of these wakes is in a turn: they wait (held: busy) until it ends (`released`). */
  busy?(rows: readonly WakeRow[]): boolean;
  /** The thread of a wake without thread_id (a window's current topic). */
  defaultThread?(): string;
  /** Every pass takes over orphans (marking lost the jobs whose watcher is gone) and cleans settled rows, not only when the table calls for it. */
  sweeps?: boolean;
  /** Watches `wakes.json` (and `schedule-commands.json` with `rederive`) for changes by other processes. */
  watchStore?: boolean;
  /** Sees the table after every pass and delivery (`wait` watches its wake here). */
  observe?(rows: readonly WakeRow[]): void | Promise<void>;
  /**
   * Triggers due from another table's facts that their writer did not make (a command row's run that
   * ended: ./commandWakes.ts), before the claims; `recheckAt` asks for a pass then.
   */
  rederive?(rows: readonly WakeRow[]): Promise<{ triggered: boolean; recheckAt?: number }>;
  /** A delivered pulse could not be recorded (the table failed for good). */
  unrecorded?(claims: readonly ClaimedWake[], err: unknown): void;
  /** The table or the view changed here (a hold, a delivery, a pass). */
  changed?(): void;
  info?(line: string): void;
  onError?(err: unknown, where: string): void;
  /** Whether a claim's holder still runs; default a process check on this host. */
  alive?: Liveness;
  maxLatenessMs?(): number;
  now?(): Date;
  timers?: Timers;
}

interface Buffered {
  claimed: ClaimedWake;
  event: PulseEvent;
  at: number;
  endedAt?: number;
  trace?: WakeTrace;
}

export class WakeLoop {
  private timer: unknown;
  private heartbeatTimer: unknown;
  private bufferTimer: unknown;
  private debounce: unknown;
  private watcher: FSWatcher | undefined;
  private readonly serial = new SerialPasses(() => this.tick(), () => !this.stopped);
  private stopped = true;
  private recheckAt: number | undefined;
  private buffer: Buffered[] = [];
  /** Claims this process holds now (buffered or being delivered): kept alive by its heartbeat. */
  private readonly inFlight = new Set<string>();
  /** Triggers whose claim is still being prepared, by when they happened: a batch waits for those of its window. */
  private readonly pipelines = new Set<{ at: number; done: Promise<void> }>();
  /** Deliveries and drains in flight (settle waits for them). */
  private readonly work = new Set<Promise<void>>();
  private readonly receipts = new Map<string, (at: number) => void>();
  private readonly timers: Timers;

  constructor(private readonly o: WakeLoopOptions) {
    this.timers = o.timers ?? realTimers;
  }

  private now(): Date {
    return this.o.now?.() ?? new Date();
  }

  /** Starts the loop; resolves when its first pass is done (a window takes over what a reload left at once). */
  start(): Promise<void> {
    this.stopped = false;
    if (this.o.watchStore) this.watchStore();
    this.scheduleHeartbeat();
    this.poke();
    return this.serial.inFlight ?? Promise.resolve();
  }

  stop(): void {
    this.stopped = true;
    for (const t of [this.timer, this.heartbeatTimer, this.debounce]) if (t !== undefined) this.timers.clearTimeout(t);
    this.timer = this.heartbeatTimer = this.debounce = undefined;
    this.watcher?.close();
    // Buffered claims went nowhere: another receiver takes them.
    if (this.bufferTimer !== undefined) this.timers.clearTimeout(this.bufferTimer);
    this.drain();
  }

  /** Runs a pass now (or right after the one in flight). */
  poke(): void {
    this.serial.request();
  }

  /** Resolves when no pass, drain or delivery is in flight. */
  async settle(): Promise<void> {
    while (this.serial.inFlight || this.work.size > 0) await Promise.allSettled([this.serial.inFlight, ...this.work]);
  }

  /** A trigger (a job's end, a repository change) that happened at `at` is being followed; a batch due with it waits for it. */
  track(at: number, done: Promise<void>): void {
    const p = { at, done: done.catch((err: unknown) => this.o.onError?.(err, 'wake trigger')) };
    this.pipelines.add(p);
    void p.done.finally(() => this.pipelines.delete(p));
  }

  /** Resolves after `ms` on the loop's clock. */
  delay(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }

  /** Resolves with the instant the receiver had every id (`received`), or undefined after RECEIPT_TIMEOUT_MS. */
  awaitReceipt(ids: readonly string[]): Promise<number | undefined> {
    return new Promise((resolve) => {
      const left = new Set(ids);
      let last = 0;
      const done = (at: number | undefined): void => {
        this.timers.clearTimeout(timer);
        for (const id of ids) this.receipts.delete(id);
        resolve(at);
      };
      const timer = this.timers.setTimeout(() => done(undefined), RECEIPT_TIMEOUT_MS);
      for (const id of ids) {
        this.receipts.set(id, (at) => {
          last = Math.max(last, at);
          left.delete(id);
          if (left.size === 0) done(last);
        });
      }
    });
  }

  /** The receiver had the pulse of these wakes at `at`. */
  received(ids: readonly string[], at: number): void {
    for (const id of ids) this.receipts.get(id)?.(at);
  }

  /** The receiver's turns ended: wakes held as busy go out shortly. */
  released(): void {
    this.timers.setTimeout(() => this.track$(this.releaseHeld().catch((err: unknown) => this.o.onError?.(err, 'wake release'))), BUSY_RELEASE_MS);
  }

  // ── passes ─────────────────────────────────────────────────────────────────────────────────

  /** One pass: re-derive triggers, take over orphans, claim due timers, release held wakes; re-arm. */
  private async tick(): Promise<void> {
    try {
      const rows = await this.rederive();
      await this.o.observe?.(rows);
      if (this.stopped) return;
      const mine = rows.filter((r) => this.o.claimable(r));
      if (this.o.sweeps || mine.some((r) => r.status === 'delivering')) await this.takeOverOrphans();
      if (this.stopped) return;
      if (this.o.sweeps || mine.some((r) => this.isDue(r))) await this.claimDue();
      if (this.stopped) return;
      await this.releaseHeld();
      this.arm(this.nextDelay(await this.o.store.list()));
    } catch (err) {
      this.o.onError?.(err, 'wake timers');
      this.arm(MAX_SLEEP_MS);
    } finally {
      this.o.changed?.();
    }
  }

  private async rederive(): Promise<WakeRow[]> {
    const rows = await this.o.store.list();
    if (!this.o.rederive) return rows;
    // A trigger whose writer died before it reached wakes.json (src/node/commandWakes.ts).
    const r = await this.o.rederive(rows).catch((err: unknown) => {
      this.o.onError?.(err, 'wake rederive');
      return { triggered: false, recheckAt: undefined };
    });
    this.recheckAt = r.recheckAt;
    return r.triggered ? this.o.store.list() : rows;
  }

  private isDue(r: WakeRow): boolean {
    return r.status === 'pending' && r.when === 'timer' && r.nextRunAt !== null && this.dueAt(r) <= this.now().getTime();
  }

  private dueAt(r: WakeRow): number {
    return Date.parse(r.nextRunAt ?? '') + Math.max(0, this.o.dueDelayMs?.(r) ?? 0);
  }

  private async takeOverOrphans(): Promise<void> {
    const o = this.o;
    const orphans = await o.store.takeOverOrphans({ now: this.now(), holder: o.holder }, { eligible: (r) => o.claimable(r), alive: o.alive ?? processLiveness, ownLiveTokens: this.inFlight });
    for (const id of orphans.lost) o.info?.(`wake ${id}: the window watching its job is gone; it wakes as lost`);
    for (const c of orphans.claimed) this.enqueue(c, pulseEventOfRow(c.row));
  }

  private async claimDue(): Promise<void> {
    const o = this.o;
    const maxLatenessMs = o.maxLatenessMs?.() ?? DEFAULT_LIMITS.reminder;
    const due = await o.store.claimDue({ now: this.now(), holder: o.holder }, { eligible: (r) => o.claimable(r) && this.isDue(r), maxLatenessMs });
    for (const c of due.claimed) this.enqueue(c, { ...pulseEventOfRow(c.row), reason: 'timer' });
  }

  /** Held wakes whose reason no longer applies go out again (at most the hourly cap's room). */
  async releaseHeld(): Promise<void> {
    const o = this.o;
    if (o.paused?.()) return;
    const now = this.now();
    const rows = await o.store.list();
    const room = this.capRoom(rows, now).room;
    if (room < 1) return;
    const ready = (r: WakeRow): boolean => r.status === 'held' && o.claimable(r) && this.mayRetry(r, now);
    if (!rows.some(ready)) return;
    const claimed = await o.store.claimHeld({ now, holder: o.holder }, { eligible: ready, ...(Number.isFinite(room) ? { max: room } : {}) });
    for (const c of claimed) this.enqueue(c, pulseEventOfRow(c.row));
  }

  /** Whether a held wake's reason passed (the pause and the cap are checked for all at once). */
  private mayRetry(r: WakeRow, now: Date): boolean {
    const reach = this.o.reachable;
    if (reach && !reach(r)) return false;
    if (this.o.busy?.([r])) return false;
    if (r.heldReason !== 'unreachable' || reach) return true;
    return r.heldAt === undefined || now.getTime() - Date.parse(r.heldAt) >= RETRY_UNREACHABLE_MS || unreachableTooLong(r, now);
  }

  private capRoom(rows: readonly WakeRow[], now: Date): { room: number; retryAt: number | null } {
    const max = this.o.maxPerHour?.();
    return max === undefined ? { room: Infinity, retryAt: null } : capRoom(rows, now, max);
  }

  /** Until the next pass: the earliest due timer, a retry of unreachable wakes, a recheck asked for. */
  private nextDelay(rows: readonly WakeRow[]): number {
    const watches = this.o.watches ?? this.o.claimable;
    let next = Infinity;
    for (const r of rows) if (r.status === 'pending' && r.when === 'timer' && r.nextRunAt !== null && watches(r)) next = Math.min(next, this.dueAt(r));
    const nowMs = this.now().getTime();
    const retry = !this.o.reachable && rows.some((r) => r.status === 'held' && r.heldReason === 'unreachable') ? RETRY_UNREACHABLE_MS : MAX_SLEEP_MS;
    // A due wake its MCP session still keeps is looked at again shortly, not in a tight loop.
    const untilNext = next - nowMs > 0 ? next - nowMs : KEPT_RECHECK_MS;
    const untilRecheck = this.recheckAt !== undefined ? Math.max(0, this.recheckAt - nowMs) : Infinity;
    return Math.min(retry, untilNext, untilRecheck);
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    const fire = (): void => {
      this.timer = undefined;
      this.poke();
    };
    this.timer = this.timers.setTimeout(fire, Math.min(MAX_SLEEP_MS, Math.max(0, delayMs)));
  }

  // ── coalescing ─────────────────────────────────────────────────────────────────────────────

  /**
   * A claim to deliver. Claims of one thread within COALESCE_WINDOW_MS become one batch; the window
   * counts from when the first one happened (`trigger.at`), so the time its claim took to prepare is
   * not waited again, and it is not waited at all when no other wake of the thread could join.
   */
  enqueue(claimed: ClaimedWake, event: PulseEvent, trigger: TriggerMeta = {}): void {
    this.inFlight.add(claimed.token);
    const now = this.now().getTime();
    const at = Math.min(trigger.at ?? now, now);
    this.buffer.push({ claimed, event, at, ...(trigger.endedAt !== undefined ? { endedAt: trigger.endedAt } : {}), ...(trigger.trace ? { trace: trigger.trace } : {}) });
    if (this.bufferTimer === undefined) this.bufferTimer = this.timers.setTimeout(() => this.drain(), Math.max(0, at + COALESCE_WINDOW_MS - now));
    this.track$(this.drainIfAlone().catch((err: unknown) => this.o.onError?.(err, 'wake buffer')));
  }

  private threadOf(row: WakeRow): string {
    return row.threadId ?? this.o.defaultThread?.() ?? '';
  }

  /**
   * Only a wake still pending can join a batch (its trigger claims it): when no wake of the buffered
   * threads waits for a job, a repository change or the user's return (timers never join), the batch
   * goes now instead of at the window's end.
   */
  private async drainIfAlone(): Promise<void> {
    const rows = await this.o.store.list();
    if (this.bufferTimer === undefined || this.buffer.length === 0) return;
    const threads = new Set(this.buffer.map((b) => this.threadOf(b.claimed.row)));
    if (rows.some((r) => r.status === 'pending' && r.when !== 'timer' && threads.has(this.threadOf(r)) && this.o.claimable(r))) return;
    this.drain();
  }

  private drain(): void {
    if (this.bufferTimer !== undefined) this.timers.clearTimeout(this.bufferTimer);
    this.bufferTimer = undefined;
    if (this.buffer.length > 0) this.track$(this.drainBuffer());
  }

  private track$(p: Promise<void>): void {
    this.work.add(p);
    void p.finally(() => this.work.delete(p));
  }

  private async drainBuffer(): Promise<void> {
    // A trigger whose claim is still being prepared (its evidence written) joins this batch.
    const first = Math.min(...this.buffer.map((b) => b.at));
    const late = [...this.pipelines].filter((p) => p.at <= first + COALESCE_WINDOW_MS).map((p) => p.done);
    if (late.length > 0 && !this.stopped) await Promise.race([Promise.allSettled(late), this.delay(COALESCE_WINDOW_MS)]);
    const items = this.buffer.splice(0);
    for (const batch of this.batches(items)) {
      await this.deliverBatch(batch).catch((err: unknown) => this.o.onError?.(err, 'wake delivery'));
    }
  }

  private batches(items: readonly Buffered[]): WakeBatch[] {
    // A wake without thread_id belongs to the receiver's current topic; wakes coalesce per topic.
    const buffered = items.map((b) => ({ id: b.claimed.id, row: b.claimed.row, event: b.event, at: b.at, threadId: this.threadOf(b.claimed.row), b }));
    return pulsesOf(buffered, COALESCE_WINDOW_MS).map(({ members, event }) => {
      const all = members.map((m) => m.b);
      const endedAt = all.map((m) => m.endedAt).find((t) => t !== undefined);
      const trace = all.map((m) => m.trace).find((t) => t !== undefined);
      mark(trace, 'coalesce', Date.now());
      const threadId = members[0]?.row.threadId;
      return { claims: all.map((m) => m.claimed), event, ...(endedAt !== undefined ? { endedAt } : {}), ...(threadId ? { threadId } : {}), ...(trace ? { trace } : {}) };
    });
  }

  // ── delivery ───────────────────────────────────────────────────────────────────────────────

  /** Decides whether a batch may go now; if not, its wakes wait on disk with the reason. */
  private async deliverBatch(b: WakeBatch): Promise<void> {
    try {
      // Stopped while the claim was taken (`wait` timed out, the session closed): nothing went out, so another receiver takes it.
      const reason = this.stopped ? 'unreachable' : await this.holdReason(b.claims);
      mark(b.trace, 'hold check', Date.now());
      if (reason) return await this.hold(b.claims, reason);
      const out = await this.o.deliver(b);
      if ('fact' in out) await this.record(b.claims, out.fact);
      else if ('hold' in out) await this.unreached(b, out);
    } finally {
      for (const c of b.claims) this.inFlight.delete(c.token);
      this.o.changed?.();
    }
    await this.o.observe?.(await this.o.store.list());
  }

  private async holdReason(claims: readonly ClaimedWake[]): Promise<HeldReason | undefined> {
    if (this.o.paused?.()) return 'paused';
    if (this.o.busy?.(claims.map((c) => c.row))) return 'busy';
    if (this.o.maxPerHour === undefined) return undefined;
    const now = this.now();
    const cap = this.capRoom((await this.o.store.list()).filter((r) => !claims.some((c) => c.id === r.id)), now);
    if (cap.room >= 1) return undefined;
    if (cap.retryAt) this.arm(Math.max(1000, cap.retryAt - now.getTime()));
    return 'cap';
  }

  /** The receiver did not have the batch: it waits and is tried again; unreachable too long, it falls back. */
  private async unreached(b: WakeBatch, out: Extract<Delivery, { hold: HeldReason }>): Promise<void> {
    if (out.hold === 'unreachable') {
      const ids = b.claims.map((c) => c.id);
      const rows = (await this.o.store.list()).filter((r) => ids.includes(r.id));
      // Its receipt came after all.
      if (rows.some((r) => r.status === 'fired')) return;
      if (out.fallBack && rows.some((r) => unreachableTooLong(r, this.now()))) {
        await this.record(b.claims, out.fallBack.fact);
        return out.fallBack.notify();
      }
    }
    await this.hold(b.claims, out.hold);
    out.held?.();
  }

  private async hold(claims: readonly ClaimedWake[], reason: HeldReason): Promise<void> {
    await this.o.store.hold(claims, reason, this.now());
    for (const c of claims) this.inFlight.delete(c.token);
    this.o.info?.(`wake ${claims.map((c) => c.id).join(', ')} held: ${reason}`);
    if (reason === 'unreachable' && !this.o.reachable) this.arm(RETRY_UNREACHABLE_MS);
  }

  /**
   * The pulse went out: it is recorded even after this loop was stopped, and a busy lock is waited
   * out however long, since an unrecorded claim is sent again by the next receiver (marked redelivered).
   */
  private async record(claims: readonly ClaimedWake[], fact: WakeFact): Promise<void> {
    for (let failures = 0; ; ) {
      try {
        await this.o.store.delivered(claims.map((c) => c.id), fact, this.now());
        return;
      } catch (err) {
        const busy = err instanceof StoreError && err.code === 'lock';
        if (!busy && ++failures >= RECORD_ATTEMPTS) {
          this.o.unrecorded?.(claims, err);
          throw err;
        }
        this.o.onError?.(err, 'wake record');
        await this.delay(RECORD_RETRY_MS);
      }
    }
  }

  // ── heartbeat and watch ────────────────────────────────────────────────────────────────────

  private scheduleHeartbeat(): void {
    if (this.stopped) return;
    this.heartbeatTimer = this.timers.setTimeout(() => {
      const tokens = new Set(this.inFlight);
      const done = tokens.size ? this.o.store.heartbeat(tokens, this.now()).catch((err: unknown) => this.o.onError?.(err, 'wake heartbeat')) : Promise.resolve();
      void done.finally(() => this.scheduleHeartbeat());
    }, HEARTBEAT_EVERY_MS);
  }

  private watchStore(): void {
    try {
      this.watcher = watch(this.o.store.dir, (_e, name) => {
        const file = name?.toString();
        if (file !== 'wakes.json' && !(file === 'schedule-commands.json' && this.o.rederive)) return;
        if (this.debounce !== undefined) this.timers.clearTimeout(this.debounce);
        this.debounce = this.timers.setTimeout(() => this.poke(), WATCH_DEBOUNCE_MS);
      });
      this.watcher.on('error', (err) => this.o.onError?.(err, 'wake watch'));
    } catch (err) {
      // Without a watch the 60 s timer still catches changes by other processes.
      this.o.onError?.(err, 'wake watch');
    }
  }
}
