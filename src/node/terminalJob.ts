/**
 * A job a terminal agent runs in the foreground (`life-thread run -- <command…>`; README "MCP and
 * terminal agents"): the scheduled commands' runner (own process group, timeout that kills the
 * group, capped and redacted log at `logs/<jobId>.log`), the output streamed as it comes, and at
 * its end the `job.done` wakes waiting on the job triggered with the pulse's outcome — exit code,
 * summary of the log's tail, a landing on the log, the code locus and report page the output names
 * (a window that delivers the wake lands on them, as for a task) — and held for their receiver
 * (`life-thread wait`, the MCP session that set them, or a VS Code window).
 */
import { constants } from 'node:os';
import * as path from 'node:path';
import type { Holder } from '../core/claim';
import { fileLink } from '../core/anchor/links';
import { LOG_MAX_CHARS } from '../core/logcap';
import { redact } from '../core/redact';
import type { Fact } from '../core/schema';
import { jobStatus } from '../core/wake/jobStatus';
import { summaryFromLogTail } from '../core/wake/pulse';
import type { WakeRow } from '../core/wake/row';
import { outputFindings } from './jobArtifacts';
import { logPath, writeLogFile } from './jobLog';
import { composeLog, factOf, JOB_ENV, STORE_ENV } from './jobs';
import { runJob } from './runner';
import { readLogTail, type WakeStore } from './wakes';

/** The exit code a shell gives a command that timed out (`timeout(1)`). */
export const TIMED_OUT_EXIT = 124;
/** What the shell says for a command it could not start. */
const NOT_STARTED_EXIT = 127;
const TRAILER_MAX = 600;

export interface TerminalJobOptions {
  storeDir: string;
  jobId: string;
  /** The command's words as typed after `--`; run by bash exactly as given (each word quoted). */
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  signal?: AbortSignal;
}

export interface TerminalJobEnd {
  fact: Fact;
  /** What `run` exits with: the command's code, 124 on its timeout, 128 + n for signal n. */
  exitCode: number;
  logFile: string;
  /** Where the command ran: the output's relative paths are read against it. */
  cwd?: string;
}

/** One word for bash, quoted so that it reaches the command unchanged. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function exitCodeOf(fact: Fact): number {
  if (fact.timedOut) return TIMED_OUT_EXIT;
  if (typeof fact.exitCode === 'number') return fact.exitCode;
  const n = fact.signal ? (constants.signals as Record<string, number | undefined>)[fact.signal] : undefined;
  return n !== undefined ? 128 + n : NOT_STARTED_EXIT;
}

export async function runTerminalJob(opts: TerminalJobOptions): Promise<TerminalJobEnd> {
  const storeDir = path.resolve(opts.storeDir);
  const minutes = Math.max(1, Math.round(opts.timeoutMs / 60_000));
  const result = await runJob({
    command: opts.argv.map(shellWord).join(' '),
    cwd: opts.cwd,
    env: { ...opts.env, [JOB_ENV]: opts.jobId, [STORE_ENV]: storeDir },
    timeoutMs: opts.timeoutMs,
    maxLogChars: LOG_MAX_CHARS - TRAILER_MAX - 2,
    transformLog: redact,
    marker: { name: JOB_ENV, value: opts.jobId },
    ...(opts.onOutput ? { onOutput: opts.onOutput } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const fact = factOf(result, minutes);
  const logFile = logPath(storeDir, opts.jobId);
  await writeLogFile(storeDir, opts.jobId, composeLog(result.log, fact));
  return { fact, exitCode: exitCodeOf(fact), logFile, cwd: opts.cwd };
}

/**
 * The job ended: every pending `job.done` wake on it gets the outcome and is held for its receiver.
 * Returns the wakes it triggered.
 */
export async function triggerJobWakes(store: WakeStore, jobId: string, end: TerminalJobEnd, holder: Holder, now = new Date()): Promise<WakeRow[]> {
  const tail = await readLogTail(end.logFile).catch(() => ({ text: '', truncated: false, size: 0 }));
  const summary = summaryFromLogTail(tail.text, { truncated: tail.truncated });
  const match = (r: WakeRow): boolean => r.status === 'pending' && r.when === 'job.done' && r.jobId === jobId;
  if (!(await store.list()).some(match)) return [];
  const status = jobStatus(end.fact);
  // Read as a task's output is (./jobArtifacts.ts): the code locus of a failure and the report it names.
  const found = outputFindings(tail.text, { ...(end.cwd !== undefined ? { cwd: end.cwd } : {}), failed: status === 'failed' });
  const claimed = await store.claimTriggered(
    match,
    // The wake says how the job ended (a timeout: failed, exit code null, timed out), not what `run` exits with (124).
    { jobStatus: status, exitCode: end.fact.exitCode ?? null, ...(end.fact.timedOut === true ? { timedOut: true } : {}), summary, landing: { kind: 'deep_link', uri: fileLink(end.logFile) }, ...found, desk: 'none' },
    { now, holder },
  );
  // This process is no receiver: the wakes wait, held, for `life-thread wait`, their MCP session or a window.
  await store.hold(claimed, 'unreachable', now);
  return claimed.map((c) => c.row);
}
