/**
 * A claimed command row run as a job: bash in the row's working directory
 * with the window's environment plus LIFE_THREAD_JOB / LIFE_THREAD_STORE, the run's timeout counted
 * from the claim, and the capped, redacted log kept at `<store>/logs/<id>.log` — written only while
 * the row still exists, so a late result for a removed row leaves nothing behind.
 */
import * as path from 'node:path';
import type { ClaimedRun } from '../core/dispatch';
import { capText, LOG_MAX_CHARS } from '../core/logcap';
import { redact } from '../core/redact';
import type { CommandRow, Fact } from '../core/schema';
import { removeLog, writeLogFile, writeLogIfRowExists, type CommandsHolder } from './jobLog';
import { runJob, type JobResult } from './runner';

export const JOB_ENV = 'LIFE_THREAD_JOB';
export const STORE_ENV = 'LIFE_THREAD_STORE';
const FACT_ERROR_MAX = 2000;
const TRAILER_MAX = 600;

export interface CommandJobOptions {
  storeDir: string;
  env?: NodeJS.ProcessEnv;
  shell?: string;
  killGraceMs?: number;
  drainMs?: number;
  onStart?: (pid: number) => void;
  signal?: AbortSignal;
  /** When given, the log is written under the commands table's lock, only while the row carries this run's token. */
  store?: CommandsHolder;
  /** Without `store`: asked before the log is written and again after; false → no log is left. */
  stillExists?: () => Promise<boolean>;
}

/** Runs a claimed command row and returns its fact. Never throws: every failure is in the fact. */
export async function fireCommandRow(row: CommandRow, run: ClaimedRun, opts: CommandJobOptions): Promise<Fact> {
  const minutes = row.runningTimeoutMinutes ?? row.timeoutMinutes;
  const claimedAt = Date.parse(run.firedAt);
  const deadline = (Number.isFinite(claimedAt) ? claimedAt : Date.now()) + minutes * 60_000;
  const storeDir = path.resolve(opts.storeDir);
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env), [JOB_ENV]: row.id, [STORE_ENV]: storeDir };
  // A dispatcher stopped (SIGSTOP, a closed lid) between its claim and the start past the run's whole
  // timeout must not start the command: it would be killed at once and recorded as a 2-min timeout
  // of a run that never had its time, or, if quick, run with no time limit left.
  const notStarted = deadline <= Date.now() ? `not started: its ${minutes} min timeout, counted from the claim at ${run.firedAt}, had passed when this process could start it (it was stopped or busy)` : undefined;
  const result: JobResult = notStarted
    ? { exitCode: null, signal: null, timedOut: false, durationMs: 0, log: '', error: notStarted }
    : await runJob({
        command: row.command,
        cwd: row.cwd,
        env,
        timeoutMs: Math.max(0, deadline - Date.now()),
        shell: opts.shell,
        killGraceMs: opts.killGraceMs,
        drainMs: opts.drainMs,
        maxLogChars: LOG_MAX_CHARS - TRAILER_MAX - 2,
        transformLog: redact,
        onStart: opts.onStart,
        signal: opts.signal,
        marker: { name: JOB_ENV, value: row.id },
      });
  const fact = factOf(result, minutes);
  // Its time ran out, though nothing was killed: the reason says so.
  if (notStarted) fact.timedOut = true;
  const log = composeLog(result.log, fact);
  try {
    if (opts.store) {
      await writeLogIfRowExists(opts.store, row.id, run.token, log);
    } else if (!opts.stillExists || (await opts.stillExists())) {
      await writeLogFile(storeDir, row.id, log);
      if (opts.stillExists && !(await opts.stillExists())) await removeLog(storeDir, row.id);
    }
  } catch (e) {
    fact.error = clip(`${fact.error ? `${fact.error}; ` : ''}the run log could not be written: ${errText(e)}`, FACT_ERROR_MAX);
  }
  return fact;
}

/** The fact of a finished job; `minutes` is the run's timeout, named in the reason. */
export function factOf(result: JobResult, minutes: number): Fact {
  const fact: Fact = { exitCode: result.exitCode, durationMs: result.durationMs };
  if (result.signal) fact.signal = result.signal.slice(0, 20);
  if (result.timedOut) fact.timedOut = true;
  if (result.aborted) fact.interrupted = true;
  const reasons: string[] = [];
  if (result.timedOut) reasons.push(`timed out after ${minutes} min; the process group was killed`);
  if (result.error) reasons.push(result.error);
  if (reasons.length > 0) fact.error = clip(redact(reasons.join('; ')), FACT_ERROR_MAX);
  return fact;
}

/**
 * The stored log: the captured output (already capped and redacted by the runner), then one line
 * saying how the run ended; at most 32,000 characters.
 */
export function composeLog(output: string, fact: Fact): string {
  const trailer = clip(`[life-thread] ${describeEnd(fact)}`, TRAILER_MAX);
  const body = output.length + trailer.length + 2 > LOG_MAX_CHARS ? capText(output, LOG_MAX_CHARS - trailer.length - 2) : output;
  const sep = body.length === 0 || body.endsWith('\n') ? '' : '\n';
  return `${body}${sep}${trailer}\n`;
}

export function describeEnd(fact: Fact): string {
  const took = fact.durationMs === undefined ? '' : ` after ${formatSeconds(fact.durationMs)}`;
  let how: string;
  if (fact.timedOut) how = `timed out${took}`;
  else if (fact.exitCode !== null && fact.exitCode !== undefined) how = `exit code ${fact.exitCode}${took}`;
  else if (fact.signal) how = `killed by ${fact.signal}${took}`;
  else how = `did not run${took}`;
  return fact.error ? `${how}: ${fact.error}` : how;
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms / 1000)} s`;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}


function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
