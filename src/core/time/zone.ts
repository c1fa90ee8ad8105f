/**
 * IANA zones: which names are accepted, the machine's zone, and the offset changes (DST and
 * others) that make wall-clock times and instants differ. Pure: only `systemZone()` reads the machine.
 */
import { Temporal } from 'temporal-polyfill';
import { InputError } from '../errors';

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
  const known = knownZones.get(raw);
  if (known !== undefined) return known;
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
  if (knownZones.size >= 256) knownZones.clear();
  knownZones.set(raw, id);
  return id;
}

// Accepted names and their spelling: building the Intl formatter that proves a zone costs about a
// millisecond, and one CLI call checks its zone several times.
const knownZones = new Map<string, string>();

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

export function zoned(ms: number, tz: string): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz);
}

/** The zone's UTC offset at an instant, in milliseconds (wall clock = instant + offset). */
export function offsetAt(ms: number, tz: string): number {
  return zoned(ms, tz).offsetNanoseconds / 1e6;
}

/** One offset change of a zone: its instant and the offsets before and after it, in milliseconds. */
export interface ZoneTransition {
  at: number;
  beforeMs: number;
  afterMs: number;
}

// Holds only values derived from its key, so it changes no result; it saves Temporal's
// transition search, which costs more than a croner step.
const transitionCache = new Map<string, ZoneTransition[]>();

/** The zone's offset changes whose instant lies in a UTC calendar year. */
function transitionsInYear(tz: string, year: number): ZoneTransition[] {
  const key = `${tz} ${year}`;
  let list = transitionCache.get(key);
  if (list === undefined) {
    list = [];
    const end = Date.UTC(year + 1, 0, 1);
    let z: Temporal.ZonedDateTime | null = zoned(Date.UTC(year, 0, 1) - 1, tz);
    for (let i = 0; i < 64 && z !== null; i++) {
      z = z.getTimeZoneTransition('next');
      if (z === null || z.epochMilliseconds >= end) break;
      list.push({ at: z.epochMilliseconds, beforeMs: offsetAt(z.epochMilliseconds - 1, tz), afterMs: z.offsetNanoseconds / 1e6 });
    }
    if (transitionCache.size >= 1024) transitionCache.clear();
    transitionCache.set(key, list);
  }
  return list;
}

/** The first offset change strictly after `afterMs` and at or before `untilMs`, or null. */
export function nextTransition(tz: string, afterMs: number, untilMs: number): ZoneTransition | null {
  const last = new Date(untilMs).getUTCFullYear();
  for (let year = new Date(afterMs).getUTCFullYear(); year <= last; year++) {
    for (const t of transitionsInYear(tz, year)) {
      if (t.at > untilMs) return null;
      if (t.at > afterMs) return t;
    }
  }
  return null;
}

/** Instants of the zone's offset changes in (fromMs, toMs]. */
export function zoneTransitions(tz: string, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  for (let t = nextTransition(tz, fromMs, toMs); t !== null; t = nextTransition(tz, t.at, toMs)) out.push(t.at);
  return out;
}

/** The zone's fall-back transitions starting in a UTC year: when, and how far the clock goes back. */
export function fallBacks(tz: string, year: number): { at: number; backMs: number }[] {
  return transitionsInYear(tz, year)
    .filter((t) => t.beforeMs > t.afterMs)
    .map((t) => ({ at: t.at, backMs: t.beforeMs - t.afterMs }));
}

/** The wall-clock time of `ms` in `tz`, written as if it were a UTC instant. */
export function wallAsUtc(ms: number, tz: string): number {
  const z = zoned(ms, tz);
  return Date.UTC(z.year, z.month - 1, z.day, z.hour, z.minute, z.second, z.millisecond);
}

export function wallUtcToInstant(wallMs: number, tz: string): number {
  const u = zoned(wallMs, 'UTC').toPlainDateTime();
  return u.toZonedDateTime(tz, { disambiguation: 'compatible' }).epochMilliseconds;
}
