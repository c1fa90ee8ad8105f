/**
 * What goes wrong with a table, as one error type the CLI turns into exit 3 and the window into a
 * read-only store: the file is corrupt, newer than this code, of a wrong shape, too large, its lock
 * not obtained, or a read or write failed. Every message names the file and says it was left as it is.
 */
import { SCHEMA_VERSION } from '../../core/schema';

export type StoreErrorCode = 'corrupt' | 'newer' | 'shape' | 'too_large' | 'lock' | 'io';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function corruptError(file: string, why: string, cause?: unknown): StoreError {
  return new StoreError('corrupt', file, `${file} ${why}; it is left untouched and the table is read-only until a person repairs or removes it`, { cause });
}

export function newerError(file: string, v: number): StoreError {
  return new StoreError(
    'newer',
    file,
    `${file} has schemaVersion ${v}, newer than this code's schemaVersion ${SCHEMA_VERSION} (a newer Life Thread wrote it); ` +
      'this process leaves it byte-identical and treats the table as read-only: update this window or the CLI',
  );
}

export function tooLarge(file: string, size: number, max: number): StoreError {
  return new StoreError('too_large', file, `${file} is ${size} bytes, over the ${max}-byte limit; refused before parsing and left untouched`);
}

export function ioError(what: string, p: string, e: unknown): StoreError {
  return new StoreError('io', p, `could not ${what} ${p}: ${errText(e)}`, { cause: e });
}

export function errCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
