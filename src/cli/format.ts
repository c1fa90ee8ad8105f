/**
 * What the CLI says to a person: usage, one line per row, facts in words. Every answer that shows a
 * time names the zone it was shown in.
 */
import { missedRunsWords } from '../core/rowView';
import type { CommandRow, Fact, ScheduleRow } from '../core/schema';
import { describeInstant, describeSchedule, formatDuration } from '../core/time/describe';

function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

export function isCommandRow(row: ScheduleRow): row is CommandRow {
  return 'command' in row;
}

/** The row's schedule and next run in words, shown in `tz`. */
export function scheduleWords(row: ScheduleRow, tz: string, now: Date): string {
  const next = row.nextRunAt === null ? null : new Date(row.nextRunAt);
  if (row.schedule.kind === 'once' && row.status === 'pending' && next !== null && next.getTime() !== Date.parse(row.schedule.at)) {
    return `Once, due ${describeInstant(next, tz, now)}`;
  }
  return describeSchedule(row.schedule, next, tz, now);
}

/** The last fact, or the run in flight, in a few words. */
export function factWords(row: ScheduleRow, tz: string, now: Date): string {
  if (row.claim) {
    return `running since ${describeInstant(new Date(row.firedAt ?? row.claim.heartbeatAt), tz, now)} (pid ${row.claim.pid}, ${row.claim.window})`;
  }
  const f = row.fact;
  if (!f) return row.status === 'pending' ? 'not run yet' : row.status;
  return factSummary(f, row.firedAt === undefined ? undefined : describeInstant(new Date(row.firedAt), tz, now));
}

export function factSummary(f: Fact, when?: string): string {
  const parts: string[] = [];
  if (f.delivered === true) parts.push(`delivered${f.via ? ` via ${f.via}` : ''}`);
  if (f.delivered === false) parts.push('not delivered');
  if (f.exitCode !== undefined) parts.push(f.exitCode === null ? 'no exit code' : `exit ${f.exitCode}`);
  if (f.signal) parts.push(`signal ${f.signal}`);
  if (f.timedOut) parts.push('timed out');
  if (f.interrupted) parts.push('interrupted');
  if (f.durationMs !== undefined) parts.push(`took ${f.durationMs < 1000 ? `${Math.round(f.durationMs)} ms` : formatDuration(f.durationMs / 1000)}`);
  if (f.lateMs !== undefined && f.lateMs >= 1000) parts.push(`${formatDuration(f.lateMs / 1000)} late`);
  if (f.missedRuns) parts.push(missedRunsWords(f));
  if (f.error) parts.push(clip(f.error, 160));
  const what = parts.length > 0 ? parts.join(', ') : 'fired';
  return when === undefined ? what : `${what} (fired ${when})`;
}

export function rowLine(row: ScheduleRow, tz: string, now: Date): string {
  const what = isCommandRow(row) ? `\`${clip(row.command, 80)}\` in ${row.cwd}, timeout ${row.timeoutMinutes} min` : `"${clip(row.text, 80)}"`;
  return `${row.id}  ${row.status}  ${scheduleWords(row, tz, now)}\n    ${what}\n    last: ${factWords(row, tz, now)}`;
}
