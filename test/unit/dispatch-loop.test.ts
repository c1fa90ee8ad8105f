/**
 * The dispatcher loop (src/node/dispatchLoop.ts) over a real ScheduleStore in a temp dir, with a fake
 * clock and fake timers and a recording Firer (sleep and
 * resume, disk full, several dispatchers): the timer is armed at the
 * earliest work clamped to 60 s, passes never overlap, an unpersisted claim is never fired and a failing
 * disk gives no hot loop; and `dispatchOnce` (the CLI path) from 4 stores at once fires each row once.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { ClaimedRun, Holder } from '../../src/core/dispatch';
import { commandRowSchema, reminderRowSchema, SCHEMA_VERSION, type CommandRow, type Fact, type ReminderRow, type Schedule } from '../../src/core/schema';
import { DispatchLoop, HEARTBEAT_EVERY_MS, MAX_SLEEP_MS } from '../../src/node/dispatchLoop';
import { dispatchOnce, type Firer } from '../../src/node/fire';
import { lockState } from '../../src/node/lock';
import { faultyFs, type Fault } from './fixtures/faultyFs';
import { ScheduleStore, type PassOutcome } from '../../src/node/schedule';
import { StoreError } from '../../src/node/store/errors';
import { PULSE_FILE } from '../../src/node/store/pulse';
import { FakeTime } from './helpers/fakeTime';
import { tempDirs } from './helpers/tempDirs';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const DAY = 24 * H;
const T0 = Date.parse('2026-10-01T08:00:00.000Z');
const HOLDER: Holder = { pid: process.pid, window: 'win-test' };
const limits = (): { reminder: number; command: number } => ({ reminder: 12 * H, command: 1 * H });

const dirs = tempDirs('lt-dispatch-loop-');
const freshDir = dirs.freshDir;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function once(at: number): Schedule {
  return { kind: 'once', at: iso(at) };
}

function reminder(id: string, schedule: Schedule, nextRunAt: number, over: Partial<ReminderRow> = {}): ReminderRow {
  return reminderRowSchema.parse({ id, text: `prompt of ${id}`, schedule, tz: 'Europe/Berlin', status: 'pending', nextRunAt: iso(nextRunAt), createdAt: iso(T0 - DAY), ...over });
}

function command(id: string, schedule: Schedule, nextRunAt: number, over: Partial<CommandRow> = {}): CommandRow {
  return commandRowSchema.parse({
    id,
    command: `echo ${id}`,
    cwd: '/tmp',
    timeoutMinutes: 2,
    schedule,
    tz: 'Europe/Berlin',
    status: 'pending',
    nextRunAt: iso(nextRunAt),
    createdAt: iso(T0 - DAY),
    ...over,
  });
}

function writeTable(dir: string, name: 'reminders.json' | 'schedule-commands.json', rows: unknown[]): Buffer {
  const bytes = Buffer.from(`${JSON.stringify({ schemaVersion: SCHEMA_VERSION, rows }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, name), bytes);
  return bytes;
}

interface FireCall {
  kind: 'reminder' | 'command';
  id: string;
  run: ClaimedRun;
  /** The fake clock when the Firer was called. */
  at: number;
  /** loop.passes when the Firer was called (the pass that claimed the row). */
  pass: number | undefined;
}

/** Records every fire; a reminder is delivered, a command exits 0. `hold` makes a run wait for a gate. */
class RecordingFirer implements Firer {
  readonly calls: FireCall[] = [];
  clock: () => number = () => Date.now();
  loop: DispatchLoop | undefined;
  hold: Promise<void> | undefined;

  readonly reminder = async (row: ReminderRow, run: ClaimedRun): Promise<Fact> => {
    this.calls.push({ kind: 'reminder', id: row.id, run, at: this.clock(), pass: this.loop?.passes });
    if (this.hold) await this.hold;
    return { delivered: true, via: 'test' };
  };

  readonly command = async (row: CommandRow, run: ClaimedRun): Promise<Fact> => {
    this.calls.push({ kind: 'command', id: row.id, run, at: this.clock(), pass: this.loop?.passes });
    if (this.hold) await this.hold;
    return { exitCode: 0, durationMs: 5 };
  };

  count(id: string): number {
    return this.calls.filter((c) => c.id === id).length;
  }
}

/** Wraps store.pass to count calls and the most that were ever in flight at once. */
function countPasses(store: ScheduleStore, gate?: () => Promise<void> | undefined): { calls: number; active: number; maxActive: number; at: number[] } {
  const stats = { calls: 0, active: 0, maxActive: 0, at: [] as number[] };
  const real = store.pass.bind(store);
  store.pass = async (o): Promise<PassOutcome> => {
    stats.calls++;
    stats.at.push(o.now.getTime());
    stats.active++;
    stats.maxActive = Math.max(stats.maxActive, stats.active);
    try {
      const g = gate?.();
      if (g) await g;
      return await real(o);
    } finally {
      stats.active--;
    }
  };
  return stats;
}

function setup(dir: string, time: FakeTime, extra: Partial<ConstructorParameters<typeof DispatchLoop>[0]> = {}, store = new ScheduleStore({ dir })): { store: ScheduleStore; firer: RecordingFirer; loop: DispatchLoop } {
  const firer = new RecordingFirer();
  firer.clock = () => time.now;
  const loop = new DispatchLoop({ store, firer, holder: HOLDER, limits, now: time.clock, timers: time, ...extra });
  firer.loop = loop;
  return { store, firer, loop };
}

/** The loop's own pass timer(s): every armed timer that is not the 30 s heartbeat. */
function passTimers(time: FakeTime): { at: number; ms: number }[] {
  return time.pending().filter((t) => t.ms !== HEARTBEAT_EVERY_MS).map((t) => ({ at: t.at, ms: t.ms }));
}

/** The store's files; the lock folder is checked through lockState, not by its presence. */
function listDir(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n !== '.locks')
    .sort();
}

describe('DispatchLoop with a fake clock and fake timers', () => {
  it('an idle store: one pass per 60 s (61 in a fake hour), the Firer never called; stop clears the timers', async () => {
    const dir = freshDir();
    writeTable(dir, 'reminders.json', [reminder('r-far', once(T0 + 7 * DAY), T0 + 7 * DAY)]);
    const time = new FakeTime(T0);
    const { store, firer, loop } = setup(dir, time);
    const stats = countPasses(store);
    loop.start();
    await time.runUntil(T0 + H, () => loop.drain());
    assert.ok(stats.calls >= 60 && stats.calls <= 61, `passes in a fake hour: ${stats.calls}`);
    assert.equal(loop.passes, stats.calls);
    assert.equal(stats.maxActive, 1);
    assert.equal(firer.calls.length, 0);
    // Every timer was the 60 s clamp or the 30 s heartbeat: nothing polled faster.
    assert.deepEqual([...new Set(time.armed)].sort((a, b) => a - b), [HEARTBEAT_EVERY_MS, MAX_SLEEP_MS]);
    // Passes are 60 s apart.
    stats.at.slice(1).forEach((t, i) => assert.equal(t - (stats.at[i] ?? NaN), MAX_SLEEP_MS, `gap before pass ${i + 2}`));
    assert.equal(loop.lastPassAt?.getTime(), T0 + H);
    assert.equal(loop.nextWorkAt?.getTime(), T0 + 7 * DAY);
    assert.equal(loop.lastError, null);
    // The pulse carries the last pass.
    assert.equal(fs.readFileSync(path.join(dir, PULSE_FILE), 'utf8').trim(), iso(T0 + H));
    loop.stop();
    assert.deepEqual(time.pending(), []);
    // A stopped loop ignores requests.
    const before = stats.calls;
    loop.requestPass();
    await loop.settle();
    assert.equal(stats.calls, before);
  });

  it('a row due in 5 s: the timer is armed for 5 s (not 60), the row fires once at its time and its fact is recorded', async () => {
    const dir = freshDir();
    writeTable(dir, 'reminders.json', [reminder('r-soon', once(T0 + 5 * S), T0 + 5 * S)]);
    const time = new FakeTime(T0);
    const { store, firer, loop } = setup(dir, time);
    loop.start();
    await loop.drain();
    assert.equal(loop.passes, 1);
    assert.deepEqual(passTimers(time), [{ at: T0 + 5 * S, ms: 5 * S }]);
    assert.equal(firer.calls.length, 0);

    await time.runUntil(T0 + 5 * S, () => loop.drain());
    assert.equal(firer.calls.length, 1);
    const call = firer.calls[0];
    assert.ok(call);
    assert.equal(call.id, 'r-soon');
    assert.equal(call.at, T0 + 5 * S);
    assert.equal(call.run.scheduledFor, iso(T0 + 5 * S));
    assert.equal(call.run.lateMs, 0);
    const snap = await store.listReminders();
    const row = snap.rows.find((r) => r.id === 'r-soon');
    assert.ok(row);
    assert.equal(row.status, 'fired');
    assert.equal(row.claim, undefined);
    assert.equal(row.firedAt, iso(T0 + 5 * S));
    assert.deepEqual(row.fact, { lateMs: 0, delivered: true, via: 'test' });
    assert.equal(loop.runningCount, 0);
    // Nothing left to do: back to the 60 s clamp, and it does not fire again.
    assert.deepEqual(passTimers(time).map((t) => t.ms), [MAX_SLEEP_MS]);
    await time.runUntil(T0 + 5 * MIN, () => loop.drain());
    assert.equal(firer.calls.length, 1);
    loop.stop();
  });

  it('the timer is re-armed for the next row after a pass, and a row due beyond 60 s is still reached through 60 s steps', async () => {
    const dir = freshDir();
    writeTable(dir, 'schedule-commands.json', [command('c-a', once(T0 + 20 * S), T0 + 20 * S), command('c-b', once(T0 + 150 * S), T0 + 150 * S)]);
    const time = new FakeTime(T0);
    const { firer, loop } = setup(dir, time);
    loop.start();
    await loop.drain();
    assert.deepEqual(passTimers(time), [{ at: T0 + 20 * S, ms: 20 * S }]);
    await time.runUntil(T0 + 20 * S, () => loop.drain());
    assert.deepEqual(firer.calls.map((c) => [c.id, c.at]), [['c-a', T0 + 20 * S]]);
    // From 20 s the next row is 130 s away: clamped to 60 s, then 60 s, then the last 10 s exactly.
    await time.runUntil(T0 + 3 * MIN, () => loop.drain());
    assert.deepEqual(firer.calls.map((c) => [c.id, c.at]), [['c-a', T0 + 20 * S], ['c-b', T0 + 150 * S]]);
    loop.stop();
  });

  it('requestPass during a pass is coalesced: passes never overlap', async () => {
    const dir = freshDir();
    writeTable(dir, 'reminders.json', Array.from({ length: 20 }, (_, i) => reminder(`r-burst${i}`, once(T0 + 10 * S), T0 + 10 * S)));
    const time = new FakeTime(T0);
    let gate: Promise<void> | undefined;
    let open: () => void = () => undefined;
    const store = new ScheduleStore({ dir });
    const stats = countPasses(store, () => gate);
    const { firer, loop } = setup(dir, time, {}, store);

    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    loop.start();
    for (let i = 0; i < 5; i++) loop.requestPass();
    await new Promise((r) => setImmediate(r));
    assert.equal(stats.calls, 1, 'the requests wait for the pass in flight');
    gate = undefined;
    open();
    await loop.settle();
    assert.equal(stats.calls, 2, 'five requests during one pass make exactly one more pass');
    assert.equal(stats.maxActive, 1);

    // 20 rows fire together; every finished run asks for a pass, and a watcher asks too at every step.
    await time.runUntil(T0 + 2 * MIN, async () => {
      loop.requestPass();
      loop.requestPass();
      await loop.drain();
    });
    assert.equal(stats.maxActive, 1, 'store.pass never ran twice at once');
    assert.equal(firer.calls.length, 20);
    assert.equal(new Set(firer.calls.map((c) => c.id)).size, 20);
    assert.ok(firer.calls.every((c) => c.at === T0 + 10 * S));
    loop.stop();
  });

  it('a run in flight keeps its claim over several passes: the heartbeat is refreshed and the loop never declares its own run dead', async () => {
    const dir = freshDir();
    writeTable(dir, 'schedule-commands.json', [command('c-long', once(T0), T0, { timeoutMinutes: 10 })]);
    const time = new FakeTime(T0);
    const { store, firer, loop } = setup(dir, time);
    let finish: () => void = () => undefined;
    firer.hold = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const settle = async (): Promise<void> => {
      await loop.settle();
      // The heartbeat timer is re-armed only once its write is done: wait for it, so fake time does not outrun real I/O.
      while (!time.pending().some((t) => t.ms === HEARTBEAT_EVERY_MS)) await new Promise((r) => setImmediate(r));
    };
    loop.start();
    await time.runUntil(T0 + 5 * MIN, settle);
    const snap = await store.listCommands();
    const row = snap.rows.find((r) => r.id === 'c-long');
    assert.ok(row?.claim, 'still running after 5 fake minutes');
    assert.ok(Date.parse(row.claim.heartbeatAt) >= T0 + 4 * MIN + 30 * S, `heartbeat refreshed: ${row.claim.heartbeatAt}`);
    assert.equal(row.fact?.interrupted, undefined);
    assert.equal(loop.runningCount, 1);
    assert.ok(loop.passes >= 5, `passes: ${loop.passes}`);
    finish();
    await loop.drain();
    const done = (await store.listCommands()).rows.find((r) => r.id === 'c-long');
    assert.equal(done?.claim, undefined);
    assert.deepEqual(done?.fact, { lateMs: 0, exitCode: 0, durationMs: 5 });
    assert.equal(firer.calls.length, 1);
    loop.stop();
  });

  it('sleep and resume: the clock moves 2 h with no timer firing; due rows run on the first pass after resume', async () => {
    const dir = freshDir();
    writeTable(dir, 'reminders.json', [reminder('r-sleep', once(T0 + 30 * MIN), T0 + 30 * MIN)]);
    writeTable(dir, 'schedule-commands.json', [command('c-every', { kind: 'every', seconds: 600, from: iso(T0) }, T0 + 10 * MIN)]);
    const time = new FakeTime(T0);
    const { store, firer, loop } = setup(dir, time);
    loop.start();
    await loop.drain();
    assert.equal(loop.passes, 1);
    assert.deepEqual(passTimers(time), [{ at: T0 + MIN, ms: MAX_SLEEP_MS }]);

    time.advance(2 * H + 5 * S); // asleep: no timer ran
    assert.equal(loop.passes, 1);
    assert.equal(firer.calls.length, 0);
    await time.runDue(() => loop.drain());

    const resumeAt = T0 + 2 * H + 5 * S;
    assert.deepEqual(
      firer.calls.map((c) => ({ id: c.id, pass: c.pass, at: c.at })).sort((a, b) => a.id.localeCompare(b.id)),
      [
        { id: 'c-every', pass: 2, at: resumeAt },
        { id: 'r-sleep', pass: 2, at: resumeAt },
      ],
    );
    const rem = firer.calls.find((c) => c.id === 'r-sleep');
    assert.equal(rem?.run.lateMs, resumeAt - (T0 + 30 * MIN));
    const cmd = firer.calls.find((c) => c.id === 'c-every');
    // Twelve runs (08:10 … 10:00) passed: it ran once, for the latest, and counted the other eleven.
    assert.equal(cmd?.run.scheduledFor, iso(T0 + 2 * H));
    assert.equal(cmd?.run.missedRuns, 11);
    assert.equal(cmd?.run.lateMs, 5 * S);
    const cRow = (await store.listCommands()).rows.find((r) => r.id === 'c-every');
    assert.equal(cRow?.nextRunAt, iso(T0 + 2 * H + 10 * MIN));
    assert.deepEqual(cRow?.fact, { lateMs: 5 * S, missedRuns: 11, exitCode: 0, durationMs: 5 });
    loop.stop();
  });

  it('disk full: the pass fails, onError gets a clear message, the unpersisted claim is never fired, the file is byte-identical, and the loop re-arms at 60 s', async () => {
    const dir = freshDir();
    const remBytes = writeTable(dir, 'reminders.json', [reminder('r-due', once(T0 - S), T0 - S)]);
    const cmdBytes = writeTable(dir, 'schedule-commands.json', [command('c-due', once(T0 - S), T0 - S)]);
    const faults: Fault[] = [{ op: 'rename', code: 'ENOSPC' }];
    const time = new FakeTime(T0);
    const errors: unknown[] = [];
    let settled = 0;
    const store = new ScheduleStore({ dir, fs: faultyFs(faults) });
    const stats = countPasses(store);
    const { firer, loop } = setup(dir, time, { onError: (e) => errors.push(e), onSettled: () => settled++ }, store);
    loop.start();
    await time.runUntil(T0 + 10 * MIN, () => loop.drain());

    assert.equal(firer.calls.length, 0, 'nothing fired for a claim that was never written');
    assert.ok(stats.calls >= 10 && stats.calls <= 11, `passes over 10 fake minutes: ${stats.calls}`);
    assert.equal(settled, stats.calls);
    assert.equal(errors.length, stats.calls, 'one error per failed pass');
    assert.equal(loop.passes, 0, 'no pass succeeded');
    for (const e of errors) {
      assert.ok(e instanceof StoreError, `a StoreError, got ${String(e)}`);
      assert.equal(e.code, 'io');
      assert.match(e.message, /could not write .*reminders\.json: rename temp file over .* failed: ENOSPC.*; reminders\.json is unchanged/);
    }
    assert.ok(loop.lastError instanceof StoreError);
    // Every loop timer was the 60 s clamp: the due rows did not make it spin.
    assert.deepEqual([...new Set(passTimersArmed(time))], [MAX_SLEEP_MS]);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'reminders.json')), remBytes);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'schedule-commands.json')), cmdBytes);
    assert.deepEqual(listDir(dir), ['reminders.json', 'schedule-commands.json'], 'no temp file or pulse left behind');
    for (const t of ['reminders.json', 'schedule-commands.json']) assert.equal((await lockState(path.join(dir, '.locks', t))).state, 'free', `the lock of ${t} is released`);

    // Space comes back: the next pass claims and fires both, once.
    faults.splice(0);
    await time.runUntil(T0 + 12 * MIN, () => loop.drain());
    assert.deepEqual(firer.calls.map((c) => c.id).sort(), ['c-due', 'r-due']);
    assert.equal(loop.lastError, null);
    const rem = (await store.listReminders()).rows.find((r) => r.id === 'r-due');
    assert.equal(rem?.status, 'fired');
    assert.equal(rem?.fact?.delivered, true);
    loop.stop();
  });

  it(
    'a claim written by a pass that then fails (the pulse file cannot be written) is still fired, not left to be declared interrupted',
    async () => {
      const dir = freshDir();
      writeTable(dir, 'reminders.json', [reminder('r-pulse', once(T0 - S), T0 - S)]);
      const faults: Fault[] = [{ op: 'writeFile', code: 'ENOSPC', path: PULSE_FILE }];
      const time = new FakeTime(T0);
      const errors: unknown[] = [];
      const store = new ScheduleStore({ dir, fs: faultyFs(faults) });
      const { firer, loop } = setup(dir, time, { onError: (e) => errors.push(e) }, store);
      try {
        loop.start();
        await time.runUntil(T0 + 3 * MIN, () => loop.drain());
        assert.ok(errors.length > 0, 'the pulse write failed');
        const row = (await store.listReminders()).rows.find((r) => r.id === 'r-pulse');
        assert.equal(row?.fact?.interrupted, undefined, `the row was declared interrupted without a run: ${row?.fact?.error ?? ''}`);
        assert.equal(firer.count('r-pulse'), 1, 'the persisted claim is fired once');
      } finally {
        loop.stop();
      }
    },
  );

  it('one table failing does not strand the other: the reminder claim already written is fired, the unwritten command claim is not', async () => {
    const dir = freshDir();
    writeTable(dir, 'reminders.json', [reminder('r-first', once(T0 - S), T0 - S)]);
    const cmdBytes = writeTable(dir, 'schedule-commands.json', [command('c-second', once(T0 - S), T0 - S)]);
    const faults: Fault[] = [{ op: 'rename', code: 'ENOSPC', path: 'schedule-commands.json' }];
    const time = new FakeTime(T0);
    const errors: unknown[] = [];
    const store = new ScheduleStore({ dir, fs: faultyFs(faults) });
    const { firer, loop } = setup(dir, time, { onError: (e) => errors.push(e) }, store);
    loop.start();
    await time.runUntil(T0 + 3 * MIN, () => loop.drain());
    assert.equal(firer.count('c-second'), 0, 'the unpersisted command claim is never run');
    assert.deepEqual(fs.readFileSync(path.join(dir, 'schedule-commands.json')), cmdBytes);
    assert.equal(firer.count('r-first'), 1, 'the persisted reminder claim is fired once');
    const row = (await store.listReminders()).rows.find((r) => r.id === 'r-first');
    assert.equal(row?.claim, undefined);
    assert.deepEqual(row?.fact, { lateMs: S, delivered: true, via: 'test' });
    assert.ok(errors.length >= 3);
    for (const e of errors) assert.match(e instanceof Error ? e.message : String(e), /schedule-commands\.json: rename temp file over .*ENOSPC.*schedule-commands\.json is unchanged/);
    loop.stop();
  });
});

/** Delays of the loop's pass timers over the whole run (every armed delay that is not the heartbeat's). */
function passTimersArmed(time: FakeTime): number[] {
  return time.armed.filter((ms) => ms !== HEARTBEAT_EVERY_MS);
}

describe('dispatchOnce (the CLI path)', () => {
  it(
    'a table that fails does not strand the claims the other table already wrote',
    async () => {
      const dir = freshDir();
      writeTable(dir, 'reminders.json', [reminder('r-ok', once(T0 - S), T0 - S)]);
      writeTable(dir, 'schedule-commands.json', [command('c-fails', once(T0 - S), T0 - S)]);
      const store = new ScheduleStore({ dir, fs: faultyFs([{ op: 'rename', code: 'ENOSPC', path: 'schedule-commands.json' }]) });
      const firer = new RecordingFirer();
      const out = await dispatchOnce(store, firer, { now: new Date(T0), holder: { pid: process.pid, window: 'cli' }, limits: limits() }).catch((e: unknown) => e);
      assert.deepEqual(firer.calls.map((c) => c.id), ['r-ok'], `the written reminder claim is fired (dispatchOnce gave ${out instanceof Error ? out.message.slice(0, 60) : 'a result'})`);
      assert.equal(firer.count('c-fails'), 0);
    },
  );

  it('4 ScheduleStore instances on one dir, 200 due rows, at once: every row fired exactly once', async () => {
    const dir = freshDir();
    const now = T0 + S;
    writeTable(dir, 'reminders.json', Array.from({ length: 120 }, (_, i) => reminder(`r-many${String(i).padStart(3, '0')}`, once(T0 - i * S), T0 - i * S)));
    writeTable(dir, 'schedule-commands.json', Array.from({ length: 80 }, (_, i) => command(`c-many${String(i).padStart(3, '0')}`, once(T0 - i * S), T0 - i * S)));
    const firer = new RecordingFirer();
    // Each of the 200 facts is its own locked update, and the lock is not fair: under CPU load (2 cores, a VS Code
    // host test beside) the other stores' passes and the last facts waited 7-8 s of the default 10 s lock wait
    // (measured), and past it a fact is dropped. The property under test is exactly-once, so the wait is raised here.
    const stores = Array.from({ length: 4 }, () => new ScheduleStore({ dir, lockWaitMs: 60_000 }));
    const results = await Promise.all(stores.map((store, i) => dispatchOnce(store, firer, { now: new Date(now), holder: { pid: process.pid, window: `cli-${i}` }, limits: limits() })));

    const claimedPerStore = results.map((r) => r.pass.reminders.claimed.length + r.pass.commands.claimed.length);
    assert.equal(claimedPerStore.reduce((a, b) => a + b, 0), 200, `claims per store: ${claimedPerStore.join(', ')}`);
    assert.equal(firer.calls.length, 200);
    const counts = new Map<string, number>();
    for (const c of firer.calls) counts.set(c.id, (counts.get(c.id) ?? 0) + 1);
    assert.equal(counts.size, 200);
    assert.deepEqual([...counts.values()].filter((n) => n !== 1), []);
    const fired = results.flatMap((r) => r.fired);
    assert.equal(fired.length, 200);
    assert.ok(fired.every((f) => f.recorded), 'every fact was written');

    const rems = (await stores[0]?.listReminders())?.rows ?? [];
    const cmds = (await stores[0]?.listCommands())?.rows ?? [];
    assert.equal(rems.length, 120);
    assert.equal(cmds.length, 80);
    for (const r of rems) {
      assert.equal(r.status, 'fired', r.id);
      assert.equal(r.claim, undefined, r.id);
      assert.equal(r.fact?.delivered, true, r.id);
      assert.equal(r.fact?.lateMs, now - Date.parse(r.schedule.kind === 'once' ? r.schedule.at : ''), r.id);
    }
    for (const c of cmds) {
      assert.equal(c.status, 'fired', c.id);
      assert.equal(c.claim, undefined, c.id);
      assert.equal(c.fact?.exitCode, 0, c.id);
      assert.equal(c.runningTimeoutMinutes, undefined, c.id);
    }

    // A second round from all four finds nothing to do.
    const again = await Promise.all(stores.map((store, i) => dispatchOnce(store, firer, { now: new Date(now + S), holder: { pid: process.pid, window: `cli-${i}` }, limits: limits() })));
    assert.deepEqual(again.map((r) => r.fired.length), [0, 0, 0, 0]);
    assert.equal(firer.calls.length, 200);
  });
});
