/**
 * Time (README "Time"): zones, cron validation, DST behaviour of next runs,
 * catch-up counts, the `when` grammar and the plain-words answers. The clock is always a fixed
 * `now`; the machine's zone is changed on purpose to show nothing depends on it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Temporal } from 'temporal-polyfill';
import type { Schedule } from '../../src/core/schema';
import { InputError } from '../../src/core/errors';
import { checkCron } from '../../src/core/time/cron';
import { describeInstant, describeSchedule, nextRunWords } from '../../src/core/time/describe';
import { checkClock, MIN_INTERVAL_SECONDS, type RowKind } from '../../src/core/time/limits';
import { missedRunsBetween, nextRunAfter } from '../../src/core/time/runs';
import { parseWhen } from '../../src/core/time/when';
import { systemZone, validateZone } from '../../src/core/time/zone';

/** checkCron as parseWhen calls it, its answer left aside: these tests are about what it refuses. */
function validateCron(expr: string, tz: string, kind: RowKind, now: Date, field = 'cron'): void {
  checkCron(expr, tz, kind, now, field);
}

const d = (iso: string): Date => new Date(iso);
const iso = (x: Date | null): string | null => (x === null ? null : x.toISOString());
const cron = (expr: string, tz: string): Schedule => ({ kind: 'cron', expr, tz });

/** Asserts fn throws an InputError on `field` whose reason matches every pattern. */
function throwsInput(fn: () => unknown, field: string, ...reasons: RegExp[]): InputError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof InputError, `expected an InputError, got ${String(caught)}`);
  assert.equal(caught.field, field);
  assert.equal(caught.message, `${field}: ${caught.reason}`);
  for (const r of reasons) assert.match(caught.reason, r);
  return caught;
}

/** Runs fn with the machine's zone set to `zone` (Node re-reads TZ when it is assigned). */
function withMachineZone<T>(zone: string, fn: () => T): T {
  const old = process.env.TZ;
  process.env.TZ = zone;
  try {
    const jan = Date.UTC(2026, 0, 1);
    const offsetMin = Temporal.Instant.fromEpochMilliseconds(jan).toZonedDateTimeISO(zone).offsetNanoseconds / 60e9;
    assert.equal(new Date(jan).getTimezoneOffset() + offsetMin, 0, `the machine zone did change to ${zone}`);
    return fn();
  } finally {
    if (old === undefined) delete process.env.TZ;
    else process.env.TZ = old;
  }
}

function runs(schedule: Schedule, after: Date, n: number): string[] {
  const out: string[] = [];
  let t: Date | null = after;
  for (let i = 0; i < n && t !== null; i++) {
    t = nextRunAfter(schedule, t);
    if (t !== null) out.push(t.toISOString());
  }
  return out;
}

function localDate(ms: number, tz: string): string {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).toPlainDate().toString();
}

describe('validateZone', () => {
  it('accepts IANA names and returns them as Temporal spells them', () => {
    assert.equal(validateZone('UTC'), 'UTC');
    assert.equal(validateZone('utc'), 'UTC');
    assert.equal(validateZone('Europe/Kyiv'), 'Europe/Kyiv');
    assert.equal(validateZone('europe/berlin'), 'Europe/Berlin');
    assert.equal(validateZone(' America/New_York '), 'America/New_York');
    assert.equal(validateZone('Etc/GMT-2'), 'Etc/GMT-2');
    assert.equal(validateZone('Asia/Tashkent'), 'Asia/Tashkent');
  });

  it('rejects empty, misspelled, invented, offset and abbreviation zones, naming the field', () => {
    throwsInput(() => validateZone(''), 'tz', /empty/);
    throwsInput(() => validateZone('   '), 'tz', /empty/);
    throwsInput(() => validateZone('Europe/Berlinn'), 'tz', /not a known IANA time zone/, /did you mean Europe\/Berlin\?/);
    throwsInput(() => validateZone('Mars/Olympus'), 'tz', /'Mars\/Olympus' is not a known IANA time zone/);
    throwsInput(() => validateZone('GMT+2'), 'tz', /offset/);
    throwsInput(() => validateZone('UTC+02:00'), 'tz', /offset/);
    throwsInput(() => validateZone('+02:00'), 'tz', /offset/);
    throwsInput(() => validateZone('-0500'), 'tz', /offset/);
    throwsInput(() => validateZone('EST'), 'tz', /not a place/);
    throwsInput(() => validateZone('CET'), 'tz', /not a place/);
    throwsInput(() => validateZone('EST5EDT'), 'tz', /not a place/);
    throwsInput(() => validateZone('Z'), 'tz');
    throwsInput(() => validateZone('Europe/Berlin/x'), 'tz');
    throwsInput(() => validateZone('x'.repeat(65)), 'tz', /too long/);
    throwsInput(() => validateZone('Europe/Berlinn', 'time_zone'), 'time_zone');
  });

  it('is used by parseWhen and validateCron with the caller’s field name', () => {
    const now = d('2026-03-28T12:00:00Z');
    throwsInput(() => parseWhen({ when: 'in 5 minutes', tz: 'Europe/Berlinn', kind: 'reminder', now }), 'tz', /Europe\/Berlin\?/);
    throwsInput(() => parseWhen({ when: 'in 5 minutes', tz: '', kind: 'reminder', now, tzField: 'zone' }), 'zone', /empty/);
    throwsInput(() => parseWhen({ cron: '0 9 * * *', tz: 'GMT+2', kind: 'command', now }), 'tz', /offset/);
    throwsInput(() => validateCron('0 9 * * *', 'Mars/Olympus', 'command', now), 'tz');
  });

  it('systemZone gives a valid zone, the machine’s own', () => {
    assert.equal(validateZone(systemZone()), systemZone());
    withMachineZone('Asia/Tokyo', () => assert.equal(systemZone(), 'Asia/Tokyo'));
  });
});

describe('validateCron', () => {
  const now = d('2026-03-28T12:00:00Z');

  it('rejects syntax errors and says why', () => {
    throwsInput(() => validateCron('61 2 * * *', 'Europe/Berlin', 'command', now), 'cron', /not a valid cron/, /minute/);
    throwsInput(() => validateCron('* * * *', 'Europe/Berlin', 'command', now), 'cron', /4 fields/, /exactly 5/);
    throwsInput(() => validateCron('0 * * * * *', 'Europe/Berlin', 'command', now), 'cron', /6 fields/, /seconds/);
    throwsInput(() => validateCron('0 0 * * * * *', 'Europe/Berlin', 'command', now), 'cron', /7 fields/);
    throwsInput(() => validateCron('0 25 * * *', 'Europe/Berlin', 'command', now), 'cron', /hour/);
    throwsInput(() => validateCron('0 9 * * mon-fry', 'Europe/Berlin', 'command', now), 'cron', /not a valid cron/);
    throwsInput(() => validateCron('', 'Europe/Berlin', 'command', now), 'cron', /empty/);
    throwsInput(() => validateCron('@reboot', 'Europe/Berlin', 'command', now), 'cron', /nickname/);
    throwsInput(() => validateCron('61 2 * * *', 'UTC', 'command', now, 'cron_expr'), 'cron_expr');
  });

  it('rejects patterns that never fire', () => {
    throwsInput(() => validateCron('0 0 30 2 *', 'Europe/Berlin', 'reminder', now), 'cron', /never fires/);
    throwsInput(() => validateCron('0 0 31 4,6,9,11 *', 'UTC', 'command', now), 'cron', /never fires/);
  });

  it('accepts ordinary patterns', () => {
    validateCron('0 9 * * 1-5', 'Europe/Berlin', 'reminder', now);
    validateCron('30 2 * * *', 'America/New_York', 'reminder', now);
    validateCron('0 0 29 2 *', 'UTC', 'reminder', now);
    validateCron('*/10 * * * *', 'Europe/Berlin', 'reminder', now);
    validateCron('* * * * *', 'Europe/Berlin', 'command', now);
    validateCron('@daily', 'Asia/Tashkent', 'reminder', now);
  });

  it('rejects patterns more frequent than the kind allows', () => {
    throwsInput(() => validateCron('*/5 * * * *', 'Europe/Berlin', 'reminder', now), 'cron', /5 min apart/, /at most every 10 minutes/);
    throwsInput(() => validateCron('* * * * *', 'Europe/Berlin', 'reminder', now), 'cron', /1 min apart/);
    validateCron('*/5 * * * *', 'Europe/Berlin', 'command', now);
  });

  it('checks frequency over a year of runs, not the first two', () => {
    // Only on 1 June: two runs 5 minutes apart.
    throwsInput(
      () => validateCron('0,5 9 1 6 *', 'Europe/Berlin', 'reminder', now),
      'cron',
      /5 min apart at Mon 1 Jun 2026 09:00 CEST and 09:05 CEST/,
      /text reminders may recur at most every 10 minutes/,
    );
    validateCron('0,5 9 1 6 *', 'Europe/Berlin', 'command', now);
    // Seen from 2 June, the next 1 June is 364 days away: still inside the year.
    throwsInput(() => validateCron('0,5 9 1 6 *', 'Europe/Berlin', 'reminder', d('2026-06-02T00:00:00Z')), 'cron', /1 Jun 2027/);
    // The first runs are 55 min apart; the short gap is the night from the 31st into the 1st.
    throwsInput(
      () => validateCron('0,55 0,23 1,31 * *', 'Europe/Berlin', 'reminder', d('2026-04-02T00:00:00Z')),
      'cron',
      /5 min apart at Sun 31 May 2026 23:55 CEST and Mon 1 Jun 2026 00:00 CEST/,
    );
    // Two days before the spring-forward night: a normal day, but close enough to the transition to need the real-run check.
    throwsInput(() => validateCron('0,5 9 27 3 *', 'Europe/Berlin', 'reminder', d('2026-03-01T00:00:00Z')), 'cron', /Fri 27 Mar 2026 09:00 CET and 09:05 CET/);
    // A leap day more than a year away: the first day it fires is still checked.
    throwsInput(() => validateCron('0,5 9 29 2 *', 'UTC', 'reminder', d('2026-03-01T00:00:00Z')), 'cron', /29 Feb 2028/);
  });

  it('catches a gap that only shrinks on a DST day', () => {
    // 01:59 and 02:59 are an hour apart, except when 02:59 falls in the spring-forward gap and runs at 03:00 CEST.
    throwsInput(
      () => validateCron('59 1,2 * * *', 'Europe/Berlin', 'reminder', now),
      'cron',
      /1 min apart at Sun 29 Mar 2026 01:59 CET and 03:00 CEST/,
    );
    throwsInput(() => validateCron('59 1,2 * * *', 'Europe/Berlin', 'reminder', d('2026-04-01T00:00:00Z')), 'cron', /28 Mar 2027/);
    validateCron('59 1,2 * * *', 'Asia/Tokyo', 'reminder', now);
  });

  it('has the documented minimums', () => {
    assert.deepEqual(MIN_INTERVAL_SECONDS, { reminder: 600, command: 60 });
  });
});

describe('nextRunAfter across DST', () => {
  it('daily 02:30 across spring-forward runs once, at the first valid instant after the gap (Berlin)', () => {
    const s = cron('30 2 * * *', 'Europe/Berlin');
    assert.deepEqual(runs(s, d('2026-03-28T00:00:00Z'), 3), [
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z', // 03:00 CEST: the gap is 02:00-03:00
      '2026-03-30T00:30:00.000Z',
    ]);
    const onSwitchDay = runs(s, d('2026-03-27T00:00:00Z'), 6).filter((x) => localDate(Date.parse(x), 'Europe/Berlin') === '2026-03-29');
    assert.deepEqual(onSwitchDay, ['2026-03-29T01:00:00.000Z']);
    assert.deepEqual(missedRunsBetween(s, d('2026-03-28T12:00:00Z'), d('2026-03-29T12:00:00Z')), {
      count: 1,
      latest: d('2026-03-29T01:00:00Z'),
      capped: false,
    });
  });

  it('daily 02:30 across spring-forward runs once, at the first valid instant after the gap (New York)', () => {
    const s = cron('30 2 * * *', 'America/New_York');
    assert.deepEqual(runs(s, d('2026-03-07T12:00:00Z'), 2), ['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    assert.equal(missedRunsBetween(s, d('2026-03-07T12:00:00Z'), d('2026-03-08T12:00:00Z')).count, 1);
  });

  it('daily 02:30 across fall-back runs once, at the first 02:30 (Berlin)', () => {
    const s = cron('30 2 * * *', 'Europe/Berlin');
    assert.deepEqual(runs(s, d('2026-10-24T12:00:00Z'), 2), ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    const onSwitchDay = runs(s, d('2026-10-23T00:00:00Z'), 6).filter((x) => localDate(Date.parse(x), 'Europe/Berlin') === '2026-10-25');
    assert.deepEqual(onSwitchDay, ['2026-10-25T00:30:00.000Z']);
    assert.deepEqual(missedRunsBetween(s, d('2026-10-24T12:00:00Z'), d('2026-10-25T12:00:00Z')), {
      count: 1,
      latest: d('2026-10-25T00:30:00Z'),
      capped: false,
    });
  });

  it('daily 01:30 across fall-back runs once, at the first 01:30 (New York)', () => {
    const s = cron('30 1 * * *', 'America/New_York');
    assert.deepEqual(runs(s, d('2026-10-31T12:00:00Z'), 2), ['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('a restart between the two 02:30s does not fire the second one', () => {
    const s = cron('30 2 * * *', 'Europe/Berlin');
    // 00:30Z is 02:30 CEST, 01:30Z is 02:30 CET.
    for (const t of ['2026-10-25T00:30:00.000Z', '2026-10-25T00:30:00.001Z', '2026-10-25T01:00:00Z', '2026-10-25T01:29:59.999Z', '2026-10-25T01:30:00Z']) {
      assert.equal(iso(nextRunAfter(s, d(t))), '2026-10-26T01:30:00.000Z', t);
    }
    assert.deepEqual(missedRunsBetween(s, d('2026-10-25T00:30:00Z'), d('2026-10-25T02:00:00Z')), { count: 0, latest: null, capped: false });
    const ny = cron('30 1 * * *', 'America/New_York');
    for (const t of ['2026-11-01T05:30:00Z', '2026-11-01T06:00:00Z', '2026-11-01T06:30:00Z']) {
      assert.equal(iso(nextRunAfter(ny, d(t))), '2026-11-02T06:30:00.000Z', t);
    }
    // A list of hours is fixed-time too ("no-wildcard"): 01:30 once, then 02:30.
    assert.deepEqual(runs(cron('30 1,2 * * *', 'America/New_York'), d('2026-11-01T05:00:00Z'), 2), [
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T07:30:00.000Z',
    ]);
  });

  it('interval patterns keep real-time spacing through DST', () => {
    const hourly = cron('0 * * * *', 'Europe/Berlin');
    const fall = runs(hourly, d('2026-10-24T23:30:00Z'), 5);
    assert.deepEqual(fall, ['2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z', '2026-10-25T04:00:00.000Z']);
    const spring = runs(hourly, d('2026-03-28T23:30:00Z'), 4);
    assert.deepEqual(spring, ['2026-03-29T00:00:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T02:00:00.000Z', '2026-03-29T03:00:00.000Z']);
  });

  it('every 90m keeps real-time spacing across spring-forward and fall-back', () => {
    for (const from of ['2026-03-28T20:00:00.000Z', '2026-10-24T20:00:00.000Z', '2026-03-07T20:00:00.000Z']) {
      const s: Schedule = { kind: 'every', seconds: 5400, from };
      const seq = runs(s, d(from), 12).map((x) => Date.parse(x));
      assert.equal(seq[0], Date.parse(from) + 5400_000);
      for (let i = 1; i < seq.length; i++) assert.equal((seq[i] ?? 0) - (seq[i - 1] ?? 0), 5400_000);
    }
  });

  it('every: first run is from + seconds, then strictly after', () => {
    const s: Schedule = { kind: 'every', seconds: 1800, from: '2026-03-28T12:00:00.000Z' };
    assert.equal(iso(nextRunAfter(s, d('2026-03-28T11:00:00Z'))), '2026-03-28T12:30:00.000Z');
    assert.equal(iso(nextRunAfter(s, d('2026-03-28T12:00:00Z'))), '2026-03-28T12:30:00.000Z');
    assert.equal(iso(nextRunAfter(s, d('2026-03-28T13:00:00Z'))), '2026-03-28T13:30:00.000Z');
    assert.equal(iso(nextRunAfter(s, d('2026-03-28T13:00:00.001Z'))), '2026-03-28T13:30:00.000Z');
    assert.equal(iso(nextRunAfter(s, d('2036-03-28T13:10:00Z'))), '2036-03-28T13:30:00.000Z');
  });

  it('a row with a bad zone fails loudly instead of running in the machine’s zone', () => {
    throwsInput(() => nextRunAfter(cron('0 9 * * *', ''), d('2026-01-01T00:00:00Z')), 'tz', /empty/);
    throwsInput(() => nextRunAfter(cron('0 9 * * *', 'Europe/Berlinn'), d('2026-01-01T00:00:00Z')), 'tz');
  });

  it('once: at if strictly later, else null', () => {
    const s: Schedule = { kind: 'once', at: '2026-03-28T12:00:00.000Z' };
    assert.equal(iso(nextRunAfter(s, d('2026-03-28T11:59:59.999Z'))), '2026-03-28T12:00:00.000Z');
    assert.equal(nextRunAfter(s, d('2026-03-28T12:00:00Z')), null);
  });

  it('cron: strictly after, even from an instant on a run or between seconds', () => {
    const s = cron('0 9 * * *', 'Europe/Berlin');
    assert.equal(iso(nextRunAfter(s, d('2026-06-01T07:00:00Z'))), '2026-06-02T07:00:00.000Z');
    assert.equal(iso(nextRunAfter(s, d('2026-06-01T06:59:59.999Z'))), '2026-06-01T07:00:00.000Z');
    assert.equal(iso(nextRunAfter(s, d('2026-06-01T07:00:00.500Z'))), '2026-06-02T07:00:00.000Z');
    assert.equal(nextRunAfter(cron('0 0 30 2 *', 'UTC'), d('2026-01-01T00:00:00Z')), null);
  });
});

describe('nextRunAfter property: next(t) > t, strictly increasing, monotone', () => {
  const zones = [
    'Europe/Berlin',
    'America/New_York',
    'Asia/Tashkent',
    'Australia/Lord_Howe', // 30-minute DST
    'Pacific/Chatham', // +12:45 / +13:45
    'America/Santiago', // transitions at midnight
    'America/Havana', // transitions at midnight
    'Africa/Casablanca', // Ramadan switches
    'America/St_Johns',
    'Europe/London',
    'Asia/Kolkata',
    'UTC',
  ];
  const patterns = ['30 2 * * *', '0 * * * *', '*/15 * * * *', '30 1,2,3 * * *', '0 0 * * *', '0 9 * * 1-5', '45 23 * * *', '0 0 1 * *', '59 1,2 * * *', '*/7 2 * * 0'];

  let seed = 0x5eed;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  function starts(tz: string): number[] {
    const out: number[] = [];
    let z: Temporal.ZonedDateTime | null = Temporal.Instant.from('2026-01-01T00:00:00Z').toZonedDateTimeISO(tz);
    for (let i = 0; i < 4 && z !== null; i++) {
      z = z.getTimeZoneTransition('next');
      if (z === null || z.epochMilliseconds > Date.parse('2027-01-01T00:00:00Z')) break;
      for (const off of [-3 * 3600_000, -3600_000 - 60_000, -1800_000, -1, 0, 1, 1800_000, 3600_000 - 1, 2 * 3600_000]) out.push(z.epochMilliseconds + off);
    }
    for (let i = 0; i < 6; i++) out.push(Date.parse('2026-01-01T00:00:00Z') + Math.floor(random() * 730 * 86400_000));
    return out;
  }

  for (const tz of zones) {
    it(tz, () => {
      const ts = starts(tz);
      for (const expr of patterns) {
        const s = cron(expr, tz);
        const fixed = !/[*/]/.test(expr.split(' ').slice(0, 2).join(' '));
        let prevNext = -Infinity;
        for (const t of [...ts].sort((a, b) => a - b)) {
          let cur = t;
          const seen = new Set<string>();
          for (let k = 0; k < 4; k++) {
            const n = nextRunAfter(s, new Date(cur));
            assert.ok(n !== null, `${expr} ${tz} from ${new Date(cur).toISOString()}: no next run`);
            const ms = n.getTime();
            assert.ok(ms > cur, `${expr} ${tz}: next(${new Date(cur).toISOString()}) = ${n.toISOString()} is not after it`);
            if (k === 0) {
              assert.ok(ms >= prevNext, `${expr} ${tz}: next is not monotone at ${new Date(t).toISOString()}`);
              prevNext = ms;
              // A run is its own next from just before it.
              assert.equal(nextRunAfter(s, new Date(ms - 1))?.getTime(), ms);
            }
            if (fixed) {
              const wall = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).toPlainDateTime().toString();
              assert.ok(!seen.has(wall), `${expr} ${tz}: wall time ${wall} ran twice`);
              seen.add(wall);
            }
            cur = ms;
          }
        }
      }
    });
  }
});

describe('missedRunsBetween', () => {
  it('once', () => {
    const s: Schedule = { kind: 'once', at: '2026-03-28T12:00:00.000Z' };
    assert.deepEqual(missedRunsBetween(s, d('2026-03-28T11:00:00Z'), d('2026-03-28T12:00:00Z')), { count: 1, latest: d('2026-03-28T12:00:00Z'), capped: false });
    assert.deepEqual(missedRunsBetween(s, d('2026-03-28T12:00:00Z'), d('2026-03-28T13:00:00Z')), { count: 0, latest: null, capped: false });
  });

  it('every', () => {
    const s: Schedule = { kind: 'every', seconds: 1800, from: '2026-03-28T12:00:00.000Z' };
    assert.deepEqual(missedRunsBetween(s, d('2026-03-28T12:00:00Z'), d('2026-03-28T14:10:00Z')), { count: 4, latest: d('2026-03-28T14:00:00Z'), capped: false });
    assert.deepEqual(missedRunsBetween(s, d('2026-03-28T12:00:00Z'), d('2026-03-28T14:10:00Z'), 2), { count: 2, latest: d('2026-03-28T14:00:00Z'), capped: true });
    assert.deepEqual(missedRunsBetween(s, d('2026-03-28T12:31:00Z'), d('2026-03-28T12:59:00Z')), { count: 0, latest: null, capped: false });
  });

  it('cron, with the count capped and the latest exact', () => {
    const hourly = cron('0 * * * *', 'UTC');
    assert.deepEqual(missedRunsBetween(hourly, d('2026-01-01T00:00:00Z'), d('2026-01-03T00:30:00Z')), { count: 48, latest: d('2026-01-03T00:00:00Z'), capped: false });
    assert.deepEqual(missedRunsBetween(hourly, d('2026-01-01T00:00:00Z'), d('2026-01-03T00:30:00Z'), 5), { count: 5, latest: d('2026-01-03T00:00:00Z'), capped: true });
    const weekly = cron('0 9 * * 1', 'Europe/Berlin');
    assert.deepEqual(missedRunsBetween(weekly, d('2026-01-01T00:00:00Z'), d('2026-03-01T00:00:00Z')), { count: 8, latest: d('2026-02-23T08:00:00Z'), capped: false });
    assert.deepEqual(missedRunsBetween(weekly, d('2026-01-01T00:00:00Z'), d('2026-03-01T00:00:00Z'), 1), { count: 1, latest: d('2026-02-23T08:00:00Z'), capped: true });
  });

  it('an empty or backward span has nothing', () => {
    const s = cron('* * * * *', 'UTC');
    assert.deepEqual(missedRunsBetween(s, d('2026-01-02T00:00:00Z'), d('2026-01-01T00:00:00Z')), { count: 0, latest: null, capped: false });
    assert.deepEqual(missedRunsBetween(s, d('2026-01-01T00:00:00Z'), d('2026-01-01T00:00:00Z')), { count: 0, latest: null, capped: false });
  });
});

describe('parseWhen: once', () => {
  const now = d('2026-03-28T12:00:00Z'); // Saturday; 13:00 CET in Berlin, the night before the switch to CEST
  const at = (when: string, tz = 'Europe/Berlin', n = now): string => {
    const r = parseWhen({ when, tz, kind: 'reminder', now: n });
    assert.equal(r.schedule.kind, 'once');
    assert.equal(r.schedule.kind === 'once' ? r.schedule.at : '', r.nextRunAt.toISOString());
    return r.nextRunAt.toISOString();
  };

  it('reads relative times as instants from now', () => {
    assert.equal(at('in 20 minutes'), '2026-03-28T12:20:00.000Z');
    assert.equal(at('in 30m'), '2026-03-28T12:30:00.000Z');
    assert.equal(at('  In 30M '), '2026-03-28T12:30:00.000Z');
    assert.equal(at('in 2 h'), '2026-03-28T14:00:00.000Z');
    assert.equal(at('in 1 hour 30 minutes'), '2026-03-28T13:30:00.000Z');
    assert.equal(at('in 1h30m'), '2026-03-28T13:30:00.000Z');
    assert.equal(at('in an hour'), '2026-03-28T13:00:00.000Z');
    assert.equal(at('in 90 seconds'), '2026-03-28T12:01:30.000Z');
    assert.equal(at('45 minutes from now'), '2026-03-28T12:45:00.000Z');
    assert.equal(at('in 20 minutes', 'UTC', d('2026-03-28T12:00:00.123Z')), '2026-03-28T12:20:00.123Z');
    // Days keep the clock time in the owner's zone: 13:00 CET → 13:00 CEST.
    assert.equal(at('in 2 days'), '2026-03-30T11:00:00.000Z');
  });

  it('reads day and time words in the owner’s zone', () => {
    assert.equal(at('tomorrow at 9'), '2026-03-29T07:00:00.000Z');
    assert.equal(at('Tomorrow AT 9'), '2026-03-29T07:00:00.000Z');
    assert.equal(at('tomorrow 09:30'), '2026-03-29T07:30:00.000Z');
    assert.equal(at('9pm tomorrow'), '2026-03-29T19:00:00.000Z');
    assert.equal(at('tomorrow at noon'), '2026-03-29T10:00:00.000Z');
    assert.equal(at('today at 17:00'), '2026-03-28T16:00:00.000Z');
    assert.equal(at('at 15:00'), '2026-03-28T14:00:00.000Z');
    assert.equal(at('15:00'), '2026-03-28T14:00:00.000Z');
    assert.equal(at('at 3pm'), '2026-03-28T14:00:00.000Z');
    assert.equal(at('at midnight'), '2026-03-28T23:00:00.000Z');
    assert.equal(at('friday at 9'), '2026-04-03T07:00:00.000Z');
    assert.equal(at('at 9 on friday'), '2026-04-03T07:00:00.000Z');
    assert.equal(at('next monday 8am'), '2026-03-30T06:00:00.000Z');
    assert.equal(at('saturday at 18:00'), '2026-03-28T17:00:00.000Z'); // today, still ahead
    assert.equal(at('saturday at 9'), '2026-04-04T07:00:00.000Z'); // today's has passed
    assert.equal(at('next saturday at 18:00'), '2026-04-04T16:00:00.000Z');
    assert.equal(at('in 3 days at 8:15'), '2026-03-31T06:15:00.000Z');
  });

  it('reads ISO: a wall time in the owner’s zone, or an absolute instant', () => {
    assert.equal(at('2026-10-03 09:00'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('2026-10-03T09:00'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('2026-10-03 09:00', 'America/New_York'), '2026-10-03T13:00:00.000Z');
    assert.equal(at('2026-10-03T07:00:00Z'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('2026-10-03T07:00:00Z', 'Asia/Tashkent'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('2026-10-03T09:00:00+02:00', 'America/New_York'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('2026-10-03T09:00[America/New_York]'), '2026-10-03T13:00:00.000Z');
    throwsInput(() => at('2026-02-30 09:00'), 'when');
  });

  it('reads other English dates through chrono, in the owner’s zone', () => {
    assert.equal(at('3 Oct 09:00'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('October 3rd at 9am'), '2026-10-03T07:00:00.000Z');
    assert.equal(at('3 Oct 09:00', 'Asia/Tashkent'), '2026-10-03T04:00:00.000Z');
  });

  it('does not depend on the machine’s zone (chrono ignores IANA zones)', () => {
    const cases: [string, string, string][] = [
      ['tomorrow at 9', 'Europe/Berlin', '2026-03-29T07:00:00.000Z'], // CEST, after the switch
      ['tomorrow at 9', 'America/New_York', '2026-03-29T13:00:00.000Z'],
      ['tomorrow at 9', 'Asia/Tashkent', '2026-03-29T04:00:00.000Z'],
      ['friday at 9', 'America/New_York', '2026-04-03T13:00:00.000Z'],
      ['3 Oct 09:00', 'Europe/Berlin', '2026-10-03T07:00:00.000Z'],
      ['October 3rd at 9am', 'America/New_York', '2026-10-03T13:00:00.000Z'],
      ['2026-10-03 09:00', 'Asia/Tashkent', '2026-10-03T04:00:00.000Z'],
    ];
    const descriptions = new Set<string>();
    for (const machine of ['UTC', 'America/Los_Angeles', 'Asia/Kathmandu', 'Pacific/Kiritimati', 'Europe/Berlin', 'America/St_Johns']) {
      withMachineZone(machine, () => {
        for (const [when, tz, expected] of cases) assert.equal(at(when, tz), expected, `${when} in ${tz} on a machine in ${machine}`);
        descriptions.add(parseWhen({ when: 'tomorrow at 9', tz: 'Europe/Berlin', kind: 'reminder', now }).description);
      });
    }
    assert.deepEqual([...descriptions], ['Once, Sun 29 Mar 09:00 CEST (07:00Z), in 19 h']);
  });

  it('an ambiguous local time takes the earlier instant and says so', () => {
    const r = parseWhen({ when: '2026-10-25 02:30', tz: 'Europe/Berlin', kind: 'reminder', now });
    assert.equal(r.nextRunAt.toISOString(), '2026-10-25T00:30:00.000Z');
    assert.match(r.description, /^Once, Sun 25 Oct 02:30 CEST \(00:30Z\), in /);
    assert.match(r.description, /02:30 occurs twice on Sun 25 Oct 2026 in Europe\/Berlin/);
    const ny = parseWhen({ when: '2026-11-01 01:30', tz: 'America/New_York', kind: 'reminder', now });
    assert.equal(ny.nextRunAt.toISOString(), '2026-11-01T05:30:00.000Z');
    assert.match(ny.description, /01:30 EDT \(05:30Z\)/);
    assert.match(ny.description, /occurs twice/);
  });

  it('a nonexistent local time moves forward past the gap and says so', () => {
    const r = parseWhen({ when: 'tomorrow at 2:30', tz: 'Europe/Berlin', kind: 'reminder', now });
    assert.equal(r.nextRunAt.toISOString(), '2026-03-29T01:30:00.000Z');
    assert.match(r.description, /^Once, Sun 29 Mar 03:30 CEST \(01:30Z\)/);
    assert.match(r.description, /02:30 does not exist on Sun 29 Mar 2026 in Europe\/Berlin/);
    const ny = parseWhen({ when: '2026-03-08 02:30', tz: 'America/New_York', kind: 'reminder', now: d('2026-03-01T00:00:00Z') });
    assert.equal(ny.nextRunAt.toISOString(), '2026-03-08T07:30:00.000Z');
    assert.match(ny.description, /03:30 EDT \(07:30Z\)/);
    assert.match(ny.description, /does not exist/);
  });

  it('rejects a time in the past or equal to now, stating the resolved instant', () => {
    throwsInput(() => at('at 09:00'), 'when', /^is in the past: Sat 28 Mar 09:00 CET \(08:00Z\), 4 h ago/, /tomorrow at 09:00/);
    throwsInput(() => at('2020-01-01 09:00'), 'when', /^is in the past: Wed 1 Jan 2020 09:00 CET/);
    throwsInput(() => at('2026-03-28T12:00:00Z'), 'when', /^is in the past: .*, now$/);
    throwsInput(() => at('in 0 minutes'), 'when', /in the past/);
    throwsInput(() => parseWhen({ when: 'at 09:00', tz: 'UTC', kind: 'reminder', now, whenField: 'at' }), 'at', /in the past/);
  });
});

describe('parseWhen: recurring', () => {
  const now = d('2026-03-28T12:00:00Z');
  const parse = (when: string, kind: RowKind = 'reminder', tz = 'Europe/Berlin') => parseWhen({ when, tz, kind, now });

  it('every N: real-time spacing from now', () => {
    const r = parse('every 30m');
    assert.deepEqual(r.schedule, { kind: 'every', seconds: 1800, from: '2026-03-28T12:00:00.000Z' });
    assert.equal(r.nextRunAt.toISOString(), '2026-03-28T12:30:00.000Z');
    assert.match(r.description, /^Every 30 min, next Sat 28 Mar 13:30 CET \(12:30Z\), in 30 min$/);
    assert.deepEqual(parse('every 30 minutes').schedule, r.schedule);
    assert.equal((parse('every 2 hours').schedule as { seconds: number }).seconds, 7200);
    assert.equal((parse('every 90m').schedule as { seconds: number }).seconds, 5400);
    assert.equal((parse('every hour').schedule as { seconds: number }).seconds, 3600);
    assert.equal((parse('hourly').schedule as { seconds: number }).seconds, 3600);
    assert.equal((parse('every 1.5 hours').schedule as { seconds: number }).seconds, 5400);
  });

  it('calendar phrases become a cron in the owner’s zone', () => {
    const table: [string, string][] = [
      ['every day at 9', '0 9 * * *'],
      ['daily at 7', '0 7 * * *'],
      ['every weekday at 09:00', '0 9 * * 1-5'],
      ['weekdays at 9am', '0 9 * * 1-5'],
      ['9:00 on weekdays', '0 9 * * 1-5'],
      ['mon-fri at 8', '0 8 * * 1-5'],
      ['monday to friday at 8', '0 8 * * 1-5'],
      ['every monday 9am', '0 9 * * 1'],
      ['every mon,wed at 18:30', '30 18 * * 1,3'],
      ['mondays and fridays at 8:15', '15 8 * * 1,5'],
      ['every sunday at 10', '0 10 * * 0'],
      ['every weekend at 10', '0 10 * * 0,6'],
      ['every day at 9 and 17', '0 9,17 * * *'],
      ['every month on the 1st at 9', '0 9 1 * *'],
    ];
    for (const [when, expr] of table) assert.deepEqual(parse(when).schedule, { kind: 'cron', expr, tz: 'Europe/Berlin' }, when);
    const r = parse('every weekday at 09:00');
    assert.equal(r.nextRunAt.toISOString(), '2026-03-30T07:00:00.000Z');
    assert.equal(r.description, "Every weekday at 09:00: Cron '0 9 * * 1-5' (Europe/Berlin), next Mon 30 Mar 09:00 CEST (07:00Z), in 1 day 19 h");
  });

  it('takes a cron instead of words', () => {
    const r = parseWhen({ cron: '  0  9 * * 1-5 ', tz: 'Europe/Berlin', kind: 'command', now });
    assert.deepEqual(r.schedule, { kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Berlin' });
    assert.equal(r.nextRunAt.toISOString(), '2026-03-30T07:00:00.000Z');
    assert.match(r.description, /^Cron '0 9 \* \* 1-5' \(Europe\/Berlin\), next Mon 30 Mar 09:00 CEST/);
    assert.deepEqual(parseWhen({ cron: '@daily', tz: 'UTC', kind: 'command', now }).schedule, { kind: 'cron', expr: '0 0 * * *', tz: 'UTC' });
    throwsInput(() => parseWhen({ cron: '0 0 30 2 *', tz: 'UTC', kind: 'command', now, cronField: 'cron_expr' }), 'cron_expr', /never fires/);
    throwsInput(() => parseWhen({ cron: '*/5 * * * *', tz: 'UTC', kind: 'reminder', now }), 'cron', /too|apart/);
  });

  it('enforces the minimum interval per kind', () => {
    throwsInput(() => parse('every 5m'), 'when', /every 5 min is too frequent/, /text reminders may recur at most every 10 minutes/);
    assert.deepEqual(parse('every 5m', 'command').schedule, { kind: 'every', seconds: 300, from: '2026-03-28T12:00:00.000Z' });
    throwsInput(() => parse('every 30s'), 'when', /too frequent/);
    throwsInput(() => parse('every 30s', 'command'), 'when', /every 30 s is too frequent; commands may recur at most every minute/);
    assert.equal((parse('every 10 minutes').schedule as { seconds: number }).seconds, 600);
    assert.equal((parse('every minute', 'command').schedule as { seconds: number }).seconds, 60);
    throwsInput(() => parse('every minute'), 'when', /too frequent/);
  });
});

describe('parseWhen: refusals', () => {
  const now = d('2026-03-28T12:00:00Z');
  const parse = (when: string) => parseWhen({ when, tz: 'Europe/Berlin', kind: 'reminder', now });

  it('rejects bare durations as ambiguous', () => {
    for (const w of ['30m', '30 minutes', '2h', 'an hour', '1h 30m']) {
      throwsInput(() => parse(w), 'when', /^ambiguous: say 'in 30m' for once or 'every 30m' to recur$/);
    }
  });

  it('rejects what it cannot read, with examples', () => {
    for (const w of ['blorp', 'every blue moon', 'every 2 days at 9', 'sometime soon', '9', 'every day at 25:00']) {
      throwsInput(() => parse(w), 'when', new RegExp(`^cannot read '${w}' as a time; examples: 'in 20 minutes'`));
    }
  });

  it('asks for a time of day when only a day is given', () => {
    throwsInput(() => parse('tomorrow'), 'when', /no time of day/);
    throwsInput(() => parse('every weekday'), 'when', /no time of day/);
  });

  it('refuses times with different minutes in one schedule', () => {
    throwsInput(() => parse('every day at 9 and 17:30'), 'when', /different minutes/);
  });

  it('needs exactly one of when and cron', () => {
    throwsInput(() => parseWhen({ when: 'in 5 minutes', cron: '0 9 * * *', tz: 'UTC', kind: 'command', now }), 'when', /not both/);
    throwsInput(() => parseWhen({ tz: 'UTC', kind: 'command', now }), 'when', /missing/);
    throwsInput(() => parseWhen({ when: '  ', tz: 'UTC', kind: 'command', now, whenField: 'at' }), 'at', /missing/);
    throwsInput(() => parse('x'.repeat(201)), 'when', /too long/);
  });

  it('keeps every time within 100 years of now, before any date arithmetic can overflow', () => {
    for (const w of ['in 99999999999 days', 'in 73000 days', 'in 99999999999999999999 seconds', `in ${'9'.repeat(150)} weeks`, '9999-12-31T00:00:00Z', '2127-01-01 09:00']) {
      throwsInput(() => parse(w), 'when', /^is more than 100 years away$/);
    }
    for (const w of ['every 2147483648 weeks', 'every 99999999 days', 'every 99999999999999999999 seconds', 'every 36601 days']) {
      throwsInput(() => parse(w), 'when', /^recurs less often than once in 100 years/);
    }
    throwsInput(() => parse('1900-01-01T00:00:00Z'), 'when', /^is in the past \(more than 100 years ago\)$/);
    // The field is the caller's: a tool's or a wake's `at`.
    throwsInput(() => parseWhen({ when: 'in 99999999999 days', tz: 'UTC', kind: 'command', now, whenField: 'at' }), 'at', /100 years/);
    // The edges pass.
    assert.equal(parse('in 36600 days').nextRunAt.toISOString(), '2126-06-12T11:00:00.000Z');
    assert.deepEqual(parse('every 36600 days').schedule, { kind: 'every', seconds: 36600 * 86400, from: now.toISOString() });
  });
});

describe('checkClock', () => {
  const system = d('2026-03-28T12:00:00Z');
  it('takes a --now within 100 years of the system clock and refuses one beyond, on field now', () => {
    for (const iso of ['2026-03-28T12:00:00Z', '1926-01-13T00:00:00Z', '2126-06-12T00:00:00Z']) assert.equal(checkClock(d(iso), system).toISOString(), d(iso).toISOString());
    for (const iso of ['+275760-09-13T00:00:00Z', '-271821-04-20T00:00:00Z', '1926-01-12T00:00:00Z', '2126-06-13T00:00:00Z']) {
      throwsInput(() => checkClock(d(iso), system), 'now', /more than 100 years from the system clock/);
    }
    throwsInput(() => checkClock(new Date(NaN), system), 'now', /more than 100 years/);
  });
});

describe('describeInstant and describeSchedule', () => {
  const tz = 'Europe/Berlin';

  it('states the instant in the owner’s zone and in UTC, with the distance', () => {
    assert.equal(describeInstant(d('2026-10-03T07:00:00Z'), tz, d('2026-10-03T04:46:00Z')), 'Sat 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min');
    assert.equal(describeInstant(d('2026-10-03T07:00:00Z'), tz, d('2026-10-03T08:00:00Z')), 'Sat 3 Oct 09:00 CEST (07:00Z), 1 h ago');
    assert.equal(describeInstant(d('2026-10-02T23:30:00Z'), tz, d('2026-10-02T23:00:00Z')), 'Sat 3 Oct 01:30 CEST (Fri 2 Oct 23:30Z), in 30 min');
    assert.equal(describeInstant(d('2027-01-05T08:00:00Z'), tz, d('2026-12-30T08:00:00Z')), 'Tue 5 Jan 2027 09:00 CET (08:00Z), in 6 days');
    assert.equal(describeInstant(d('2026-10-03T07:00:20Z'), tz, d('2026-10-03T07:00:00Z')), 'Sat 3 Oct 09:00:20 CEST (07:00:20Z), in under a minute');
    assert.equal(describeInstant(d('2026-10-03T13:00:00Z'), 'America/New_York', d('2026-10-01T12:00:00Z')), 'Sat 3 Oct 09:00 EDT (13:00Z), in 2 days 1 h');
    assert.match(describeInstant(d('2026-10-03T04:00:00Z'), 'Asia/Tashkent', d('2026-10-01T12:00:00Z')), /^Sat 3 Oct 09:00 GMT\+5 \(04:00Z\), in 1 day 16 h$/);
  });

  it('describes each kind of schedule', () => {
    const now = d('2026-10-03T04:46:00Z');
    assert.equal(describeSchedule({ kind: 'once', at: '2026-10-03T07:00:00.000Z' }, d('2026-10-03T07:00:00Z'), tz, now), 'Once, Sat 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min');
    assert.equal(
      describeSchedule({ kind: 'every', seconds: 1800, from: '2026-10-03T04:30:00.000Z' }, d('2026-10-03T05:00:00Z'), tz, now),
      'Every 30 min, next Sat 3 Oct 07:00 CEST (05:00Z), in 14 min',
    );
    assert.equal(
      describeSchedule({ kind: 'every', seconds: 5400, from: '2026-10-03T04:30:00.000Z' }, null, tz, now),
      'Every 1 h 30 min, no next run',
    );
    assert.equal(
      describeSchedule(cron('0 9 * * 1-5', 'Europe/Berlin'), d('2026-10-05T07:00:00Z'), tz, now),
      "Cron '0 9 * * 1-5' (Europe/Berlin), next Mon 5 Oct 09:00 CEST (07:00Z), in 2 days 2 h",
    );
  });
});

describe('nextRunWords (the status bar)', () => {
  const now = new Date('2026-03-29T00:30:00Z');
  it('says nothing is scheduled, a run in the future, and a run already due as due now', () => {
    assert.equal(nextRunWords(null, now), 'nothing scheduled');
    assert.equal(nextRunWords(now.getTime() + 5 * 60_000, now), 'next in 5 min');
    assert.equal(nextRunWords(now.getTime() - 2 * 60_000, now), 'due now');
    assert.equal(nextRunWords(now.getTime(), now), 'due now');
  });
});
