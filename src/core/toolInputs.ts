/**
 * Inputs of the language-model tools (design §8): flat, snake_case as the seeds spell them, parsed
 * with zod; the first problem becomes an InputError naming the field the model used.
 */
import { z } from 'zod';
import { InputError } from './errors';

const text = (max: number) => z.string().max(max);

export const remindInputSchema = z
  .object({
    action: z.enum(['add', 'list', 'remove']),
    text: text(4000).optional(),
    when: text(200).optional(),
    cron: text(200).optional(),
    tz: text(64).optional(),
    id: text(60).optional(),
  })
  .strict();
export type RemindInput = z.infer<typeof remindInputSchema>;

export const scheduleInputSchema = z
  .object({
    action: z.enum(['add_command', 'list', 'remove', 'move', 'run_now', 'log']),
    command: text(4000).optional(),
    when: text(200).optional(),
    cron: text(200).optional(),
    tz: text(64).optional(),
    timeout_minutes: z.unknown().optional(),
    id: text(60).optional(),
  })
  .strict();
export type ScheduleInput = z.infer<typeof scheduleInputSchema>;

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
