/**
 * The one wake loop (src/node/wakeLoop.ts) over a real WakeStore in a temp dir, with a fake clock and
 * fake timers: it arms at the earliest due wake, coalesces wakes of one thread triggered together
 * (never timers), holds while paused, over the hourly cap (across a restart) and while the receiver
 * is busy, retries an unreachable receiver and then falls back, and takes over a delivery only
 * once its holder's heartbeat is lost.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Holder } from '../../src/core/claim';
import { parseWakeInput, type NewWake } from '../../src/core/wake/contract';
import type { WakeRow } from '../../src/core/wake/row';
import { HEARTBEAT_EVERY_MS, MAX_SLEEP_MS } from '../../src/node/dispatchLoop';
import { RETRY_UNREACHABLE_MS, WakeLoop, type Delivery, type WakeBatch, type WakeLoopOptions } from '../../src/node/wakeLoop';
import { WakeStore } from '../../src/node/wakes';
import { FakeTime } from './helpers/fakeTime';
import { tempDirs } from './helpers/tempDirs';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const T0 = Date.parse('2026-10-03T07:00:00.000Z');
const ME: Holder = { pid: process.pid, window: 'win-loop' };
const OTHER: Holder = { pid: process.pid, window: 'win-other' };
const dirs = tempDirs('lt-wake-loop-');

function wake(input: Record<string, unknown>): NewWake {
  const r = parseWakeInput(input, { now: new Date(T0), tz: 'UTC' });
  if (r.kind !== 'wake') throw new Error(`not a wake: ${JSON.stringify(input)}`);
  return r;
}

const DELIVERED: Delivery = { fact: { delivered: true, via: 'life' } };

interface Harness {
  time: FakeTime;
  store: WakeStore;
  loop: WakeLoop;
  batches: WakeBatch[];
  answer: (b: WakeBatch) => Promise<Delivery>;
  run(ms: number): Promise<void>;
  row(id: string): Promise<WakeRow>;
}

function harness(dir: string, over: Partial<WakeLoopOptions> = {}, time = new FakeTime(T0), store = new WakeStore({ dir })): Harness {
  const h: Harness = {
    time,
    store,
    batches: [],
    answer: () => Promise.resolve(DELIVERED),
    loop: new WakeLoop({
      store,
      holder: ME,
      claimable: () => true,
      deliver: (b) => {
        h.batches.push(b);
        return h.answer(b);
      },
      now: time.clock,
      timers: time,
      ...over,
    }),
    run: (ms) => time.runUntil(time.now + ms, () => h.loop.settle()),
    row: async (id) => {
      const r = (await store.list()).find((x) => x.id === id);
      assert.ok(r, `row ${id}`);
      return r;
    },
  };
  return h;
}

/** A store whose heartbeat writes a test can wait for (they run on their own timer). */
class BeatingStore extends WakeStore {
  readonly beats = new Set<Promise<void>>();
  override heartbeat(tokens: ReadonlySet<string>, now: Date): Promise<void> {
    const p = super.heartbeat(tokens, now);
    this.beats.add(p);
    void p.finally(() => this.beats.delete(p));
    return p;
  }
}

const ids = (b: WakeBatch | undefined): string[] => (b ? b.claims.map((c) => c.id).sort() : []);

describe('the wake loop', () => {
  it('arms at the earliest due wake and delivers it then; timers due together go out one by one', async () => {
    const h = harness(dirs.freshDir());
    const a = await h.store.add(wake({ text: 'a', delay_seconds: 20 }), { now: new Date(T0) });
    const b = await h.store.add(wake({ text: 'b', delay_seconds: 20 }), { now: new Date(T0) });
    const later = await h.store.add(wake({ text: 'later', delay_seconds: 3600 }), { now: new Date(T0) });
    await h.loop.start();
    assert.deepEqual(h.time.pending().map((t) => t.at - T0).filter((ms) => ms !== HEARTBEAT_EVERY_MS), [20 * S]);
    await h.run(19 * S);
    assert.equal(h.batches.length, 0);
    await h.run(2 * S);
    assert.deepEqual(h.batches.map(ids).sort(), [[a.id], [b.id]].sort());
    assert.equal((await h.row(a.id)).status, 'fired');
    assert.equal((await h.row(later.id)).status, 'pending');
    // Nothing due within the clamp: the loop sleeps at most MAX_SLEEP_MS.
    assert.ok(h.time.pending().every((t) => t.at - h.time.now <= MAX_SLEEP_MS));
    h.loop.stop();
  });

  it('coalesces wakes of one thread triggered together into one batch, waiting while another wake of the thread could join', async () => {
    const h = harness(dirs.freshDir());
    const j1 = await h.store.add(wake({ text: 'j1', when: 'job.done', job_id: 'build', thread_id: 't1' }), { now: new Date(T0) });
    const j2 = await h.store.add(wake({ text: 'j2', when: 'job.done', job_id: 'build', thread_id: 't1' }), { now: new Date(T0) });
    const j3 = await h.store.add(wake({ text: 'j3', when: 'job.done', job_id: 'test', thread_id: 't1' }), { now: new Date(T0) });
    await h.loop.start();
    const claimJob = async (job: string): Promise<void> => {
      const claimed = await h.store.claimTriggered((r) => r.jobId === job, { jobStatus: 'succeeded', exitCode: 0 }, { now: h.time.clock(), holder: ME });
      for (const c of claimed) h.loop.enqueue(c, { reason: 'job.done' }, { at: h.time.now });
    };
    await claimJob('build');
    await h.loop.settle();
    // j3 waits on a job of the same thread: the batch stays open for the coalescing window.
    assert.equal(h.batches.length, 0);
    await h.run(100);
    await claimJob('test');
    await h.run(200);
    assert.equal(h.batches.length, 1);
    assert.deepEqual(ids(h.batches[0]), [j1.id, j2.id, j3.id].sort());
    assert.deepEqual([...(h.batches[0]?.event.wakeIds ?? [])].sort(), [j1.id, j2.id, j3.id].sort());
    h.loop.stop();
  });

  it('a lone trigger goes at once; one past the window makes its own batch', async () => {
    const h = harness(dirs.freshDir());
    const j1 = await h.store.add(wake({ text: 'j1', when: 'job.done', job_id: 'build' }), { now: new Date(T0) });
    await h.loop.start();
    const claimed = await h.store.claimTriggered((r) => r.id === j1.id, { jobStatus: 'failed', exitCode: 1 }, { now: h.time.clock(), holder: ME });
    for (const c of claimed) h.loop.enqueue(c, { reason: 'job.done' }, { at: h.time.now });
    await h.loop.settle();
    assert.deepEqual(h.batches.map(ids), [[j1.id]]);
    h.loop.stop();
  });

  it('holds a due wake while paused and sends it once resumed', async () => {
    let paused = true;
    const h = harness(dirs.freshDir(), { paused: () => paused });
    const w = await h.store.add(wake({ text: 'w', delay_seconds: 1 }), { now: new Date(T0) });
    await h.loop.start();
    await h.run(2 * S);
    assert.equal(h.batches.length, 0);
    const held = await h.row(w.id);
    assert.equal(held.status, 'held');
    assert.equal(held.heldReason, 'paused');
    await h.run(5 * MIN);
    assert.equal(h.batches.length, 0, 'no pass releases it while paused');
    paused = false;
    await h.loop.releaseHeld();
    await h.loop.settle();
    assert.deepEqual(h.batches.map(ids), [[w.id]]);
    assert.equal((await h.row(w.id)).status, 'fired');
    h.loop.stop();
  });

  it('the hourly cap counts pulses delivered before a restart, and releases the held wake when the oldest leaves the hour', async () => {
    const dir = dirs.freshDir();
    const time = new FakeTime(T0);
    const first = harness(dir, { maxPerHour: () => 2 }, time);
    await first.store.add(wake({ text: 'one', delay_seconds: 1 }), { now: new Date(T0) });
    await first.store.add(wake({ text: 'two', delay_seconds: 1 }), { now: new Date(T0) });
    await first.loop.start();
    await first.run(2 * S);
    assert.equal(first.batches.length, 2);
    first.loop.stop();
    const deliveredAt = time.now;

    const second = harness(dir, { maxPerHour: () => 2 }, time);
    const three = await second.store.add(wake({ text: 'three', delay_seconds: 5 }), { now: new Date(T0) });
    await second.loop.start();
    await second.run(10 * S);
    assert.equal(second.batches.length, 0);
    const held = await second.row(three.id);
    assert.equal(held.heldReason, 'cap');
    await second.run(HOUR - 20 * S);
    assert.equal(second.batches.length, 0, 'still within the hour of the first two');
    await second.run(2 * MIN);
    assert.deepEqual(second.batches.map(ids), [[three.id]]);
    const fired = await second.row(three.id);
    assert.equal(fired.status, 'fired');
    assert.ok(Date.parse(fired.firedAt ?? '') >= deliveredAt - 2 * S + HOUR);
    second.loop.stop();
  });

  it('holds while the receiver is busy and sends shortly after its turns end', async () => {
    let busy = true;
    const h = harness(dirs.freshDir(), { busy: () => busy });
    const w = await h.store.add(wake({ text: 'w', delay_seconds: 1 }), { now: new Date(T0) });
    await h.loop.start();
    await h.run(2 * S);
    assert.equal((await h.row(w.id)).heldReason, 'busy');
    await h.run(2 * MIN);
    assert.equal(h.batches.length, 0, 'no pass releases it while busy');
    busy = false;
    h.loop.released();
    await h.loop.settle();
    assert.equal(h.batches.length, 0, 'not before the release delay');
    await h.run(1 * S);
    assert.deepEqual(h.batches.map(ids), [[w.id]]);
    h.loop.stop();
  });

  it('holds only the wakes whose receiver is busy: another receiver\u2019s wake goes out meanwhile', async () => {
    const busyText = new Set(['for-busy']);
    let busy = true;
    const h = harness(dirs.freshDir(), { busy: (rows) => busy && rows.some((r) => busyText.has(r.text ?? '')) });
    const held = await h.store.add(wake({ text: 'for-busy', delay_seconds: 1 }), { now: new Date(T0) });
    const free = await h.store.add(wake({ text: 'for-idle', delay_seconds: 1 }), { now: new Date(T0) });
    await h.loop.start();
    await h.run(2 * S);
    assert.equal((await h.row(held.id)).heldReason, 'busy');
    assert.equal((await h.row(free.id)).status, 'fired', 'the other receiver was not busy');
    await h.run(2 * MIN);
    assert.equal((await h.row(held.id)).status, 'held', 'no pass releases it while its receiver is busy');
    busy = false;
    h.loop.released();
    await h.run(1 * S);
    assert.equal((await h.row(held.id)).status, 'fired');
    assert.deepEqual(h.batches.map(ids), [[free.id], [held.id]]);
    h.loop.stop();
  });

  it('retries an unreachable receiver after RETRY_UNREACHABLE_MS, then falls back once unreachable too long', async () => {
    const h = harness(dirs.freshDir());
    let notified = 0;
    h.answer = () =>
      Promise.resolve({
        hold: 'unreachable',
        fallBack: { fact: { delivered: false, via: 'notification', reason: 'not reached' }, notify: () => Promise.resolve(void notified++) },
      });
    const w = await h.store.add(wake({ text: 'w', delay_seconds: 1 }), { now: new Date(T0) });
    await h.loop.start();
    await h.run(2 * S);
    assert.equal(h.batches.length, 1);
    assert.equal((await h.row(w.id)).heldReason, 'unreachable');
    await h.run(RETRY_UNREACHABLE_MS - 5 * S);
    assert.equal(h.batches.length, 1, 'not retried before RETRY_UNREACHABLE_MS');
    await h.run(10 * S);
    assert.equal(h.batches.length, 2);
    assert.equal(notified, 0);
    await h.run(2 * MIN);
    const row = await h.row(w.id);
    assert.equal(row.status, 'fired');
    assert.equal(row.fact?.via, 'notification');
    assert.equal(notified, 1);
    h.loop.stop();
  });

  it('a receiver that says when it is reachable is tried then, not on a timer', async () => {
    let reachable = false;
    const h = harness(dirs.freshDir(), { reachable: () => reachable });
    h.answer = () => Promise.resolve(reachable ? DELIVERED : { hold: 'unreachable' });
    const w = await h.store.add(wake({ text: 'w', delay_seconds: 1 }), { now: new Date(T0) });
    await h.loop.start();
    await h.run(5 * MIN);
    assert.equal(h.batches.length, 1);
    assert.equal((await h.row(w.id)).status, 'held');
    reachable = true;
    h.loop.poke();
    await h.loop.settle();
    assert.equal(h.batches.length, 2);
    assert.equal((await h.row(w.id)).status, 'fired');
    h.loop.stop();
  });

  it('takes over a delivery only once its holder stopped its heartbeat, and keeps its own alive', async () => {
    const dir = dirs.freshDir();
    const time = new FakeTime(T0);
    const w = await new WakeStore({ dir }).add(wake({ text: 'w', delay_seconds: 1 }), { now: new Date(T0) });
    // A holder that will answer only when the test says so, heartbeat on.
    let release: () => void = () => undefined;
    const beating = new BeatingStore({ dir });
    const slow = harness(dir, {}, time, beating);
    slow.answer = () => new Promise((r) => (release = () => r(DELIVERED)));
    // Another process that cannot check the first one's pid: it judges by the heartbeat.
    const other = harness(dir, { holder: OTHER, alive: () => undefined }, time);
    await slow.loop.start();
    await time.runUntil(T0 + 2 * S, () => other.loop.settle());
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(slow.batches.length, 1);
    await other.loop.start();
    const settle = async (): Promise<void> => {
      await Promise.allSettled([...beating.beats]);
      await other.loop.settle();
    };
    await time.runUntil(time.now + 10 * MIN, settle);
    assert.equal(other.batches.length, 0, 'a live heartbeat keeps the claim');
    slow.loop.stop();
    // The first holder is gone (its heartbeat stops): past the stale limit the other takes it over.
    await time.runUntil(time.now + 3 * MIN, () => other.loop.settle());
    assert.deepEqual(other.batches.map(ids), [[w.id]]);
    const row = await other.row(w.id);
    assert.equal(row.status, 'fired');
    assert.equal(row.fact?.redelivered, true);
    release();
    await slow.loop.settle();
    other.loop.stop();
  });
});
