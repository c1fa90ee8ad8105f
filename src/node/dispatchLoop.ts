/**
 * The dispatcher's loop, free of `vscode` so it runs the same in the extension host, in
 * benchmarks and in unit tests with a fake clock: one timer armed at the earliest work (clamped to
 * 60 s), re-armed after every pass; passes never overlap; claimed runs are fired and tracked so their
 * heartbeat is kept and a restarted holder is recognised.
 */
import type { ClaimedRun, Holder, Liveness } from '../core/dispatch';
import { FactWriter, fireClaimed, type Firer, type FiredOutcome } from './fire';
import { PassError, type PassOutcome, type ScheduleStore } from './schedule';
import { SerialPasses } from './serialPasses';

export const MAX_SLEEP_MS = 60_000;
export const HEARTBEAT_EVERY_MS = 30_000;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface LoopOptions {
  store: ScheduleStore;
  firer: Firer;
  holder: Holder;
  limits: () => { reminder: number; command: number };
  /** Whether a claim's holder still runs (a process check on this host). */
  alive?: Liveness;
  /** This window's workspace folders: reminders owned by a workspace fire only in its windows. */
  folders?: () => readonly string[] | undefined;
  now?: () => Date;
  timers?: Timers;
  onPass?: (outcome: PassOutcome) => void;
  onError?: (err: unknown) => void;
  onFired?: (outcome: FiredOutcome) => void;
  /** Called after every pass, successful or not. */
  onSettled?: () => void;
}

export class DispatchLoop {
  private timer: unknown;
  private heartbeatTimer: unknown;
  private readonly serial = new SerialPasses(() => this.pass(), () => !this.stopped);
  private stopped = true;
  private readonly running = new Map<string, ClaimedRun>();
  private readonly facts: FactWriter;
  private readonly now: () => Date;
  private readonly timers: Timers;
  lastPassAt: Date | null = null;
  nextWorkAt: Date | null = null;
  passes = 0;
  lastError: unknown = null;

  constructor(private readonly opts: LoopOptions) {
    this.now = opts.now ?? (() => new Date());
    this.timers = opts.timers ?? realTimers;
    this.facts = new FactWriter(opts.store);
  }

  start(): void {
    this.stopped = false;
    this.scheduleHeartbeat();
    this.requestPass();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    if (this.heartbeatTimer !== undefined) this.timers.clearTimeout(this.heartbeatTimer);
    this.timer = undefined;
    this.heartbeatTimer = undefined;
  }

  get runningCount(): number {
    return this.running.size;
  }

  /** Asks for a pass now; coalesced with one in flight. */
  requestPass(): void {
    this.serial.request();
  }

  /** Resolves when no pass is in flight. */
  async settle(): Promise<void> {
    while (this.serial.inFlight) await this.serial.inFlight;
  }

  /** Resolves when every fired run has recorded its fact. */
  async drain(): Promise<void> {
    while (this.running.size > 0 || this.serial.inFlight) {
      await this.settle();
      if (this.running.size > 0) await new Promise((r) => setImmediate(r));
    }
  }

  private async pass(): Promise<void> {
    const { store, holder } = this.opts;
    const now = this.now();
    try {
      const outcome = await store.pass({
        now,
        holder,
        limits: this.opts.limits(),
        ownLiveTokens: new Set([...this.running.values()].map((r) => r.token)),
        alive: this.opts.alive,
        folders: this.opts.folders?.(),
      });
      this.lastPassAt = now;
      this.passes++;
      this.lastError = null;
      for (const run of [...outcome.reminders.claimed, ...outcome.commands.claimed]) this.fire(run);
      this.nextWorkAt = outcome.nextWorkAt !== undefined ? outcome.nextWorkAt : await store.nextWorkAt();
      this.opts.onPass?.(outcome);
    } catch (err) {
      // A table that failed must not strand the claims the other table already wrote.
      if (err instanceof PassError) for (const run of [...err.partial.reminders.claimed, ...err.partial.commands.claimed]) this.fire(run);
      this.lastError = err instanceof PassError ? err.failure : err;
      this.opts.onError?.(this.lastError);
    } finally {
      this.arm();
      this.opts.onSettled?.();
    }
  }

  private fire(run: ClaimedRun): void {
    this.running.set(run.token, run);
    void fireClaimed(this.opts.store, this.opts.firer, run, this.facts)
      .then((outcome) => this.opts.onFired?.(outcome))
      .catch((err: unknown) => this.opts.onError?.(err))
      .finally(() => {
        this.running.delete(run.token);
        this.requestPass();
      });
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    const next = this.nextWorkAt;
    const delay = next && !this.lastError ? Math.min(MAX_SLEEP_MS, Math.max(0, next.getTime() - this.now().getTime())) : MAX_SLEEP_MS;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.requestPass();
    }, delay);
  }

  private scheduleHeartbeat(): void {
    if (this.stopped) return;
    this.heartbeatTimer = this.timers.setTimeout(() => {
      const tokens = new Set(this.running.keys());
      const done = tokens.size ? this.opts.store.heartbeat(tokens, this.now()).catch((err: unknown) => this.opts.onError?.(err)) : Promise.resolve();
      void done.finally(() => this.scheduleHeartbeat());
    }, HEARTBEAT_EVERY_MS);
  }
}
