/**
 * A claimed command row run as a job (design §2 "Command fires"): bash in the row's working directory
 * with the window's environment plus LIFE_THREAD_JOB / LIFE_THREAD_STORE, the run's timeout counted
 * from the claim, and the capped, redacted log kept at `<store>/logs/<id>.log` — written only while
 * the row still exists, so a late result for a removed row leaves nothing behind.
 */
import { writeFileAtomic } from './atomicFile';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { ClaimedRun } from '../core/dispatch';
import { capText, LOG_MAX_CHARS } from '../core/logcap';
import { redact } from '../core/redact';
import type { CommandRow, Fact } from '../core/schema';
import { forgetAlerts } from './alerts';
import { runJob, type JobResult } from './runner';
import type { ScheduleStore } from './schedule';

export const JOB_ENV = 'LIFE_THREAD_JOB';
export const STORE_ENV = 'LIFE_THREAD_STORE';
const FACT_ERROR_MAX = 2000;
const TRAILER_MAX = 600;
/** Command rows (`c-…`) and `life-thread run` jobs (`j-…`) keep their last log at logs/<id>.log. */
const COMMAND_ID = /^[cj]-[A-Za-z0-9_-]{1,40}$/;

export interface CommandJobOptions {
  storeDir: string;
  env?: NodeJS.ProcessEnv;
  shell?: string;
  killGraceMs?: number;
  drainMs?: number;
  onStart?: (pid: number) => void;
  signal?: AbortSignal;
  /** When given, the log is written under the commands table's lock, only while the row carries this run's token. */
  store?: ScheduleStore;
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

export function logPath(storeDir: string, id: string): string {
  if (!COMMAND_ID.test(id)) throw new Error(`not a command id: ${JSON.stringify(id)}`);
  return path.join(path.resolve(storeDir), 'logs', `${id}.log`);
}

/**
 * Writes the log while holding the commands table's lock, only if the row still carries `token`.
 * Because `remove` takes the same lock and then removes the log, either the removal sees the log or
 * this write sees no row: no log outlives its row.
 */
export async function writeLogIfRowExists(store: ScheduleStore, id: string, token: string, log: string): Promise<boolean> {
  const holds = (rows: readonly CommandRow[]): boolean => rows.some((r) => r.id === id && r.claim?.token === token);
  const snap = await store.commands.read();
  if (!holds(snap.rows)) return false;
  return store.commands.update(async (rows) => {
    const ok = holds(rows);
    if (ok) await writeLogFile(store.dir, id, log);
    return { rows, result: ok };
  });
}

/** Temp file in logs/, then rename over the log: a reader sees the old log or the new one, never half. */
export async function writeLogFile(storeDir: string, id: string, log: string): Promise<void> {
  await writeFileAtomic(logPath(storeDir, id), log);
}

/** The last run's log, or null when there is none (never run, removed, or not a command id). */
export async function readLog(storeDir: string, id: string): Promise<string | null> {
  if (!COMMAND_ID.test(id)) return null;
  try {
    return await fsp.readFile(logPath(storeDir, id), 'utf8');
  } catch (e) {
    if (errCode(e) === 'ENOENT') return null;
    throw e;
  }
}

async function removeLog(storeDir: string, id: string): Promise<void> {
  try {
    await fsp.unlink(logPath(storeDir, id));
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw e;
  }
}

/** What `remove` calls after the row is gone: the log and the alert keys. Missing pieces are fine. */
export async function removeJobArtifacts(storeDir: string, id: string): Promise<void> {
  if (!COMMAND_ID.test(id)) return;
  await removeLog(storeDir, id);
  await forgetAlerts(storeDir, id);
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
