/**
 * Runs one shell command as a job (test/unit/runner.test.ts drives it with real processes): its own
 * process group, stdout and stderr into one capped log, a timeout that kills the whole group
 * (SIGTERM, a grace period, SIGKILL), an end on 'exit' plus a drain deadline, and every failure to
 * start turned into a result instead of a throw. Nothing is ever retried.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { LOG_MAX_CHARS, LogCap } from '../core/logcap';

export interface RunJobOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  shell?: string;
  killGraceMs?: number;
  drainMs?: number;
  maxLogChars?: number;
  onStart?: (pid: number) => void;
  /** Aborting kills the group like a timeout (a window closing). */
  signal?: AbortSignal;
  /** Applied to the log before it is capped (redaction), so the result still fits `maxLogChars`. */
  transformLog?: (text: string) => string;
  /** Sees the output as it comes (decoded, before redaction and the cap): `life-thread run` streams it to its terminal. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /**
   * An environment entry only this job's processes carry (e.g. LIFE_THREAD_JOB=c-…): processes that
   * left the group are found by it after a kill.
   */
  marker?: { name: string; value: string };
}

export interface JobResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Set when the run was stopped by the abort signal. */
  aborted?: boolean;
  durationMs: number;
  log: string;
  error?: string;
  /** Pids that left the process group and survived the kill. */
  escaped?: number[];
}

const POLL_MS = 50;
const REAP_WAIT_MS = 1000;
const STUCK_MS = 5000;

export async function runJob(opts: RunJobOptions): Promise<JobResult> {
  const started = performance.now();
  const shell = opts.shell ?? 'bash';
  const killGraceMs = opts.killGraceMs ?? 3000;
  const drainMs = opts.drainMs ?? 1000;
  const cap = new LogCap(opts.maxLogChars ?? LOG_MAX_CHARS);
  const elapsed = (): number => Math.round(performance.now() - started);
  const failed = (error: string): JobResult => ({ exitCode: null, signal: null, timedOut: false, durationMs: elapsed(), log: cap.render(opts.transformLog), error });

  if (opts.command.includes('\0')) return failed('command contains a NUL byte');
  if (opts.signal?.aborted) return { ...failed(`stopped before it started (${abortReason(opts.signal)})`), aborted: true };
  const cwdProblem = await checkCwd(opts.cwd);
  if (cwdProblem) return failed(cwdProblem);

  let child: ChildProcess;
  try {
    child = spawn(shell, ['-c', opts.command], { cwd: opts.cwd, env: opts.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  } catch (e) {
    return failed(startError(shell, opts.cwd, e));
  }

  return new Promise<JobResult>((resolve) => {
    const pid = child.pid;
    const named = [
      { name: 'stdout' as const, stream: child.stdout },
      { name: 'stderr' as const, stream: child.stderr },
    ].filter((s): s is { name: 'stdout' | 'stderr'; stream: Readable } => s.stream !== null);
    const streams = named.map((s) => s.stream);
    let open = streams.length;
    let onDrained: (() => void) | undefined;
    for (const { name, stream } of named) {
      // One decoder per stream: a character split across two chunks of one stream stays whole.
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        const text = decoder.write(chunk);
        cap.push(text);
        opts.onOutput?.(name, text);
      });
      stream.on('error', () => undefined);
      stream.once('close', () => {
        cap.push(decoder.end());
        open--;
        if (open === 0) onDrained?.();
      });
    }

    let exit: { code: number | null; signal: string | null } | undefined;
    let timedOut = false;
    let aborted = false;
    let killing: Promise<KillReport> | undefined;
    let finished = false;
    const leaderStart = pid === undefined ? Promise.resolve(undefined) : readStat(pid).then((p) => p?.start);

    const finish = async (error?: string): Promise<void> => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      const report = killing ? await killing : undefined;
      if (open > 0) {
        await new Promise<void>((done) => {
          const t = setTimeout(done, drainMs);
          onDrained = () => {
            clearTimeout(t);
            done();
          };
        });
      }
      // A process still holding a stream (a grandchild, an escapee) must not hold the run.
      for (const s of streams) s.destroy();
      const errors: string[] = [];
      if (error) errors.push(error);
      if (aborted) errors.push(`stopped before it ended (${abortReason(opts.signal)})`);
      if (report && report.escaped.length > 0) errors.push(describeEscaped(report.escaped));
      const result: JobResult = {
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        durationMs: elapsed(),
        log: cap.render(opts.transformLog),
      };
      if (aborted) result.aborted = true;
      if (errors.length > 0) result.error = errors.join('; ');
      if (report && report.escaped.length > 0) result.escaped = report.escaped.map((p) => p.pid);
      resolve(result);
    };

    const stop = (): void => {
      if (killing || pid === undefined || exit) return;
      killing = killGroup(pid, killGraceMs, opts.marker, leaderStart);
      // A leader stuck in the kernel (state D) ignores even SIGKILL: give up waiting for its 'exit'.
      void killing.then(() => {
        if (!exit) setTimeout(() => void finish(`process ${pid} did not end after SIGKILL`), STUCK_MS).unref();
      });
    };
    const timer = setTimeout(() => {
      if (exit) return;
      timedOut = true;
      stop();
    }, Math.max(0, opts.timeoutMs));
    const onAbort = (): void => {
      if (exit || timedOut) return;
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    child.once('error', (err) => {
      // Without a pid the process never started and no 'exit' follows.
      if (pid === undefined) void finish(startError(shell, opts.cwd, err));
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      void finish();
    });
    if (pid !== undefined) {
      try {
        opts.onStart?.(pid);
      } catch {
        // A caller's bookkeeping must not break the run.
      }
    }
  });
}

interface ProcInfo {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  start: number;
}

interface KillReport {
  escaped: ProcInfo[];
}

/**
 * SIGTERM to the group, up to `graceMs` for it to go, SIGKILL to the group. Members that left the
 * group (setsid) are found from a snapshot of the job's descendants taken before the first signal
 * and from the job marker in their environment; those still alive afterwards are reported, not chased.
 */
async function killGroup(pgid: number, graceMs: number, marker: RunJobOptions['marker'], leaderStartP: Promise<number | undefined>): Promise<KillReport> {
  const leaderStart = await leaderStartP;
  const tracked = new Map<number, ProcInfo>();
  const track = async (): Promise<void> => {
    for (const p of await jobProcesses(pgid, marker, leaderStart)) if (!tracked.has(p.pid)) tracked.set(p.pid, p);
  };
  await track();
  if (!signalGroup(pgid, 'SIGTERM')) return { escaped: await stillAlive(tracked, pgid) };
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && (await groupAlive(pgid))) await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  if (await groupAlive(pgid)) {
    await track();
    signalGroup(pgid, 'SIGKILL');
    const reap = Date.now() + REAP_WAIT_MS;
    while (Date.now() < reap && (await groupAlive(pgid))) await sleep(POLL_MS);
  }
  await track();
  return { escaped: await stillAlive(tracked, pgid) };
}

function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false; // ESRCH: the group is gone already
  }
}

/** A group counts as gone when only zombies are left in it (they wait for a reaper, not for us). */
async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  const procs = await scanProc();
  return procs ? procs.some((p) => p.pgid === pgid && p.state !== 'Z' && p.state !== 'X') : true;
}

async function stillAlive(tracked: Map<number, ProcInfo>, pgid: number): Promise<ProcInfo[]> {
  const out: ProcInfo[] = [];
  for (const p of tracked.values()) {
    const now = await readStat(p.pid);
    if (!now || now.start !== p.start || now.state === 'Z' || now.state === 'X') continue;
    if (now.pgid === pgid) continue; // a member of the group: the SIGKILL is on its way
    out.push(now);
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** The leader's descendants, the group's members and the processes carrying the job marker (Linux /proc). */
async function jobProcesses(pgid: number, marker: RunJobOptions['marker'], leaderStart: number | undefined): Promise<ProcInfo[]> {
  const procs = await scanProc();
  if (!procs) return [];
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const found = new Map<number, ProcInfo>();
  const queue = [pgid];
  while (queue.length > 0) {
    const at = queue.pop();
    if (at === undefined) break;
    for (const c of children.get(at) ?? []) {
      if (found.has(c.pid)) continue;
      found.set(c.pid, c);
      queue.push(c.pid);
    }
  }
  for (const p of procs) if (p.pgid === pgid) found.set(p.pid, p);
  if (marker) {
    const needle = `${marker.name}=${marker.value}`;
    for (const p of procs) {
      if (found.has(p.pid) || p.pid === process.pid) continue;
      if (leaderStart !== undefined && p.start < leaderStart) continue; // an older run's leftover
      if (await hasEnvEntry(p.pid, needle)) found.set(p.pid, p);
    }
  }
  return [...found.values()];
}

/** Every process in /proc (Linux); undefined where there is no /proc. Asynchronous: never stalls the host. */
async function scanProc(): Promise<ProcInfo[] | undefined> {
  let names: string[];
  try {
    names = await fsp.readdir('/proc');
  } catch {
    return undefined;
  }
  const pids = names.filter((n) => /^\d+$/.test(n)).map(Number);
  const infos = await Promise.all(pids.map(readStat));
  return infos.filter((p): p is ProcInfo => p !== undefined);
}

async function readStat(pid: number): Promise<ProcInfo | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const f = text.slice(close + 2).split(' ');
  const state = f[0];
  const ppid = Number(f[1]);
  const pgid = Number(f[2]);
  const start = Number(f[19]);
  if (state === undefined || !Number.isFinite(ppid) || !Number.isFinite(pgid) || !Number.isFinite(start)) return undefined;
  return { pid, comm: text.slice(open + 1, close), state, ppid, pgid, start };
}

async function hasEnvEntry(pid: number, entry: string): Promise<boolean> {
  let env: Buffer;
  try {
    env = await fsp.readFile(`/proc/${pid}/environ`);
  } catch {
    return false; // another user's process, or gone
  }
  for (const item of env.toString('utf8').split('\0')) if (item === entry) return true;
  return false;
}

function describeEscaped(list: ProcInfo[]): string {
  const shown = list.slice(0, 5).map((p) => `pid ${p.pid} (${p.comm})`).join(', ');
  const more = list.length > 5 ? ` and ${list.length - 5} more` : '';
  const n = list.length === 1 ? '1 process' : `${list.length} processes`;
  return `${n} left the job's process group and survived the kill: ${shown}${more}`;
}

async function checkCwd(cwd: string): Promise<string | undefined> {
  try {
    const st = await fsp.stat(cwd);
    if (!st.isDirectory()) return `working directory ${cwd} is not a directory`;
    return undefined;
  } catch (e) {
    const code = errCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return `working directory ${cwd} does not exist`;
    return `working directory ${cwd} cannot be used: ${errText(e)}`;
  }
}

function startError(shell: string, cwd: string, e: unknown): string {
  const code = errCode(e);
  if (code === 'ENOENT') {
    // Node reports a missing cwd as the shell being missing; say which one it is.
    if (!existsSync(cwd)) return `working directory ${cwd} does not exist`;
    return `could not start ${shell}: not found`;
  }
  if (errText(e).includes('null bytes')) return 'command contains a NUL byte';
  return `could not start ${shell}: ${errText(e)}`;
}

function abortReason(signal: AbortSignal | undefined): string {
  const r: unknown = signal?.reason;
  if (typeof r === 'string' && r) return r;
  if (r instanceof Error && r.name !== 'AbortError' && r.message) return r.message;
  return 'aborted';
}

function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
