/**
 * The durable schedule over the two tables: add, list, remove, move and run-now of
 * reminders and command rows, and the dispatcher's pass. Shared by the extension host and the CLI.
 */
import { InputError, NUL_REASON } from '../core/errors';
import { isScheduleRowId } from '../core/ids';
import { duePass, heartbeat, moveRow, nextWorkAt, recordFact, runNow, type ClaimedRun, type Holder, type Liveness, type PassResult } from '../core/dispatch';
import { commandRowSchema, ENV_PATH_MAX, reminderRowSchema, TEXT_LIMITS, type CommandRow, type Fact, type Owner, type ReminderRow, type ScheduleRow } from '../core/schema';
import { describeSchedule } from '../core/time/describe';
import { parseWhen } from '../core/time/when';
import { validateZone } from '../core/time/zone';
import type { FsSeam } from './fs-seam';
import { newId, randomBase36 } from './ids';
import { removeJobArtifacts } from './jobLog';
import { StoreError } from './store/errors';
import { TIMER_PULSE_FILE, touchPulse } from './store/pulse';
import { Table, type TableSnapshot } from './store/table';

export const DEFAULT_TIMEOUT_MINUTES = 2;
export const DEFAULT_LIMITS = { reminder: 12 * 3600_000, command: 3600_000 };
/** A pass touches the pulse file at most this often (within a burst of passes). */
const PULSE_EVERY_MS = 1000;

export interface StoreOptions {
  dir: string;
  fs?: FsSeam;
  lockWaitMs?: number;
  commandEnds?: CommandEndHook;
}

/**
 * A command row's run ended and its fact is written (`ran`), or the row will not run for a wake
 * waiting on it (`lost`: removed, or a one-shot marked missed). `endedAt` is when (ms), for the
 * wakes set before it.
 */
/** `cwd`: where the row's command ran, so that its output's relative paths read as they did there. */
export type CommandEnd = { id: string; kind: 'ran'; fact: Fact; endedAt: number; cwd?: string } | { id: string; kind: 'lost'; reason: string; endedAt: number };

/**
 * Told under the commands table's lock right after the write that ended the runs, so the row's
 * job.done wakes are triggered in the same pass (src/node/commandWakes.ts). Must not throw.
 */
export type CommandEndHook = (ends: readonly CommandEnd[]) => Promise<void>;

/** Field names as the caller spells them (the CLI says `timeout-minutes`, a tool `timeout_minutes`). */
export interface FieldNames {
  when?: string;
  cron?: string;
  tz?: string;
  timeoutMinutes?: string;
  text?: string;
  command?: string;
  id?: string;
}

export interface TimeInput {
  when?: string;
  cron?: string;
  tz: string;
  now: Date;
}

export interface Described<R> {
  row: R;
  /** "Once, Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min" */
  description: string;
  /** True when the row was running: the change applies after the run. */
  running?: boolean;
}

export interface PassOutcome {
  reminders: PassResult<ReminderRow>;
  commands: PassResult<CommandRow>;
  /** When the next pass has work, from the rows as this pass left them (both tables read). */
  nextWorkAt?: Date | null;
}

/** A pass where one table failed: the other table's claims are still in `partial` and must be fired. */
export class PassError extends Error {
  constructor(
    readonly failure: Error,
    readonly partial: PassOutcome,
  ) {
    super(failure.message);
    this.name = failure.name;
  }
}

export class ScheduleStore {
  readonly dir: string;
  readonly reminders: Table<ReminderRow>;
  readonly commands: Table<CommandRow>;
  private readonly fs: FsSeam | undefined;
  /** Whoever runs rows or removes them with this store triggers the rows' wakes here (the CLI and the MCP server set it). */
  commandEnds: CommandEndHook | undefined;
  /** When this store last touched the pulse (real time) and the pass time it wrote. */
  private lastPulse: { at: number; now: number } | undefined;

  constructor(opts: StoreOptions) {
    this.dir = opts.dir;
    this.fs = opts.fs;
    this.commandEnds = opts.commandEnds;
    const common = { dir: opts.dir, fs: opts.fs, lockWaitMs: opts.lockWaitMs };
    this.reminders = new Table<ReminderRow>({ ...common, name: 'reminders', rowSchema: reminderRowSchema });
    this.commands = new Table<CommandRow>({ ...common, name: 'schedule-commands', rowSchema: commandRowSchema });
  }

  tableFor(id: string): Table<ReminderRow> | Table<CommandRow> {
    return id.startsWith('c-') ? this.commands : this.reminders;
  }

  async addReminder(input: TimeInput & { text: string; destination?: ReminderRow['destination']; owner?: Owner }, names: FieldNames = {}): Promise<Described<ReminderRow>> {
    const text = checkText(input.text, names.text ?? 'text', TEXT_LIMITS.text);
    const tz = validateZone(input.tz, names.tz ?? 'tz');
    const parsed = parseWhen({ when: input.when, cron: input.cron, tz, kind: 'reminder', now: input.now, whenField: names.when ?? 'when', cronField: names.cron ?? 'cron' });
    const row: ReminderRow = {
      id: newId('r'),
      text,
      schedule: parsed.schedule,
      tz,
      status: 'pending',
      nextRunAt: parsed.nextRunAt.toISOString(),
      createdAt: input.now.toISOString(),
      ...(input.destination ? { destination: input.destination } : {}),
      ...(input.owner ? { owner: input.owner } : {}),
    };
    await this.reminders.append(row);
    return { row, description: parsed.description };
  }

  /**
   * Adds a command row. `envPath` is the creating process's PATH (every caller passes its own, or
   * undefined when it has none): the OS timer runs the row with it.
   */
  async addCommand(input: TimeInput & { command: string; cwd: string; envPath: string | undefined; timeoutMinutes?: number; owner?: Owner }, names: FieldNames = {}): Promise<Described<CommandRow>> {
    const command = checkText(input.command, names.command ?? 'command', TEXT_LIMITS.command);
    const timeoutMinutes = checkTimeout(input.timeoutMinutes ?? DEFAULT_TIMEOUT_MINUTES, names.timeoutMinutes ?? 'timeout_minutes');
    const tz = validateZone(input.tz, names.tz ?? 'tz');
    const parsed = parseWhen({ when: input.when, cron: input.cron, tz, kind: 'command', now: input.now, whenField: names.when ?? 'when', cronField: names.cron ?? 'cron' });
    const row: CommandRow = {
      id: newId('c'),
      command,
      cwd: input.cwd,
      timeoutMinutes,
      schedule: parsed.schedule,
      tz,
      status: 'pending',
      nextRunAt: parsed.nextRunAt.toISOString(),
      createdAt: input.now.toISOString(),
      ...(input.envPath && input.envPath.length <= ENV_PATH_MAX ? { envPath: input.envPath } : {}),
      ...(input.owner ? { owner: input.owner } : {}),
    };
    await this.commands.append(row);
    return { row, description: parsed.description };
  }

  async listReminders(): Promise<TableSnapshot<ReminderRow>> {
    return this.reminders.read();
  }

  async listCommands(): Promise<TableSnapshot<CommandRow>> {
    return this.commands.read();
  }

  async get(id: string): Promise<ScheduleRow | undefined> {
    const snap = await this.tableFor(id).read();
    return (snap.rows as ScheduleRow[]).find((r) => r.id === id);
  }

  /** Removes a row. Unknown id → InputError naming the field. */
  async remove(id: string, names: FieldNames = {}): Promise<ScheduleRow> {
    checkId(id, names.id ?? 'id');
    const table = this.tableFor(id) as Table<ScheduleRow>;
    const hook = this.commandEnds;
    const removed = await table.update(
      (rows) => {
        const found = rows.find((r) => r.id === id);
        if (!found) throw unknownId(id, names.id ?? 'id');
        return { rows: rows.filter((r) => r.id !== id), result: found };
      },
      // The wakes waiting on a command row's run fire as lost: no run of it will end now.
      hook && id.startsWith('c-')
        ? (found) => hook([{ id, kind: 'lost', reason: `the command row ${id} was removed ${found.claim ? 'while its run was in flight (that run records nothing)' : 'before a run of it ended'}`, endedAt: Date.now() }])
        : undefined,
    );
    // The log and the alert key go with the row (a late result finds no row and writes nothing).
    await removeJobArtifacts(this.dir, id).catch(() => undefined);
    return removed;
  }

  async move(id: string, input: TimeInput & { timeoutMinutes?: number }, names: FieldNames = {}): Promise<Described<ScheduleRow>> {
    checkId(id, names.id ?? 'id');
    const kind = id.startsWith('c-') ? 'command' : 'reminder';
    const tz = validateZone(input.tz, names.tz ?? 'tz');
    const parsed = parseWhen({ when: input.when, cron: input.cron, tz, kind, now: input.now, whenField: names.when ?? 'when', cronField: names.cron ?? 'cron' });
    const timeout = input.timeoutMinutes === undefined ? undefined : checkTimeout(input.timeoutMinutes, names.timeoutMinutes ?? 'timeout_minutes');
    if (kind === 'reminder' && timeout !== undefined) throw new InputError(names.timeoutMinutes ?? 'timeout_minutes', 'applies to command rows only');
    const table = this.tableFor(id) as Table<ScheduleRow>;
    return table.update((rows) => {
      const found = rows.find((r) => r.id === id);
      if (!found) throw unknownId(id, names.id ?? 'id');
      const moved = moveRow(found, parsed.schedule, parsed.nextRunAt, tz, timeout);
      return {
        rows: rows.map((r) => (r.id === id ? moved.row : r)),
        result: { row: moved.row, description: parsed.description, running: moved.running },
      };
    });
  }

  async runNow(id: string, now: Date, names: FieldNames = {}): Promise<Described<ScheduleRow>> {
    checkId(id, names.id ?? 'id');
    const table = this.tableFor(id) as Table<ScheduleRow>;
    return table.update((rows) => {
      const found = rows.find((r) => r.id === id);
      if (!found) throw unknownId(id, names.id ?? 'id');
      const moved = runNow(found, now);
      return {
        rows: rows.map((r) => (r.id === id ? moved.row : r)),
        result: { row: moved.row, description: describeSchedule(found.schedule, now, found.tz, now), running: moved.running },
      };
    });
  }

  /**
   * One dispatcher pass over both tables: clean, settle dead runs, claim due rows. Touches the pulse.
   * `commandsOnly` (the OS timer) leaves the reminders table alone — reminders are agent turns and
   * wait for a window — and touches the timer's own pulse, not the windows'.
   */
  async pass(opts: {
    now: Date;
    holder: Holder;
    limits?: { reminder: number; command: number };
    ownLiveTokens?: ReadonlySet<string>;
    alive?: Liveness;
    folders?: readonly string[];
    commandsOnly?: boolean;
  }): Promise<PassOutcome> {
    const common = {
      now: opts.now,
      holder: opts.holder,
      newToken: () => randomBase36(16),
      maxLatenessMs: opts.limits ?? DEFAULT_LIMITS,
      ownLiveTokens: opts.ownLiveTokens,
      alive: opts.alive,
      folders: opts.folders,
    };
    // Each table in its own update: a broken table must not strand the other table's claims.
    const run = async <R extends ScheduleRow>(table: Table<R>, after?: (r: PassResult<R>) => Promise<void>): Promise<PassResult<R> | StoreError | Error> => {
      try {
        return await table.maybeUpdate((rows) => {
          const r = duePass(rows, common);
          return { rows: r.changed ? r.rows : rows, result: r };
        }, after);
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    };
    const empty = <R extends ScheduleRow>(): PassResult<R> => ({ rows: [], claimed: [], missed: [], interrupted: [], cleaned: [], changed: false });
    const r = opts.commandsOnly ? empty<ReminderRow>() : await run(this.reminders);
    const hook = this.commandEnds;
    const c = await run(this.commands, hook ? (r) => hook(passEnds(r, opts.now)) : undefined);
    const reminders = r instanceof Error ? empty<ReminderRow>() : r;
    const commands = c instanceof Error ? empty<CommandRow>() : c;
    const failure = r instanceof Error ? r : c instanceof Error ? c : undefined;
    if (failure) throw new PassError(failure, { reminders, commands });
    try {
      // Passes in a burst (a dispatcher firing rows a few ms apart) touch the pulse once a second:
      // readers judge liveness in minutes (doctor: a pass within 120 s).
      const t = Date.now();
      const last = this.lastPulse;
      if (!last || t - last.at >= PULSE_EVERY_MS || t < last.at || Math.abs(opts.now.getTime() - last.now) >= PULSE_EVERY_MS) {
        await touchPulse(this.dir, this.fs, opts.now, opts.commandsOnly ? TIMER_PULSE_FILE : undefined);
        this.lastPulse = { at: t, now: opts.now.getTime() };
      }
    } catch (err) {
      // The claims are written: they must still fire even though the pulse could not be touched.
      throw new PassError(err instanceof Error ? err : new Error(String(err)), { reminders, commands });
    }
    const next = Math.min(nextWorkMs(reminders.rows), nextWorkMs(commands.rows));
    return { reminders, commands, nextWorkAt: Number.isFinite(next) ? new Date(next) : null };
  }

  /** Re-reads the row and returns it only if this run's token is still on it (the claim was not lost). */
  async verifyClaim(run: ClaimedRun): Promise<ScheduleRow | undefined> {
    const rows = (await this.tableFor(run.id).rows()) as readonly ScheduleRow[];
    return rows.find((r) => r.id === run.id && r.claim?.token === run.token);
  }

  /** Writes a run's fact if the row still exists with this run's token; false otherwise (removed meanwhile). */
  async recordFact(id: string, token: string, fact: Fact): Promise<boolean> {
    const table = this.tableFor(id) as Table<ScheduleRow>;
    return table.update((rows) => {
      const r = recordFact(rows, id, token, fact);
      return { rows: r.applied ? r.rows : rows, result: r.applied };
    });
  }

  async heartbeat(tokens: ReadonlySet<string>, now: Date): Promise<void> {
    if (tokens.size === 0) return;
    for (const table of [this.reminders, this.commands] as Table<ScheduleRow>[]) {
      await table.maybeUpdate((rows) => {
        const r = heartbeat(rows, tokens, now);
        return { rows: r.changed ? r.rows : rows, result: undefined };
      });
    }
  }

  /** When the next pass has work, from both tables as they are on disk. */
  async nextWorkAt(): Promise<Date | null> {
    const [r, c] = await Promise.all([this.reminders.rows(), this.commands.rows()]);
    const at = Math.min(nextWorkMs(r), nextWorkMs(c));
    return Number.isFinite(at) ? new Date(at) : null;
  }
}

/** The runs a pass ended (a holder found gone: the interrupted fact) and the one-shots it marked missed. */
function passEnds(r: PassResult<CommandRow>, now: Date): CommandEnd[] {
  const byId = new Map(r.rows.map((row) => [row.id, row]));
  const ends: CommandEnd[] = [];
  for (const id of r.interrupted) {
    const row = byId.get(id);
    if (row?.fact) ends.push({ id, kind: 'ran', fact: row.fact, endedAt: now.getTime(), cwd: row.cwd });
  }
  for (const m of r.missed) {
    const row = byId.get(m.id);
    if (row?.status === 'missed') ends.push({ id: m.id, kind: 'lost', reason: `the command row ${m.id} was marked missed (${(row.fact?.error ?? 'past its catch-up limit').replace(/^missed: /, '')})`, endedAt: now.getTime() });
  }
  return ends;
}

/** nextWorkAt of one table's rows, computed once per version of the table (the rows array is kept while the file is unchanged). */
const nextWorkMemo = new WeakMap<readonly ScheduleRow[], number>();
function nextWorkMs(rows: readonly ScheduleRow[]): number {
  let at = nextWorkMemo.get(rows);
  if (at === undefined) {
    at = nextWorkAt(rows)?.getTime() ?? Infinity;
    nextWorkMemo.set(rows, at);
  }
  return at;
}

function checkText(value: string, field: string, max: number): string {
  const text = value.trim();
  if (!text) throw new InputError(field, 'is empty');
  if (text.includes('\0')) throw new InputError(field, NUL_REASON);
  if (text.length > max) throw new InputError(field, `is ${text.length} characters; at most ${max}`);
  return text;
}

function checkTimeout(value: number, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 60) {
    throw new InputError(field, `must be a whole number of minutes from 1 to 60, got ${JSON.stringify(value)}`);
  }
  return value;
}

function checkId(id: string, field: string): void {
  if (!isScheduleRowId(id)) throw new InputError(field, `'${id}' is not a reminder (r-…) or command (c-…) id`);
}

function unknownId(id: string, field: string): InputError {
  return new InputError(field, `no ${id.startsWith('c-') ? 'command' : 'reminder'} with id ${id}`);
}

