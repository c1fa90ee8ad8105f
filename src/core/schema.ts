/**
 * Row schemas of the durable tables (fields: README "The store"). Every row read from disk or
 * received from outside is parsed with these; types come from `z.infer`.
 *
 * Written with `zod/mini`, whose parts are bundled one by one: the CLI's add verbs load these schemas
 * and no other zod (so the CLI loads only what its verb needs).
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { isIsoInstant } from './instant';
import { COMMAND_ID, REMINDER_ID } from './ids';

// Issues in words, as the full zod says them (it sets the same locale when it loads).
z.config(en());

export const SCHEMA_VERSION = 2;

/**
 * How a table of an older version becomes this one, per version. Version 2 only adds optional keys
 * to rows (a wake's sender, a fact's redelivered / timedOut, a command's PATH), so version-1 rows are
 * version-2 rows as they are; the number changes so that an older build, whose rows are strict, sees
 * a newer file and stays read-only instead of quarantining rows it cannot read.
 */
export const TABLE_MIGRATIONS: Record<number, (rows: unknown[]) => unknown[]> = { 1: (rows) => rows };

/** An ISO-8601 instant with a zone designator (`Z` or an offset) that parses to a finite time. */
export const isoInstant = z.string().check(z.refine(isIsoInstant, { message: 'must be an ISO-8601 instant with a zone, e.g. 2026-10-03T07:00:00.000Z' }));

const onceSchedule = z.strictObject({ kind: z.literal('once'), at: isoInstant });
const everySchedule = z.strictObject({ kind: z.literal('every'), seconds: z.int().check(z.positive()), from: isoInstant });
const cronSchedule = z.strictObject({ kind: z.literal('cron'), expr: text(1, 200), tz: text(1, 64) });
const scheduleSchema = z.discriminatedUnion('kind', [onceSchedule, everySchedule, cronSchedule]);
export type Schedule = z.infer<typeof scheduleSchema>;

export const factSchema = z.strictObject({
  delivered: z.optional(z.boolean()),
  via: z.optional(text(0, 40)),
  error: z.optional(text(0, 2000)),
  exitCode: z.optional(z.nullable(z.int())),
  signal: z.optional(text(0, 20)),
  timedOut: z.optional(z.boolean()),
  interrupted: z.optional(z.boolean()),
  durationMs: z.optional(z.number().check(z.nonnegative())),
  lateMs: z.optional(z.number().check(z.nonnegative())),
  missedRuns: z.optional(z.int().check(z.nonnegative())),
  /** missedRuns is exact up to 1,000; past that it stops counting and says so. */
  missedRunsCapped: z.optional(z.boolean()),
  /** A reminder's delivered text: the agent's final answer, or the reminder as written (≤ 8,000, cut marked). */
  answer: z.optional(text(0, 8000)),
});
export type Fact = z.infer<typeof factSchema>;

/** Longest `fact.answer` kept; a longer answer is cut and the cut marked. */
export const ANSWER_MAX = 8000;

/** A process as a claim or an owner names it: pid, and on Linux its host, boot, start time and PID namespace (README "How the lock works"). */
const processFields = {
  pid: z.int().check(z.nonnegative()),
  host: z.optional(text(1, 255)),
  boot: z.optional(text(0, 64)),
  start: z.optional(text(0, 32)),
  pidns: z.optional(text(1, 64)),
};

/** Who holds a running row: a random token re-read before anything runs, the process, and a heartbeat. */
export const claimSchema = z.strictObject({
  token: text(8, 64),
  ...processFields,
  window: text(0, 80),
  heartbeatAt: isoInstant,
  scheduledFor: isoInstant,
});
export type Claim = z.infer<typeof claimSchema>;

const rowStatus = z.enum(['pending', 'fired', 'missed']);

/**
 * Who set a row: a window of a workspace (its folder URIs), the CLI, or an MCP
 * client. Reminders and wakes with `folders` fire only in a window that has one of them open.
 */
export const ownerSchema = z.strictObject({
  kind: z.enum(['window', 'cli', 'mcp']),
  folders: z.optional(z.array(text(1, 4096)).check(z.maxLength(64))),
  window: z.optional(text(1, 80)),
  ...processFields,
  pid: z.optional(processFields.pid),
  client: z.optional(text(1, 200)),
  cwd: z.optional(text(1, 4096)),
});
export type Owner = z.infer<typeof ownerSchema>;

const destinationSchema = z.strictObject({ threadId: z.optional(text(0, 200)), folder: z.optional(text(0, 4096)) });

const TEXT_MAX = 4000;
const COMMAND_MAX = 4000;

const baseRow = {
  schedule: scheduleSchema,
  tz: text(1, 64),
  status: rowStatus,
  nextRunAt: z.nullable(isoInstant),
  firedAt: z.optional(isoInstant),
  fact: z.optional(factSchema),
  claim: z.optional(claimSchema),
  createdAt: isoInstant,
  destination: z.optional(destinationSchema),
  owner: z.optional(ownerSchema),
};

export const reminderRowSchema = z.strictObject({ id: z.string().check(z.regex(REMINDER_ID)), text: text(1, TEXT_MAX), ...baseRow });
export type ReminderRow = z.infer<typeof reminderRowSchema>;

const timeoutMinutes = z.int().check(z.gte(1), z.lte(60));

/** Longest `envPath` kept: a longer PATH is not recorded (the OS timer then runs the row with its own). */
export const ENV_PATH_MAX = 32_768;

export const commandRowSchema = z.strictObject({
  id: z.string().check(z.regex(COMMAND_ID)),
  command: text(1, COMMAND_MAX),
  cwd: text(1, 4096),
  timeoutMinutes,
  runningTimeoutMinutes: z.optional(timeoutMinutes),
  /** The creating process's PATH: the OS timer, which starts with a bare environment, runs the row with it (README "Keep time while VS Code is closed"). */
  envPath: z.optional(text(1, ENV_PATH_MAX)),
  ...baseRow,
});
export type CommandRow = z.infer<typeof commandRowSchema>;

export type ScheduleRow = ReminderRow | CommandRow;

export const TEXT_LIMITS = { text: TEXT_MAX, command: COMMAND_MAX } as const;

/** A string of `min` to `max` characters. */
function text(min: number, max: number): z.ZodMiniString {
  return min > 0 ? z.string().check(z.minLength(min), z.maxLength(max)) : z.string().check(z.maxLength(max));
}
