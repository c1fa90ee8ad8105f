/**
 * Inputs of the language-model tools: flat, snake_case as package.json declares them, parsed
 * with zod; the first problem becomes an InputError naming the field the model used.
 */
import { z } from 'zod';
import { codeAnchorSchema } from './anchor/code';
import { InputError, refuseNul } from './errors';
import { WAKE_ID } from './ids';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, PAGE_MAX_CHARS } from './paging';

const text = (max: number) => z.string().max(max);
const limit = z
  .int({ error: (iss) => `must be a whole number from 1 to ${PAGE_LIMIT_MAX}, got ${JSON.stringify(iss.input)}` })
  .min(1, { error: (iss) => `must be a whole number from 1 to ${PAGE_LIMIT_MAX}, got ${JSON.stringify(iss.input)}` })
  .max(PAGE_LIMIT_MAX, { error: (iss) => `must be a whole number from 1 to ${PAGE_LIMIT_MAX}, got ${JSON.stringify(iss.input)}` })
  .optional();
const cursor = z.string().max(400).optional().describe('list/log: the next_cursor of the previous answer, for the next page; leave out for the first');
const PAGE = `a page ends at \`limit\` rows (default ${PAGE_LIMIT_DEFAULT}) or ${PAGE_MAX_CHARS.toLocaleString('en-US')} characters; the answer gives next_cursor when there is more`;
const WHEN = "when, in words or ISO read in the owner's zone: 'in 20 minutes', 'tomorrow at 9', 'every weekday at 09:00'; never a computed timestamp";

// The descriptions travel with the schemas into the MCP server's JSON Schemas (README "MCP and terminal agents").
export const remindInputSchema = z
  .object({
    action: z.enum(['add', 'list', 'remove']).describe('add | list | remove'),
    text: text(4000).optional().describe('add: the prompt the agent runs at the due time (max 4000 characters)'),
    when: text(200).optional().describe(`add: ${WHEN}`),
    cron: text(200).optional().describe('add: 5-field cron expression instead of `when`'),
    tz: text(64).optional().describe("IANA zone for `when`/`cron`, e.g. Europe/Berlin; default the owner's zone"),
    id: text(60).optional().describe('remove: the reminder id (r-…)'),
    limit: limit.describe(`list: ${PAGE}`),
    cursor,
  })
  .strict();
export type RemindInput = z.infer<typeof remindInputSchema>;

export const scheduleInputSchema = z
  .object({
    action: z.enum(['add_command', 'list', 'remove', 'move', 'run_now', 'log']).describe('add_command | list | remove | move | run_now | log'),
    command: text(4000).optional().describe('add_command: the shell command line (bash, from the working directory)'),
    when: text(200).optional().describe(`add_command/move: ${WHEN}`),
    cron: text(200).optional().describe('add_command/move: 5-field cron expression instead of `when`'),
    tz: text(64).optional().describe("IANA zone; default the owner's zone"),
    timeout_minutes: z
      .int({ error: (iss) => `must be a whole number of minutes from 1 to 60, got ${JSON.stringify(iss.input)}` })
      .min(1, { error: (iss) => `must be a whole number of minutes from 1 to 60, got ${JSON.stringify(iss.input)}` })
      .max(60, { error: (iss) => `must be a whole number of minutes from 1 to 60, got ${JSON.stringify(iss.input)}` })
      .optional()
      .describe('add_command/move: timeout of each run in whole minutes, 1-60 (default 2)'),
    id: text(60).optional().describe('remove/move/run_now/log: the row id (r-… or c-…)'),
    limit: limit.describe(`list: ${PAGE}`),
    cursor,
  })
  .strict();
export type ScheduleInput = z.infer<typeof scheduleInputSchema>;

/** `lifethread_resolveAnchor`: exactly one of a CodeAnchor or a message span of a topic's export. */
export const resolveAnchorInputSchema = z
  .object({
    anchor: codeAnchorSchema.optional().describe('a CodeAnchor {path, symbol, range (0-based), excerpt, excerptHash, commit?} to re-find after edits'),
    message: z
      .object({ topic: z.string().min(1).max(100), msgId: z.string().min(1).max(100), start: z.number().int().min(0), end: z.number().int().min(0), quote: z.string().max(4000).optional() })
      .strict()
      .optional()
      .describe("a span of a topic's exported transcript (UTF-16 offsets, end-exclusive) and the quote expected there"),
    open: z.boolean().optional().describe('also open the place for the user (only inside a VS Code window)'),
  })
  .strict();
export type ResolveAnchorInput = z.infer<typeof resolveAnchorInputSchema>;

/** The longest one `lifethread_wait` call holds its answer (clients give up on a tool call after about a minute). */
export const WAIT_TIMEOUT_MAX_S = 50;
const waitSeconds = (iss: { input: unknown }): string => `must be a whole number of seconds from 1 to ${WAIT_TIMEOUT_MAX_S}, got ${JSON.stringify(iss.input)}`;

/** `lifethread_wait` (MCP only): a long poll on one wake. */
export const waitInputSchema = z
  .object({
    wake_id: z.string().regex(WAKE_ID, { error: (iss) => `must be a wake id (w-…), got ${JSON.stringify(iss.input)}` }).describe('the wake id (w-…) the answer that set the wake named'),
    timeout_seconds: z
      .int({ error: waitSeconds })
      .min(1, { error: waitSeconds })
      .max(WAIT_TIMEOUT_MAX_S, { error: waitSeconds })
      .optional()
      .describe(`how long this call waits, whole seconds 1-${WAIT_TIMEOUT_MAX_S} (default ${WAIT_TIMEOUT_MAX_S}); call again while it answers "not yet"`),
  })
  .strict();

/** Parses tool input; throws InputError(field, reason) on the first problem. */
export function parseToolInput<T>(schema: z.ZodType<T>, input: unknown): T {
  refuseNul(input);
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (!issue) throw new InputError('input', 'is invalid');
  if (issue.code === 'unrecognized_keys') throw new InputError(issue.keys[0] ?? 'input', 'is not a field of this tool');
  const field = issue.path.length ? issue.path.map(String).join('.') : 'input';
  throw new InputError(field, issue.message);
}

export function required<T>(value: T | undefined, field: string, why: string): T {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) throw new InputError(field, `is required ${why}`);
  return value;
}
