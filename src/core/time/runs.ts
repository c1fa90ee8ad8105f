/**
 * Runs of a schedule over time: the next run after an instant, and for catch-up the runs missed
 * between two instants (how many, and the latest).
 */
import type { Schedule } from '../schema';
import { CronRuns } from './cron';

const SECOND_MS = 1000;
const DAY_MS = 24 * 3600 * SECOND_MS;
const DEFAULT_MISSED_CAP = 1000;

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
