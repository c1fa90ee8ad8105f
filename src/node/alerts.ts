/**
 * Failure alerts for command runs: success is quiet; a failure raises an
 * alert at most once a week per (command, cause); a success after an alerted failure gives one
 * recovery note. The state is a small JSON file beside the tables; a missing or unreadable file
 * starts fresh (the worst case is one alert too many), and nothing here throws.
 */
import { writeFileAtomic } from './atomicFile';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { redact } from '../core/redact';
import { isCommandId } from '../core/ids';
import type { CommandRow, Fact } from '../core/schema';
import { summarize } from '../core/summary';
import { jobStatus, jobStatusWords } from '../core/wake/jobStatus';

export const ALERT_FILE = 'alerts.json';
export const ALERT_INTERVAL_MS = 7 * 24 * 3600_000;

export interface CommandAlertState {
  /** cause → when it was last alerted (epoch ms). */
  alerted: Record<string, number>;
  /** An alert was shown during the current run of failures: a success then earns a recovery note. */
  failing: boolean;
}

export interface AlertState {
  version: 1;
  commands: Record<string, CommandAlertState>;
}

export function emptyAlertState(): AlertState {
  return { version: 1, commands: {} };
}

/**
 * The short, stable category of a failed run, or null for a success. Volatile parts (numbers, paths,
 * quoted text) are dropped from error words so that the same failure keeps the same cause.
 */
export function causeOf(fact: Fact): string | null {
  if (fact.timedOut) return 'timeout';
  if (typeof fact.exitCode === 'number' && fact.exitCode !== 0) return `exit ${fact.exitCode}`;
  if (fact.signal) return `signal ${fact.signal}`;
  if (fact.interrupted) return 'interrupted';
  if (fact.error && /survived the kill/.test(fact.error)) return 'escaped';
  if (fact.error) return `error: ${errorWords(fact.error)}`;
  if (fact.exitCode === 0) return null;
  return 'error: no exit code';
}

function errorWords(error: string): string {
  const words = error
    .replace(/"[^"]*"|`[^`]*`|(?<![A-Za-z])'[^']*'(?![A-Za-z])/g, ' ')
    .replace(/'s\b/g, '')
    .replace(/(?:[A-Za-z]:)?[/\\][^\s;:,]*/g, ' ')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length > 0);
  return words.slice(0, 5).join(' ') || 'unknown';
}

/** Pure: should this failure raise an alert now? Returns the next state too. */
export function decideAlert(state: AlertState, id: string, cause: string, now: number, intervalMs = ALERT_INTERVAL_MS): { state: AlertState; alert: boolean } {
  const cmd = state.commands[id] ?? { alerted: {}, failing: false };
  const last = cmd.alerted[cause];
  if (last !== undefined && now - last < intervalMs && now >= last) return { state, alert: false };
  const next: CommandAlertState = { alerted: { ...cmd.alerted, [cause]: now }, failing: true };
  return { state: { ...state, commands: { ...state.commands, [id]: next } }, alert: true };
}

/** Pure: a success. A recovery note is due when the failures before it were alerted. */
export function decideSuccess(state: AlertState, id: string): { state: AlertState; recovered: boolean } {
  const cmd = state.commands[id];
  if (!cmd || !cmd.failing) return { state, recovered: false };
  // The throttle keys stay: a command that fails again within the week is not alerted again.
  return { state: { ...state, commands: { ...state.commands, [id]: { ...cmd, failing: false } } }, recovered: true };
}

export function decideForget(state: AlertState, id: string): AlertState {
  if (!(id in state.commands)) return state;
  const commands = { ...state.commands };
  delete commands[id];
  return { ...state, commands };
}

/** Drops keys older than the interval; a command left with none and not failing is dropped. */
export function pruneAlerts(state: AlertState, now: number, intervalMs = ALERT_INTERVAL_MS): AlertState {
  const commands: Record<string, CommandAlertState> = {};
  for (const [id, cmd] of Object.entries(state.commands)) {
    const alerted: Record<string, number> = {};
    for (const [cause, at] of Object.entries(cmd.alerted)) if (now - at < intervalMs && at <= now) alerted[cause] = at;
    if (Object.keys(alerted).length > 0 || cmd.failing) commands[id] = { alerted, failing: cmd.failing };
  }
  return { version: 1, commands };
}

export function parseAlertState(text: string): AlertState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return emptyAlertState();
  }
  if (!isRecord(raw) || raw.version !== 1 || !isRecord(raw.commands)) return emptyAlertState();
  const commands: Record<string, CommandAlertState> = Object.create(null) as Record<string, CommandAlertState>;
  for (const [id, v] of Object.entries(raw.commands)) {
    if (!isCommandId(id) || !isRecord(v) || !isRecord(v.alerted)) continue;
    const alerted: Record<string, number> = {};
    for (const [cause, at] of Object.entries(v.alerted)) if (typeof at === 'number' && Number.isFinite(at)) alerted[cause.slice(0, 200)] = at;
    commands[id] = { alerted, failing: v.failing === true };
  }
  return { version: 1, commands: { ...commands } };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The alert state file of one store directory. Every method swallows I/O errors. */
export class AlertThrottle {
  readonly file: string;
  private readonly intervalMs: number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(storeDir: string, intervalMs = ALERT_INTERVAL_MS) {
    this.file = path.join(path.resolve(storeDir), ALERT_FILE);
    this.intervalMs = intervalMs;
  }

  async shouldAlert(input: { id: string; cause: string; now: Date | number }): Promise<{ alert: boolean }> {
    const now = +input.now;
    return this.change((s) => {
      const r = decideAlert(s, input.id, input.cause, now, this.intervalMs);
      return { state: pruneAlerts(r.state, now, this.intervalMs), result: { alert: r.alert } };
    }, { alert: true });
  }

  /** True when a recovery note is due (the command had an alerted failure). */
  async noteSuccess(id: string, now: Date | number): Promise<boolean> {
    const t = +now;
    return this.change((s) => {
      const r = decideSuccess(s, id);
      return { state: pruneAlerts(r.state, t, this.intervalMs), result: r.recovered };
    }, false);
  }

  async forget(id: string): Promise<void> {
    await this.change((s) => ({ state: decideForget(s, id), result: undefined }), undefined);
  }

  async read(): Promise<AlertState> {
    try {
      return parseAlertState(await fsp.readFile(this.file, 'utf8'));
    } catch {
      return emptyAlertState();
    }
  }

  /** Serialised within the process; across processes the last writer wins, which costs at most a duplicate alert. */
  private change<T>(fn: (s: AlertState) => { state: AlertState; result: T }, onError: T): Promise<T> {
    const run = this.queue.then(async () => {
      try {
        const before = await this.read();
        const { state, result } = fn(before);
        if (JSON.stringify(state) !== JSON.stringify(before)) await this.write(state);
        return result;
      } catch {
        return onError;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(state: AlertState): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify(state, null, 2)}\n`);
  }
}

/** Removes a command's alert keys (on remove, and when a run finishes after its row was removed). */
export async function forgetAlerts(storeDir: string, id: string): Promise<void> {
  await new AlertThrottle(storeDir).forget(id);
}

export interface CommandNotice {
  kind: 'alert' | 'recovered';
  /** Redacted, one or two lines: what failed, why, and the log's summary. */
  text: string;
  cause?: string;
}

/**
 * After a command run: the notice to show, if any. `recorded` false means the row was removed
 * before its fact was written — its alert keys go and nothing is shown.
 */
export async function settleCommandRun(input: { storeDir: string; row: Pick<CommandRow, 'id' | 'command'>; fact: Fact; recorded: boolean; log?: string | null; now: Date | number }): Promise<CommandNotice | null> {
  const throttle = new AlertThrottle(input.storeDir);
  if (!input.recorded) {
    await throttle.forget(input.row.id);
    return null;
  }
  const cause = causeOf(input.fact);
  if (cause === null) {
    const recovered = await throttle.noteSuccess(input.row.id, input.now);
    return recovered ? { kind: 'recovered', text: redact(`Command ${input.row.id} succeeded again: ${oneLine(input.row.command, 80)}`) } : null;
  }
  const { alert } = await throttle.shouldAlert({ id: input.row.id, cause, now: input.now });
  if (!alert) return null;
  return { kind: 'alert', text: alertText(input.row, input.fact, input.log ?? null), cause };
}

export function alertText(row: Pick<CommandRow, 'id' | 'command'>, fact: Fact, log: string | null): string {
  const cause = causeOf(fact) ?? 'failed';
  // The status in the same words as the sidebar and the pulse (src/core/wake/jobStatus.ts): a timeout failed.
  const head = `Command ${row.id} ${jobStatusWords(jobStatus(fact))} (${cause}): ${oneLine(row.command, 80)}`;
  const why = fact.error ? `\n${oneLine(fact.error, 300)}` : '';
  const summary = log ? summarize(log) : '';
  return redact(`${head}${why}${summary ? `\n${summary}` : ''}`);
}

function oneLine(s: string, max: number): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
