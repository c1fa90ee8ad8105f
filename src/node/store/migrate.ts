/**
 * A table of an older schema version, brought to this code's version step by step in memory. The
 * file itself is rewritten only by the next update, after a backup (./files.ts); a version with no
 * migration is refused and the file left as it is.
 */
import { SCHEMA_VERSION } from '../../core/schema';
import { errText, StoreError } from './errors';

/** Rewrites the rows of a file at version `from` into rows of version `from + 1`. */
export type Migration = (rows: unknown[]) => unknown[];

export function migrateRows(file: string, from: number, raw: unknown[], migrations: Record<number, Migration>): unknown[] {
  let rows = raw;
  for (let v = from; v < SCHEMA_VERSION; v++) {
    const step = migrations[v];
    if (!step) {
      throw new StoreError('shape', file, `${file} has schemaVersion ${from}, older than this code's ${SCHEMA_VERSION}, and there is no migration from version ${v}; the file is left untouched`);
    }
    try {
      rows = step(rows);
    } catch (e) {
      throw new StoreError('shape', file, `migrating ${file} from schemaVersion ${v} failed: ${errText(e)}; the file is left untouched`, { cause: e });
    }
    if (!Array.isArray(rows)) throw new StoreError('shape', file, `the migration of ${file} from schemaVersion ${v} did not return an array of rows`);
  }
  return rows;
}
