/**
 * Bad input from a person, a tool call or the CLI. `field` is the name the caller used (e.g. `tz`,
 * `when`, `timeout_minutes`), so tools and the CLI can report `{ field, reason }` as they are.
 */
export class InputError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'InputError';
  }
}

/** How every input that refuses a NUL character says so (a reminder, a command, a wake, any tool field). */
export const NUL_REASON = 'contains a NUL character, which no row, shell or terminal keeps';

/**
 * Refuses a NUL anywhere in an input's strings (nested objects and arrays too), naming the field as
 * a path (`decisions.accepted.0.reason`). Keys are checked like values.
 */
export function refuseNul(value: unknown, field = 'input', depth = 0): void {
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new InputError(field, NUL_REASON);
    return;
  }
  if (typeof value !== 'object' || value === null || depth > 64) return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => refuseNul(v, `${field}.${i}`, depth + 1));
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = field === 'input' ? k : `${field}.${k}`;
    if (k.includes('\0')) throw new InputError(at, NUL_REASON);
    refuseNul(v, at, depth + 1);
  }
}

/** An error in one line: an input error as `field: reason`, any other by its message. */
export function errorLine(err: unknown): string {
  return err instanceof InputError ? `${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err);
}
