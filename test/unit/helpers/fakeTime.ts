/**
 * A fake clock and timer queue for the dispatcher loop (the `Timers` seam of src/node/dispatchLoop):
 * time moves only when a test says so. `runUntil` fires timers in order and moves the clock to each
 * one; `advance` moves the clock without firing anything (a laptop asleep); `runDue` then fires what
 * became overdue, the way Node does after a resume.
 */
import type { Timers } from '../../../src/node/dispatchLoop';

export interface FakeTimer {
  id: number;
  at: number;
  ms: number;
  fn: () => void;
}

export class FakeTime implements Timers {
  now: number;
  /** Every delay ever passed to setTimeout, in call order. */
  readonly armed: number[] = [];
  private seq = 0;
  private queue: FakeTimer[] = [];

  constructor(start: string | number = '2026-10-01T08:00:00.000Z') {
    this.now = typeof start === 'number' ? start : Date.parse(start);
  }

  readonly clock = (): Date => new Date(this.now);

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.armed.push(ms);
    this.queue.push({ id, at: this.now + ms, ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.queue = this.queue.filter((t) => t.id !== handle);
  }

  /** The timers still armed, earliest first. */
  pending(): FakeTimer[] {
    return [...this.queue].sort((a, b) => a.at - b.at || a.id - b.id);
  }

  /** Moves the clock without firing timers (sleep, or a wall-clock jump). */
  advance(ms: number): void {
    this.now += ms;
  }

  /** Fires the earliest timer (moving the clock forward to it, never back). False when none is armed. */
  fireNext(): boolean {
    const next = this.pending()[0];
    if (!next) return false;
    this.queue = this.queue.filter((t) => t.id !== next.id);
    this.now = Math.max(this.now, next.at);
    next.fn();
    return true;
  }

  /** Fires, in order, every timer due at or before `end`, settling in between; leaves the clock at `end`. */
  async runUntil(end: number, settle: () => Promise<void>): Promise<void> {
    for (;;) {
      await settle();
      const next = this.pending()[0];
      if (!next || next.at > end) break;
      this.fireNext();
    }
    this.now = Math.max(this.now, end);
  }

  /** Fires every timer already overdue at the current time (what Node does after a resume). */
  async runDue(settle: () => Promise<void>): Promise<void> {
    await this.runUntil(this.now, settle);
  }
}
