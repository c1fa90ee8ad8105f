/** How a row reads in the sidebar, the panel, List and the tools' answers: plain words, owner's zone. */
import type { RowView } from '../shared/protocol';
import { formatLate } from './dispatch';
import type { CommandRow, Fact, ReminderRow, ScheduleRow } from './schema';
import { describeInstant, describeSchedule } from './time/describe';
import { jobStatus } from './wake/jobStatus';

/** "3 missed runs"; "1000 or more missed runs" when the count stopped at its cap. */
export function missedRunsWords(f: Pick<Fact, 'missedRuns' | 'missedRunsCapped'>): string {
  const n = f.missedRuns ?? 0;
  return `${n}${f.missedRunsCapped ? ' or more' : ''} missed run${n === 1 && !f.missedRunsCapped ? '' : 's'}`;
}

/** How the reminder turn names "no language model" (src/host/agentTurn.ts pickModel). */
const NO_MODEL = /^no language model is available\b/;

export function factLine(row: ScheduleRow, now: Date): { text: string; tone: RowView['factTone'] } {
  if (row.claim) return { text: `running since ${describeInstant(new Date(row.firedAt ?? row.claim.heartbeatAt), row.tz, now)}`, tone: 'running' };
  const f: Fact | undefined = row.fact;
  if (f && row.firedAt === undefined && f.missedRuns) {
    // A recurring row that missed runs past the catch-up limit before it ever ran.
    return { text: `${missedRunsWords(f)} (past the catch-up limit, not run)`, tone: 'error' };
  }
  if (!f || row.firedAt === undefined) return { text: '', tone: 'none' };
  const at = describeInstant(new Date(row.firedAt), row.tz, now);
  const late = f.lateMs !== undefined && f.lateMs >= 60_000 ? `, ${formatLate(f.lateMs)} late` : '';
  const missed = f.missedRuns ? `, ${missedRunsWords(f)}` : '';
  if (row.status === 'missed') return { text: `missed (${f.error ?? 'past the catch-up limit'})`, tone: 'error' };
  if ('command' in row) {
    // The tone is the job's status as the alert and the pulse have it (./wake/jobStatus.ts): only a success is ok.
    const tone: RowView['factTone'] = jobStatus(f) === 'succeeded' ? 'ok' : 'error';
    if (f.interrupted) return { text: `interrupted at ${at}: ${f.error ?? ''}`.trim(), tone };
    // The fact's own reason names the run's timeout (a move may have changed timeoutMinutes since).
    if (f.timedOut) return { text: `${f.error ?? 'timed out'} (at ${at}${late})`, tone };
    if (f.error && (f.exitCode === undefined || f.exitCode === null)) return { text: `error at ${at}: ${f.error}${late}`, tone };
    if (f.exitCode === undefined) return { text: `due at ${at}${late}${missed}`, tone: 'none' };
    const took = f.durationMs !== undefined ? ` in ${formatLate(f.durationMs)}` : '';
    return { text: `exit ${f.exitCode ?? f.signal ?? '?'} at ${at}${took}${late}${missed}`, tone };
  }
  // Delivered as written because no model is connected: the normal state of a fresh install, not an error.
  if (f.delivered === true && f.error !== undefined && NO_MODEL.test(f.error)) return { text: `delivered as written (no model) ${at}${late}${missed}`, tone: 'ok' };
  if (f.delivered === true) return { text: `delivered ${at}${f.via ? ` via ${f.via}` : ''}${late}${missed}${f.error ? ` (turn failed: ${f.error})` : ''}`, tone: f.error ? 'error' : 'ok' };
  if (f.delivered === false) return { text: `not delivered at ${at}: ${f.error ?? 'unknown reason'}`, tone: 'error' };
  return { text: `fired ${at}${late}${missed}`, tone: 'none' };
}

export function rowView(row: ScheduleRow, now: Date, hasLog = false): RowView {
  const isCommand = 'command' in row;
  const fact = factLine(row, now);
  const next = row.nextRunAt ? new Date(row.nextRunAt) : null;
  const when =
    row.status === 'pending'
      ? describeSchedule(row.schedule, next, row.tz, now)
      : row.status === 'missed'
        ? 'Missed'
        : `Fired ${row.firedAt ? describeInstant(new Date(row.firedAt), row.tz, now) : ''}`.trim();
  return {
    id: row.id,
    kind: isCommand ? 'command' : 'reminder',
    title: isCommand ? (row as CommandRow).command : (row as ReminderRow).text,
    when,
    status: row.claim ? 'running' : row.status,
    lastFact: fact.text,
    factTone: fact.tone,
    hasLog,
  };
}

/** The prose a tool or the CLI answers with: what happened, the resolved instant, the zone. */
export function rowSentence(row: ScheduleRow, now: Date): string {
  const kind = 'command' in row ? 'Command' : 'Reminder';
  const next = row.nextRunAt ? new Date(row.nextRunAt) : null;
  const sched = row.status === 'pending' ? describeSchedule(row.schedule, next, row.tz, now) : row.status;
  const fact = factLine(row, now).text;
  return `${kind} ${row.id} — ${sched}${next ? ` (next run ${next.toISOString()} UTC; zone ${row.tz})` : ` (zone ${row.tz})`}${fact ? `; last: ${fact}` : ''}.`;
}
