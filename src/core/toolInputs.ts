/**
 * Inputs of the language-model tools (design §8): flat, snake_case as the seeds spell them, parsed
 * with zod; the first problem becomes an InputError naming the field the model used.
 */
import { z } from 'zod';
import { codeAnchorSchema } from './codeAnchor';
import { InputError } from './errors';

const text = (max: number) => z.string().max(max);
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
    // Checked by timeoutFrom, so "5" is refused with the field's name rather than coerced.
    timeout_minutes: z.unknown().optional().describe('add_command/move: timeout of each run in whole minutes, 1-60 (default 2)'),
    id: text(60).optional().describe('remove/move/run_now/log: the row id (r-… or c-…)'),
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

/** Parses tool input; throws InputError(field, reason) on the first problem. */
export function parseToolInput<T>(schema: z.ZodType<T>, input: unknown): T {
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

/** timeout_minutes arrives as JSON: a number is required, not "5". */
export function timeoutFrom(value: unknown, field = 'timeout_minutes'): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 60) {
    throw new InputError(field, `must be a whole number of minutes from 1 to 60, got ${JSON.stringify(value)}`);
  }
  return value;
}
