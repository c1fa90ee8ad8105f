/**
 * The clock of the views' relative words ("in 5 min", "3 min ago"): every `everyMs` while a view is
 * shown, and at once when one is shown again after the words could have aged. The timer functions are
 * a seam (test/unit/viewTicker.test.ts drives them); a window uses the real ones
 * (src/host/extension.ts).
 */
export interface TickerClock {
  now(): number;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const realClock: TickerClock = {
  now: () => Date.now(),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

/** The views' words never stay older than this while they are shown. */
export const VIEW_TICK_MS = 30_000;

export class ViewTicker {
  private readonly shown = new Set<string>();
  private handle: unknown;
  private lastTick = 0;

  constructor(
    private readonly tick: () => void,
    private readonly everyMs = VIEW_TICK_MS,
    private readonly clock: TickerClock = realClock,
  ) {}

  /** A surface (the sidebar, the panel, the status bar) was shown or hidden. */
  setVisible(surface: string, visible: boolean): void {
    const before = this.shown.size > 0;
    if (visible) this.shown.add(surface);
    else this.shown.delete(surface);
    const after = this.shown.size > 0;
    if (after && !before) {
      // Shown again: words written before the view was hidden may be old already.
      if (this.clock.now() - this.lastTick >= this.everyMs) this.run();
      this.handle = this.clock.setInterval(() => this.run(), this.everyMs);
    } else if (!after && before) {
      this.stop();
    }
  }

  /** Whether a tick is armed (some surface is shown). */
  get running(): boolean {
    return this.handle !== undefined;
  }

  private run(): void {
    this.lastTick = this.clock.now();
    this.tick();
  }

  stop(): void {
    if (this.handle !== undefined) this.clock.clearInterval(this.handle);
    this.handle = undefined;
  }
}
