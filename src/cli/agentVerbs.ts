/**
 * The verbs for agents in a terminal (README "MCP and terminal agents"):
 * `mcp` (the stdio MCP server, loaded from its own bundle), `wait <wake id> [--timeout S]` and
 * `run [--wake TEXT] -- <command…>`.
 */
import { setMaxListeners } from 'node:events';
import * as path from 'node:path';
import { ownerOf } from '../core/claim';
import { InputError, NUL_REASON } from '../core/errors';
import { jobStatus } from '../core/wake/jobStatus';
import { renderPulse, type PulseEvent, type PulseJob } from '../core/wake/pulse';
import { pulseEventOutside } from '../node/pulseOutside';
import { wakeIdSchema, type WakeRow } from '../core/wake/row';
import { RUN_HEARTBEAT_MS, runWatcherGone } from '../core/wake/runWatch';
import { parseWakeInput } from '../core/wake/contract';
import type { LandingRef } from '../core/landing';
import { newId } from '../node/ids';
import { cliHolder, processLiveness } from '../node/liveness';
import { runTerminalJob, triggerJobWakes } from '../node/terminalJob';
import { WakeLoop } from '../node/wakeLoop';
import { rederiveCommandWakes } from '../node/commandWakes';
import { WakeStore } from '../node/wakes';
import { zoneOutsideWindow } from '../node/ownerFile';
import { findRuntime, installShim, readShim, thisRuntime } from '../node/shim';
import { version } from '../../package.json';
import { has, lockWaitFromEnv, parseTimeoutMinutes, valueOf } from './args';
import type { Context } from './context';
import { ExitError } from './exits';

/** `wait` gave up after --timeout (exit 4, so a caller tells "timed out waiting" from an error). */
export class TimedOut extends ExitError {
  constructor(message: string) {
    super('timeout', message, 4);
    this.name = 'TimedOut';
  }
}

function wakeStore(ctx: Context): WakeStore {
  return new WakeStore({ dir: ctx.storeDir, lockWaitMs: lockWaitFromEnv(ctx.env) });
}

// ---------------------------------------------------------------------------------------------
// mcp

/** The server's module, bundled apart (dist/mcp.js) so that other verbs never load the MCP SDK. */
type McpModule = typeof import('../node/mcp/server');

export async function mcp(ctx: Context): Promise<void> {
  const [extra] = ctx.rest;
  if (extra !== undefined) throw new InputError('command', `unexpected argument '${extra}'`);
  if (ctx.json) throw new InputError('json', 'mcp speaks JSON-RPC on stdout already; leave out --json');
  await ensureStoreCli(ctx);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const server = require(path.join(__dirname, 'mcp.js')) as McpModule;
  await server.serveMcp({
    storeDir: ctx.storeDir,
    cwd: ctx.cwd,
    zone: () => zoneOutsideWindow(ctx.storeDir, valueOf(ctx.args, 'tz'), ctx.env.LIFE_THREAD_TZ),
    version,
    lockWaitMs: lockWaitFromEnv(ctx.env),
    log: (line) => process.stderr.write(`life-thread mcp: ${line}\n`),
  });
}

/**
 * The wake notes name the store's CLI entry (`<store>/bin/life-thread`, src/node/mcp/instructions.ts).
 * A window writes it at start; a server started before any window did (or from a copy of the CLI
 * outside the store) writes it now, so the command it gives the agent exists. A newer entry stays.
 */
async function ensureStoreCli(ctx: Context): Promise<void> {
  try {
    if ((await readShim(ctx.storeDir)) !== null) return;
    const runtime = await findRuntime(ctx.env.PATH, thisRuntime('node'));
    await installShim({ storeDir: ctx.storeDir, bundleDir: __dirname, version, runtime, lockWaitMs: lockWaitFromEnv(ctx.env) });
  } catch (err) {
    process.stderr.write(`life-thread mcp: could not write the store's CLI entry (${err instanceof Error ? err.message : String(err)}); the wait commands it names may not run\n`);
  }
}

// ---------------------------------------------------------------------------------------------
// wait

/** A job as `wait --json` gives it: the pulse's job line as JSON. */
function jobJson(job: PulseJob, fallbackId: string | undefined): Record<string, unknown> {
  return { id: job.id ?? fallbackId ?? null, status: job.status, exit_code: job.exitCode ?? null, ...(job.timedOut === true ? { timed_out: true } : {}) };
}

/**
 * `wait --json` (README "MCP and terminal agents" shows it): the wake's own text and the pulse's block as JSON, with the keys the text
 * pulse has; a coalesced pulse's further wakes are `also_wake: [{ wake, text, job }]`.
 */
export function pulseJson(row: WakeRow, e: PulseEvent = pulseEventOutside(row)): Record<string, unknown> {
  const also = e.alsoWakes ?? [];
  return {
    text: row.text ?? JSON.stringify(row.payload ?? null),
    life_wake: {
      wake: e.wakeIds && e.wakeIds.length > 1 ? [...e.wakeIds] : row.id,
      reason: e.reason ?? row.when,
      job: e.job ? jobJson(e.job, row.jobId) : null,
      summary: e.summary ?? null,
      landing: e.landing ? { ...withoutEvidence(e.landing), ...(e.landingStep ? { step: e.landingStep } : {}) } : null,
      ...(e.landing?.kind === 'code_anchor' && e.landing.evidence !== undefined ? { evidence: e.landing.evidence } : {}),
      desk: e.desk ?? null,
      ...(e.redelivered ? { redelivered: true } : {}),
      ...(e.earlierSession ? { earlier_session: true } : {}),
      ...(also.length > 0 ? { also_wake: also.map((a) => ({ wake: a.id, text: a.text, job: a.job ? jobJson(a.job, undefined) : null })) } : {}),
    },
  };
}

/** A landing without the evidence a code anchor carries: `wait --json` gives it its own key, as the text pulse its own line. */
function withoutEvidence(l: LandingRef): LandingRef {
  if (l.kind !== 'code_anchor' || l.evidence === undefined) return l;
  const { evidence: _e, ...rest } = l;
  return rest;
}

function parseTimeoutSeconds(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const t = raw.trim();
  if (!/^\d{1,9}(\.\d{1,3})?$/.test(t) || Number(t) <= 0) throw new InputError('timeout', `must be a number of seconds above 0, got '${raw}'`);
  return Number(t);
}

/**
 * Blocks until the wake fires and prints its pulse. A wake set outside a window (CLI, MCP) is
 * claimed and delivered by this process when it comes due (`via: wait`); one a window delivers is
 * printed once it fired there. A pulse this process printed is recorded before it exits 0, even past
 * `--timeout`; one a waiter printed and died before recording comes again marked `redelivered`.
 */
export async function wait(ctx: Context): Promise<void> {
  const [raw, extra] = ctx.rest;
  if (raw === undefined) throw new InputError('id', 'is missing: give the wake id, e.g. life-thread wait w-abc123');
  if (extra !== undefined) throw new InputError('command', `unexpected argument '${extra}' after the wake id`);
  const id = raw.trim();
  if (!wakeIdSchema.safeParse(id).success) throw new InputError('id', `'${raw}' is not a wake id (w-…)`);
  const timeoutS = parseTimeoutSeconds(valueOf(ctx.args, 'timeout'));
  const store = wakeStore(ctx);
  if (!(await store.get(id))) throw new InputError('id', `no wake ${id} in ${ctx.storeDir}`);

  const holder = cliHolder();
  let printed = false;
  let timer: NodeJS.Timeout | undefined;
  const print = (row: WakeRow): void => {
    if (printed) return;
    printed = true;
    // Printed: the timeout no longer counts; this process records the delivery before it exits 0.
    if (timer) clearTimeout(timer);
    ctx.out(ctx.json ? `${JSON.stringify(pulseJson(row))}\n` : `${renderPulse(row, pulseEventOutside(row))}\n`);
  };
  return new Promise<void>((resolve, reject) => {
    const finish = (err?: Error): void => {
      if (timer) clearTimeout(timer);
      courier.stop();
      if (err) reject(err);
      else resolve();
    };
    const courier = new WakeLoop({
      store,
      holder,
      // A window's wake is the window's to deliver; this process prints it once it fired.
      claimable: (r) => r.id === id && r.owner?.kind !== 'window',
      // This process prints: it reaches its receiver whenever the wake may go.
      reachable: () => true,
      watchStore: true,
      deliver: async ({ claims }) => {
        const mine = claims.find((c) => c.id === id);
        if (mine) print(mine.row);
        // Printed is all this process knows: whether a model read its output, it cannot tell.
        return { fact: { delivered: true, via: 'wait', unverified: true } };
      },
      observe: async (rows) => {
        const row = rows.find((r) => r.id === id);
        if (!row) return finish(new InputError('id', `wake ${id} is gone from ${ctx.storeDir} (cleaned a day after it settled)`));
        if (row.status === 'fired') {
          print(row);
          return finish();
        }
        if (row.status === 'cancelled' || row.status === 'missed') {
          return finish(new InputError('id', `wake ${id} was ${row.status}${row.status === 'missed' ? ' (past the catch-up limit)' : ''}; it will not fire`));
        }
        // The `life-thread run` that watched its job is gone before the job ended: the wake fires as lost.
        const now = new Date();
        const gone = runWatcherGone(row, now, processLiveness);
        if (gone !== undefined) {
          const lost = await store.claimTriggered((r) => r.id === id && r.status === 'pending', { jobStatus: jobStatus({ lost: true }), exitCode: null, summary: gone }, { now, holder });
          await store.hold(lost, 'unreachable');
        }
      },
      unrecorded: (_claims, err) => finish(err instanceof Error ? err : new Error(String(err))),
      // A command row's run that ended with no trigger written (its runner died between the two writes).
      rederive: (rows) => rederiveCommandWakes(store, rows, () => ctx.store.listCommands(), holder),
      // A pass that failed (the lock busy, a table being replaced) is retried; with --json the notice is JSON too.
      onError: (err) => {
        const reason = err instanceof Error ? err.message : String(err);
        process.stderr.write(ctx.json ? `${JSON.stringify({ warning: { reason } })}\n` : `life-thread wait: ${reason}; still waiting\n`);
      },
    });
    if (timeoutS !== undefined) {
      timer = setTimeout(() => finish(new TimedOut(`wake ${id} did not fire within ${timeoutS} s`)), timeoutS * 1000);
    }
    void courier.start();
  });
}

// ---------------------------------------------------------------------------------------------
// run

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const RUN_TIMEOUT_DEFAULT_MINUTES = 60;

/** Runs a command as a job in the foreground and exits with its exit code; `--wake` sets a job.done wake on it. */
export async function run(ctx: Context): Promise<number> {
  const dd = ctx.args.beforeDashDash;
  if (dd === undefined || dd !== 1) {
    throw new InputError('command', "give the command after --, e.g. life-thread run --wake 'tests done' -- npm test");
  }
  const argv = ctx.args.positionals.slice(1);
  if (argv.length === 0) throw new InputError('command', 'is missing after --');
  if (argv.some((w) => w.includes('\0'))) throw new InputError('command', NUL_REASON);
  const rawTimeout = valueOf(ctx.args, 'timeout-minutes');
  const minutes = rawTimeout === undefined ? RUN_TIMEOUT_DEFAULT_MINUTES : parseTimeoutMinutes(rawTimeout);
  const jobId = newId('j');
  const store = wakeStore(ctx);
  // Life Thread's own errors come before the start: a wakes table this
  // process cannot read or write (corrupt, newer schema) exits 3 here, not after the command ran.
  await store.list();
  const wakeText = valueOf(ctx.args, 'wake');
  let wakeId: string | null = null;
  if (wakeText !== undefined) {
    const job = ctx.env.LIFE_THREAD_JOB;
    if (job !== undefined && job !== '' && !has(ctx.args, 'allow-nested')) {
      throw new InputError('nested', `this runs inside the job ${job} (LIFE_THREAD_JOB is set); a wake from a job needs --allow-nested`);
    }
    const parsed = parseWakeInput({ text: wakeText, when: 'job.done', job_id: jobId }, { now: ctx.clock(), tz: ctx.tz, fieldNames: { text: 'wake' } });
    if (parsed.kind !== 'wake') throw new InputError('wake', 'is missing: give the text you want to read when the job ends');
    // The heartbeat runs on the real clock whatever --now says: a waiter compares it with its own.
    const row = await store.add(parsed, { now: ctx.clock(), owner: ownerOf(cliHolder(), { kind: 'cli', cwd: ctx.cwd }), sender: { kind: 'cli' }, jobStartedAt: ctx.clock(), watchedAt: new Date() });
    wakeId = row.id;
  }
  process.stderr.write(ctx.json ? `${JSON.stringify({ jobId, wakeId })}\n` : `life-thread: job ${jobId}${wakeId ? ` (wake ${wakeId})` : ''}\n`);

  // The job has its own process group, so a terminal's Ctrl-C would not reach it: stop it and record why.
  const abort = new AbortController();
  setMaxListeners(0, abort.signal);
  const onSignal = (sig: NodeJS.Signals): void => abort.abort(new Error(`life-thread run was stopped by ${sig}`));
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);
  // A waiter that cannot see this pid (another PID namespace or host) judges this run by the heartbeat.
  const watched = new Set(wakeId === null ? [] : [wakeId]);
  const beat = setInterval(() => void store.refreshWatched(watched, new Date()).catch(() => undefined), RUN_HEARTBEAT_MS);
  beat.unref();
  try {
    const end = await runTerminalJob({
      storeDir: ctx.storeDir,
      jobId,
      argv,
      cwd: ctx.cwd,
      env: ctx.env,
      timeoutMs: minutes * 60_000,
      signal: abort.signal,
      onOutput: (stream, text) => void (stream === 'stdout' ? process.stdout.write(text) : process.stderr.write(text)),
    });
    if (end.fact.error) process.stderr.write(`life-thread: ${jobId}: ${end.fact.error}\n`);
    // The command ran: its exit code is what run exits with, whatever becomes of the wakes. A wake that
    // cannot be triggered here (lock not obtained, table broken meanwhile) fires as lost at the next
    // `life-thread wait` once this process is gone.
    await triggerJobWakes(store, jobId, end, cliHolder()).catch((err: unknown) => {
      process.stderr.write(`life-thread: ${jobId}: the job.done wakes could not be fired: ${err instanceof Error ? err.message : String(err)}\n`);
    });
    return end.exitCode;
  } finally {
    clearInterval(beat);
    for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
  }
}
