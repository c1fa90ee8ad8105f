/**
 * The `when` grammar (README "Time"): words or ISO read in the owner's IANA zone, or a cron,
 * become a schedule and its first run; recurrence is read by our own grammar first, and the
 * remaining once-forms by small readers and chrono-node.
 *
 * Library rule: chrono-node ignores IANA zones, so it only supplies wall-clock
 * fields, and Temporal turns them into instants.
 */
import type * as Chrono from 'chrono-node';
import type * as ChronoParse from './chronoParse';
import { Temporal } from 'temporal-polyfill';
import { InputError } from '../errors';
import type { Schedule } from '../schema';
import { checkCron } from './cron';
import { describeInstant, describeSchedule, formatDuration, hm, MONTH_NAMES, pad2, WEEKDAY_NAMES, zoneAbbr } from './describe';
import { limitWords, MIN_INTERVAL_SECONDS, SUPPORTED_SPAN_MS, withinSupportedSpan, type RowKind } from './limits';
import {
  LONE_TIME,
  parseDaySet,
  parseDuration,
  parseOnceDay,
  parseTime,
  parseTimeList,
  RECURRENCE_WORDS,
  splitDayTime,
  type TimeOfDay,
} from './words';
import { validateZone, zoned } from './zone';

/** chrono-node, loaded on the first phrase our own readers leave to it (it costs a CLI call a tenth of its start). */
let chronoModule: typeof ChronoParse | undefined;
function chrono(): typeof ChronoParse {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  chronoModule ??= require('./chronoParse') as typeof ChronoParse;
  return chronoModule;
}

export type ParsedWhen = { schedule: Schedule; nextRunAt: Date; description: string };

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const WHEN_MAX = 200;

const WHEN_EXAMPLES =
  "'in 20 minutes', 'tomorrow at 9', 'friday 18:30', '2026-10-03 09:00', 'every 30m', 'every weekday at 09:00'";

type Recurring = { kind: 'every'; seconds: number } | { kind: 'cron'; expr: string; gloss: string };

/** `every 30m` / `hourly` (real-time spacing) or a calendar phrase as a cron in the owner's zone; null for anything else. */
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
      // Refused before the date arithmetic, which would overflow Temporal's range.
      if (!(d.calendarDays * 24 * 3600 * SECOND_MS + d.exactSeconds * SECOND_MS <= SUPPORTED_SPAN_MS)) throw new InputError(field, 'is more than 100 years away');
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
  let results: Chrono.ParsedResult[];
  try {
    results = chrono().parse(text, ref, { forwardDate: true });
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
      if (!(recurring.seconds * SECOND_MS <= SUPPORTED_SPAN_MS)) {
        throw new InputError(whenField, 'recurs less often than once in 100 years; give an interval of at most 100 years, or a cron');
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
  if (!withinSupportedSpan(once.at, nowMs)) {
    throw new InputError(whenField, once.at > nowMs ? 'is more than 100 years away' : 'is in the past (more than 100 years ago)');
  }
  if (once.at <= nowMs) {
    const hint = LONE_TIME.test(text) ? `; for tomorrow say 'tomorrow ${text.replace(/^at\s+/, 'at ')}'` : '';
    throw new InputError(whenField, `is in the past: ${describeInstant(new Date(once.at), tz, input.now)}${hint}`);
  }
  const at = new Date(once.at);
  const schedule: Schedule = { kind: 'once', at: at.toISOString() };
  const description = describeSchedule(schedule, at, tz, input.now) + (once.note === null ? '' : `; ${once.note}`);
  return { schedule, nextRunAt: at, description };
}

/**
 * What a confirmation shows for a caller's `when`/`cron`: the resolved schedule in words ("Once, Fri 3 Oct
 * 09:00 CEST (07:00Z), in 2 min") followed by the words given, or the words and why they cannot be read.
 */
export function whenConfirmation(input: { when?: string; cron?: string }, tz: string, kind: RowKind, now: Date): string {
  const words = input.when ?? (input.cron !== undefined ? `cron ${input.cron}` : '');
  try {
    const parsed = parseWhen({ when: input.when, cron: input.cron, tz, kind, now });
    return `${parsed.description} (\u201c${words}\u201d)`;
  } catch (err) {
    return `\u201c${words}\u201d (${err instanceof InputError ? err.reason : String(err)})`;
  }
}
