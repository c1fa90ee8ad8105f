/**
 * A process outside VS Code that takes part in the wakes' claim protocol like a window (design §9
 * "MCP"): `life-thread mcp` for the wakes its session set, `life-thread wait` for the one it waits
 * on. One timer armed at the earliest wake it may claim (clamped to 60 s), a watch on `wakes.json`
 * for changes by other processes (a job's end, a cancel, a delivery elsewhere), and every claim made
 * under the table lock by ../core/wake/row.ts, so a wake is delivered by exactly one process.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Holder } from '../core/claim';
import type { ClaimedWake, HeldReason, WakeFact, WakeRow } from '../core/wake/row';
import { processLiveness } from './liveness';
import { DEFAULT_LIMITS } from './schedule';
import type { WakeStore } from './wakes';

const MAX_SLEEP_MS = 60_000;
const WATCH_DEBOUNCE_MS = 5;

/** What became of claimed wakes: delivered with this fact, or put back as held for another receiver. */
export type Delivery = { fact: WakeFact } | { hold: HeldReason };

export interface CourierOptions {
  store: WakeStore;
  holder: Holder;
  /** The wakes this process may claim: due timers, held (triggered) wakes and deliveries orphaned by a gone holder. */
  claimable(row: WakeRow): boolean;
  /** How long after its due time this process claims a timer (an MCP session without push leaves the first moment to a waiter). */
  dueDelayMs?(row: WakeRow): number;
  /** Whether a held wake is this process's to deliver now. Default: every claimable held wake. */
  takesHeld?(row: WakeRow): boolean;
  /** Delivers claimed wakes (one call per claim pass). */
  deliver(claims: ClaimedWake[]): Promise<Delivery>;
  /** Sees the table after every change it noticed (`wait` watches its wake here). */
  observe?(rows: readonly WakeRow[]): void | Promise<void>;
  onError?(err: unknown): void;
  maxLatenessMs?: number;
  now?(): Date;
}

export class WakeCourier {
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly inFlight = new Set<string>();

  constructor(private readonly opts: CourierOptions) {}

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  start(): void {
    this.stopped = false;
    try {
      this.watcher = watch(this.opts.store.dir, (_e, name) => {
        if (name?.toString() !== 'wakes.json') return;
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.poke(), WATCH_DEBOUNCE_MS);
      });
      this.watcher.on('error', (err) => this.opts.onError?.(err));
    } catch (err) {
      // Without a watch the 60 s timer still catches changes by other processes.
      this.opts.onError?.(err);
    }
    this.poke();
  }

  /** Runs a pass now (or right after the one in flight). */
  poke(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  /** Resolves when the pass in flight (if any) is done. */
  async settle(): Promise<void> {
    while (this.ticking) await this.ticking;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
  }

  private async tick(): Promise<void> {
    const o = this.opts;
    const store = o.store;
    const holder = o.holder;
    const delay = (r: WakeRow): number => Math.max(0, o.dueDelayMs?.(r) ?? 0);
    try {
      const now = this.now();
      const rows = await store.list();
      await o.observe?.(rows);
      if (this.stopped) return;
      const takesHeld = o.takesHeld ?? (() => true);
      const isDue = (r: WakeRow): boolean => r.status === 'pending' && r.when === 'timer' && r.nextRunAt !== null && Date.parse(r.nextRunAt) + delay(r) <= now.getTime();
      // Only the claims the table calls for, due timers first: each is a locked write, and a waiter prints after it.
      const mine = rows.filter((r) => o.claimable(r));
      if (mine.some(isDue)) {
        const due = await store.claimDue({ now, holder }, { eligible: (r) => o.claimable(r) && isDue(r), maxLatenessMs: o.maxLatenessMs ?? DEFAULT_LIMITS.reminder });
        if (due.claimed.length > 0) await this.deliver(due.claimed);
      }
      if (this.stopped) return;
      if (mine.some((r) => r.status === 'delivering')) {
        const orphans = await store.takeOverOrphans({ now, holder }, { eligible: (r) => o.claimable(r), alive: processLiveness, ownLiveTokens: this.inFlight });
        if (orphans.claimed.length > 0) await this.deliver(orphans.claimed);
      }
      if (this.stopped) return;
      if (mine.some((r) => r.status === 'held' && takesHeld(r))) {
        const held = await store.claimHeld({ now, holder }, { eligible: (r) => o.claimable(r) && takesHeld(r) });
        if (held.length > 0) await this.deliver(held);
      }
      if (this.stopped) return;
      this.arm(await store.list(), delay);
    } catch (err) {
      o.onError?.(err);
      this.arm([], delay);
    }
  }

  private async deliver(claims: ClaimedWake[]): Promise<void> {
    for (const c of claims) this.inFlight.add(c.token);
    try {
      const outcome = await this.opts.deliver(claims);
      if ('fact' in outcome) await this.opts.store.delivered(claims.map((c) => c.id), outcome.fact, this.now());
      else await this.opts.store.hold(claims, outcome.hold, this.now());
    } finally {
      for (const c of claims) this.inFlight.delete(c.token);
    }
    await this.opts.observe?.(await this.opts.store.list());
  }

  private arm(rows: readonly WakeRow[], delay: (r: WakeRow) => number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    let next = Infinity;
    for (const r of rows) {
      if (r.status !== 'pending' || r.when !== 'timer' || r.nextRunAt === null || !this.opts.claimable(r)) continue;
      next = Math.min(next, Date.parse(r.nextRunAt) + delay(r));
    }
    const wait = Number.isFinite(next) ? next - this.now().getTime() : MAX_SLEEP_MS;
    this.timer = setTimeout(() => this.poke(), Math.min(MAX_SLEEP_MS, Math.max(0, wait)));
  }
}
