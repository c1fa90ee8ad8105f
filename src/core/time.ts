/**
 * Time for the durable schedule (design §2 "Time"): reading `when` words and cron in the owner's
 * IANA zone, next runs, catch-up counts and the plain-words answers. Pure: the clock comes in as
 * an argument, and nothing here reads the machine's zone except `systemZone()`.
 *
 * Library rules (notes/faults.md): croner 11 is always built with `mode: '5-part'` and
 * `fixedTimeRule: 'no-wildcard'` and never given a callback, so it arms no timer; chrono-node
 * ignores IANA zones, so it only supplies wall-clock fields, and Temporal turns them into instants.
 */
import * as chrono from 'chrono-node';
import { Cron } from 'croner';
import { Temporal } from 'temporal-polyfill';
import { InputError } from './errors';
import type { Schedule } from './schema';

export { InputError } from './errors';

export type RowKind = 'reminder' | 'command';

export const MIN_INTERVAL_SECONDS: Record<RowKind, number> = { reminder: 600, command: 60 };

export type ParsedWhen = { schedule: Schedule; nextRunAt: Date; description: string };

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
const ONCE_HORIZON_MS = 100 * 366 * DAY_MS;
const DEFAULT_MISSED_CAP = 1000;
const WHEN_MAX = 200;
const CRON_MAX = 200;

const WHEN_EXAMPLES =
  "'in 20 minutes', 'tomorrow at 9', 'friday 18:30', '2026-10-03 09:00', 'every 30m', 'every weekday at 09:00'";

// ---------------------------------------------------------------------------------------------
// Zones

/** The machine's zone, for the default of the owner's zone. */
export function systemZone(): string {
  try {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (typeof tz === 'string' && tz !== '') return validateZone(tz);
  } catch {
    // An odd machine zone (legacy name, unknown to Temporal) must not break start-up.
  }
  return 'UTC';
}

/**
 * Returns the zone as Temporal spells it (case-normalised; links such as `Europe/Kyiv` kept as
 * given). Only Area/Location names and `UTC` pass: offsets and abbreviations (`GMT+2`, `+02:00`,
 * `EST`, `CET`, `EST5EDT`) are refused because they do not follow a place's daylight saving,
 * which is what a person means by "9 o'clock". `Etc/GMT-2` is a real IANA name and passes.
 */
export function validateZone(tz: string, field = 'tz'): string {
  const raw = typeof tz === 'string' ? tz.trim() : '';
  if (raw === '') throw new InputError(field, 'is empty; give an IANA time zone such as Europe/Berlin, America/New_York or UTC');
  if (raw.length > 64) throw new InputError(field, 'is too long for a time zone name (at most 64 characters)');
  if (/^[+\-\u2212]\d|^(?:utc|gmt|ut|z)\s*[+\-\u2212]\s*\d/i.test(raw)) {
    throw new InputError(
      field,
      `'${raw}' is a UTC offset, not an IANA time zone; an offset ignores daylight saving. Give a place such as Europe/Berlin (or Etc/GMT-2 for a fixed UTC+2)`,
    );
  }
  let id: string;
  try {
    id = new Temporal.ZonedDateTime(0n, raw).timeZoneId;
    // croner and the descriptions go through Intl, so it must know the zone too.
    new Intl.DateTimeFormat('en-US', { timeZone: id }).format(0);
  } catch {
    const hint = closestZone(raw);
    throw new InputError(
      field,
      `'${raw}' is not a known IANA time zone${hint === null ? '' : `; did you mean ${hint}?`} (examples: Europe/Berlin, America/New_York, UTC)`,
    );
  }
  if (id !== 'UTC' && !id.includes('/')) {
    throw new InputError(
      field,
      `'${raw}' is an abbreviation or legacy zone name, not a place; give an Area/City name such as Europe/Berlin or America/New_York (or UTC)`,
    );
  }
  return id;
}

function closestZone(raw: string): string | null {
  let names: string[];
  try {
    names = [...Intl.supportedValuesOf('timeZone'), 'UTC', 'Europe/Kyiv'];
  } catch {
    return null;
  }
  const needle = raw.toLowerCase();
  let best: string | null = null;
  let bestDistance = Math.min(3, Math.floor(needle.length / 4));
  for (const name of names) {
    const d = editDistance(needle, name.toLowerCase(), bestDistance);
    if (d <= bestDistance && (best === null || d < bestDistance)) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const sub = (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, sub));
    }
    prev = cur;
  }
  return prev[b.length] ?? limit + 1;
}

function zoned(ms: number, tz: string): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz);
}

/** Instants of the zone's offset changes in [fromMs, toMs]. */
function zoneTransitions(tz: string, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  let z: Temporal.ZonedDateTime | null = zoned(fromMs, tz);
  for (let i = 0; i < 64 && z !== null; i++) {
    z = z.getTimeZoneTransition('next');
    if (z === null || z.epochMilliseconds > toMs) break;
    out.push(z.epochMilliseconds);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Cron

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
function makeWallCron(expr: string): Cron {
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
class CronRuns {
  private readonly cron: Cron;
  private readonly fixed: boolean;

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

// Both caches hold only values derived from their keys, so they change no result; they save
// croner's pattern parse and Temporal's transition search (each costs more than a nextRun).
const cronCache = new Map<string, Cron>();
const checkedZones = new Set<string>();
const fallBackCache = new Map<string, { at: number; backMs: number }[]>();

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

/** The zone's fall-back transitions starting in a UTC year: when, and how far the clock goes back. */
function fallBacks(tz: string, year: number): { at: number; backMs: number }[] {
  const key = `${tz} ${year}`;
  let list = fallBackCache.get(key);
  if (list === undefined) {
    list = [];
    const end = Date.UTC(year + 1, 0, 1);
    let z: Temporal.ZonedDateTime | null = zoned(Date.UTC(year, 0, 1) - 1, tz);
    for (let i = 0; i < 64 && z !== null; i++) {
      z = z.getTimeZoneTransition('next');
      if (z === null || z.epochMilliseconds >= end) break;
      const before = zoned(z.epochMilliseconds - 1, tz).offsetNanoseconds;
      if (before > z.offsetNanoseconds) list.push({ at: z.epochMilliseconds, backMs: (before - z.offsetNanoseconds) / 1e6 });
    }
    if (fallBackCache.size >= 1024) fallBackCache.clear();
    fallBackCache.set(key, list);
  }
  return list;
}

/**
 * Rejects syntax errors, never-firing patterns and patterns that fire more often than the kind
 * allows at any point in the coming year (DST days included). Throws InputError(field, why);
 * a bad zone is reported on `tz`.
 */
export function validateCron(expr: string, tz: string, kind: RowKind, now: Date, field = 'cron'): void {
  checkCron(expr, tz, kind, now, field);
}

/** validateCron that also returns the normalised expression and the zone as stored. */
function checkCron(expr: string, tz: string, kind: RowKind, now: Date, field: string): { expr: string; tz: string; first: number } {
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
  const [minuteField = '', hourField = ''] = expr.split(' ');
  const minutes = expandField(minuteField, 59);
  const hours = expandField(hourField, 23);
  if (minutes === null || hours === null) return false;
  const times = hours.flatMap((h) => minutes.map((m) => h * 60 + m)).sort((x, y) => x - y);
  const first = times[0];
  const last = times[times.length - 1];
  if (first === undefined || last === undefined) return false;
  let gap = 1440 - last + first;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, (times[i] ?? 0) - (times[i - 1] ?? 0));
  return gap * MINUTE_MS >= minMs;
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

/** The wall-clock time of `ms` in `tz`, written as if it were a UTC instant. */
function wallAsUtc(ms: number, tz: string): number {
  const z = zoned(ms, tz);
  return Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second, z.millisecond);
}

function wallUtcToInstant(wallMs: number, tz: string): number {
  const u = zoned(wallMs, 'UTC').toPlainDateTime();
  return u.toZonedDateTime(tz, { disambiguation: 'compatible' }).epochMilliseconds;
}

function limitWords(kind: RowKind): string {
  const who = kind === 'reminder' ? 'text reminders' : 'commands';
  const s = MIN_INTERVAL_SECONDS[kind];
  return `${who} may recur at most every ${s === 60 ? 'minute' : s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`}`;
}

// ---------------------------------------------------------------------------------------------
// Next runs and catch-up

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

/**
 * Scheduled instants in (fromExclusive, toInclusive]: how many (saturating at `cap`, default
 * 1000) and the latest one (always exact, also past the cap). For catch-up: a recurring row that
 * missed several runs runs once, for the latest.
 */
export function missedRunsBetween(
  schedule: Schedule,
  fromExclusive: Date,
  toInclusive: Date,
  cap = DEFAULT_MISSED_CAP,
): { count: number; latest: Date | null } {
  const a = fromExclusive.getTime();
  const b = toInclusive.getTime();
  const limit = Math.max(0, Math.floor(cap));
  if (!(b > a)) return { count: 0, latest: null };
  switch (schedule.kind) {
    case 'once': {
      const at = Date.parse(schedule.at);
      return at > a && at <= b ? { count: Math.min(1, limit), latest: new Date(at) } : { count: 0, latest: null };
    }
    case 'every': {
      const from = Date.parse(schedule.from);
      const step = schedule.seconds * SECOND_MS;
      if (!Number.isFinite(from) || !(step > 0)) return { count: 0, latest: null };
      let kMin = Math.max(1, Math.floor((a - from) / step) + 1);
      let kMax = Math.floor((b - from) / step);
      // Float division can be one step off for huge spans.
      while (kMin > 1 && from + (kMin - 1) * step > a) kMin--;
      while (from + kMin * step <= a) kMin++;
      while (from + kMax * step > b) kMax--;
      while (from + (kMax + 1) * step <= b) kMax++;
      if (kMax < kMin) return { count: 0, latest: null };
      return { count: Math.min(kMax - kMin + 1, limit), latest: new Date(from + kMax * step) };
    }
    case 'cron': {
      const runs = new CronRuns(schedule.expr, schedule.tz);
      let count = 0;
      let latest: number | null = null;
      let r = runs.after(a);
      while (r !== null && r <= b) {
        if (count >= limit) return { count: limit, latest: new Date(latestCronRun(runs, r, b)) };
        count++;
        latest = r;
        r = runs.after(r);
      }
      return { count, latest: latest === null ? null : new Date(latest) };
    }
  }
}

/** The last run in [known, to], given that `known` is a run. Scans back in growing windows. */
function latestCronRun(runs: CronRuns, known: number, to: number): number {
  for (let width = DAY_MS; ; width *= 2) {
    const start = Math.max(known - 1, to - width);
    let last: number | null = null;
    let r = runs.after(start);
    while (r !== null && r <= to) {
      last = r;
      r = runs.after(r);
    }
    if (last !== null) return last;
    if (start <= known - 1) return known;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading `when`

type Duration = { calendarDays: number; exactSeconds: number };

const NUMBER_WORDS: Record<string, number> = {
  'half an': 0.5,
  'half a': 0.5,
  an: 1,
  a: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  'forty-five': 45,
  'forty five': 45,
};
const UNIT_WORDS: [RegExp, 's' | 'm' | 'h' | 'd' | 'w'][] = [
  [/^(?:seconds?|secs?|s)$/, 's'],
  [/^(?:minutes?|mins?|m)$/, 'm'],
  [/^(?:hours?|hrs?|h)$/, 'h'],
  [/^(?:days?|d)$/, 'd'],
  [/^(?:weeks?|wks?|w)$/, 'w'],
];
const NUM_SRC = `(\\d+(?:\\.\\d+)?|${Object.keys(NUMBER_WORDS)
  .sort((x, y) => y.length - x.length)
  .join('|')})`;
const UNIT_SRC = '(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w)';
const DURATION_PART = new RegExp(`(?:${NUM_SRC}\\s*)?${UNIT_SRC}(?![a-z])\\s*(?:,\\s*|and\\s+)?`, 'y');

/** `30m`, `1 hour 30 minutes`, `1h30m`, `an hour`, `2 days`; a lone unit (`hour`) only if allowed. */
function parseDuration(s: string, allowBareUnit: boolean): Duration | null {
  let calendarDays = 0;
  let exactSeconds = 0;
  let parts = 0;
  let bare = false;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < s.length) {
    const at = DURATION_PART.lastIndex;
    const m = DURATION_PART.exec(s);
    if (m === null || m.index !== at || m[0] === '') return null;
    const numText = m[1];
    const unitText = m[2] ?? '';
    const unit = UNIT_WORDS.find(([re]) => re.test(unitText))?.[1];
    if (unit === undefined) return null;
    let n: number;
    if (numText === undefined) {
      bare = true;
      n = 1;
    } else {
      n = /^\d/.test(numText) ? Number(numText) : (NUMBER_WORDS[numText] ?? NaN);
    }
    if (!Number.isFinite(n)) return null;
    parts++;
    if ((unit === 'd' || unit === 'w') && Number.isInteger(n)) calendarDays += unit === 'w' ? 7 * n : n;
    else exactSeconds += n * { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[unit];
  }
  if (parts === 0) return null;
  if (bare && !(allowBareUnit && parts === 1)) return null;
  return { calendarDays, exactSeconds };
}

type TimeOfDay = { hour: number; minute: number; second: number; strict: boolean; midnight: boolean };

const TIME_SRC = String.raw`(?:\d{1,2}(?::\d{2}(?::\d{2})?)?\s*(?:am|pm|a\.m\.|p\.m\.)?|\d{1,2}\s*o'?clock|noon|midnight)`;
const TIME_LIST_SRC = String.raw`${TIME_SRC}(?:\s*(?:,|&|and)\s*${TIME_SRC})*`;
const SPLIT_DAY_TIME = new RegExp(String.raw`^(.*?)\s*(?:\s|,)(?:at\s+)?(${TIME_LIST_SRC})$`);
const SPLIT_TIME_DAY = new RegExp(String.raw`^(?:at\s+)?(${TIME_LIST_SRC})\s+(.+)$`);
const LONE_TIME = new RegExp(String.raw`^(at\s+)?(${TIME_SRC})$`);

function parseTime(s: string): TimeOfDay | null {
  const t = s.trim();
  if (t === 'noon') return { hour: 12, minute: 0, second: 0, strict: true, midnight: false };
  if (t === 'midnight') return { hour: 0, minute: 0, second: 0, strict: true, midnight: true };
  const m = /^(\d{1,2})(?::(\d{2})(?::(\d{2}))?)?\s*(am|pm|a\.m\.|p\.m\.|o'?clock)?$/.exec(t);
  if (m === null) return null;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const second = m[3] === undefined ? 0 : Number(m[3]);
  const suffix = m[4];
  if (minute > 59 || second > 59) return null;
  const meridiem = suffix !== undefined && /^[ap]/.test(suffix) ? suffix.charAt(0) : null;
  if (meridiem !== null) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem === 'p' ? 12 : 0);
  } else if (hour > 23) {
    return null;
  }
  return { hour, minute, second, strict: m[2] !== undefined || suffix !== undefined, midnight: false };
}

function parseTimeList(s: string): TimeOfDay[] | null {
  const out: TimeOfDay[] = [];
  for (const part of s.split(/\s*(?:,|&|\band\b)\s*/)) {
    const t = parseTime(part);
    if (t === null) return null;
    out.push(t);
  }
  return out.length > 0 ? out : null;
}

const WEEKDAYS: Record<string, number> = {
  monday: 1,
  mon: 1,
  tuesday: 2,
  tues: 2,
  tue: 2,
  wednesday: 3,
  weds: 3,
  wed: 3,
  thursday: 4,
  thurs: 4,
  thur: 4,
  thu: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
  sunday: 7,
  sun: 7,
};
const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A weekday word: ISO number (Mon=1..Sun=7) and whether it was plural (`mondays`). */
function weekdayWord(w: string): { day: number; plural: boolean } | null {
  const single = WEEKDAYS[w];
  if (single !== undefined) return { day: single, plural: false };
  if (w.endsWith('s')) {
    const stem = WEEKDAYS[w.slice(0, -1)];
    if (stem !== undefined && w.length > 4) return { day: stem, plural: true };
  }
  return null;
}

type Recurring = { kind: 'every'; seconds: number } | { kind: 'cron'; expr: string; gloss: string };

/** The days part of a calendar recurrence: a cron day-of-week (or day-of-month) and its words. */
function parseDaySet(s: string): { dom: string; dow: string; words: string } | null {
  const t = s.trim();
  if (/^(?:every ?day|each day|daily|every single day)$/.test(t)) return { dom: '*', dow: '*', words: 'Every day' };
  if (/^(?:(?:every|each) (?:weekday|working day|workday|business day)|(?:on )?(?:weekdays|working days|workdays))$/.test(t)) {
    return { dom: '*', dow: '1-5', words: 'Every weekday' };
  }
  if (/^(?:(?:every|each) weekend(?: day)?|(?:on )?weekends)$/.test(t)) return { dom: '*', dow: '0,6', words: 'Every Sat and Sun' };
  const monthly =
    /^(?:(?:every|each) month|monthly),? on (?:the )?(\d{1,2})(?:st|nd|rd|th)?$/.exec(t) ??
    /^on the (\d{1,2})(?:st|nd|rd|th)? of (?:every|each|the) month$/.exec(t);
  if (monthly !== null) {
    const dom = Number(monthly[1]);
    if (dom < 1 || dom > 31) return null;
    return { dom: String(dom), dow: '*', words: `Every month on the ${ordinal(dom)}` };
  }
  const m = /^(every|each|on)?\s*(.+)$/.exec(t);
  if (m === null) return null;
  const prefix = m[1];
  const body = (m[2] ?? '').replace(/\s*(?:\bto\b|\bthrough\b|\btill\b|\buntil\b|–|-)\s*/g, '-');
  const tokens = body.split(/\s*(?:,|&|\/|\band\b|\s)\s*/).filter((x) => x !== '');
  const days = new Set<number>();
  let plural = false;
  for (const tok of tokens) {
    const range = /^([a-z]+)-([a-z]+)$/.exec(tok);
    if (range !== null) {
      const a = weekdayWord(range[1] ?? '');
      const b = weekdayWord(range[2] ?? '');
      if (a === null || b === null) return null;
      // A span of days ("mon-fri", "monday to friday") only makes sense as a recurrence.
      plural = true;
      for (let d = a.day; ; d = (d % 7) + 1) {
        days.add(d);
        if (d === b.day) break;
      }
      continue;
    }
    const w = weekdayWord(tok);
    if (w === null) return null;
    plural ||= w.plural;
    days.add(w.day);
  }
  if (days.size === 0) return null;
  if (!(prefix === 'every' || prefix === 'each' || plural)) return null;
  const sorted = [...days].sort((x, y) => x - y);
  const cron = sorted.map((d) => d % 7).sort((x, y) => x - y);
  let dow = cron.join(',');
  if (dow === '1,2,3,4,5') dow = '1-5';
  if (cron.length === 7) dow = '*';
  const words =
    dow === '*' ? 'Every day' : dow === '1-5' ? 'Every weekday' : `Every ${sorted.map((d) => WEEKDAY_NAMES[d - 1] ?? '').join(', ')}`;
  return { dom: '*', dow, words };
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

function readRecurring(text: string, field: string): Recurring | null {
  if (text === 'hourly') return { kind: 'every', seconds: 3600 };
  if (text === 'daily') return { kind: 'every', seconds: 86400 };
  if (text === 'weekly') return { kind: 'every', seconds: 7 * 86400 };
  const every = /^(?:every|each)\s+(.+)$/.exec(text);
  if (every !== null) {
    const d = parseDuration(every[1] ?? '', true);
    if (d !== null) return { kind: 'every', seconds: Math.round(d.calendarDays * 86400 + d.exactSeconds) };
  }
  let set: ReturnType<typeof parseDaySet> = null;
  let times: TimeOfDay[] | null = null;
  let timeText = '';
  for (const split of splitDayTime(text)) {
    set = parseDaySet(split.day);
    times = set === null ? null : parseTimeList(split.time);
    timeText = split.time;
    if (set !== null && times !== null) break;
  }
  if (set === null || times === null) {
    if (parseDaySet(text) !== null) throw new InputError(field, `'${text}' has no time of day; say e.g. '${text} at 09:00'`);
    return null;
  }
  const minutes = new Set(times.map((t) => t.minute));
  const [first] = times;
  if (first === undefined) return null;
  if (minutes.size > 1 || times.some((t) => t.second !== 0)) {
    throw new InputError(field, `times with different minutes (${timeText}) cannot share one schedule; add one per time, or give a cron`);
  }
  const hours = [...new Set(times.map((t) => t.hour))].sort((x, y) => x - y);
  const expr = `${first.minute} ${hours.join(',')} ${set.dom} * ${set.dow}`;
  const timeWords = hours.map((h) => `${pad2(h)}:${pad2(first.minute)}`);
  const gloss = `${set.words} at ${timeWords.length > 1 ? `${timeWords.slice(0, -1).join(', ')} and ${timeWords[timeWords.length - 1] ?? ''}` : (timeWords[0] ?? '')}`;
  return { kind: 'cron', expr, gloss };
}

/** The ways `text` splits into a day part and a time part ("tomorrow at 9", "9am tomorrow"). */
function splitDayTime(text: string): { day: string; time: string }[] {
  const out: { day: string; time: string }[] = [];
  const a = SPLIT_DAY_TIME.exec(text);
  if (a !== null && (a[1] ?? '') !== '') out.push({ day: (a[1] ?? '').replace(/,$/, '').trim(), time: a[2] ?? '' });
  const b = SPLIT_TIME_DAY.exec(text);
  if (b !== null) out.push({ day: (b[2] ?? '').replace(/^on\s+/, '').trim(), time: b[1] ?? '' });
  return out;
}

type OnceDay = { date: Temporal.PlainDate } | { weekday: number; strictlyAfterToday: boolean };

function parseOnceDay(s: string, today: Temporal.PlainDate): OnceDay | null {
  const t = s.trim().replace(/^on\s+/, '');
  if (t === 'today') return { date: today };
  if (t === 'tomorrow' || t === 'tmrw' || t === 'tmr') return { date: today.add({ days: 1 }) };
  if (t === 'the day after tomorrow' || t === 'day after tomorrow') return { date: today.add({ days: 2 }) };
  const inDays = /^in (\d{1,4}) days?$/.exec(t);
  if (inDays !== null) return { date: today.add({ days: Number(inDays[1]) }) };
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (iso !== null) {
    try {
      return { date: Temporal.PlainDate.from({ year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) }, { overflow: 'reject' }) };
    } catch {
      return null;
    }
  }
  const wd = /^(?:(this|next|this coming|coming)\s+)?([a-z]+)$/.exec(t);
  if (wd !== null) {
    const w = weekdayWord(wd[2] ?? '');
    if (w === null || w.plural) return null;
    return { weekday: w.day, strictlyAfterToday: wd[1] === 'next' };
  }
  return null;
}

type Once = { at: number; note: string | null };

/** A wall time in the zone → instant; a gap moves forward, a repeated time takes the first. */
function wallToInstant(pdt: Temporal.PlainDateTime, tz: string): Once {
  const compatible = pdt.toZonedDateTime(tz, { disambiguation: 'compatible' });
  const earlier = pdt.toZonedDateTime(tz, { disambiguation: 'earlier' });
  const later = pdt.toZonedDateTime(tz, { disambiguation: 'later' });
  if (earlier.epochMilliseconds === later.epochMilliseconds) return { at: compatible.epochMilliseconds, note: null };
  const wallWordsOf = `${pad2(pdt.hour)}:${pad2(pdt.minute)}${pdt.second !== 0 ? `:${pad2(pdt.second)}` : ''}`;
  const dayWords = `${WEEKDAY_NAMES[pdt.dayOfWeek - 1] ?? ''} ${pdt.day} ${MONTH_NAMES[pdt.month - 1] ?? ''} ${pdt.year}`;
  const resolved = `${hm(compatible)} ${zoneAbbr(compatible.epochMilliseconds, tz)} (${hm(zoned(compatible.epochMilliseconds, 'UTC'))}Z)`;
  if (!compatible.toPlainDateTime().equals(pdt)) {
    return {
      at: compatible.epochMilliseconds,
      note: `${wallWordsOf} does not exist on ${dayWords} in ${tz} (clocks go forward); moved to ${resolved}`,
    };
  }
  return {
    at: compatible.epochMilliseconds,
    note: `${wallWordsOf} occurs twice on ${dayWords} in ${tz} (clocks go back); the first one is used: ${resolved}`,
  };
}

function readOnce(text: string, original: string, tz: string, nowMs: number, field: string): Once | null {
  const absolute = readAbsoluteIso(original, field);
  if (absolute !== null) return { at: absolute, note: null };

  const relative = /^(?:in|after)\s+(.+)$/.exec(text) ?? /^(.+?)\s+(?:from now|later)$/.exec(text);
  if (relative !== null) {
    const d = parseDuration(relative[1] ?? '', false);
    if (d !== null) {
      // Days and weeks are calendar days in the owner's zone ("in 2 days" keeps the clock time); the rest is exact.
      const base = d.calendarDays > 0 ? zoned(nowMs, tz).add({ days: d.calendarDays }).epochMilliseconds : nowMs;
      return { at: base + Math.round(d.exactSeconds * SECOND_MS), note: null };
    }
  }

  const nowZ = zoned(nowMs, tz);
  const today = nowZ.toPlainDate();
  const onDate = (date: Temporal.PlainDate, t: TimeOfDay): Once =>
    wallToInstant(date.toPlainDateTime({ hour: t.hour, minute: t.minute, second: t.second }), tz);

  const lone = LONE_TIME.exec(text);
  if (lone !== null) {
    const t = parseTime(lone[2] ?? '');
    if (t !== null && (t.strict || lone[1] !== undefined)) {
      // "at midnight" means the coming one; any other lone time means today.
      return onDate(t.midnight ? today.add({ days: 1 }) : today, t);
    }
  }

  const normalized = text.replace(/^(\d{4}-\d{2}-\d{2})t(\d)/, '$1 $2');
  for (const split of splitDayTime(normalized)) {
    const day = parseOnceDay(split.day, today);
    const t = parseTime(split.time);
    if (day === null || t === null) continue;
    if ('date' in day) return onDate(day.date, t);
    for (let i = day.strictlyAfterToday ? 1 : 0; i <= 7; i++) {
      const date = today.add({ days: i });
      if (date.dayOfWeek !== day.weekday) continue;
      const r = onDate(date, t);
      if (r.at > nowMs) return r;
    }
  }
  return null;
}

/** ISO 8601 with `Z`, an offset or a bracketed zone: an absolute instant (no owner-zone reading). */
function readAbsoluteIso(original: string, field: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?(\[[^\]]+\])?$/.exec(original);
  if (m === null || (m[3] === undefined && m[4] === undefined)) return null;
  const iso = `${m[1]}T${m[2]}${(m[3] ?? '').toUpperCase()}${m[4] ?? ''}`;
  try {
    if (m[4] !== undefined) {
      const zone = validateZone(m[4].slice(1, -1), field);
      return Temporal.ZonedDateTime.from(`${m[1]}T${m[2]}${(m[3] ?? '').toUpperCase()}[${zone}]`).epochMilliseconds;
    }
    return Temporal.Instant.from(iso).epochMilliseconds;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(field, `cannot read '${original}' as an ISO time (${err instanceof Error ? err.message : String(err)})`);
  }
}

/**
 * chrono-node for the remaining English date forms ("3 Oct 09:00", "October 3rd at 9am"). chrono
 * reads its reference in the machine's zone whatever zone it is given, so it is handed a reference
 * whose machine-local fields are the owner's wall time, and only its fields are used.
 */
function readWithChrono(original: string, tz: string, nowMs: number, field: string): Once | null {
  const text = original.trim().replace(/[.!]+$/, '');
  const w = zoned(nowMs, tz);
  const ref = new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  let results: chrono.ParsedResult[];
  try {
    results = chrono.parse(text, ref, { forwardDate: true });
  } catch {
    return null;
  }
  const [r] = results;
  if (results.length !== 1 || r === undefined || r.end || r.index !== 0 || r.text.length !== text.length) return null;
  const c = r.start;
  if (!c.isCertain('hour')) {
    throw new InputError(field, `'${original}' has no time of day; say e.g. '${original} at 09:00'`);
  }
  const year = c.get('year');
  const month = c.get('month');
  const day = c.get('day');
  const hour = c.get('hour');
  if (year === null || month === null || day === null || hour === null) return null;
  const minute = c.get('minute') ?? 0;
  const second = c.get('second') ?? 0;
  const offset = c.isCertain('timezoneOffset') ? c.get('timezoneOffset') : null;
  if (offset !== null) return { at: Date.UTC(year, month - 1, day, hour, minute, second) - offset * MINUTE_MS, note: null };
  let pdt: Temporal.PlainDateTime;
  try {
    pdt = Temporal.PlainDateTime.from({ year, month, day, hour, minute, second }, { overflow: 'reject' });
  } catch {
    return null;
  }
  return wallToInstant(pdt, tz);
}

const RECURRENCE_WORDS =
  /\b(?:every|each|daily|weekly|hourly|monthly|everyday|weekdays|weekends|workdays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b/;

/**
 * Reads `when` (words or ISO, in the owner's zone) or `cron`, exactly one. Once: an instant
 * strictly after `now`. Recurring: `every N` keeps real-time spacing from now; calendar phrases
 * become a cron in the owner's zone. `every hour` / `hourly` are `every 3600 s` from now, not
 * on the hour (say cron '0 * * * *' for that).
 */
export function parseWhen(input: {
  when?: string;
  cron?: string;
  tz: string;
  kind: RowKind;
  now: Date;
  whenField?: string;
  cronField?: string;
  tzField?: string;
}): ParsedWhen {
  const whenField = input.whenField ?? 'when';
  const cronField = input.cronField ?? 'cron';
  const nowMs = input.now.getTime();
  if (!Number.isFinite(nowMs)) throw new Error('parseWhen: now is not a valid Date');
  const hasWhen = typeof input.when === 'string' && input.when.trim() !== '';
  const hasCron = typeof input.cron === 'string' && input.cron.trim() !== '';
  if (hasWhen && hasCron) throw new InputError(whenField, `give either ${whenField} or ${cronField}, not both`);
  if (!hasWhen && !hasCron) {
    throw new InputError(whenField, `is missing: give ${whenField} (e.g. 'in 20 minutes', 'every weekday at 09:00') or ${cronField}`);
  }
  const tz = validateZone(input.tz, input.tzField ?? 'tz');

  if (hasCron) {
    const c = checkCron(input.cron ?? '', tz, input.kind, input.now, cronField);
    const schedule: Schedule = { kind: 'cron', expr: c.expr, tz: c.tz };
    const next = new Date(c.first);
    return { schedule, nextRunAt: next, description: describeSchedule(schedule, next, tz, input.now) };
  }

  const original = (input.when ?? '').trim();
  if (original.length > WHEN_MAX) throw new InputError(whenField, `is too long (at most ${WHEN_MAX} characters)`);
  const text = original.toLowerCase().replace(/\s+/g, ' ');

  const recurring = readRecurring(text, whenField);
  if (recurring !== null) {
    if (recurring.kind === 'every') {
      const min = MIN_INTERVAL_SECONDS[input.kind];
      if (!(recurring.seconds >= min)) {
        throw new InputError(whenField, `every ${formatDuration(recurring.seconds)} is too frequent; ${limitWords(input.kind)}`);
      }
      const schedule: Schedule = { kind: 'every', seconds: recurring.seconds, from: input.now.toISOString() };
      const next = new Date(nowMs + recurring.seconds * SECOND_MS);
      return { schedule, nextRunAt: next, description: describeSchedule(schedule, next, tz, input.now) };
    }
    const c = checkCron(recurring.expr, tz, input.kind, input.now, whenField);
    const schedule: Schedule = { kind: 'cron', expr: c.expr, tz: c.tz };
    const next = new Date(c.first);
    return { schedule, nextRunAt: next, description: `${recurring.gloss}: ${describeSchedule(schedule, next, tz, input.now)}` };
  }

  let once: Once | null = null;
  if (!RECURRENCE_WORDS.test(text)) {
    if (parseDuration(text, false) !== null) {
      throw new InputError(whenField, "ambiguous: say 'in 30m' for once or 'every 30m' to recur");
    }
    once = readOnce(text, original, tz, nowMs, whenField);
    if (once === null) {
      const day = parseOnceDay(text, zoned(nowMs, tz).toPlainDate());
      if (day !== null) throw new InputError(whenField, `'${original}' has no time of day; say e.g. '${original} at 09:00'`);
      once = readWithChrono(original, tz, nowMs, whenField);
    }
  }
  if (once === null) throw new InputError(whenField, `cannot read '${original}' as a time; examples: ${WHEN_EXAMPLES}`);

  if (!Number.isFinite(once.at)) throw new InputError(whenField, `cannot read '${original}' as a time; examples: ${WHEN_EXAMPLES}`);
  if (once.at <= nowMs) {
    const hint = LONE_TIME.test(text) ? `; for tomorrow say 'tomorrow ${text.replace(/^at\s+/, 'at ')}'` : '';
    throw new InputError(whenField, `is in the past: ${describeInstant(new Date(once.at), tz, input.now)}${hint}`);
  }
  if (once.at - nowMs > ONCE_HORIZON_MS) throw new InputError(whenField, 'is more than 100 years away');
  const at = new Date(once.at);
  const schedule: Schedule = { kind: 'once', at: at.toISOString() };
  const description = describeSchedule(schedule, at, tz, input.now) + (once.note === null ? '' : `; ${once.note}`);
  return { schedule, nextRunAt: at, description };
}

// ---------------------------------------------------------------------------------------------
// Words

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function hm(z: Temporal.ZonedDateTime): string {
  return `${pad2(z.hour)}:${pad2(z.minute)}${z.second !== 0 ? `:${pad2(z.second)}` : ''}`;
}

function dateWords(z: Temporal.ZonedDateTime, withYear: boolean): string {
  return `${WEEKDAY_NAMES[z.dayOfWeek - 1] ?? ''} ${z.day} ${MONTH_NAMES[z.month - 1] ?? ''}${withYear ? ` ${z.year}` : ''}`;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const ABBR_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ', 'en-ZA'];

/** A short zone name: `CEST`, `EDT`; ICU knows names only per locale, so a few English ones are asked before settling for `GMT+5`. */
function zoneAbbr(ms: number, tz: string): string {
  let fallback = '';
  for (const locale of ABBR_LOCALES) {
    const key = `${locale}|${tz}`;
    let f = formatters.get(key);
    if (f === undefined) {
      f = new Intl.DateTimeFormat(locale, { timeZone: tz, timeZoneName: 'short' });
      formatters.set(key, f);
    }
    const name = f.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
    if (fallback === '') fallback = name;
    if (name !== '' && !/^(?:GMT|UTC)[+\-\u2212]/.test(name)) return name;
  }
  return fallback === '' ? tz : fallback;
}

function wallWords(ms: number, tz: string): string {
  const z = zoned(ms, tz);
  return `${dateWords(z, true)} ${hm(z)} ${zoneAbbr(ms, tz)}`;
}

/** The second time of a pair: only the clock if on the same local date as the first. */
function wallTimeWords(ms: number, firstMs: number, tz: string): string {
  const z = zoned(ms, tz);
  const f = zoned(firstMs, tz);
  return z.toPlainDate().equals(f.toPlainDate()) ? `${hm(z)} ${zoneAbbr(ms, tz)}` : wallWords(ms, tz);
}

/** `30 min`, `1 h 30 min`, `2 days`, `1 min 30 s`. */
export function formatDuration(seconds: number): string {
  let s = Math.round(Math.abs(seconds));
  const days = Math.floor(s / 86400);
  s -= days * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts: string[] = [];
  if (days > 0) parts.push(`${days} day${days === 1 ? '' : 's'}`);
  if (h > 0) parts.push(`${h} h`);
  if (m > 0) parts.push(`${m} min`);
  if (s > 0) parts.push(`${s} s`);
  return parts.length === 0 ? '0 s' : parts.join(' ');
}

function relativeWords(diffMs: number): string {
  if (diffMs === 0) return 'now';
  const totalMin = Math.round(Math.abs(diffMs) / MINUTE_MS);
  let span: string;
  if (totalMin === 0) span = 'under a minute';
  else if (totalMin < 60) span = `${totalMin} min`;
  else if (totalMin < 24 * 60) {
    const h = Math.floor(totalMin / 60);
    const m = totalMin % 60;
    span = `${h} h${m > 0 ? ` ${m} min` : ''}`;
  } else {
    const d = Math.floor(totalMin / (24 * 60));
    const h = Math.floor((totalMin % (24 * 60)) / 60);
    span = `${d} day${d === 1 ? '' : 's'}${d < 7 && h > 0 ? ` ${h} h` : ''}`;
  }
  return diffMs > 0 ? `in ${span}` : `${span} ago`;
}

/** "Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min"; the year appears when it is not now's year. */
export function describeInstant(at: Date, tz: string, now: Date): string {
  const ms = at.getTime();
  const z = zoned(ms, tz);
  const n = zoned(now.getTime(), tz);
  const u = zoned(ms, 'UTC');
  const local = `${dateWords(z, z.year !== n.year)} ${hm(z)} ${zoneAbbr(ms, tz)}`;
  const utc = u.toPlainDate().equals(z.toPlainDate()) ? `${hm(u)}Z` : `${dateWords(u, u.year !== z.year)} ${hm(u)}Z`;
  return `${local} (${utc}), ${relativeWords(ms - now.getTime())}`;
}

/**
 * "Once, Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min" / "Every 30 min, next …" /
 * "Cron '0 9 * * 1-5' (Europe/Berlin), next …"; times shown in `tz` (the owner's zone).
 */
export function describeSchedule(schedule: Schedule, nextRunAt: Date | null, tz: string, now: Date): string {
  const next = nextRunAt === null ? 'no next run' : `next ${describeInstant(nextRunAt, tz, now)}`;
  switch (schedule.kind) {
    case 'once':
      return `Once, ${describeInstant(new Date(schedule.at), tz, now)}`;
    case 'every':
      return `Every ${formatDuration(schedule.seconds)}, ${next}`;
    case 'cron':
      return `Cron '${schedule.expr}' (${schedule.tz}), ${next}`;
  }
}
