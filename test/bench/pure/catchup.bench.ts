/**
 * Catch-up after downtime:
 * - catchup_year_100rows_cpu_ms: CPU time of one duePass over 100 minutely cron command rows
 *   (Europe/Berlin) whose nextRunAt is a year ago, in a fresh process (target 1000 ms).
 * - catchup_year_100rows_dst_cpu_ms: the same with the downtime starting 30 min before a DST change,
 *   where croner is stepped around the change (information, no target).
 * Each pass must claim every row once with missedRuns 1,000 and missedRunsCapped, or the bench fails.
 */
import { join } from 'node:path';
import { Temporal } from 'temporal-polyfill';
import { duePass } from '../../../src/core/dispatch';
import type { CommandRow } from '../../../src/core/schema';
import { round, writeFigures, type Figure } from '../figures';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');
const MIN = 60_000;
const TZ = 'Europe/Berlin';
const TARGET_MS = 1000;

function rows(nextRunAt: Date): CommandRow[] {
  return Array.from({ length: 100 }, (_, i) => ({
    id: `c-minutely${String(i).padStart(3, '0')}`,
    command: `echo ${i}`,
    cwd: '/tmp',
    timeoutMinutes: 2,
    schedule: { kind: 'cron', expr: '* * * * *', tz: TZ },
    tz: TZ,
    status: 'pending',
    nextRunAt: nextRunAt.toISOString(),
    createdAt: new Date(nextRunAt.getTime() - MIN).toISOString(),
  }));
}

/** CPU milliseconds (user + system) of one pass; throws unless every row ran once with a capped count. */
function pass(nextRunAt: Date, now: Date): number {
  const input = rows(nextRunAt);
  let seq = 0;
  const before = process.cpuUsage();
  const r = duePass(input, { now, holder: { pid: process.pid, window: 'bench' }, newToken: () => `tok${String(++seq).padStart(10, '0')}`, maxLatenessMs: { reminder: 12 * 3600_000, command: 3600_000 } });
  const used = process.cpuUsage(before);
  const wrong = r.rows.filter((row) => row.fact?.missedRuns !== 1000 || row.fact.missedRunsCapped !== true || row.nextRunAt === null || Date.parse(row.nextRunAt) <= now.getTime());
  if (r.claimed.length !== 100 || wrong.length > 0) throw new Error(`catch-up went wrong: ${r.claimed.length} claimed, ${wrong.length} rows with a wrong count or next run`);
  return (used.user + used.system) / 1000;
}

function main(): void {
  const now = new Date(Math.floor(Date.now() / MIN) * MIN + 30_000);
  const yearAgo = new Date(now.getTime() - 365 * 24 * 3600_000 - 30_000);
  const plain = pass(yearAgo, now);
  // The first offset change after a year ago, minus 30 minutes: the window around it is stepped in the zone.
  const change = Temporal.Instant.fromEpochMilliseconds(yearAgo.getTime()).toZonedDateTimeISO(TZ).getTimeZoneTransition('next');
  const dstStart = change === null ? yearAgo : new Date(Math.floor((change.epochMilliseconds - 30 * MIN) / MIN) * MIN);
  const dst = pass(dstStart, now);
  const figures: Record<string, Figure> = {
    catchup_year_100rows_cpu_ms: { value: round(plain), unit: 'ms', target: TARGET_MS },
    catchup_year_100rows_dst_cpu_ms: { value: round(dst), unit: 'ms' },
  };
  writeFigures(RESULTS, 'catchup', figures);
  console.log(`catch-up of a year, 100 minutely rows (${TZ}): ${round(plain)} ms CPU (target ${TARGET_MS}); starting 30 min before a DST change: ${round(dst)} ms CPU`);
  if (plain > TARGET_MS) process.exitCode = 1;
}

main();
