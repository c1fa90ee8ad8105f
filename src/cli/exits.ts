/** How the CLI ends on an error: the report on stderr and the exit code (README "The CLI"). */

/** An error that ends the CLI with its own exit code, reported under `field`. */
export class ExitError extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export function report(io: Io, json: boolean, field: string, reason: string): void {
  if (json) io.stderr(`${JSON.stringify({ error: { field, reason } })}\n`);
  else io.stderr(`life-thread: ${field}: ${reason.replace(/\s*\n\s*/g, ' ')}\n`);
}

export function reportUnexpected(io: Io, json: boolean, e: unknown): number {
  report(io, json, 'internal', `unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  return 1;
}
