/**
 * The CLI's verbs over the shared store (README "The CLI"). Each verb prints either plain lines that
 * name the zone or, with --json, only JSON on stdout.
 */
import { dispatcherHealth } from '../core/health';
import { setMaxListeners } from 'node:events';
import { InputError } from '../core/errors';
import { isCommandId } from '../core/ids';
import type { ClaimedRun } from '../core/dispatch';
import { SCHEMA_VERSION, type ScheduleRow } from '../core/schema';
import { describeInstant, describeSchedule } from '../core/time/describe';
import { nextRunAfter } from '../core/time/runs';
import { readLog, removeJobArtifacts } from '../node/jobLog';
import { fireCommandRow } from '../node/jobs';
import { DEFAULT_LIMITS, PassError, type PassOutcome } from '../node/schedule';
import { dispatchOnce, type Firer, type FiredOutcome } from '../node/fire';
import { noticeWaitingReminders, type NoticeOutcome } from '../node/reminderNotice';
import { trimTimerLog } from '../node/timerLog';
import { cliHolder, processLiveness } from '../node/liveness';
import { lockState } from '../node/lock';
import { readPulse, TIMER_PULSE_FILE } from '../node/store/pulse';
import { findInstalled } from '../node/service/osTimer';
import { realSystem } from '../node/service/system';
import { timerCommandsLine, timerRemindersLine } from '../core/service/timerHealth';
import { WakeStore } from '../node/wakes';
import { commandWakeHook } from '../node/commandWakes';
import { nextDueAt, type WakeRow } from '../core/wake/row';
import { has, lockWaitFromEnv, parseHours, parseTimeoutMinutes, valueOf } from './args';
import { CLI_FIELDS, emitJson, noPositionals, timeFlags, zone, type Context } from './context';
import { ExitError } from './exits';
import { factSummary, isCommandRow, rowLine, scheduleWords } from './format';

const DOCTOR_NEXT_RUNS = 10;

function oneId(ctx: Context): string {
  const [id, extra] = ctx.rest;
  if (id === undefined || id.trim() === '') throw new InputError('id', 'is missing: give the row id, e.g. r-abc123 or c-abc123');
  if (extra !== undefined) throw new InputError('command', `unexpected argument '${extra}' after the id`);
  return id.trim();
}

function runningNote(running: boolean | undefined): string {
  return running ? '; it is running now, so the change applies after the run' : '';
}

function listOut(ctx: Context, rows: readonly ScheduleRow[], quarantined: number, noun: string): void {
  if (ctx.json) return emitJson(ctx, rows);
  const now = ctx.clock();
  const lines = [`${rows.length === 0 ? 'No' : rows.length} ${noun}${rows.length === 1 ? '' : 's'} (times in ${zone(ctx)})`];
  for (const row of rows) lines.push(rowLine(row, ctx.tz, now));
  if (quarantined > 0) lines.push(`${quarantined} row${quarantined === 1 ? '' : 's'} of this table failed validation and will be quarantined; see life-thread doctor`);
  ctx.out(`${lines.join('\n')}\n`);
}

export async function remindList(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const snap = await ctx.store.listReminders();
  listOut(ctx, snap.rows, snap.quarantined.length, 'reminder');
}

export async function scheduleList(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const snap = await ctx.store.listCommands();
  listOut(ctx, snap.rows, snap.quarantined.length, 'scheduled command');
}

async function removeRow(ctx: Context, id: string): Promise<void> {
  triggersCommandWakes(ctx);
  const removed = await ctx.store.remove(id, CLI_FIELDS);
  let leftover = '';
  if (isCommandRow(removed)) {
    // The row is gone either way; a log that cannot be deleted is only mentioned.
    await removeJobArtifacts(ctx.storeDir, removed.id).catch((e: unknown) => {
      leftover = `; its run log could not be deleted (${e instanceof Error ? e.message : String(e)})`;
    });
  }
  if (ctx.json) return emitJson(ctx, removed);
  const what = isCommandRow(removed) ? `\`${removed.command}\`` : `"${removed.text}"`;
  const wasRunning = removed.claim ? '; its run in flight finishes but leaves no fact or log' : '';
  ctx.out(`Removed ${removed.id} ${what} (was: ${scheduleWords(removed, ctx.tz, ctx.clock())})${wasRunning}${leftover} (${zone(ctx)})\n`);
}

export async function remindRemove(ctx: Context): Promise<void> {
  const id = oneId(ctx);
  if (id.startsWith('c-')) throw new InputError('id', `'${id}' is a command id; use 'life-thread schedule remove ${id}'`);
  await removeRow(ctx, id);
}

export async function scheduleRemove(ctx: Context): Promise<void> {
  await removeRow(ctx, oneId(ctx));
}

export async function scheduleMove(ctx: Context): Promise<void> {
  const id = oneId(ctx);
  const t = timeFlags(ctx);
  const rawTimeout = valueOf(ctx.args, 'timeout-minutes');
  const timeoutMinutes = rawTimeout === undefined ? undefined : parseTimeoutMinutes(rawTimeout);
  const moved = await ctx.store.move(id, { ...t, tz: ctx.tz, now: ctx.clock(), timeoutMinutes }, CLI_FIELDS);
  if (ctx.json) return emitJson(ctx, moved.row);
  const timeout = timeoutMinutes === undefined ? '' : `; timeout ${timeoutMinutes} min from the next run`;
  ctx.out(`Moved ${moved.row.id}: ${moved.description}${timeout}${runningNote(moved.running)} (${zone(ctx)})\n`);
}

export async function scheduleRunNow(ctx: Context): Promise<void> {
  const id = oneId(ctx);
  const now = ctx.clock();
  const r = await ctx.store.runNow(id, now, CLI_FIELDS);
  if (ctx.json) return emitJson(ctx, r.row);
  const after = r.row.schedule.kind === 'once' ? '' : `; then it keeps its schedule: ${describeSchedule(r.row.schedule, nextRunAfter(r.row.schedule, now), ctx.tz, now)}`;
  ctx.out(
    `${r.row.id} is due now, ${describeInstant(now, ctx.tz, now)}: it runs at the next dispatcher pass (the extension, or life-thread dispatch --once)${after}${runningNote(r.running)} (${zone(ctx)})\n`,
  );
}

export async function scheduleLog(ctx: Context): Promise<void> {
  const id = oneId(ctx);
  if (id.startsWith('r-')) throw new InputError('id', `'${id}' is a reminder; only command rows (c-…) have a run log`);
  if (!isCommandId(id)) throw new InputError('id', `'${id}' is not a command id (c-…)`);
  const row = await ctx.store.get(id);
  const log = await readLog(ctx.storeDir, id);
  if (!row && log === null) throw new InputError('id', `no command with id ${id}`);
  if (ctx.json) return emitJson(ctx, { id, log });
  if (log === null) {
    ctx.out(`No run log for ${id} yet (it has not run since it was added)\n`);
    return;
  }
  const last = row?.firedAt ? `, last run ${describeInstant(new Date(row.firedAt), ctx.tz, ctx.clock())} (${zone(ctx)})` : '';
  ctx.out(`Run log of ${id}${last}:\n${log}${log.endsWith('\n') ? '' : '\n'}`);
}

// ---------------------------------------------------------------------------------------------
// dispatch --once

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** dispatch --once was stopped by a signal after its running commands were killed and recorded. */
export class Stopped extends ExitError {
  constructor(readonly signal: NodeJS.Signals) {
    super('interrupted', `stopped by ${signal}; the commands it was running were killed and recorded as interrupted`, 128 + (SIGNAL_NUMBERS[signal] ?? 0));
    this.name = 'Stopped';
  }
}

/** One line of `dispatch --once --json`. */
function entryOf(o: FiredOutcome): Record<string, unknown> {
  return {
    id: o.id,
    scheduledFor: o.scheduledFor,
    firedAt: o.firedAt,
    lateMs: o.lateMs,
    ...(o.delivered !== undefined ? { delivered: o.delivered } : {}),
    ...(o.text !== undefined ? { text: o.text } : {}),
    ...(o.fact !== undefined ? { fact: o.fact } : {}),
    ...(o.recorded ? {} : { recorded: false }),
  };
}

/** The job's deadline counts from the claim on the machine's clock, so a --now claim is translated back to it. */
function realTimeRun(ctx: Context, run: ClaimedRun): ClaimedRun {
  const offset = ctx.clock().getTime() - Date.now();
  return { ...run, firedAt: new Date(Date.parse(run.firedAt) - offset).toISOString() };
}

export async function dispatch(ctx: Context): Promise<void> {
  noPositionals(ctx);
  if (!has(ctx.args, 'once')) {
    throw new InputError('once', 'dispatch needs --once: the VS Code extension is the long-running dispatcher; the CLI runs single passes');
  }
  const rawR = valueOf(ctx.args, 'reminder-max-lateness-hours');
  const rawC = valueOf(ctx.args, 'command-max-lateness-hours');
  const limits = {
    reminder: rawR === undefined ? DEFAULT_LIMITS.reminder : parseHours(rawR, 'reminder-max-lateness-hours'),
    command: rawC === undefined ? DEFAULT_LIMITS.command : parseHours(rawC, 'command-max-lateness-hours'),
  };
  const commandsOnly = has(ctx.args, 'commands-only');
  const passAt = ctx.clock();
  triggersCommandWakes(ctx);
  if (commandsOnly) await trimTimerLog(ctx.storeDir);
  // Jobs run in their own process groups, so a terminal's Ctrl-C would not reach them: stop them and record why.
  const abort = new AbortController();
  // One signal serves every job of the pass; many listeners are expected, not a leak.
  setMaxListeners(0, abort.signal);
  let stoppedBy: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    stoppedBy ??= sig;
    abort.abort(new Error(`life-thread dispatch --once was stopped by ${sig}`));
  };
  for (const sig of STOP_SIGNALS) process.on(sig, onSignal);

  // The CLI delivers a reminder by printing it; commands run as jobs, exactly as in the extension.
  const firer: Firer = {
    reminder: async (row, run) => {
      if (!ctx.json) {
        const late = run.lateMs >= 60_000 ? ` (due ${describeInstant(new Date(run.scheduledFor), ctx.tz, ctx.clock())})` : '';
        ctx.out(`Reminder ${row.id}${late}:\n  ${row.text.replace(/\n/g, '\n  ')}\n`);
      }
      return { delivered: true, via: 'cli' };
    },
    // The OS timer starts with a bare environment: a row runs with the PATH its creator had.
    command: (row, run) => fireCommandRow(row, realTimeRun(ctx, run), { storeDir: ctx.storeDir, env: commandsOnly && row.envPath ? { ...ctx.env, PATH: row.envPath } : ctx.env, store: ctx.store, signal: abort.signal }),
  };
  // Reminders are agent turns: the timer leaves them for a window and only says that they wait.
  let notice: NoticeOutcome | undefined;
  let noticeError: string | undefined;
  if (commandsOnly) {
    notice = await noticeWaitingReminders({ store: ctx.store, now: passAt, limitMs: limits.reminder, tz: ctx.tz, env: ctx.env }).catch((e: unknown) => {
      noticeError = e instanceof Error ? e.message : String(e);
      return undefined;
    });
  }
  const entries: FiredOutcome[] = [];
  let pass: PassOutcome | undefined;
  let problem: unknown;
  try {
    const done = await dispatchOnce(ctx.store, firer, {
      now: passAt,
      holder: cliHolder(),
      limits,
      alive: processLiveness,
      clock: ctx.clock,
      commandsOnly,
      onFired: (o) => {
        entries.push(o);
        if (!ctx.json && o.command !== undefined) {
          ctx.out(`Command ${o.id} \`${o.command}\`: ${factSummary(o.fact ?? {})}${o.recorded ? '' : ' (the row was removed meanwhile; nothing kept)'}\n`);
        }
      },
    });
    pass = done.pass;
  } catch (e) {
    problem = e;
    if (e instanceof PassError) pass = e.partial;
  } finally {
    for (const sig of STOP_SIGNALS) process.off(sig, onSignal);
  }
  if (stoppedBy !== undefined) problem = new Stopped(stoppedBy);
  const failure = problem instanceof PassError ? problem.failure : problem;

  // What was claimed in a readable table was fired and is reported even when the other table failed.
  if (failure !== undefined && entries.length === 0) throw failure;
  if (ctx.json) {
    emitJson(ctx, entries.map(entryOf));
    if (failure !== undefined) throw failure;
    return;
  }
  const lines: string[] = [];
  const p = pass ?? { reminders: { missed: [], interrupted: [], cleaned: [] }, commands: { missed: [], interrupted: [], cleaned: [] } };
  for (const m of [...p.reminders.missed, ...p.commands.missed]) {
    lines.push(`Missed ${m.id}: due ${describeInstant(new Date(m.scheduledFor), ctx.tz, passAt)}, past the catch-up limit; not run${m.missedRuns > 1 ? ` (${m.missedRuns} runs missed)` : ''}`);
  }
  for (const id of [...p.reminders.interrupted, ...p.commands.interrupted]) lines.push(`Interrupted ${id}: its runner stopped before recording a fact`);
  const fired = entries.filter((e) => e.id.startsWith('r-')).length;
  const ran = entries.length - fired;
  const cleaned = p.reminders.cleaned.length + p.commands.cleaned.length;
  const missed = p.reminders.missed.length + p.commands.missed.length;
  if (commandsOnly) {
    if (notice && notice.said.length > 0) lines.push(`Said with ${notice.notifier ?? 'the notifier'} that ${notice.said.join(', ')} wait${notice.said.length === 1 ? 's' : ''} for a VS Code window`);
    for (const f of notice?.failed ?? []) lines.push(`Could not say that a reminder waits: ${f}`);
    if (noticeError !== undefined) lines.push(`Could not read the reminders to say which wait for a window: ${noticeError}`);
    // The timer passes every minute into its log: a pass that did nothing writes nothing.
    if (lines.length === 0 && ran === 0) {
      if (failure !== undefined) throw failure;
      return;
    }
    const waiting = notice && notice.waiting.length > 0 ? `, ${notice.waiting.length} reminder${notice.waiting.length === 1 ? '' : 's'} waiting for a window` : '';
    lines.push(`Timer pass at ${describeInstant(passAt, ctx.tz, passAt).replace(/, now$/, '')}: ${ran} command${ran === 1 ? '' : 's'} run, ${missed} missed${waiting} (${zone(ctx)})`);
    ctx.out(`${lines.join('\n')}\n`);
    if (failure !== undefined) throw failure;
    return;
  }
  lines.push(
    `Pass at ${describeInstant(passAt, ctx.tz, passAt).replace(/, now$/, '')}: ${fired} reminder${fired === 1 ? '' : 's'} delivered, ${ran} command${ran === 1 ? '' : 's'} run, ${missed} missed, ${cleaned} cleaned (${zone(ctx)})`,
  );
  ctx.out(`${lines.join('\n')}\n`);
  if (failure !== undefined) throw failure;
}

// ---------------------------------------------------------------------------------------------
// doctor

interface NextRun {
  id: string;
  kind: 'reminder' | 'command';
  nextRunAt: string;
  running: boolean;
  description: string;
}

interface QuarantineEntry {
  table: string;
  /** False while the bad row is still in the table file (it moves aside at the next write). */
  movedAside: boolean;
  reason: string;
  row: unknown;
}

interface WakeCounts {
  total: number;
  pending: number;
  held: number;
  delivering: number;
  fired: number;
  missed: number;
  cancelled: number;
  /** The earliest pending timer (or triggered wake), UTC ISO; null when none. */
  nextTimerAt: string | null;
}

function wakeCounts(rows: readonly WakeRow[]): WakeCounts {
  const next = nextDueAt(rows);
  return {
    total: rows.length,
    pending: rows.filter((r) => r.status === 'pending').length,
    held: rows.filter((r) => r.status === 'held').length,
    delivering: rows.filter((r) => r.status === 'delivering').length,
    fired: rows.filter((r) => r.status === 'fired').length,
    missed: rows.filter((r) => r.status === 'missed').length,
    cancelled: rows.filter((r) => r.status === 'cancelled').length,
    nextTimerAt: next === null ? null : next.toISOString(),
  };
}

export async function doctor(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const now = ctx.clock();
  const lastPass = await readPulse(ctx.storeDir);
  const { healthy } = dispatcherHealth({ lastPassAt: lastPass }, now);
  const reminders = await ctx.store.reminders.read();
  const commands = await ctx.store.commands.read();
  const wakeTable = wakeStore(ctx).table;
  const wakeSnap = await wakeTable.read();
  const schemaVersions = {
    code: SCHEMA_VERSION,
    reminders: reminders.state === 'missing' ? null : reminders.schemaVersion,
    'schedule-commands': commands.state === 'missing' ? null : commands.schemaVersion,
    wakes: wakeSnap.state === 'missing' ? null : wakeSnap.schemaVersion,
  };
  const quarantined: QuarantineEntry[] = [];
  for (const [name, snap, table] of [
    ['reminders', reminders, ctx.store.reminders],
    ['schedule-commands', commands, ctx.store.commands],
    ['wakes', wakeSnap, wakeTable],
  ] as const) {
    for (const q of snap.quarantined) quarantined.push({ table: name, movedAside: false, reason: q.reason, row: q.row });
    const file = await table.readQuarantine();
    file.rows.forEach((row, i) => quarantined.push({ table: name, movedAside: true, reason: file.reasons[i] ?? '', row }));
  }
  const all: ScheduleRow[] = [...reminders.rows, ...commands.rows];
  const nextRuns: NextRun[] = all
    .filter((r): r is ScheduleRow & { nextRunAt: string } => r.status === 'pending' && r.nextRunAt !== null)
    .sort((a, b) => Date.parse(a.nextRunAt) - Date.parse(b.nextRunAt))
    .slice(0, DOCTOR_NEXT_RUNS)
    .map((r) => ({
      id: r.id,
      kind: isCommandRow(r) ? 'command' : 'reminder',
      nextRunAt: r.nextRunAt,
      running: r.claim !== undefined,
      description: describeSchedule(r.schedule, new Date(r.nextRunAt), ctx.tz, now),
    }));

  const wakes = wakeCounts(wakeSnap.rows);
  const locks: Record<string, LockView> = {};
  for (const table of [ctx.store.reminders, ctx.store.commands, wakeTable]) locks[table.name] = lockView(await lockState(table.lockFile));
  // The OS timer, when installed for this store, runs the commands (README "Keep time while VS Code is closed").
  const timerKind = (await findInstalled(ctx.storeDir, realSystem(ctx.env)).catch(() => []))[0]?.kind ?? null;
  const timer = timerKind === null ? null : { kind: timerKind, lastPassAt: await readPulse(ctx.storeDir, undefined, TIMER_PULSE_FILE) };
  if (ctx.json) {
    return emitJson(ctx, {
      healthy,
      lastPassAt: lastPass === null ? null : lastPass.toISOString(),
      storeDir: ctx.storeDir,
      schemaVersions,
      quarantined,
      nextRuns,
      wakes,
      locks,
      timer: timer === null ? null : { kind: timer.kind, lastPassAt: timer.lastPassAt?.toISOString() ?? null },
    });
  }
  const lines: string[] = [];
  const dispatcher =
    lastPass === null
      ? 'Dispatcher: STALLED: no pass recorded yet (no reminders.tick); open VS Code with Life Thread, or run life-thread dispatch --once'
      : `Dispatcher: ${healthy ? 'healthy' : 'STALLED'}: last pass ${describeInstant(lastPass, ctx.tz, now)}`;
  if (timer === null) lines.push(dispatcher);
  else lines.push(timerCommandsLine(timer, now), timerRemindersLine(dispatcher));
  lines.push(`Store: ${ctx.storeDir}`);
  const v = (n: number | null): string => (n === null ? 'no file yet' : String(n));
  lines.push(
    `Schema versions: code ${SCHEMA_VERSION}; reminders.json ${v(schemaVersions.reminders)}; schedule-commands.json ${v(schemaVersions['schedule-commands'])}; wakes.json ${v(schemaVersions.wakes)}`,
  );
  lines.push(`Rows: ${reminders.rows.length} reminder${reminders.rows.length === 1 ? '' : 's'}, ${commands.rows.length} command${commands.rows.length === 1 ? '' : 's'}, ${wakes.total} wake${wakes.total === 1 ? '' : 's'}`);
  const nextWake = wakes.nextTimerAt === null ? '' : `; next timer ${describeInstant(new Date(wakes.nextTimerAt), ctx.tz, now)}`;
  lines.push(`Wakes: ${wakes.pending} pending, ${wakes.held} held, ${wakes.delivering} delivering, ${wakes.fired} fired, ${wakes.missed} missed, ${wakes.cancelled} cancelled${nextWake} (fired by the extension, or by life-thread wait / mcp for wakes set outside it)`);
  const lockWords = Object.entries(locks).map(([name, l]) => {
    const who = l.holder ? ` by pid ${l.holder.pid}${l.holder.host ? ` on ${l.holder.host}` : ''} since ${describeInstant(new Date(l.holder.at), ctx.tz, now)}` : '';
    return `${name}.json ${l.state}${who}${l.state === 'abandoned' ? ' (its process is gone; the next writer takes the lock over)' : ''}`;
  });
  lines.push(`Locks: ${lockWords.join('; ')}`);
  if (quarantined.length === 0) lines.push('Quarantined: none');
  else {
    lines.push(`Quarantined: ${quarantined.length} row${quarantined.length === 1 ? '' : 's'}`);
    for (const q of quarantined) lines.push(`  ${q.table}${q.movedAside ? '.quarantine.json' : '.json (moves aside at the next write)'}: ${q.reason}`);
  }
  if (nextRuns.length === 0) lines.push('Next runs: none');
  else {
    lines.push('Next runs:');
    for (const n of nextRuns) lines.push(`  ${n.id}  ${n.description}${n.running ? ' (running now)' : ''}`);
  }
  lines.push(`Times in ${zone(ctx)}`);
  ctx.out(`${lines.join('\n')}\n`);
}

// ---------------------------------------------------------------------------------------------
// wake add | list | cancel (fired by the extension, which starts a chat turn, or by `wait` / `mcp`: ./agentVerbs.ts)


/** A table's lock as doctor shows it: free, held by a live process, or abandoned by one that is gone. */
interface LockView {
  state: 'free' | 'held' | 'abandoned';
  holder?: { pid: number; host: string; at: string };
}

function lockView(l: Awaited<ReturnType<typeof lockState>>): LockView {
  return l.holder && l.state !== 'free' ? { state: l.state, holder: { pid: l.holder.pid, host: l.holder.host, at: l.holder.at } } : { state: l.state };
}

export function wakeStore(ctx: Context): WakeStore {
  return new WakeStore({ dir: ctx.storeDir, lockWaitMs: lockWaitFromEnv(ctx.env) });
}

/** This verb runs or removes command rows: it triggers their job.done wakes with the fact (src/node/commandWakes.ts). */
function triggersCommandWakes(ctx: Context): void {
  ctx.store.commandEnds = commandWakeHook(wakeStore(ctx), cliHolder(), (reason) => process.stderr.write(ctx.json ? `${JSON.stringify({ warning: { reason } })}\n` : `life-thread: ${reason}\n`));
}

/** `--delay-seconds`: digits only ("5s", "1.5", "-3" refused here; the range is checked by the contract). */
