/**
 * Row schemas of the durable tables (design §2, field names §8). Every row read from disk or
 * received from outside is parsed with these; types come from `z.infer`.
 */
import { z } from 'zod';
import { isIsoInstant } from './instant';

export const SCHEMA_VERSION = 1;

/** An ISO-8601 instant with a zone designator (`Z` or an offset) that parses to a finite time. */
export const isoInstant = z.string().refine(isIsoInstant, {
  message: 'must be an ISO-8601 instant with a zone, e.g. 2026-10-03T07:00:00.000Z',
});

export const onceSchedule = z.object({ kind: z.literal('once'), at: isoInstant }).strict();
export const everySchedule = z.object({ kind: z.literal('every'), seconds: z.number().int().positive(), from: isoInstant }).strict();
export const cronSchedule = z.object({ kind: z.literal('cron'), expr: z.string().min(1).max(200), tz: z.string().min(1).max(64) }).strict();
export const scheduleSchema = z.discriminatedUnion('kind', [onceSchedule, everySchedule, cronSchedule]);
export type Schedule = z.infer<typeof scheduleSchema>;

export const factSchema = z
  .object({
    delivered: z.boolean().optional(),
    via: z.string().max(40).optional(),
    error: z.string().max(2000).optional(),
    exitCode: z.number().int().nullable().optional(),
    signal: z.string().max(20).optional(),
    timedOut: z.boolean().optional(),
    interrupted: z.boolean().optional(),
    durationMs: z.number().nonnegative().optional(),
    lateMs: z.number().nonnegative().optional(),
    missedRuns: z.number().int().nonnegative().optional(),
    /** missedRuns is exact up to 1,000; past that it stops counting and says so. */
    missedRunsCapped: z.boolean().optional(),
    /** A reminder's delivered text: the agent's final answer, or the reminder as written (≤ 8,000, cut marked). */
    answer: z.string().max(8000).optional(),
  })
  .strict();
export type Fact = z.infer<typeof factSchema>;

/** Longest `fact.answer` kept; a longer answer is cut and the cut marked. */
export const ANSWER_MAX = 8000;

/** A process as a claim or an owner names it: pid, and on Linux its host, boot and start time (README "Liveness"). */
const processFields = {
  pid: z.number().int().nonnegative(),
  host: z.string().min(1).max(255).optional(),
  boot: z.string().max(64).optional(),
  start: z.string().max(32).optional(),
};

/** Who holds a running row: a random token re-read before anything runs, the process, and a heartbeat. */
export const claimSchema = z
  .object({
    token: z.string().min(8).max(64),
    ...processFields,
    window: z.string().max(80),
    heartbeatAt: isoInstant,
    scheduledFor: isoInstant,
  })
  .strict();
export type Claim = z.infer<typeof claimSchema>;

export const rowStatus = z.enum(['pending', 'fired', 'missed']);
export type RowStatus = z.infer<typeof rowStatus>;

/**
 * Who set a row (design §9 "Ownership"): a window of a workspace (its folder URIs), the CLI, or an MCP
 * client. Reminders and wakes with `folders` fire only in a window that has one of them open.
 */
export const ownerSchema = z
  .object({
    kind: z.enum(['window', 'cli', 'mcp']),
    folders: z.array(z.string().min(1).max(4096)).max(64).optional(),
    window: z.string().min(1).max(80).optional(),
    ...processFields,
    pid: processFields.pid.optional(),
    client: z.string().min(1).max(200).optional(),
    cwd: z.string().min(1).max(4096).optional(),
  })
  .strict();
export type Owner = z.infer<typeof ownerSchema>;

export const destinationSchema = z
  .object({ threadId: z.string().max(200).optional(), folder: z.string().max(4096).optional() })
  .strict();

const TEXT_MAX = 4000;
const COMMAND_MAX = 4000;

const baseRow = {
  schedule: scheduleSchema,
  tz: z.string().min(1).max(64),
  status: rowStatus,
  nextRunAt: isoInstant.nullable(),
  firedAt: isoInstant.optional(),
  fact: factSchema.optional(),
  claim: claimSchema.optional(),
  createdAt: isoInstant,
  destination: destinationSchema.optional(),
  owner: ownerSchema.optional(),
};

export const reminderRowSchema = z
  .object({ id: z.string().regex(/^r-[A-Za-z0-9_-]{1,40}$/), text: z.string().min(1).max(TEXT_MAX), ...baseRow })
  .strict();
export type ReminderRow = z.infer<typeof reminderRowSchema>;

export const timeoutMinutes = z.number().int().min(1).max(60);

export const commandRowSchema = z
  .object({
    id: z.string().regex(/^c-[A-Za-z0-9_-]{1,40}$/),
    command: z.string().min(1).max(COMMAND_MAX),
    cwd: z.string().min(1).max(4096),
    timeoutMinutes,
    runningTimeoutMinutes: timeoutMinutes.optional(),
    ...baseRow,
  })
  .strict();
export type CommandRow = z.infer<typeof commandRowSchema>;

export type ScheduleRow = ReminderRow | CommandRow;

export const TEXT_LIMITS = { text: TEXT_MAX, command: COMMAND_MAX } as const;

/** The envelope of every table file. Rows are validated one by one so a bad row is quarantined, not fatal. */
export const tableEnvelope = z.object({ schemaVersion: z.number().int().positive(), rows: z.array(z.unknown()) }).strict();
