/**
 * Cron in an explicit IANA zone: normalising and validating expressions, and the real runs of a
 * cron in its zone across DST.
 *
 * Library rules: croner 11 is always built with `mode: '5-part'` (five fields, no seconds) and
 * `fixedTimeRule: 'no-wildcard'` (lists and ranges count as fixed times across DST, as in Vixie cron)
 * and never given a callback, so it arms no timer.
 */
import { Cron } from 'croner';
import { InputError } from '../errors';
import { describeInstant, formatDuration, wallTimeWords, wallWords } from './describe';
import { limitWords, MIN_INTERVAL_SECONDS, type RowKind } from './limits';
import { fallBacks, validateZone, wallAsUtc, wallUtcToInstant, zoneTransitions } from './zone';

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** A cron whose first run is further away than this is treated as never firing. */
const NEVER_HORIZON_MS = 5 * 366 * DAY_MS;
/** The frequency check looks at a full year of runs, leap day included. */
const FREQUENCY_HORIZON_MS = 366 * DAY_MS;
/** Around a DST transition the real gaps between runs can differ from the wall-clock gaps. */
const TRANSITION_MARGIN_MS = 30 * HOUR_MS;
const CRON_MAX = 200;

const CRON_NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const CRON_FIELDS = 'minute hour day-of-month month day-of-week';

/** Trims, collapses spaces and expands `@daily`-style nicknames; throws on a wrong field count. */
export function normalizeCron(expr: string, field = 'cron'): string {
  const e = (typeof expr === 'string' ? expr : '').trim().replace(/\s+/g, ' ');
  if (e === '') throw new InputError(field, `is empty; give 5 fields: ${CRON_FIELDS}, e.g. '0 9 * * 1-5'`);
  if (e.length > CRON_MAX) throw new InputError(field, `is too long (at most ${CRON_MAX} characters)`);
  if (e.startsWith('@')) {
    const expanded = CRON_NICKNAMES[e.toLowerCase()];
    if (expanded === undefined) {
      throw new InputError(field, `'${e}' is not a cron nickname croner knows here (${Object.keys(CRON_NICKNAMES).join(', ')})`);
    }
    return expanded;
  }
  const n = e.split(' ').length;
  if (n !== 5) {
    const extra = n === 6 ? '; a seconds field is not supported' : n > 6 ? '; seconds and year fields are not supported' : '';
    throw new InputError(field, `'${e}' has ${n} field${n === 1 ? '' : 's'}; a cron needs exactly 5: ${CRON_FIELDS}${extra}`);
  }
  return e;
}

function makeCron(expr: string, tz: string): Cron {
  return new Cron(expr, { mode: '5-part', fixedTimeRule: 'no-wildcard', timezone: tz, paused: true });
}

/** Same fields with no zone at all: the pattern's wall-clock times, fast (no Intl per step). */
export function makeWallCron(expr: string): Cron {
  return new Cron(expr, { mode: '5-part', fixedTimeRule: 'no-wildcard', utcOffset: 0, paused: true });
}

/** croner's "no-wildcard" rule: minute and hour have no `*`, `?` or step. Such a job runs once on a repeated hour. */
function isFixedTime(expr: string): boolean {
  const [minute = '*', hour = '*'] = expr.split(' ');
  return !/[*?/]/.test(minute) && !/[*?/]/.test(hour);
}

/**
 * Real runs of a cron in its zone. Wraps croner with two guards, because croner 9 and 10 got
 * both wrong near DST: a result is always strictly after the reference, and a fixed-time job
 * never runs on the second occurrence of a repeated wall time (a restart between the two 02:30s
 * of a fall-back night must not fire again).
 */
export class CronRuns {
  private readonly cron: Cron;
  /** croner's fixed-time job: a run in a spring-forward gap moves after it, and a repeated wall time runs once. */
  readonly fixed: boolean;

  constructor(
    readonly expr: string,
    readonly tz: string,
  ) {
    // croner silently reads an empty zone as the machine's and fails on a bad one only later.
    if (!checkedZones.has(tz)) {
      validateZone(tz);
      checkedZones.add(tz);
    }
    this.cron = cachedCron(expr, tz);
    this.fixed = isFixedTime(expr);
  }

  after(t: number): number | null {
    let from = t;
    for (let i = 0; i < 16; i++) {
      const r = this.cron.nextRun(new Date(from));
      if (r === null) return null;
      const ms = r.getTime();
      if (ms > t && !(this.fixed && this.isSecondOccurrence(ms))) return ms;
      from = Math.max(ms, from) + 1;
    }
    throw new Error(`croner did not advance past ${new Date(t).toISOString()} for '${this.expr}' (${this.tz})`);
  }

  private isSecondOccurrence(ms: number): boolean {
    const year = new Date(ms).getUTCFullYear();
    const years = ms - Date.UTC(year, 0, 1) < DAY_MS ? [year - 1, year] : [year];
    return years.some((y) => fallBacks(this.tz, y).some((t) => ms >= t.at && ms < t.at + t.backMs));
  }
}

// Both hold only values derived from their keys, so they change no result; they save croner's
// pattern parse and the zone check (each costs more than a nextRun).
const cronCache = new Map<string, Cron>();
const checkedZones = new Set<string>();

/** croner keeps no state between `nextRun(date)` calls on a job without a callback, so one instance serves all. */
function cachedCron(expr: string, tz: string): Cron {
  const key = `${tz} ${expr}`;
  let c = cronCache.get(key);
  if (c === undefined) {
    c = makeCron(expr, tz);
    if (cronCache.size >= 256) cronCache.clear();
    cronCache.set(key, c);
  }
  return c;
}

/**
 * Rejects syntax errors, never-firing patterns and patterns that fire more often than the kind
 * allows at any point in the coming year (DST days included). Throws InputError(field, why);
 * a bad zone is reported on `tz`. Returns the normalised expression, the zone as stored and the first run.
 */
export function checkCron(expr: string, tz: string, kind: RowKind, now: Date, field: string): { expr: string; tz: string; first: number } {
  const zone = validateZone(tz, 'tz');
  const e = normalizeCron(expr, field);
  let runs: CronRuns;
  try {
    runs = new CronRuns(e, zone);
  } catch (err) {
    const msg = (err instanceof Error ? err.message : String(err)).replace(/^CronPattern:\s*/i, '');
    throw new InputError(field, `'${e}' is not a valid cron (${msg}); fields: ${CRON_FIELDS}`);
  }
  const nowMs = now.getTime();
  const first = runs.after(nowMs);
  if (first === null) throw new InputError(field, `'${e}' never fires (no date matches it, e.g. 30 February)`);
  if (first - nowMs > NEVER_HORIZON_MS) {
    throw new InputError(field, `'${e}' does not fire within 5 years (first run ${describeInstant(new Date(first), zone, now)})`);
  }
  const minMs = MIN_INTERVAL_SECONDS[kind] * SECOND_MS;
  // Distinct 5-part runs are whole minutes apart in every zone in use today, so a 60 s minimum needs no sweep.
  if (minMs > MINUTE_MS) {
    const pair = findTooFrequent(e, zone, nowMs, minMs);
    if (pair !== null) {
      const [a, b] = pair;
      throw new InputError(
        field,
        `'${e}' fires ${formatDuration((b - a) / SECOND_MS)} apart at ${wallWords(a, zone)} and ${wallTimeWords(b, a, zone)} (${zone}); ${limitWords(kind)}`,
      );
    }
  }
  return { expr: e, tz: zone, first };
}

/**
 * The first pair of consecutive runs in the coming year closer than minMs, or null. The pattern's
 * wall-clock sequence is swept in UTC (about ten times faster than croner in a named zone); real
 * runs are then checked around each DST transition, where gaps can shrink (a run in a
 * spring-forward gap moves to the end of the gap).
 */
function findTooFrequent(expr: string, tz: string, nowMs: number, minMs: number): [number, number] | null {
  const endMs = nowMs + FREQUENCY_HORIZON_MS;
  const transitions = zoneTransitions(tz, nowMs - DAY_MS, endMs + DAY_MS);

  if (!dailyTimesAreSpaced(expr, minMs)) {
    // Wall times and instants differ by the UTC offset (at most 14 h): a pair skipped here lies
    // within 44 h of the transition, inside the real window below.
    const wallNearTransition = (wallMs: number): boolean => transitions.some((t) => Math.abs(wallMs - t) <= TRANSITION_MARGIN_MS);
    const wall = makeWallCron(expr);
    const wallStart = wallAsUtc(nowMs, tz);
    let prev = wall.nextRun(new Date(wallStart));
    // Every firing day has the same times, so a first firing day beyond the year (29 Feb) is swept too.
    const wallEnd = Math.max(wallStart + FREQUENCY_HORIZON_MS, (prev?.getTime() ?? 0) + 2 * DAY_MS);
    while (prev !== null && prev.getTime() <= wallEnd) {
      const next = wall.nextRun(prev);
      if (next === null) break;
      if (next.getTime() - prev.getTime() < minMs && !wallNearTransition(prev.getTime())) {
        return [wallUtcToInstant(prev.getTime(), tz), wallUtcToInstant(next.getTime(), tz)];
      }
      prev = next;
    }
  }

  const runs = new CronRuns(expr, tz);
  for (const t of transitions) {
    const start = Math.max(nowMs, t - TRANSITION_MARGIN_MS - DAY_MS);
    const end = Math.min(endMs, t + TRANSITION_MARGIN_MS + DAY_MS);
    if (start >= end) continue;
    let a = runs.after(start);
    while (a !== null && a <= end) {
      const b = runs.after(a);
      if (b === null) break;
      if (b - a < minMs) return [a, b];
      a = b;
    }
  }
  return null;
}

/**
 * True when the minute and hour fields alone guarantee wall-clock gaps of at least minMs, within a
 * day and from the last time of one day to the first of the next, whatever days fire. Lets the
 * year sweep be skipped for `*\/10 * * * *` and the like; false means "sweep", not "too frequent".
 */
function dailyTimesAreSpaced(expr: string, minMs: number): boolean {
  const times = timesOfDay(expr);
  if (times === null) return false;
  const first = times[0];
  const last = times[times.length - 1];
  if (first === undefined || last === undefined) return false;
  let gap = 1440 - last + first;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, (times[i] ?? 0) - (times[i - 1] ?? 0));
  return gap * MINUTE_MS >= minMs;
}

/** The minutes of the day (0–1439, ascending) a pattern fires on any day it fires, or null when its minute or hour field is not plain. */
export function timesOfDay(expr: string): number[] | null {
  const [minuteField = '', hourField = ''] = expr.split(' ');
  const minutes = expandField(minuteField, 59);
  const hours = expandField(hourField, 23);
  if (minutes === null || hours === null) return null;
  return hours.flatMap((h) => minutes.map((m) => h * 60 + m)).sort((x, y) => x - y);
}

/** Values of a plain numeric cron field (`*`, `*\/n`, `a`, `a-b`, `a-b/n`, lists), or null for anything else. */
function expandField(field: string, max: number): number[] | null {
  const out = new Set<number>();
  for (const part of field.split(',')) {
    const m = /^(?:(\*)|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (m === null) return null;
    const lo = m[1] !== undefined ? 0 : Number(m[2]);
    const hi = m[1] !== undefined ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : lo;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (!(step >= 1) || lo > hi || hi > max) return null;
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return [...out];
}
