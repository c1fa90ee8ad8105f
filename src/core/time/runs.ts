/**
 * Runs of a schedule over time: the next run after an instant, and for catch-up the runs missed
 * between two instants (how many, and the latest).
 *
 * Catch-up must cost a few croner steps per row however long the downtime: a zoned croner step
 * costs tens of microseconds (Intl), and a minutely cron a year late has 525,600 runs. So the
 * latest run is found by searching back from `to`, and runs are counted by wall-clock arithmetic
 * wherever the zone's offset is constant, stepping croner only around offset changes.
 */
import type { Cron } from 'croner';
import type { Schedule } from '../schema';
import { CronRuns, makeWallCron, timesOfDay } from './cron';
import { nextTransition, offsetAt, type ZoneTransition } from './zone';

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const DAY_MS = 24 * 3600 * SECOND_MS;
const DEFAULT_MISSED_CAP = 1000;
/**
 * Around an offset change a fixed-time job's runs move (out of a spring-forward gap) or are skipped
 * (the second pass of a fall-back hour), all within the change's size after it; croner is stepped
 * from this much before the change to this much after the shifted hour.
 */
const TRANSITION_MARGIN_MS = 10 * MINUTE_MS;
/** Longer than any offset change plus the margin, so a change just before the span is not missed. */
const TRANSITION_LOOKBACK_MS = 2 * DAY_MS;

/** The first scheduled instant strictly after `after`, or null when there is none. */
export function nextRunAfter(schedule: Schedule, after: Date): Date | null {
  const t = after.getTime();
  switch (schedule.kind) {
    case 'once': {
      const at = Date.parse(schedule.at);
      return at > t ? new Date(at) : null;
    }
    case 'every': {
      const from = Date.parse(schedule.from);
      const step = schedule.seconds * SECOND_MS;
      if (!Number.isFinite(from) || !(step > 0) || !Number.isFinite(t)) return null;
      const k = Math.max(1, Math.floor((t - from) / step) + 1);
      let r = from + k * step;
      // Float division can land one step short for huge spans.
      while (r <= t) r += step;
      return new Date(r);
    }
    case 'cron': {
      const r = new CronRuns(schedule.expr, schedule.tz).after(t);
      return r === null ? null : new Date(r);
    }
  }
}

/** Runs in (fromExclusive, toInclusive]: how many, exact up to `cap`; `capped` when there are more. */
export interface MissedRuns {
  count: number;
  /** The latest run in the span, exact also past the cap: catch-up runs a recurring row once, for it. */
  latest: Date | null;
  capped: boolean;
}

/**
 * Scheduled instants in (fromExclusive, toInclusive]: how many (exact up to `cap`, default 1000,
 * then `capped`) and the latest one. A few croner steps per schedule, however long the span.
 */
export function missedRunsBetween(schedule: Schedule, fromExclusive: Date, toInclusive: Date, cap = DEFAULT_MISSED_CAP): MissedRuns {
  const a = fromExclusive.getTime();
  const b = toInclusive.getTime();
  const limit = Math.max(0, Math.floor(cap));
  const none: MissedRuns = { count: 0, latest: null, capped: false };
  if (!(b > a)) return none;
  switch (schedule.kind) {
    case 'once': {
      const at = Date.parse(schedule.at);
      return at > a && at <= b ? { count: Math.min(1, limit), latest: new Date(at), capped: limit < 1 } : none;
    }
    case 'every': {
      const from = Date.parse(schedule.from);
      const step = schedule.seconds * SECOND_MS;
      if (!Number.isFinite(from) || !(step > 0)) return none;
      let kMin = Math.max(1, Math.floor((a - from) / step) + 1);
      let kMax = Math.floor((b - from) / step);
      // Float division can be one step off for huge spans.
      while (kMin > 1 && from + (kMin - 1) * step > a) kMin--;
      while (from + kMin * step <= a) kMin++;
      while (from + kMax * step > b) kMax--;
      while (from + (kMax + 1) * step <= b) kMax++;
      if (kMax < kMin) return none;
      const n = kMax - kMin + 1;
      return { count: Math.min(n, limit), latest: new Date(from + kMax * step), capped: n > limit };
    }
    case 'cron': {
      const runs = new CronRuns(schedule.expr, schedule.tz);
      const latest = latestRun(runs, a, b);
      if (latest === null) return none;
      const count = countRuns(runs, a, latest, limit);
      return { count: Math.min(count, limit), latest: new Date(latest), capped: count > limit };
    }
  }
}

/**
 * The last run in (a, b], or null: windows back from b that double until one holds a run, then
 * halving between that run and the window's end. O(log span) croner steps.
 */
function latestRun(runs: CronRuns, a: number, b: number): number | null {
  // Invariant: no run in (hi, b].
  let hi = b;
  let x: number | null = null;
  for (let width = MINUTE_MS; x === null; width *= 2) {
    const start = Math.max(a, b - width);
    const r = runs.after(start);
    if (r !== null && r <= b) x = r;
    else if (start === a) return null;
    else hi = start;
  }
  for (;;) {
    const next = runs.after(x);
    if (next === null || next > b) return x;
    x = next;
    if (x >= hi) return x;
    const mid = x + Math.floor((hi - x) / 2);
    const r = runs.after(mid);
    if (r !== null && r <= b) x = r;
    else hi = mid;
  }
}

/**
 * Runs in (a, b], counted until they exceed `limit` (then some number above it). Where the offset
 * is constant, runs are the pattern's wall-clock times shifted by it, counted by arithmetic. A job
 * with a wildcard in its minute or hour keeps real-time spacing across an offset change (wall times
 * in a gap do not exist, a repeated hour runs twice), so the span is counted piece by piece; a
 * fixed-time job's runs move or merge around a change, so croner is stepped there.
 */
function countRuns(runs: CronRuns, a: number, b: number, limit: number): number {
  const wall = wallPattern(runs.expr);
  if (!runs.fixed) {
    let count = 0;
    let pos = a;
    for (let t = nextTransition(runs.tz, a, b); count <= limit; t = nextTransition(runs.tz, t.at, b)) {
      if (t === null) return count + wall.count(pos, b, offsetAt(b, runs.tz), limit - count + 1);
      // Up to the instant before the change at the old offset, from the change on at the new one.
      count += wall.count(pos, t.at - 1, t.beforeMs, limit - count + 1);
      pos = t.at - 1;
    }
    return count;
  }
  let count = 0;
  let pos = a;
  // Changes at or before this instant have had their window.
  let cursor = a - TRANSITION_LOOKBACK_MS;
  while (pos < b && count <= limit) {
    const t = nextTransition(runs.tz, cursor, b + TRANSITION_MARGIN_MS);
    if (t === null) {
      count += wall.count(pos, b, offsetAt(b, runs.tz), limit - count + 1);
      break;
    }
    cursor = t.at;
    let windowEnd = t.at + shiftMs(t) + TRANSITION_MARGIN_MS;
    // Changes close together (a zone that moved twice in a day) share one window.
    for (let u = nextTransition(runs.tz, cursor, windowEnd + TRANSITION_MARGIN_MS); u !== null; u = nextTransition(runs.tz, cursor, windowEnd + TRANSITION_MARGIN_MS)) {
      cursor = u.at;
      windowEnd = Math.max(windowEnd, u.at + shiftMs(u) + TRANSITION_MARGIN_MS);
    }
    if (windowEnd <= pos) continue;
    const windowStart = t.at - TRANSITION_MARGIN_MS;
    if (windowStart > pos) {
      const end = Math.min(windowStart, b);
      count += wall.count(pos, end, offsetAt(end, runs.tz), limit - count + 1);
      pos = end;
    }
    const end = Math.min(windowEnd, b);
    for (let r = runs.after(pos); r !== null && r <= end && count <= limit; r = runs.after(r)) count++;
    pos = end;
  }
  return count;
}

function shiftMs(t: ZoneTransition): number {
  return Math.abs(t.afterMs - t.beforeMs);
}

/** A pattern's runs on the wall clock, counted over an instant span at one constant UTC offset. */
interface WallPattern {
  /** Runs whose wall time lies in (s + offset, e + offset], counted until `need` is reached. */
  count(s: number, e: number, offsetMs: number, need: number): number;
}

const wallPatterns = new Map<string, WallPattern>();

function wallPattern(expr: string): WallPattern {
  let p = wallPatterns.get(expr);
  if (p === undefined) {
    p = makeWallPattern(expr);
    if (wallPatterns.size >= 256) wallPatterns.clear();
    wallPatterns.set(expr, p);
  }
  return p;
}

/**
 * Every day the pattern fires, it fires at the same times (minute and hour fields); which days fire
 * (day of month, month, day of week, `L`, `W`, `#`) is asked of croner with a midnight-only twin
 * of the pattern, one step per firing day, and not at all when every day fires. A pattern whose
 * minute or hour field is not plain numbers steps croner's zone-free wall clock instead.
 */
function makeWallPattern(expr: string): WallPattern {
  const fields = expr.split(' ');
  const times = fields.length === 5 ? timesOfDay(expr) : null;
  if (times === null) {
    const cron = makeWallCron(expr);
    return { count: (s, e, o, need) => stepCount(cron, s + o, e + o, need) };
  }
  const [, , dom = '*', month = '*', dow = '*'] = fields;
  const perDay = times.length;
  const anyDay = (f: string): boolean => f === '*' || f === '?';
  // Runs of a firing day at or before `msIntoDay`.
  const upTo = (msIntoDay: number): number => {
    let lo = 0;
    let hi = perDay;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((times[mid] ?? 0) * MINUTE_MS <= msIntoDay) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Runs at or before wall time w, counted from the epoch's day 0, for a pattern that fires every day.
  const everyDayUpTo = (w: number): number => {
    const day = Math.floor(w / DAY_MS);
    return day * perDay + upTo(w - day * DAY_MS);
  };
  if (anyDay(dom) && anyDay(month) && anyDay(dow)) {
    return { count: (s, e, o) => everyDayUpTo(e + o) - everyDayUpTo(s + o) };
  }
  const days = makeWallCron(`0 0 ${dom} ${month} ${dow}`);
  return {
    count: (s, e, o, need) => {
      const ws = s + o;
      const we = e + o;
      let n = 0;
      for (let day = firingDay(days, Math.floor(ws / DAY_MS) * DAY_MS); day !== null && day <= we && n < need; day = firingDay(days, day + DAY_MS)) {
        n += upTo(we - day) - upTo(ws - day);
      }
      return n;
    },
  };
}

/** The first firing day (its UTC midnight) at or after `fromDay`, or null. */
function firingDay(days: Cron, fromDay: number): number | null {
  const r = days.nextRun(new Date(fromDay - SECOND_MS));
  return r === null ? null : r.getTime();
}

/** Wall-clock runs in (ws, we], stepping the zone-free cron, until `need`. */
function stepCount(cron: Cron, ws: number, we: number, need: number): number {
  let n = 0;
  for (let r = cron.nextRun(new Date(ws)); r !== null && r.getTime() <= we && n < need; r = cron.nextRun(r)) {
    if (r.getTime() > ws) n++;
  }
  return n;
}
