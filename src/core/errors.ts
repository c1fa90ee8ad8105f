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
