/**
 * The vocabulary of `when`: durations (`30m`, `an hour`), times of day (`9am`, `18:30`, `noon`),
 * weekday and day words (`tomorrow`, `next friday`), and the day sets of a recurrence (`every
 * weekday`, `mon-fri`). Each reader returns null for text it does not know.
 */
import { Temporal } from 'temporal-polyfill';
import { WEEKDAY_NAMES } from './describe';

export type Duration = { calendarDays: number; exactSeconds: number };

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
export function parseDuration(s: string, allowBareUnit: boolean): Duration | null {
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

export type TimeOfDay = { hour: number; minute: number; second: number; strict: boolean; midnight: boolean };

const TIME_SRC = String.raw`(?:\d{1,2}(?::\d{2}(?::\d{2})?)?\s*(?:am|pm|a\.m\.|p\.m\.)?|\d{1,2}\s*o'?clock|noon|midnight)`;
const TIME_LIST_SRC = String.raw`${TIME_SRC}(?:\s*(?:,|&|and)\s*${TIME_SRC})*`;
const SPLIT_DAY_TIME = new RegExp(String.raw`^(.*?)\s*(?:\s|,)(?:at\s+)?(${TIME_LIST_SRC})$`);
const SPLIT_TIME_DAY = new RegExp(String.raw`^(?:at\s+)?(${TIME_LIST_SRC})\s+(.+)$`);
export const LONE_TIME = new RegExp(String.raw`^(at\s+)?(${TIME_SRC})$`);

export function parseTime(s: string): TimeOfDay | null {
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

export function parseTimeList(s: string): TimeOfDay[] | null {
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

/** A weekday word: ISO number (Mon=1..Sun=7) and whether it was plural (`mondays`). */
export function weekdayWord(w: string): { day: number; plural: boolean } | null {
  const single = WEEKDAYS[w];
  if (single !== undefined) return { day: single, plural: false };
  if (w.endsWith('s')) {
    const stem = WEEKDAYS[w.slice(0, -1)];
    if (stem !== undefined && w.length > 4) return { day: stem, plural: true };
  }
  return null;
}

/** The days part of a calendar recurrence: a cron day-of-week (or day-of-month) and its words. */
export function parseDaySet(s: string): { dom: string; dow: string; words: string } | null {
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

export function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

export function splitDayTime(text: string): { day: string; time: string }[] {
  const out: { day: string; time: string }[] = [];
  const a = SPLIT_DAY_TIME.exec(text);
  if (a !== null && (a[1] ?? '') !== '') out.push({ day: (a[1] ?? '').replace(/,$/, '').trim(), time: a[2] ?? '' });
  const b = SPLIT_TIME_DAY.exec(text);
  if (b !== null) out.push({ day: (b[2] ?? '').replace(/^on\s+/, '').trim(), time: b[1] ?? '' });
  return out;
}

export type OnceDay = { date: Temporal.PlainDate } | { weekday: number; strictlyAfterToday: boolean };

export function parseOnceDay(s: string, today: Temporal.PlainDate): OnceDay | null {
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

export const RECURRENCE_WORDS =
  /\b(?:every|each|daily|weekly|hourly|monthly|everyday|weekdays|weekends|workdays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b/;

