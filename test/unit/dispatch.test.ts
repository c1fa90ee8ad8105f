/**
 * The dispatcher's pure transitions (src/core/dispatch.ts)
 * with a fake clock: claims, catch-up and its
 * limits, the running guard and dead holders, recordFact, retention, move and run_now, nextWorkAt,
 * clock jumps and DST nights.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  duePass,
  heartbeat,
  HEARTBEAT_STALE_MS,
  moveRow,
  nextWorkAt,
  recordFact,
  RETENTION_MS,
  runNow,
  type ClaimedRun,
  type Holder,
  type PassOptions,
  type PassResult,
} from '../../src/core/dispatch';
import { commandRowSchema, reminderRowSchema, type CommandRow, type ReminderRow, type Schedule, type ScheduleRow } from '../../src/core/schema';
import { nextRunAfter } from '../../src/core/time/runs';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const DAY = 24 * H;

const NOW = new Date('2026-10-01T08:00:00.000Z');
const CREATED = '2026-09-01T00:00:00.000Z';
const ME: Holder = { pid: 4242, window: 'win-a' };
const OTHER: Holder = { pid: 5151, window: 'win-b' };
const LIMITS = { reminder: 12 * H, command: 1 * H };

let tokenSeq = 0;
function newToken(): string {
  tokenSeq += 1;
  return `tok${String(tokenSeq).padStart(10, '0')}`;
}

function d(s: string): Date {
  return new Date(s);
}

function iso(ms: number | Date): string {
  return new Date(typeof ms === 'number' ? ms : ms.getTime()).toISOString();
}

function plus(base: Date, ms: number): Date {
  return new Date(base.getTime() + ms);
}

function opts(now: Date, over: Partial<PassOptions> = {}): PassOptions {
  return { now, holder: ME, newToken, maxLatenessMs: LIMITS, ...over };
}

function once(at: Date): Schedule {
  return { kind: 'once', at: at.toISOString() };
}

function every(seconds: number, from: Date): Schedule {
  return { kind: 'every', seconds, from: from.toISOString() };
}

function cron(expr: string, tz = 'Europe/Berlin'): Schedule {
  return { kind: 'cron', expr, tz };
}

function reminder(id: string, schedule: Schedule, nextRunAt: Date | null, over: Partial<ReminderRow> = {}): ReminderRow {
  return reminderRowSchema.parse({
    id,
    text: `prompt of ${id}`,
    schedule,
    tz: 'Europe/Berlin',
    status: 'pending',
    nextRunAt: nextRunAt === null ? null : nextRunAt.toISOString(),
    createdAt: CREATED,
    ...over,
  });
}

function command(id: string, schedule: Schedule, nextRunAt: Date | null, over: Partial<CommandRow> = {}): CommandRow {
  return commandRowSchema.parse({
    id,
    command: `echo ${id}`,
    cwd: '/tmp',
    timeoutMinutes: 2,
    schedule,
    tz: 'Europe/Berlin',
    status: 'pending',
    nextRunAt: nextRunAt === null ? null : nextRunAt.toISOString(),
    createdAt: CREATED,
    ...over,
  });
}

function find<R extends ScheduleRow>(rows: readonly R[], id: string): R {
  const row = rows.find((r) => r.id === id);
  if (!row) throw new Error(`no row ${id} in [${rows.map((r) => r.id).join(', ')}]`);
  return row;
}

function only<T>(items: readonly T[], what: string): T {
  assert.equal(items.length, 1, `expected exactly one ${what}, got ${items.length}`);
  const first = items[0];
  if (first === undefined) throw new Error(`no ${what}`);
  return first;
}

/** Every row a transition returns must still be a valid row of its table (the store would refuse it). */
function assertValid(rows: readonly ScheduleRow[]): void {
  for (const row of rows) {
    const parsed = 'command' in row ? commandRowSchema.safeParse(row) : reminderRowSchema.safeParse(row);
    assert.ok(parsed.success, `${row.id} is not a valid row: ${parsed.success ? '' : parsed.error.message}`);
  }
}

function pass<R extends ScheduleRow>(rows: readonly R[], o: PassOptions): PassResult<R> {
  const r = duePass(rows, o);
  assertValid(r.rows);
  return r;
}

/**
 * Runs a pass every `stepMs` from `from` to `to` (inclusive), recording a delivered fact right after
 * each claim (the run ended), the way a dispatcher and its Firer would.
 */
function simulate<R extends ScheduleRow>(
  start: readonly R[],
  from: Date,
  to: Date,
  stepMs: number,
  o: Partial<PassOptions> = {},
): { rows: R[]; claims: (ClaimedRun & { at: string })[]; missed: PassResult<R>['missed'] } {
  let rows = [...start];
  const claims: (ClaimedRun & { at: string })[] = [];
  const missed: PassResult<R>['missed'] = [];
  for (let t = from.getTime(); t <= to.getTime(); t += stepMs) {
    const r = pass(rows, opts(new Date(t), o));
    rows = r.rows;
    missed.push(...r.missed);
    for (const c of r.claimed) {
      claims.push({ ...c, at: iso(t) });
      const f = recordFact(rows, c.id, c.token, 'command' in find(rows, c.id) ? { exitCode: 0 } : { delivered: true, via: 'test' });
      assert.equal(f.applied, true);
      rows = f.rows;
    }
  }
  return { rows, claims, missed };
}

describe('duePass: claiming due rows', () => {
  it('claims a due one-shot: status fired, firedAt = now, a claim with token and holder, lateMs; a row not yet due is untouched', () => {
    const due = reminder('r-due', once(plus(NOW, -1500)), plus(NOW, -1500));
    const later = reminder('r-later', once(plus(NOW, MIN)), plus(NOW, MIN));
    const r = pass([due, later], opts(NOW));

    assert.equal(r.changed, true);
    const run = only(r.claimed, 'claim');
    assert.match(run.token, /^tok\d{10}$/);
    assert.deepEqual(run, { id: 'r-due', token: run.token, scheduledFor: iso(plus(NOW, -1500)), firedAt: iso(NOW), lateMs: 1500, missedRuns: 0 });

    const row = find(r.rows, 'r-due');
    assert.equal(row.status, 'fired');
    assert.equal(row.nextRunAt, null);
    assert.equal(row.firedAt, iso(NOW));
    assert.deepEqual(row.claim, { token: run.token, pid: ME.pid, window: ME.window, heartbeatAt: iso(NOW), scheduledFor: iso(plus(NOW, -1500)) });
    assert.deepEqual(row.fact, { lateMs: 1500 });
    assert.equal(row.text, 'prompt of r-due');

    assert.equal(find(r.rows, 'r-later'), later, 'a row not yet due is passed through as the same object');
    assert.deepEqual(r.missed, []);
    assert.deepEqual(r.interrupted, []);
    assert.deepEqual(r.cleaned, []);
  });

  it('a pass with nothing due changes nothing (so the store skips the write)', () => {
    const later = reminder('r-later', once(plus(NOW, 1)), plus(NOW, 1));
    const r = pass([later], opts(NOW));
    assert.equal(r.changed, false);
    assert.deepEqual(r.claimed, []);
    assert.equal(r.rows[0], later);
  });

  it('a row due exactly now is claimed with lateMs 0', () => {
    const r = pass([reminder('r-now', once(NOW), NOW)], opts(NOW));
    assert.equal(only(r.claimed, 'claim').lateMs, 0);
  });

  it('a recurring every-30m row is claimed and stays pending with nextRunAt advanced past now in the same transition', () => {
    const from = d('2026-10-01T06:00:00Z');
    const row = reminder('r-every', every(1800, from), d('2026-10-01T08:00:00Z'));
    const now = d('2026-10-01T08:00:02Z');
    const r = pass([row], opts(now));
    const run = only(r.claimed, 'claim');
    assert.equal(run.scheduledFor, '2026-10-01T08:00:00.000Z');
    assert.equal(run.lateMs, 2000);
    const out = find(r.rows, 'r-every');
    assert.equal(out.status, 'pending');
    assert.equal(out.nextRunAt, '2026-10-01T08:30:00.000Z');
    assert.equal(out.firedAt, iso(now));
    assert.equal(out.claim?.token, run.token);
    assert.equal(out.claim?.scheduledFor, '2026-10-01T08:00:00.000Z');
    assert.deepEqual(out.fact, { lateMs: 2000 });
  });

  it('a cron row in Europe/Berlin stays pending with the next run after now (across the October DST change)', () => {
    // 09:00 CEST = 07:00Z on Sat 24 Oct; the next 09:00 is CET on Sun 25 Oct = 08:00Z.
    const row = reminder('r-cron', cron('0 9 * * *'), d('2026-10-24T07:00:00Z'));
    const now = d('2026-10-24T07:00:05Z');
    const r = pass([row], opts(now));
    const run = only(r.claimed, 'claim');
    assert.equal(run.scheduledFor, '2026-10-24T07:00:00.000Z');
    assert.equal(run.lateMs, 5000);
    const out = find(r.rows, 'r-cron');
    assert.equal(out.status, 'pending');
    assert.equal(out.nextRunAt, '2026-10-25T08:00:00.000Z');
    assert.equal(out.claim?.token, run.token);
  });

  it('a claimed command records the timeout of the run in flight (runningTimeoutMinutes = timeoutMinutes)', () => {
    const row = command('c-once', once(plus(NOW, -S)), plus(NOW, -S), { timeoutMinutes: 7 });
    const r = pass([row], opts(NOW));
    only(r.claimed, 'claim');
    const out = find(r.rows, 'c-once');
    assert.equal(out.status, 'fired');
    assert.equal(out.timeoutMinutes, 7);
    assert.equal(out.runningTimeoutMinutes, 7);
  });
});

describe('duePass: catch-up', () => {
  it('a one-shot reminder 3 h late (limit 12 h) is claimed once, with lateMs', () => {
    const at = plus(NOW, -3 * H);
    const r1 = pass([reminder('r-late', once(at), at)], opts(NOW));
    const run = only(r1.claimed, 'claim');
    assert.equal(run.lateMs, 3 * H);
    assert.equal(run.scheduledFor, iso(at));
    assert.deepEqual(find(r1.rows, 'r-late').fact, { lateMs: 3 * H });
    // A second pass (any holder) does not take it again.
    const r2 = pass(r1.rows, opts(plus(NOW, S), { holder: OTHER }));
    assert.deepEqual(r2.claimed, []);
    const r3 = pass(recordFact(r2.rows, 'r-late', run.token, { delivered: true }).rows, opts(plus(NOW, 2 * S)));
    assert.deepEqual(r3.claimed, []);
  });

  it('a one-shot reminder 13 h late is marked missed, not claimed; the fact says missed and names the limit', () => {
    const at = plus(NOW, -13 * H);
    const r = pass([reminder('r-13h', once(at), at)], opts(NOW));
    assert.deepEqual(r.claimed, []);
    assert.deepEqual(r.missed, [{ id: 'r-13h', scheduledFor: iso(at), lateMs: 13 * H, missedRuns: 1 }]);
    const out = find(r.rows, 'r-13h');
    assert.equal(out.status, 'missed');
    assert.equal(out.nextRunAt, null);
    assert.equal(out.claim, undefined);
    assert.equal(out.fact?.lateMs, 13 * H);
    assert.equal(out.fact?.missedRuns, 1);
    assert.equal(out.fact?.delivered, undefined);
    assert.match(out.fact?.error ?? '', /missed/);
    assert.match(out.fact?.error ?? '', /13 h late/);
    assert.match(out.fact?.error ?? '', /12 h catch-up limit/);
  });

  it('the limit is inclusive: exactly 12 h late still runs', () => {
    const at = plus(NOW, -12 * H);
    const r = pass([reminder('r-12h', once(at), at)], opts(NOW));
    assert.equal(only(r.claimed, 'claim').lateMs, 12 * H);
  });

  it('a command 2 h late (limit 1 h) is missed; 50 min late it runs', () => {
    const late2h = plus(NOW, -2 * H);
    const late50 = plus(NOW, -50 * MIN);
    const r = pass([command('c-2h', once(late2h), late2h), command('c-50m', once(late50), late50)], opts(NOW));
    assert.deepEqual(r.claimed.map((c) => c.id), ['c-50m']);
    assert.deepEqual(r.missed, [{ id: 'c-2h', scheduledFor: iso(late2h), lateMs: 2 * H, missedRuns: 1 }]);
    const out = find(r.rows, 'c-2h');
    assert.equal(out.status, 'missed');
    assert.equal(out.claim, undefined);
    assert.equal(out.runningTimeoutMinutes, undefined);
    assert.match(out.fact?.error ?? '', /missed: 2 h late, past the 60 min catch-up limit/);
  });

  it('limits come from the options: a 30 min reminder limit marks a 40 min late reminder missed', () => {
    const at = plus(NOW, -40 * MIN);
    const r = pass([reminder('r-40m', once(at), at)], opts(NOW, { maxLatenessMs: { reminder: 30 * MIN, command: H } }));
    assert.deepEqual(r.claimed, []);
    assert.equal(find(r.rows, 'r-40m').status, 'missed');
  });

  it('a recurring every-30m row that missed 10 runs within the limit is claimed ONCE, for the latest, counting the others', () => {
    const from = d('2026-10-01T02:00:00Z');
    // Runs at 02:30, 03:00, …, 07:00 (10 runs) passed while nothing ran; now is 07:10.
    const row = reminder('r-every', every(1800, from), d('2026-10-01T02:30:00Z'));
    const now = d('2026-10-01T07:10:00Z');
    const r = pass([row], opts(now));
    const run = only(r.claimed, 'claim');
    assert.equal(run.scheduledFor, '2026-10-01T07:00:00.000Z');
    assert.equal(run.lateMs, 10 * MIN);
    assert.equal(run.missedRuns, 9);
    const out = find(r.rows, 'r-every');
    assert.equal(out.status, 'pending');
    assert.equal(out.nextRunAt, '2026-10-01T07:30:00.000Z');
    assert.deepEqual(out.fact, { lateMs: 10 * MIN, missedRuns: 9 });
    assert.equal(out.claim?.scheduledFor, '2026-10-01T07:00:00.000Z');
    assert.deepEqual(r.missed, []);
  });

  it('a recurring row whose latest run is past the limit stays pending, advances, counts missedRuns, and is not claimed', () => {
    // Daily 05:00 Berlin (03:00Z) command, last due two days ago; the latest run (today 03:00Z) is 5 h late, limit 1 h.
    const row = command('c-daily', cron('0 5 * * *'), d('2026-09-29T03:00:00Z'), { fact: { exitCode: 0, durationMs: 12, missedRuns: 2 } });
    const r = pass([row], opts(NOW));
    assert.deepEqual(r.claimed, []);
    assert.deepEqual(r.missed, [{ id: 'c-daily', scheduledFor: '2026-10-01T03:00:00.000Z', lateMs: 5 * H, missedRuns: 3 }]);
    const out = find(r.rows, 'c-daily');
    assert.equal(out.status, 'pending');
    assert.equal(out.nextRunAt, '2026-10-02T03:00:00.000Z');
    assert.equal(out.claim, undefined);
    assert.equal(out.firedAt, undefined);
    // The earlier count (2) grows by the three runs missed now; the last run's fact is kept.
    assert.deepEqual(out.fact, { exitCode: 0, durationMs: 12, missedRuns: 5, lateMs: 5 * H });
    // It runs normally at its next time.
    const next = pass(r.rows, opts(d('2026-10-02T03:00:01Z')));
    assert.equal(only(next.claimed, 'claim').scheduledFor, '2026-10-02T03:00:00.000Z');
  });
});

describe('duePass: the running guard', () => {
  it('a claimed row is not claimed again by a second pass, even when run_now made it due again; run_now applies after the run', () => {
    const at = plus(NOW, -S);
    const r1 = pass([reminder('r-run', once(at), at)], opts(NOW));
    const run = only(r1.claimed, 'claim');
    const moved = runNow(find(r1.rows, 'r-run'), plus(NOW, S));
    assert.equal(moved.running, true);
    assert.equal(moved.row.claim?.token, run.token, 'run_now keeps the claim');
    assert.deepEqual(moved.row.fact, { lateMs: S }, 'run_now keeps the first fact');
    const rows = r1.rows.map((r) => (r.id === 'r-run' ? moved.row : r));

    const byOther = pass(rows, opts(plus(NOW, 5 * S), { holder: OTHER, ownLiveTokens: new Set() }));
    assert.deepEqual(byOther.claimed, []);
    assert.deepEqual(byOther.interrupted, []);
    assert.equal(find(byOther.rows, 'r-run').claim?.token, run.token);
    const byMe = pass(byOther.rows, opts(plus(NOW, 6 * S), { ownLiveTokens: new Set([run.token]) }));
    assert.deepEqual(byMe.claimed, []);
    assert.equal(byMe.changed, false);

    // The run ends; the run_now request then takes effect on the next pass.
    const done = recordFact(byMe.rows, 'r-run', run.token, { delivered: true });
    assert.equal(done.applied, true);
    const again = pass(done.rows, opts(plus(NOW, 7 * S), { holder: OTHER }));
    const run2 = only(again.claimed, 'claim');
    assert.notEqual(run2.token, run.token);
    assert.equal(run2.scheduledFor, iso(plus(NOW, S)));
  });

  it('a claim whose heartbeat is older than 120 s is declared interrupted (delivered false for a reminder), its claim removed, not re-run', () => {
    const at = plus(NOW, -S);
    const r1 = pass([reminder('r-dead', once(at), at), command('c-dead', once(at), at)], opts(NOW));
    assert.equal(r1.claimed.length, 2);

    // Exactly at the limit the holder is still alive.
    const atLimit = pass(r1.rows, opts(plus(NOW, HEARTBEAT_STALE_MS), { holder: OTHER }));
    assert.deepEqual(atLimit.interrupted, []);
    assert.equal(atLimit.changed, false);

    const later = plus(NOW, HEARTBEAT_STALE_MS + 1);
    const r2 = pass(r1.rows, opts(later, { holder: OTHER }));
    assert.deepEqual(r2.interrupted.sort(), ['c-dead', 'r-dead']);
    assert.deepEqual(r2.claimed, []);
    const rem = find(r2.rows, 'r-dead');
    assert.equal(rem.claim, undefined);
    assert.equal(rem.status, 'fired');
    assert.equal(rem.firedAt, iso(NOW));
    assert.equal(rem.fact?.interrupted, true);
    assert.equal(rem.fact?.delivered, false);
    assert.equal(rem.fact?.lateMs, S);
    assert.match(rem.fact?.error ?? '', /window running it \(pid 4242\) stopped before recording a fact/);
    const cmd = find(r2.rows, 'c-dead');
    assert.equal(cmd.claim, undefined);
    assert.equal(cmd.fact?.interrupted, true);
    assert.equal(cmd.fact?.delivered, undefined, 'a command has no delivery');
    assert.match(cmd.fact?.error ?? '', /pid 4242/);

    // Not re-run by later passes.
    const r3 = pass(r2.rows, opts(plus(later, H), { holder: OTHER }));
    assert.deepEqual(r3.claimed, []);
    assert.deepEqual(r3.interrupted, []);
    // A late fact from the dead holder finds no claim and changes nothing.
    const late = recordFact(r3.rows, 'r-dead', only(r1.claimed.filter((c) => c.id === 'r-dead'), 'claim').token, { delivered: true });
    assert.equal(late.applied, false);
    assert.equal(find(late.rows, 'r-dead').fact?.delivered, false);
  });

  it('a dead CLI claim names the CLI process', () => {
    const at = plus(NOW, -S);
    const r1 = pass([reminder('r-cli', once(at), at)], opts(NOW, { holder: { pid: 77, window: 'cli' } }));
    const r2 = pass(r1.rows, opts(plus(NOW, 3 * MIN)));
    assert.match(find(r2.rows, 'r-cli').fact?.error ?? '', /the CLI process running it \(pid 77\) stopped/);
  });

  it('an interrupted recurring row stays pending at its advanced time and runs at that time, not at once', () => {
    const row = reminder('r-every', every(1800, d('2026-10-01T06:00:00Z')), NOW);
    const r1 = pass([row], opts(NOW));
    const r2 = pass(r1.rows, opts(plus(NOW, 3 * MIN), { holder: OTHER }));
    assert.deepEqual(r2.interrupted, ['r-every']);
    const out = find(r2.rows, 'r-every');
    assert.equal(out.status, 'pending');
    assert.equal(out.nextRunAt, '2026-10-01T08:30:00.000Z');
    assert.deepEqual(pass(r2.rows, opts(plus(NOW, 4 * MIN), { holder: OTHER })).claimed, []);
    assert.equal(only(pass(r2.rows, opts(d('2026-10-01T08:30:00Z'), { holder: OTHER })).claimed, 'claim').scheduledFor, '2026-10-01T08:30:00.000Z');
  });

  it('a claim held by another window with a fresh heartbeat is left alone', () => {
    const at = plus(NOW, -5 * MIN);
    const claimed = pass([command('c-other', once(at), at)], opts(plus(NOW, -60 * S), { holder: OTHER }));
    const row = find(claimed.rows, 'c-other');
    const r = pass(claimed.rows, opts(NOW, { holder: ME, ownLiveTokens: new Set() }));
    assert.equal(r.changed, false);
    assert.deepEqual(r.interrupted, []);
    assert.deepEqual(r.claimed, []);
    assert.equal(find(r.rows, 'c-other'), row);
  });

  it("this holder's own claim whose token it no longer runs (a restart) is interrupted at once, heartbeat fresh or not", () => {
    const at = plus(NOW, -S);
    const r1 = pass([reminder('r-mine', once(at), at)], opts(NOW));
    const run = only(r1.claimed, 'claim');
    const soon = plus(NOW, S);

    // Still running here: left alone. Without ownLiveTokens (the CLI's dispatch --once) nothing is assumed.
    assert.equal(pass(r1.rows, opts(soon, { ownLiveTokens: new Set([run.token]) })).changed, false);
    assert.equal(pass(r1.rows, opts(soon)).changed, false);

    const r2 = pass(r1.rows, opts(soon, { ownLiveTokens: new Set(['tok-some-other-run']) }));
    assert.deepEqual(r2.interrupted, ['r-mine']);
    assert.deepEqual(r2.claimed, []);
    const out = find(r2.rows, 'r-mine');
    assert.equal(out.claim, undefined);
    assert.equal(out.status, 'fired');
    assert.equal(out.fact?.interrupted, true);
    assert.equal(out.fact?.delivered, false);
    assert.match(out.fact?.error ?? '', /restarted before the run recorded a fact/);
  });

  it(
    "this holder's own live run (token in ownLiveTokens) is not declared dead by its own pass after a sleep longer than the stale limit",
    () => {
      // The laptop slept 2 h while this window ran the command; the heartbeat timer has not run yet after resume.
      const at = plus(NOW, -S);
      const r1 = pass([command('c-sleep', once(at), at)], opts(NOW));
      const run = only(r1.claimed, 'claim');
      const r2 = pass(r1.rows, opts(plus(NOW, 2 * H), { ownLiveTokens: new Set([run.token]) }));
      assert.deepEqual(r2.interrupted, [], 'the run is alive in this very process');
      assert.equal(find(r2.rows, 'c-sleep').claim?.token, run.token);
    },
  );

  it(
    'an interrupted command row carries no runningTimeoutMinutes (no run is in flight)',
    () => {
      const at = plus(NOW, -S);
      const r1 = pass([command('c-int', once(at), at, { timeoutMinutes: 5 })], opts(NOW));
      const r2 = pass(r1.rows, opts(plus(NOW, 3 * MIN), { holder: OTHER }));
      assert.deepEqual(r2.interrupted, ['c-int']);
      const out = find(r2.rows, 'c-int');
      assert.equal(out.claim, undefined);
      assert.equal(out.runningTimeoutMinutes, undefined);
    },
  );
});

describe('recordFact and heartbeat', () => {
  function claimedPair(): { rows: (ReminderRow | CommandRow)[]; rem: ClaimedRun; cmd: ClaimedRun } {
    const at = plus(NOW, -4 * S);
    const r = pass<ReminderRow | CommandRow>([reminder('r-a', once(at), at), command('c-b', once(at), at, { timeoutMinutes: 3 })], opts(NOW));
    const rem = only(r.claimed.filter((c) => c.id === 'r-a'), 'reminder claim');
    const cmd = only(r.claimed.filter((c) => c.id === 'c-b'), 'command claim');
    return { rows: r.rows, rem, cmd };
  }

  it('applies only with the run token: a wrong token changes nothing', () => {
    const { rows, rem } = claimedPair();
    const wrong = recordFact(rows, 'r-a', 'tok-not-the-run', { delivered: true });
    assert.equal(wrong.applied, false);
    assert.deepEqual(wrong.rows, rows);
    const wrongId = recordFact(rows, 'c-b', rem.token, { exitCode: 0 });
    assert.equal(wrongId.applied, false, "a token is bound to its row: r-a's token does not settle c-b");
    assert.deepEqual(wrongId.rows, rows);

    const right = recordFact(rows, 'r-a', rem.token, { delivered: true, via: 'notification' });
    assert.equal(right.applied, true);
    const out = find(right.rows, 'r-a');
    assert.equal(out.claim, undefined);
    assert.equal(out.status, 'fired');
    assert.equal(out.firedAt, iso(NOW));
    // The other row is untouched.
    assert.equal(find(right.rows, 'c-b'), find(rows, 'c-b'));
    // A second delivery of the same fact finds no claim.
    assert.equal(recordFact(right.rows, 'r-a', rem.token, { delivered: false }).applied, false);
  });

  it('a row removed meanwhile: applied false and the rows unchanged (nothing left behind)', () => {
    const { rows, rem } = claimedPair();
    const without = rows.filter((r) => r.id !== 'r-a');
    const r = recordFact(without, 'r-a', rem.token, { delivered: true });
    assert.equal(r.applied, false);
    assert.deepEqual(r.rows, without);
    assert.equal(r.rows.length, 1);
    assert.equal(r.rows.some((x) => x.id === 'r-a'), false);
  });

  it("merges the pass's lateMs with the run's fact and removes runningTimeoutMinutes", () => {
    const { rows, rem, cmd } = claimedPair();
    const beforeCmd = find(rows, 'c-b');
    assert.equal('command' in beforeCmd && beforeCmd.runningTimeoutMinutes, 3);
    const a = recordFact(rows, 'r-a', rem.token, { delivered: true, via: 'notification' });
    assert.deepEqual(find(a.rows, 'r-a').fact, { lateMs: 4 * S, delivered: true, via: 'notification' });
    const b = recordFact(a.rows, 'c-b', cmd.token, { exitCode: 1, durationMs: 250, error: 'exit 1' });
    assert.equal(b.applied, true);
    const out = find(b.rows, 'c-b');
    assert.ok('command' in out);
    assert.deepEqual(out.fact, { lateMs: 4 * S, exitCode: 1, durationMs: 250, error: 'exit 1' });
    assert.equal(out.runningTimeoutMinutes, undefined);
    assert.equal('runningTimeoutMinutes' in out, false);
    assert.equal(out.timeoutMinutes, 3);
    assert.equal(out.claim, undefined);
    assertValid(b.rows);
  });

  it('the fact of a recurring run keeps the missedRuns of its catch-up', () => {
    const row = reminder('r-every', every(1800, d('2026-10-01T02:00:00Z')), d('2026-10-01T02:30:00Z'));
    const r = pass([row], opts(d('2026-10-01T07:10:00Z')));
    const run = only(r.claimed, 'claim');
    const f = recordFact(r.rows, 'r-every', run.token, { delivered: true });
    assert.deepEqual(find(f.rows, 'r-every').fact, { lateMs: 10 * MIN, missedRuns: 9, delivered: true });
    assert.equal(find(f.rows, 'r-every').status, 'pending');
  });

  it('heartbeat refreshes only the claims of the given tokens', () => {
    const { rows, rem } = claimedPair();
    const later = plus(NOW, 30 * S);
    const h = heartbeat(rows, new Set([rem.token]), later);
    assert.equal(h.changed, true);
    assert.equal(find(h.rows, 'r-a').claim?.heartbeatAt, iso(later));
    assert.equal(find(h.rows, 'c-b').claim?.heartbeatAt, iso(NOW));
    assert.equal(find(h.rows, 'r-a').claim?.token, rem.token);
    assert.equal(heartbeat(rows, new Set(['tok-unknown']), later).changed, false);
    // A refreshed claim survives a pass that would otherwise find it stale.
    const p = pass(h.rows, opts(plus(NOW, HEARTBEAT_STALE_MS + S), { holder: OTHER }));
    assert.deepEqual(p.interrupted, ['c-b']);
  });
});

describe('retention', () => {
  it('a fired one-shot reminder is cleaned 24 h after firing, kept before', () => {
    const firedAt = d('2026-09-30T08:00:00Z');
    const row = reminder('r-old', once(firedAt), null, { status: 'fired', firedAt: iso(firedAt), fact: { delivered: true, lateMs: 0 } });
    const kept = pass([row], opts(plus(firedAt, RETENTION_MS - 1)));
    assert.deepEqual(kept.cleaned, []);
    assert.equal(kept.rows[0], row);
    const gone = pass([row], opts(plus(firedAt, RETENTION_MS)));
    assert.deepEqual(gone.cleaned, ['r-old']);
    assert.deepEqual(gone.rows, []);
    assert.equal(gone.changed, true);
    assert.equal(RETENTION_MS, 24 * H);
  });

  it('command rows are never cleaned, fired or missed', () => {
    const long = d('2026-08-01T00:00:00Z');
    const fired = command('c-fired', once(long), null, { status: 'fired', firedAt: iso(long), fact: { exitCode: 0 } });
    const missed = command('c-missed', once(long), null, { status: 'missed', firedAt: iso(long), fact: { lateMs: 2 * H } });
    const r = pass([fired, missed], opts(NOW));
    assert.deepEqual(r.cleaned, []);
    assert.deepEqual(r.rows, [fired, missed]);
    assert.equal(r.changed, false);
  });

  it('a missed one-shot reminder is kept 24 h from being marked, then cleaned', () => {
    const at = plus(NOW, -13 * H);
    const marked = pass([reminder('r-miss', once(at), at)], opts(NOW));
    assert.equal(find(marked.rows, 'r-miss').status, 'missed');
    const day = pass(marked.rows, opts(plus(NOW, DAY - S)));
    assert.deepEqual(day.cleaned, []);
    assert.equal(find(day.rows, 'r-miss').status, 'missed');
    const after = pass(marked.rows, opts(plus(NOW, DAY)));
    assert.deepEqual(after.cleaned, ['r-miss']);
    assert.deepEqual(after.rows, []);
  });

  it('a running reminder is not cleaned, and a pending recurring reminder never is', () => {
    const firedAt = plus(NOW, -2 * DAY);
    const running = reminder('r-running', once(firedAt), null, {
      status: 'fired',
      firedAt: iso(firedAt),
      claim: { token: 'tok-running-1', pid: OTHER.pid, window: OTHER.window, heartbeatAt: iso(plus(NOW, -10 * S)), scheduledFor: iso(firedAt) },
    });
    const recurring = reminder('r-rec', every(3600, d('2026-01-01T00:00:00Z')), plus(NOW, 30 * MIN), { createdAt: '2026-01-01T00:00:00.000Z', firedAt: iso(plus(NOW, -30 * DAY)) });
    const r = pass([running, recurring], opts(NOW));
    assert.deepEqual(r.cleaned, []);
    assert.deepEqual(r.rows, [running, recurring]);
  });
});

describe('move and run_now', () => {
  it('move keeps id and text, changes schedule, zone and nextRunAt, and makes the row pending', () => {
    const at = plus(NOW, -S);
    const r1 = pass([reminder('r-move', once(at), at)], opts(NOW));
    const run = only(r1.claimed, 'claim');
    const done = recordFact(r1.rows, 'r-move', run.token, { delivered: true });
    const row = find(done.rows, 'r-move');
    const newAt = d('2026-10-03T07:00:00Z');
    const m = moveRow(row, once(newAt), newAt, 'America/New_York');
    assert.equal(m.running, false);
    assert.equal(m.row.id, 'r-move');
    assert.equal(m.row.text, 'prompt of r-move');
    assert.deepEqual(m.row.schedule, { kind: 'once', at: '2026-10-03T07:00:00.000Z' });
    assert.equal(m.row.tz, 'America/New_York');
    assert.equal(m.row.status, 'pending');
    assert.equal(m.row.nextRunAt, '2026-10-03T07:00:00.000Z');
    assert.equal(m.row.createdAt, CREATED);
    assertValid([m.row]);
    // It fires at the new time.
    assert.deepEqual(pass([m.row], opts(plus(newAt, -S))).claimed, []);
    assert.equal(only(pass([m.row], opts(newAt)).claimed, 'claim').scheduledFor, iso(newAt));
  });

  it('move of a running command keeps runningTimeoutMinutes at the old timeout and sets timeoutMinutes to the new one', () => {
    const at = plus(NOW, -S);
    const r1 = pass([command('c-run', once(at), at, { timeoutMinutes: 2 })], opts(NOW));
    const run = only(r1.claimed, 'claim');
    const row = find(r1.rows, 'c-run');
    const newAt = d('2026-10-02T06:00:00Z');
    const m = moveRow(row, cron('0 8 * * *'), newAt, 'Europe/Berlin', 10);
    assert.equal(m.running, true);
    assert.equal(m.row.id, 'c-run');
    assert.equal(m.row.command, 'echo c-run');
    assert.equal(m.row.runningTimeoutMinutes, 2);
    assert.equal(m.row.timeoutMinutes, 10);
    assert.equal(m.row.claim?.token, run.token, 'the run in flight keeps its claim');
    assert.deepEqual(m.row.fact, { lateMs: S }, 'the first fact is kept');
    assert.deepEqual(m.row.schedule, { kind: 'cron', expr: '0 8 * * *', tz: 'Europe/Berlin' });
    assert.equal(m.row.nextRunAt, iso(newAt));
    assertValid([m.row]);
    // A second move while still running keeps the timeout of the run in flight.
    const m2 = moveRow(m.row, cron('0 8 * * *'), newAt, 'Europe/Berlin', 20);
    assert.equal(m2.row.runningTimeoutMinutes, 2);
    assert.equal(m2.row.timeoutMinutes, 20);
    // The run ends: the in-flight timeout goes; the next claim runs with the new timeout.
    const done = recordFact([m2.row], 'c-run', run.token, { exitCode: 0 });
    const after = find(done.rows, 'c-run');
    assert.equal(after.runningTimeoutMinutes, undefined);
    assert.equal(after.timeoutMinutes, 20);
    const next = pass(done.rows, opts(newAt));
    only(next.claimed, 'claim');
    assert.equal(find(next.rows, 'c-run').runningTimeoutMinutes, 20);
  });

  it('move of a command without a new timeout leaves both timeouts alone', () => {
    const row = command('c-idle', once(plus(NOW, H)), plus(NOW, H), { timeoutMinutes: 4 });
    const m = moveRow(row, once(plus(NOW, 2 * H)), plus(NOW, 2 * H), 'Europe/Berlin');
    assert.equal(m.row.timeoutMinutes, 4);
    assert.equal(m.row.runningTimeoutMinutes, undefined);
  });

  it('run_now on a recurring every row keeps its cadence: after the run, the next run is on the grid from `from`', () => {
    const from = d('2026-10-01T00:00:00Z');
    const row = reminder('r-hourly', every(3600, from), d('2026-10-01T09:00:00Z'));
    const t = d('2026-10-01T08:20:00Z');
    const rn = runNow(row, t);
    assert.equal(rn.running, false);
    assert.equal(rn.row.nextRunAt, iso(t));
    assert.equal(rn.row.status, 'pending');
    assert.deepEqual(rn.row.schedule, row.schedule);

    const r1 = pass([rn.row], opts(plus(t, S)));
    const run = only(r1.claimed, 'claim');
    assert.equal(run.scheduledFor, iso(t));
    assert.equal(run.missedRuns, 0);
    assert.equal(find(r1.rows, 'r-hourly').nextRunAt, '2026-10-01T09:00:00.000Z');
    const done = recordFact(r1.rows, 'r-hourly', run.token, { delivered: true });

    const sim = simulate(done.rows, plus(t, MIN), d('2026-10-01T11:30:00Z'), MIN);
    assert.deepEqual(
      sim.claims.map((c) => c.scheduledFor),
      ['2026-10-01T09:00:00.000Z', '2026-10-01T10:00:00.000Z', '2026-10-01T11:00:00.000Z'],
    );
    assert.equal(find(sim.rows, 'r-hourly').nextRunAt, '2026-10-01T12:00:00.000Z');
  });

  it('run_now on a cron row keeps the cron: the next run after it is the next cron time', () => {
    const row = command('c-cron', cron('0 9 * * *'), d('2026-10-02T07:00:00Z'));
    const t = d('2026-10-01T12:00:00Z');
    const r1 = pass([runNow(row, t).row], opts(t));
    only(r1.claimed, 'claim');
    assert.equal(find(r1.rows, 'c-cron').nextRunAt, '2026-10-02T07:00:00.000Z');
  });
});

describe('nextWorkAt', () => {
  it('is the earliest pending nextRunAt; fired and missed rows do not count; null when nothing is left', () => {
    const rows: ScheduleRow[] = [
      reminder('r-late', once(plus(NOW, 3 * H)), plus(NOW, 3 * H)),
      command('c-soon', once(plus(NOW, 5 * S)), plus(NOW, 5 * S)),
      reminder('r-fired', once(plus(NOW, -H)), null, { status: 'fired', firedAt: iso(plus(NOW, -H)) }),
      reminder('r-missed', once(plus(NOW, -H)), plus(NOW, -H), { status: 'missed', firedAt: iso(NOW) }),
    ];
    assert.equal(nextWorkAt(rows)?.toISOString(), iso(plus(NOW, 5 * S)));
    assert.equal(nextWorkAt(rows.slice(2)), null);
    assert.equal(nextWorkAt([]), null);
  });

  it("is a running row's heartbeat plus the stale limit (and 1 ms, the first instant it counts as stale) when that is earlier", () => {
    const at = plus(NOW, -S);
    const r = pass([reminder('r-run', once(at), at), reminder('r-far', once(plus(NOW, H)), plus(NOW, H))], opts(NOW));
    assert.equal(nextWorkAt(r.rows)?.getTime(), NOW.getTime() + HEARTBEAT_STALE_MS + 1);
    assert.equal(nextWorkAt(r.rows, 10 * S)?.getTime(), NOW.getTime() + 10 * S + 1);
    // At that instant a pass by another holder does settle it.
    const at2 = nextWorkAt(r.rows);
    assert.ok(at2);
    assert.deepEqual(pass(r.rows, opts(at2, { holder: OTHER })).interrupted, ['r-run']);
    // A recurring running row counts by its heartbeat, not by its (advanced) nextRunAt.
    const rec = pass([reminder('r-every', every(600, d('2026-10-01T07:00:00Z')), NOW)], opts(NOW));
    assert.equal(find(rec.rows, 'r-every').nextRunAt, '2026-10-01T08:10:00.000Z');
    assert.equal(nextWorkAt(rec.rows)?.getTime(), NOW.getTime() + HEARTBEAT_STALE_MS + 1);
  });
});

describe('clock jumps and DST', () => {
  it('forward 3 days with a daily cron reminder: fired once, the missed runs coalesced and counted', () => {
    const first = d('2026-10-01T07:00:00Z'); // 09:00 CEST
    const s1 = simulate([reminder('r-daily', cron('0 9 * * *'), first)], first, plus(first, 5 * MIN), MIN);
    assert.equal(s1.claims.length, 1);
    assert.equal(find(s1.rows, 'r-daily').nextRunAt, '2026-10-02T07:00:00.000Z');

    // The clock jumps to Sun 4 Oct 07:30Z: the runs of 2, 3 and 4 Oct passed.
    const jumped = d('2026-10-04T07:30:00Z');
    const s2 = simulate(s1.rows, jumped, plus(jumped, 2 * H), MIN);
    const run = only(s2.claims, 'claim after the jump');
    assert.equal(run.at, iso(jumped));
    assert.equal(run.scheduledFor, '2026-10-04T07:00:00.000Z');
    assert.equal(run.lateMs, 30 * MIN);
    assert.equal(run.missedRuns, 2);
    const out = find(s2.rows, 'r-daily');
    assert.equal(out.nextRunAt, '2026-10-05T07:00:00.000Z');
    assert.deepEqual(out.fact, { lateMs: 30 * MIN, missedRuns: 2, delivered: true, via: 'test' });
  });

  it('forward 3 days with a daily cron command past its limit: not fired, the runs counted as missed', () => {
    const first = d('2026-10-01T07:00:00Z');
    const row = command('c-daily', cron('0 9 * * *'), first);
    const jumped = d('2026-10-04T10:00:00Z'); // the latest run (07:00Z) is 3 h late, limit 1 h
    const s = simulate([row], jumped, plus(jumped, 10 * MIN), MIN);
    assert.deepEqual(s.claims, []);
    assert.deepEqual(s.missed, [{ id: 'c-daily', scheduledFor: '2026-10-04T07:00:00.000Z', lateMs: 3 * H, missedRuns: 4 }]);
    const out = find(s.rows, 'c-daily');
    assert.equal(out.status, 'pending');
    assert.equal(out.nextRunAt, '2026-10-05T07:00:00.000Z');
    assert.equal(out.fact?.missedRuns, 4);
  });

  it('backward 2 h after a fire: nothing at or before the last scheduled time fires again', () => {
    const t = d('2026-10-01T08:00:00Z');
    const rows: ScheduleRow[] = [
      reminder('r-once', once(t), t),
      reminder('r-every', every(1800, d('2026-10-01T06:00:00Z')), t),
      command('c-cron', cron('0 10 * * *'), t), // 10:00 CEST = 08:00Z
    ];
    const s1 = simulate(rows, t, t, MIN);
    assert.deepEqual(s1.claims.map((c) => c.id).sort(), ['c-cron', 'r-every', 'r-once']);
    assert.equal(find(s1.rows, 'r-every').nextRunAt, '2026-10-01T08:30:00.000Z');
    assert.equal(find(s1.rows, 'c-cron').nextRunAt, '2026-10-02T08:00:00.000Z');

    // The clock is set back to 06:00Z and runs forward again, a pass every minute up to 08:29.
    const s2 = simulate(s1.rows, plus(t, -2 * H), plus(t, 29 * MIN), MIN);
    assert.deepEqual(s2.claims, []);
    // And the recurring row resumes at its next time, once.
    const s3 = simulate(s2.rows, plus(t, 30 * MIN), plus(t, 59 * MIN), MIN);
    assert.deepEqual(s3.claims.map((c) => [c.id, c.scheduledFor]), [['r-every', '2026-10-01T08:30:00.000Z']]);
  });

  it('backward 2 h while a run is in flight: its claim is neither re-run nor declared dead', () => {
    const t = d('2026-10-01T08:00:00Z');
    const r1 = pass([command('c-run', every(1800, d('2026-10-01T06:00:00Z')), t)], opts(t));
    const run = only(r1.claimed, 'claim');
    const back = pass(r1.rows, opts(plus(t, -2 * H), { holder: OTHER }));
    assert.deepEqual(back.claimed, []);
    assert.deepEqual(back.interrupted, []);
    assert.equal(find(back.rows, 'c-run').claim?.token, run.token);
  });

  it('DST fall-back: daily 02:30 Europe/Berlin fires once in the night with two 02:30s, at the first', () => {
    const s = cron('30 2 * * *');
    const first = nextRunAfter(s, d('2026-10-24T12:00:00Z'));
    assert.equal(first?.toISOString(), '2026-10-25T00:30:00.000Z'); // 02:30 CEST
    const row = reminder('r-0230', s, first);
    const sim = simulate([row], d('2026-10-24T23:00:00Z'), d('2026-10-25T03:00:00Z'), MIN);
    const run = only(sim.claims, 'claim in the fall-back night');
    assert.equal(run.scheduledFor, '2026-10-25T00:30:00.000Z');
    assert.equal(run.at, '2026-10-25T00:30:00.000Z');
    assert.equal(find(sim.rows, 'r-0230').nextRunAt, '2026-10-26T01:30:00.000Z'); // 02:30 CET next day
  });

  it('DST fall-back: a restart between the two 02:30s does not fire again', () => {
    const s = cron('30 2 * * *');
    const row = command('c-0230', s, d('2026-10-25T00:30:00Z'));
    // The first process claims at the first 02:30 and is killed before recording a fact.
    const r1 = pass([row], opts(d('2026-10-25T00:30:05Z')));
    only(r1.claimed, 'claim');
    // A new process (new pid, no live runs) starts at 02:45 CET-ish (01:00Z) and passes every minute through the second 02:30.
    const restarted: Holder = { pid: 9999, window: 'win-a' };
    const sim = simulate(r1.rows, d('2026-10-25T01:00:00Z'), d('2026-10-25T02:30:00Z'), MIN, { holder: restarted, ownLiveTokens: new Set() });
    assert.deepEqual(sim.claims, []);
    const out = find(sim.rows, 'c-0230');
    assert.equal(out.claim, undefined);
    assert.equal(out.fact?.interrupted, true, 'the killed run is shown as interrupted, not re-run');
    assert.equal(out.nextRunAt, '2026-10-26T01:30:00.000Z');
    // The same with the fact recorded before the restart.
    const clean = simulate([row], d('2026-10-25T00:30:00Z'), d('2026-10-25T00:30:00Z'), MIN);
    const again = simulate(clean.rows, d('2026-10-25T01:29:00Z'), d('2026-10-25T01:31:00Z'), 30 * S, { holder: restarted });
    assert.deepEqual(again.claims, []);
  });

  it('DST spring-forward: daily 02:30 Europe/Berlin fires once, at the first valid instant after the gap', () => {
    const s = cron('30 2 * * *');
    const first = nextRunAfter(s, d('2026-03-28T12:00:00Z'));
    const sim = simulate([reminder('r-spring', s, first)], d('2026-03-28T22:00:00Z'), d('2026-03-29T04:00:00Z'), MIN);
    const run = only(sim.claims, 'claim in the spring-forward night');
    assert.equal(run.scheduledFor, '2026-03-29T01:00:00.000Z'); // 03:00 CEST
    assert.equal(find(sim.rows, 'r-spring').nextRunAt, '2026-03-30T00:30:00.000Z');
  });
});

describe('duePass: reminders fire only in a window of their workspace', () => {
  const A = 'file:///work/a';
  const B = 'file:///work/b';
  const due = plus(NOW, -MIN);
  const owned = reminder('r-owned', once(due), due, { owner: { kind: 'window', folders: [A], window: 'win-a', pid: 4242 } });
  const free = reminder('r-free', once(due), due, { owner: { kind: 'cli', pid: 1 } });
  const cmd = command('c-any', once(due), due);

  it('a window of another workspace leaves the owned reminder waiting; rows without folders and command rows run there', () => {
    const r = duePass([owned, free, cmd], opts(NOW, { folders: [B] }));
    assert.deepEqual(r.claimed.map((c) => c.id).sort(), ['c-any', 'r-free']);
    assert.equal(find(r.rows, 'r-owned').status, 'pending');
    assert.equal(find(r.rows, 'r-owned').claim, undefined);
  });

  it('the CLI (no folders) leaves it waiting too; a window of its workspace fires it', () => {
    assert.ok(!duePass([owned], opts(NOW)).claimed.some((c) => c.id === 'r-owned'));
    assert.deepEqual(duePass([owned], opts(NOW, { folders: [B, A] })).claimed.map((c) => c.id), ['r-owned']);
  });
});
