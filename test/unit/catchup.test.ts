/**
 * Catch-up after downtime (`missedRuns` exact up
 * to 1,000, then `missedRunsCapped`). missedRunsBetween counts cron runs by wall-clock arithmetic and
 * steps croner only around offset changes; here its count and latest run are held against plain
 * croner stepping over many zones, patterns and spans around DST and other offset changes. Then one
 * duePass over a year of downtime: each row runs once, with the right count, and its next run is
 * after now. (The pass's CPU time is the figure catchup_year_100rows_cpu_ms in test/bench.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cron } from 'croner';
import { Temporal } from 'temporal-polyfill';
import { duePass, recordFact, type Holder } from '../../src/core/dispatch';
import { factLine } from '../../src/core/rowView';
import { commandRowSchema, type CommandRow, type Schedule } from '../../src/core/schema';
import { missedRunsBetween, nextRunAfter } from '../../src/core/time/runs';
import { seededRandom } from './helpers/random';

const MIN = 60_000;
const H = 60 * MIN;
const DAY = 24 * H;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from an empty list');
  return x;
};

/** The slow truth: croner as configured for rows, stepped run by run from `a`. */
function stepped(expr: string, tz: string, a: number, b: number, cap: number): { count: number; latest: number | null; capped: boolean } {
  const cron = new Cron(expr, { mode: '5-part', fixedTimeRule: 'no-wildcard', timezone: tz, paused: true });
  let count = 0;
  let latest: number | null = null;
  for (let r = cron.nextRun(new Date(a)); r !== null && r.getTime() <= b; r = cron.nextRun(r)) {
    if (r.getTime() <= a) continue;
    count++;
    latest = r.getTime();
    if (count > cap) return { count: cap, latest: null, capped: true };
  }
  return { count, latest, capped: false };
}

/** The zone's offset changes in a UTC year. */
function transitions(tz: string, year: number): number[] {
  const out: number[] = [];
  let z: Temporal.ZonedDateTime | null = Temporal.Instant.fromEpochMilliseconds(Date.UTC(year, 0, 1)).toZonedDateTimeISO(tz);
  for (let i = 0; i < 16; i++) {
    z = z.getTimeZoneTransition('next');
    if (z === null || z.year > year) break;
    out.push(z.epochMilliseconds);
  }
  return out;
}

// Zones with every kind of change: an hour either way, 30 min (Lord Howe), 2 h (Troll), at midnight
// (Santiago, Havana), negative DST (Dublin), several a year (Casablanca), a skipped day (Apia 2011).
const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'America/Los_Angeles',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Antarctica/Troll',
  'America/Santiago',
  'America/Havana',
  'Europe/Dublin',
  'Africa/Casablanca',
  'Pacific/Chatham',
  'America/St_Johns',
  'Asia/Tehran',
  'Pacific/Apia',
  'Asia/Kathmandu',
  'UTC',
];

// [pattern, a span of at most about 200 runs]
const PATTERNS: [string, number][] = [
  ['* * * * *', 4 * H],
  ['*/15 * * * *', 2 * DAY],
  ['0,30 * * * *', 4 * DAY],
  ['*/7 2 * * *', 20 * DAY],
  ['0-59/20 0-3 * * *', 16 * DAY],
  ['59 1-3 * * *', 60 * DAY],
  ['30 2 * * *', 200 * DAY],
  ['0 2 * * *', 200 * DAY],
  ['30 1,2 * * *', 100 * DAY],
  ['0 0 * * *', 200 * DAY],
  ['0 */2 * * *', 16 * DAY],
  ['0 9 * * 1-5', 200 * DAY],
  ['15 3 * * 0', 2 * 365 * DAY],
  ['0 0 1 * *', 5 * 365 * DAY],
  ['45 23 L * *', 5 * 365 * DAY],
  ['0 12 29 2 *', 12 * 365 * DAY],
  ['5 0 * * 6,0', 365 * DAY],
  ['0 0,12 1,15 * 1', 365 * DAY],
  ['0 0 * 3,10 0', 2 * 365 * DAY],
  ['30 0 * * *', 200 * DAY],
  ['0 1 8-14 * 0', 3 * 365 * DAY],
  ['0 0-23 * * *', 8 * DAY],
];

describe('missedRunsBetween against croner stepping', () => {
  it('equal counts (exact up to the cap, then capped) and equal latest runs, around offset changes in 16 zones', () => {
    const rng = seededRandom(0xca7c40);
    let cases = 0;
    let cappedCases = 0;
    let acrossChange = 0;
    for (let i = 0; i < 240; i++) {
      const tz = pick(rng, ZONES);
      const [expr, span] = pick(rng, PATTERNS);
      const year = tz === 'Pacific/Apia' && rng() < 0.4 ? 2011 : 2019 + Math.floor(rng() * 15);
      const changes = transitions(tz, year);
      const around = changes.length > 0 ? pick(rng, changes) : Date.UTC(year, Math.floor(rng() * 12), 1 + Math.floor(rng() * 28));
      const length = Math.max(1, Math.round(span * rng() ** 2));
      const a = around - Math.round(rng() * length) + Math.round((rng() - 0.5) * 2 * MIN);
      const b = a + length;
      // A small cap now and then, so the capped path meets the same truth without a long walk.
      const cap = rng() < 0.2 ? 1 + Math.floor(rng() * 20) : 1000;
      const label = `${expr} ${tz} (${new Date(a).toISOString()}, ${new Date(b).toISOString()}] cap ${cap}`;
      const s: Schedule = { kind: 'cron', expr, tz };
      const fast = missedRunsBetween(s, new Date(a), new Date(b), cap);
      const truth = stepped(expr, tz, a, b, cap);
      assert.equal(fast.count, truth.count, label);
      assert.equal(fast.capped, truth.capped, label);
      if (truth.latest !== null) assert.equal(fast.latest?.getTime(), truth.latest, label);
      if (fast.latest === null) {
        assert.equal(truth.count, 0, label);
      } else {
        // The latest run is a run, inside the span, and the next run is past it.
        const l = fast.latest.getTime();
        assert.ok(l > a && l <= b, label);
        assert.equal(nextRunAfter(s, new Date(l - 1))?.getTime(), l, label);
        const next = nextRunAfter(s, fast.latest);
        assert.ok(next === null || next.getTime() > b, label);
      }
      cases++;
      if (truth.capped) cappedCases++;
      if (changes.some((t) => t > a - H && t <= b + H)) acrossChange++;
    }
    assert.equal(cases, 240);
    assert.ok(cappedCases > 20, `capped cases: ${cappedCases}`);
    assert.ok(acrossChange > 150, `spans across an offset change: ${acrossChange}`);
  });

  it('a year of a minutely cron: the latest run exact, the count capped at 1,000', () => {
    for (const tz of ['Europe/Berlin', 'America/New_York', 'UTC', 'Australia/Lord_Howe']) {
      const s: Schedule = { kind: 'cron', expr: '* * * * *', tz };
      const r = missedRunsBetween(s, new Date('2025-10-01T08:00:30.000Z'), new Date('2026-10-01T08:00:30.000Z'));
      assert.deepEqual(r, { count: 1000, latest: new Date('2026-10-01T08:00:00.000Z'), capped: true }, tz);
    }
  });

  it('exact just below, at and above the cap', () => {
    const s: Schedule = { kind: 'cron', expr: '* * * * *', tz: 'Europe/Berlin' };
    // Runs at :01 … in (08:00:00, 08:00:00 + n min]: exactly n.
    const from = new Date('2026-03-28T20:00:00.000Z');
    for (const [n, cap, count, capped] of [
      [999, 1000, 999, false],
      [1000, 1000, 1000, false],
      [1001, 1000, 1000, true],
      [1001, 1001, 1001, false],
      [1002, 1001, 1001, true],
    ] as const) {
      const r = missedRunsBetween(s, from, new Date(from.getTime() + n * MIN), cap);
      assert.deepEqual({ count: r.count, capped: r.capped }, { count, capped }, `${n} runs, cap ${cap}`);
      assert.equal(r.latest?.getTime(), from.getTime() + n * MIN);
    }
  });
});

describe('duePass after a year of downtime', () => {
  const NOW = new Date('2026-10-01T08:00:30.000Z');
  const ME: Holder = { pid: 4242, window: 'win-a' };
  const row = (i: number, tz: string, nextRunAt: Date): CommandRow =>
    commandRowSchema.parse({
      id: `c-minutely${String(i).padStart(3, '0')}`,
      command: `echo ${i}`,
      cwd: '/tmp',
      timeoutMinutes: 2,
      schedule: { kind: 'cron', expr: '* * * * *', tz },
      tz,
      status: 'pending',
      nextRunAt: nextRunAt.toISOString(),
      createdAt: '2025-09-01T00:00:00.000Z',
    });

  it('100 minutely cron rows a year late: each runs once, for the latest minute, 1,000 missed runs and capped; the next run is after now', () => {
    const yearAgo = new Date(NOW.getTime() - 365 * DAY - 30_000);
    const zones = ['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Kathmandu'];
    const rows = Array.from({ length: 100 }, (_, i) => row(i, zones[i % zones.length] ?? 'UTC', yearAgo));
    let seq = 0;
    const r = duePass(rows, { now: NOW, holder: ME, newToken: () => `tok${String(++seq).padStart(10, '0')}`, maxLatenessMs: { reminder: 12 * H, command: H } });
    assert.equal(r.claimed.length, 100);
    assert.deepEqual(r.missed, []);
    assert.equal(new Set(r.claimed.map((c) => c.id)).size, 100);
    for (const c of r.claimed) {
      assert.equal(c.scheduledFor, '2026-10-01T08:00:00.000Z', c.id);
      assert.equal(c.lateMs, 30_000, c.id);
      assert.equal(c.missedRuns, 1000, c.id);
    }
    for (const out of r.rows) {
      assert.deepEqual(out.fact, { lateMs: 30_000, missedRuns: 1000, missedRunsCapped: true }, out.id);
      assert.equal(out.nextRunAt, '2026-10-01T08:01:00.000Z', out.id);
      assert.equal(out.status, 'pending');
      commandRowSchema.parse(out);
    }
    // Once the run records its end, lists say the count stopped at its cap.
    const first = r.claimed[0];
    assert.ok(first !== undefined);
    const done = recordFact(r.rows, first.id, first.token, { exitCode: 0, durationMs: 5 });
    const shown = done.rows.find((x) => x.id === first.id);
    assert.ok(done.applied && shown !== undefined);
    assert.match(factLine(shown, NOW).text, /, 1000 or more missed runs\b/);
  });

  it('fewer than 1,000 missed runs are counted exactly and not marked capped', () => {
    const rows = [row(1, 'Europe/Berlin', new Date(NOW.getTime() - 500 * MIN - 30_000)), row(2, 'UTC', new Date(NOW.getTime() - 1000 * MIN - 30_000))];
    const r = duePass(rows, { now: NOW, holder: ME, newToken: () => 'tok0000000001', maxLatenessMs: { reminder: 12 * H, command: H } });
    assert.deepEqual(
      r.rows.map((x) => x.fact),
      [
        { lateMs: 30_000, missedRuns: 500 },
        { lateMs: 30_000, missedRuns: 1000 },
      ],
    );
  });
});
