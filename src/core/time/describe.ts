/**
 * Instants and schedules in plain words, in the owner's zone and in UTC ("Fri 3 Oct 09:00 CEST
 * (07:00Z), in 2 h 14 min"), so that nobody has to do clock arithmetic to read an answer.
 */
import type { Temporal } from 'temporal-polyfill';
import type { Schedule } from '../schema';
import { zoned } from './zone';

const MINUTE_MS = 60_000;

export const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
export const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

export function hm(z: Temporal.ZonedDateTime): string {
  return `${pad2(z.hour)}:${pad2(z.minute)}${z.second !== 0 ? `:${pad2(z.second)}` : ''}`;
}

function dateWords(z: Temporal.ZonedDateTime, withYear: boolean): string {
  return `${WEEKDAY_NAMES[z.dayOfWeek - 1] ?? ''} ${z.day} ${MONTH_NAMES[z.month - 1] ?? ''}${withYear ? ` ${z.year}` : ''}`;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const ABBR_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'en-NZ', 'en-ZA'];

/** A short zone name: `CEST`, `EDT`; ICU knows names only per locale, so a few English ones are asked before settling for `GMT+5`. */
export function zoneAbbr(ms: number, tz: string): string {
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

/** "Sun 29 Mar 2026 03:00 CEST": a wall time with its date and zone. */
export function wallWords(ms: number, tz: string): string {
  const z = zoned(ms, tz);
  return `${dateWords(z, true)} ${hm(z)} ${zoneAbbr(ms, tz)}`;
}

/** The second time of a pair: only the clock if on the same local date as the first. */
export function wallTimeWords(ms: number, firstMs: number, tz: string): string {
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

/** Zones that are UTC itself (not merely at offset 0 now, as London in winter). */
function isUtcZone(tz: string): boolean {
  return /^(?:Etc\/)?(?:UTC|UCT|GMT|Zulu|Universal|Greenwich)(?:[+-]0)?$/i.test(tz);
}

/**
 * A schedule as words the `when` box reads back to the same schedule (Move pre-fills it):
 * "2026-10-03 09:00" in `tz`, "every 1800s", "cron 0 9 * * 1-5".
 */
export function scheduleAsWhen(schedule: Schedule, tz: string): string {
  switch (schedule.kind) {
    case 'once': {
      const z = zoned(Date.parse(schedule.at), tz);
      return `${z.year}-${pad2(z.month)}-${pad2(z.day)} ${pad2(z.hour)}:${pad2(z.minute)}${z.second !== 0 ? `:${pad2(z.second)}` : ''}`;
    }
    case 'every':
      return `every ${formatDuration(schedule.seconds).replace(/ /g, '')}`;
    case 'cron':
      return `cron ${schedule.expr}`;
  }
}

/** The owner's zone and now: instants are shown in words ("Thu 3 Dec 14:43:26 UTC, 2 min ago"), as the sidebar and feed show them. */
export interface ShowTime {
  tz: string;
  now: Date;
}

/** An ISO instant (as the files keep it) in the owner's words; text that is not an instant is shown as it is. */
export function instantWords(iso: string, time: ShowTime): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? describeInstant(new Date(ms), time.tz, time.now) : iso;
}

/** "Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min"; the year appears when it is not now's year. */
export function describeInstant(at: Date, tz: string, now: Date): string {
  const ms = at.getTime();
  const z = zoned(ms, tz);
  const n = zoned(now.getTime(), tz);
  const u = zoned(ms, 'UTC');
  const local = `${dateWords(z, z.year !== n.year)} ${hm(z)} ${zoneAbbr(ms, tz)}`;
  // In a zone that is UTC the second reading would only repeat the first.
  if (z.offsetNanoseconds === 0 && isUtcZone(tz)) return `${local}, ${relativeWords(ms - now.getTime())}`;
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

/** The status bar's word for the earliest pending run: a run already due waits for the next pass ("due now"), never "next 2 min ago". */
export function nextRunWords(earliestMs: number | null, now: Date): string {
  if (earliestMs === null) return 'nothing scheduled';
  const diff = earliestMs - now.getTime();
  return diff <= 0 ? 'due now' : `next ${relativeWords(diff)}`;
}
