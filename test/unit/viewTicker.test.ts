// The views' clock (src/node/viewTicker.ts), driven through its timer seam: a tick at least every 30 s
// while something is shown, none while all is hidden, one at once when a view comes back with old words.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { VIEW_TICK_MS, ViewTicker, type TickerClock } from '../../src/node/viewTicker';

function fakeClock() {
  let t = 1_000_000;
  const timers = new Map<number, { fn: () => void; ms: number; next: number }>();
  let id = 0;
  const clock: TickerClock = {
    now: () => t,
    setInterval: (fn, ms) => {
      timers.set(++id, { fn, ms, next: t + ms });
      return id;
    },
    clearInterval: (h) => void timers.delete(h as number),
  };
  const advance = (ms: number) => {
    const end = t + ms;
    for (;;) {
      const due = [...timers.values()].filter((x) => x.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      t = due.next;
      due.next += due.ms;
      due.fn();
    }
    t = end;
  };
  return { clock, advance, armed: () => timers.size };
}

describe('ViewTicker', () => {
  it('ticks every 30 s while a view is shown, and not at all while every view is hidden', () => {
    const c = fakeClock();
    let ticks = 0;
    const ticker = new ViewTicker(() => ticks++, VIEW_TICK_MS, c.clock);
    c.advance(120_000);
    assert.equal(ticks, 0, 'nothing shown: no tick');
    ticker.setVisible('sidebar', true);
    assert.equal(ticks, 1, 'first shown: the words are refreshed at once');
    c.advance(9 * 60_000);
    assert.equal(ticks, 1 + 18, 'nine minutes shown: one tick each 30 s');
    ticker.setVisible('panel', true);
    ticker.setVisible('sidebar', false);
    c.advance(30_000);
    assert.equal(ticks, 20, 'still one view shown: still ticking, with one timer');
    assert.equal(c.armed(), 1);
    ticker.setVisible('panel', false);
    assert.equal(ticker.running, false);
    c.advance(10 * 60_000);
    assert.equal(ticks, 20, 'all hidden: no tick');
  });

  it('refreshes at once when shown again after the words aged, not when they are fresh', () => {
    const c = fakeClock();
    let ticks = 0;
    const ticker = new ViewTicker(() => ticks++, VIEW_TICK_MS, c.clock);
    ticker.setVisible('sidebar', true);
    ticker.setVisible('sidebar', false);
    c.advance(5_000);
    ticker.setVisible('sidebar', true);
    assert.equal(ticks, 1, 'shown again 5 s later: the words are still fresh');
    ticker.setVisible('sidebar', false);
    c.advance(60_000);
    ticker.setVisible('sidebar', true);
    assert.equal(ticks, 2, 'shown again a minute later: refreshed at once');
    ticker.stop();
  });
});
