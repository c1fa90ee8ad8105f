/**
 * The durable JSON tables (design §2 "Store", §8): `{ "schemaVersion": N, "rows": [...] }` files in
 * the store directory, read without a lock, changed only under the table's cross-process lock
 * (./lock.ts) with an atomic write (temp file in the same directory, fsync, rename, fsync of the
 * directory). Bad rows are quarantined beside the table; a file that cannot be read is never touched.
 *
 * The writer lays a table out one row per line (still plain JSON that people can read and edit), and
 * leaves beside it a digest of the bytes it wrote (`.<table>.json.sum`). A reader that finds the
 * digest matching knows every row was validated by the writer; a reader that kept the rows of an
 * earlier version re-validates only the lines that changed. So a table of 10,000 rows is not
 * re-validated after another process changed one row, and adding a row does not parse the others.
 */
import { createHash } from 'node:crypto';
import { promises as fsp, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { stringifyDeep } from '../core/jsonText';
import { SCHEMA_VERSION } from '../core/schema';
import { nodeFs, type FileHandleSeam, type FsSeam, type StatSeam } from './fs-seam';
import { randomBase36 } from './ids';
import { acquireLock, LockTimeout, type HeldLock } from './lock';

export type TableName = 'reminders' | 'schedule-commands' | 'wakes' | 'feed';
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

export const DEFAULT_LOCK_WAIT_MS = 10_000;
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Temp files older than this found under the lock are leftovers of a killed writer. */
export const STRAY_TEMP_AGE_MS = 60_000;
export const PULSE_FILE = 'reminders.tick';
/** Where the tables' locks live (design: README "How the lock works"). */
export const LOCKS_DIR = '.locks';

/** Rewrites the rows of a file at version `from` into rows of version `from + 1`. */
export type Migration = (rows: unknown[]) => unknown[];

/** What a table validates its rows with: a zod schema, of the full zod or of zod/mini. */
export interface RowSchema<Row> {
  safeParse(value: unknown): { success: true; data: Row } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

export interface TableOptions<Row> {
  dir: string;
  name: TableName;
  rowSchema: RowSchema<Row>;
  fs?: FsSeam;
  lockWaitMs?: number;
  maxFileBytes?: number;
  /** Keyed by the version migrated from. */
  migrations?: Record<number, Migration>;
}

export interface QuarantinedRow {
  row: unknown;
  reason: string;
}

export interface TableSnapshot<Row> {
  rows: Row[];
  /** Rows of the table file that failed validation; they move to the quarantine file at the next write. */
  quarantined: QuarantinedRow[];
  /** The version of the file on disk (rows are already migrated to the code's version). */
  schemaVersion: number;
  state: 'ok' | 'missing';
}

export interface QuarantineFile {
  rows: unknown[];
  reasons: string[];
}

export interface UpdateResult<Row, T> {
  rows: Row[];
  result: T;
}

/** One version of the table as read: valid rows (frozen) with their lines, and what failed. */
interface Loaded<Row> {
  state: 'ok' | 'missing';
  key?: string;
  schemaVersion: number;
  rows: Row[];
  quarantined: QuarantinedRow[];
  /** The file as read, kept only when a migration must back it up. */
  bytes?: Buffer;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_ROW_DEPTH = 32;
const DIR_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EPERM', 'EBADF', 'EACCES']);
const HEADER_RE = /^\{"schemaVersion":(\d{1,9}),"rows":\[\n/;
const FOOTER = ']}\n';
/** With fewer changed lines than this, validating them costs less than hashing the file. */
const HASH_WORTH_LINES = 32;

export class Table<Row extends { id: string }> {
  readonly dir: string;
  readonly name: TableName;
  readonly file: string;
  /** The lock's directory of epoch files (./lock.ts). */
  readonly lockFile: string;
  readonly quarantineFile: string;
  /** The digest of the bytes this code last wrote: a reader that finds it matching skips validation. */
  readonly sumFile: string;

  private readonly rowSchema: RowSchema<Row>;
  private readonly fs: FsSeam;
  private readonly lockWaitMs: number;
  private readonly maxFileBytes: number;
  private readonly migrations: Record<number, Migration>;
  /** The rows of the file version last read or written by this process (stat key): skips reading. */
  private cache: { key: string; rows: Row[] } | undefined;
  /**
   * The rows of the version last read or written, with the exact line each one is (aligned): a line
   * that stands where it stood is its row, found by comparing text in place — nothing parsed,
   * validated or allocated. A line that moved is looked up by its text.
   */
  private known: { lines: Buffer[]; rows: Row[]; byLine?: Map<string, Row> } = { lines: [], rows: [] };
  /** Each row's line as UTF-8 bytes (a view into the file it was read from, or its serialization). */
  private readonly rowLines = new WeakMap<object, Buffer>();
  /** Updates of this process run one after another; the file lock orders processes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: TableOptions<Row>) {
    this.dir = path.resolve(opts.dir);
    this.name = opts.name;
    this.file = path.join(this.dir, `${opts.name}.json`);
    this.lockFile = path.join(this.dir, LOCKS_DIR, `${opts.name}.json`);
    this.quarantineFile = path.join(this.dir, `${opts.name}.quarantine.json`);
    this.sumFile = path.join(this.dir, `.${opts.name}.json.sum`);
    this.rowSchema = opts.rowSchema;
    this.fs = opts.fs ?? nodeFs;
    this.lockWaitMs = opts.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.migrations = opts.migrations ?? {};
  }

  /** Reads the table without the lock. Throws StoreError when the file cannot be used. */
  async read(): Promise<TableSnapshot<Row>> {
    const loaded = await this.load(false);
    return { rows: loaded.rows.slice(), quarantined: loaded.quarantined, schemaVersion: loaded.schemaVersion, state: loaded.state };
  }

  /** The rows already moved aside, as written at earlier updates. */
  async readQuarantine(): Promise<QuarantineFile> {
    const q = await this.loadQuarantine();
    return q.kind === 'ok' ? q.value : { rows: [], reasons: [] };
  }

  /**
   * Re-reads the table under the cross-process lock, calls `fn` with the valid rows (frozen: return
   * new row objects), validates what it returns and writes it atomically. Invalid rows found in the
   * file move to the quarantine file at this write. Returning the very same array unchanged skips the
   * write. A table that is corrupt, newer or of a wrong shape is left byte-identical and the error
   * propagates.
   */
  async update<T>(fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>): Promise<T> {
    return this.locked((lock) => this.updateLocked(lock, fn));
  }

  /**
   * An update for work that is usually absent (a dispatcher's idle pass): `fn` first runs on a
   * lock-free read, and when it changes nothing its result is returned without taking the lock, so an
   * idle pass writes nothing. Otherwise this is `update(fn)`: `fn` runs again on the rows read under
   * the lock, so it must be pure.
   */
  async maybeUpdate<T>(fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>): Promise<T> {
    const loaded = await this.load(false);
    if (loaded.state === 'ok' && loaded.schemaVersion === SCHEMA_VERSION) {
      const rows = loaded.rows.slice();
      const before = rows.slice();
      const out = await fn(rows);
      if (out.rows === rows && sameElements(rows, before)) return out.result;
    }
    return this.update(fn);
  }

  /**
   * Adds one row. When the file is exactly as a writer of this code left it (its digest matches), the
   * line is spliced in without parsing the other rows; otherwise this is an update.
   */
  async append(row: Row): Promise<void> {
    const [valid] = this.checkOutgoing([row], new WeakSet());
    if (!valid) return;
    await this.locked(async (lock) => {
      if (!(await this.cached()) && (await this.spliceIn(lock, valid))) return;
      await this.updateLocked(lock, (rows) => ({ rows: [...rows, valid], result: undefined }));
    });
  }

  private async locked<T>(work: (lock: HeldLock) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      await this.io('create the store directory', this.dir, () => this.fs.mkdir(this.dir));
      let lock: HeldLock;
      try {
        lock = await acquireLock(this.lockFile, { waitMs: this.lockWaitMs });
      } catch (e) {
        if (e instanceof LockTimeout) throw new StoreError('lock', this.lockFile, `${e.message}; nothing was changed in ${this.file}`, { cause: e });
        throw ioError('take the lock', this.lockFile, e);
      }
      try {
        await this.cleanStrayTemps();
        return await work(lock);
      } finally {
        await lock.release();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async updateLocked<T>(lock: HeldLock, fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>): Promise<T> {
    const loaded = await this.load(true);
    const migrated = loaded.state === 'ok' && loaded.schemaVersion < SCHEMA_VERSION;
    const rows = loaded.rows.slice();
    const validated = new WeakSet<object>(rows);
    const before = rows.slice();

    const out = await fn(rows);
    if (typeof out !== 'object' || out === null || !Array.isArray(out.rows)) {
      throw new StoreError('shape', this.file, `refusing to write ${this.file}: the update did not return { rows: [...], result }; nothing written`);
    }
    const unchanged = out.rows === rows && sameElements(rows, before);
    if (unchanged && loaded.state === 'ok' && !migrated) return out.result;

    const next = this.checkOutgoing(out.rows, validated);
    const lines = next.map((r) => this.lineOf(r));
    const text = encodeTableBytes(lines);
    const size = text.length;
    if (size > this.maxFileBytes) {
      throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${size} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
    }
    if (migrated && loaded.bytes) await this.backup(loaded.bytes, loaded.schemaVersion);
    if (loaded.quarantined.length > 0) await this.appendQuarantine(loaded.quarantined);
    await this.commit(lock, text, next, lines);
    return out.result;
  }

  /** Writes `text` as the table (the lock checked first), then its digest, and remembers the rows. */
  private async commit(lock: HeldLock, text: Buffer, rows: Row[] | undefined, lines: Buffer[] | undefined): Promise<void> {
    await this.assertHeld(lock);
    this.cache = undefined;
    await this.atomicWrite(this.file, text);
    const sum = digest(text);
    await this.writeSum(sum);
    if (!rows || !lines) return;
    rows.forEach((r, i) => {
      deepFreeze(r);
      this.rowLines.set(r, lines[i] as Buffer);
    });
    this.known = { lines, rows };
    try {
      this.cache = { key: statKey(await this.fs.stat(this.file)), rows };
    } catch {
      this.cache = undefined;
    }
  }

  private async assertHeld(lock: HeldLock): Promise<void> {
    try {
      await lock.assertHeld();
    } catch (e) {
      throw new StoreError('lock', this.lockFile, `${errText(e)}; nothing written to ${this.file}`, { cause: e });
    }
  }

  /** The fast path of append: splice one line into a file whose digest says it was written valid. */
  private async spliceIn(lock: HeldLock, row: Row): Promise<boolean> {
    let bytes: Buffer;
    try {
      const st = await this.fs.stat(this.file);
      if (st.size > this.maxFileBytes) return false;
      bytes = await this.fs.readFile(this.file);
    } catch {
      return false;
    }
    const head = HEADER_RE.exec(bytes.subarray(0, 64).toString('latin1'));
    if (!head || Number(head[1]) !== SCHEMA_VERSION) return false;
    if (!bytes.subarray(bytes.length - FOOTER.length).equals(FOOTER_BYTES)) return false;
    if (digest(bytes) !== (await this.readSum())) return false;
    // Only a real key holds `"id":"…"` unescaped: a match anywhere means the id is taken.
    if (bytes.includes(`"id":${JSON.stringify(row.id)}`)) return false;
    const line = this.lineOf(row);
    const cut = bytes.length - FOOTER.length;
    const empty = cut === head[0].length;
    const text = Buffer.concat([bytes.subarray(0, empty ? cut : cut - 1), empty ? EMPTY : SEPARATOR, line, NEWLINE, FOOTER_BYTES]);
    if (text.length > this.maxFileBytes) {
      throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${text.length} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
    }
    await this.assertHeld(lock);
    this.cache = undefined;
    await this.atomicWrite(this.file, text);
    await this.writeSum(digest(text));
    return true;
  }

  private lineOf(row: Row): Buffer {
    let line = this.rowLines.get(row);
    if (line === undefined) {
      line = Buffer.from(JSON.stringify(row));
      this.rowLines.set(row, line);
    }
    return line;
  }

  /** The cached rows when the file on disk is still the version they came from. */
  private async cached(): Promise<Row[] | undefined> {
    if (!this.cache) return undefined;
    try {
      const st = await this.fs.stat(this.file);
      if (statKey(st) === this.cache.key) return this.cache.rows;
    } catch {
      // fall through to a full load, which reports the problem
    }
    this.cache = undefined;
    return undefined;
  }

  private async load(forWrite: boolean): Promise<Loaded<Row>> {
    const hit = await this.cached();
    if (hit) return { state: 'ok', schemaVersion: SCHEMA_VERSION, rows: hit, quarantined: [] };
    let size: number;
    let key: string;
    try {
      const st = await this.fs.stat(this.file);
      if (st.isDirectory()) throw new StoreError('corrupt', this.file, `${this.file} is a directory, not a table file; the store is read-only until a person fixes it`);
      size = st.size;
      key = statKey(st);
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (errCode(e) === 'ENOENT') return { state: 'missing', schemaVersion: SCHEMA_VERSION, rows: [], quarantined: [] };
      throw ioError('stat', this.file, e);
    }
    if (size > this.maxFileBytes) throw tooLarge(this.file, size, this.maxFileBytes);
    let bytes: Buffer;
    try {
      bytes = await this.fs.readFile(this.file);
    } catch (e) {
      if (errCode(e) === 'ENOENT') return { state: 'missing', schemaVersion: SCHEMA_VERSION, rows: [], quarantined: [] };
      throw ioError('read', this.file, e);
    }
    if (bytes.length > this.maxFileBytes) throw tooLarge(this.file, bytes.length, this.maxFileBytes);

    const decoded = decodeTable(bytes, this.file);
    const current = decoded.schemaVersion === SCHEMA_VERSION;
    let rows: Row[];
    let quarantined: QuarantinedRow[];
    const laid = current && decoded.spans ? this.validateLines(decoded.spans, bytes) : undefined;
    if (laid) {
      ({ rows, quarantined } = laid);
    } else {
      const raw = decoded.raw ?? parseAll(bytes, this.file);
      ({ rows, quarantined } = validateRows(this.migrate(decoded.schemaVersion, raw), this.rowSchema));
      for (const r of rows) deepFreeze(r);
    }
    if (current && quarantined.length === 0) this.cache = { key, rows };
    return { state: 'ok', key, schemaVersion: decoded.schemaVersion, rows, quarantined, ...(forWrite && !current ? { bytes } : {}) };
  }

  /**
   * Rows from the table's lines (`spans`: start and end offsets in `text`). A line that stands where
   * the same line stood in the version this process knows is its row; other lines are parsed and
   * validated — or only parsed when the file's digest says its writer validated them. Undefined when
   * a line is not JSON (then the whole file is parsed, and reported if it is not JSON either).
   */
  private validateLines(spans: Int32Array, bytes: Buffer): { rows: Row[]; quarantined: QuarantinedRow[] } | undefined {
    const count = spans.length / 2;
    const known = this.known;
    const same = (i: number): boolean => {
      const line = known.lines[i];
      const start = spans[2 * i] as number;
      const end = spans[2 * i + 1] as number;
      return line !== undefined && line.length === end - start && line.compare(bytes, start, end) === 0;
    };
    let fresh = 0;
    for (let i = 0; i < count && fresh < HASH_WORTH_LINES; i++) if (!same(i)) fresh++;
    const trusted = fresh >= HASH_WORTH_LINES && digest(bytes) === this.sumSync();
    const rows: Row[] = [];
    const lines: Buffer[] = [];
    const quarantined: QuarantinedRow[] = [];
    const seen = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      let row: Row | undefined;
      let line: Buffer;
      let value: unknown;
      if (same(i)) {
        row = known.rows[i] as Row;
        line = known.lines[i] as Buffer;
        value = row;
      } else {
        line = bytes.subarray(spans[2 * i], spans[2 * i + 1]);
        let textLine: string;
        try {
          textLine = UTF8.decode(line);
        } catch {
          return undefined;
        }
        known.byLine ??= new Map(known.lines.map((l, j) => [l.toString('utf8'), known.rows[j] as Row]));
        row = known.byLine.get(textLine);
        value = row;
        if (row === undefined) {
          try {
            value = JSON.parse(textLine);
          } catch {
            return undefined;
          }
          const label = rowLabel(value, i);
          if (trusted) {
            row = value as Row;
          } else {
            const bad = findForbiddenKey(value);
            if (bad) {
              quarantined.push({ row: value, reason: `${label}: ${bad}` });
              continue;
            }
            const parsed = this.rowSchema.safeParse(value);
            if (!parsed.success) {
              quarantined.push({ row: value, reason: `${label}: ${formatIssues(parsed.error.issues)}` });
              continue;
            }
            row = parsed.data;
          }
          deepFreeze(row);
        }
        this.rowLines.set(row, line);
      }
      const first = seen.get(row.id);
      if (first !== undefined) {
        quarantined.push({ row: value, reason: `${rowLabel(value, i)}: id: duplicate of rows[${first}], which is kept` });
        continue;
      }
      seen.set(row.id, i);
      lines.push(line);
      rows.push(row);
    }
    this.known = { lines, rows };
    return { rows, quarantined };
  }

  private migrate(from: number, raw: unknown[]): unknown[] {
    let rows = raw;
    for (let v = from; v < SCHEMA_VERSION; v++) {
      const step = this.migrations[v];
      if (!step) {
        throw new StoreError('shape', this.file, `${this.file} has schemaVersion ${from}, older than this code's ${SCHEMA_VERSION}, and there is no migration from version ${v}; the file is left untouched`);
      }
      try {
        rows = step(rows);
      } catch (e) {
        throw new StoreError('shape', this.file, `migrating ${this.file} from schemaVersion ${v} failed: ${errText(e)}; the file is left untouched`, { cause: e });
      }
      if (!Array.isArray(rows)) throw new StoreError('shape', this.file, `the migration of ${this.file} from schemaVersion ${v} did not return an array of rows`);
    }
    return rows;
  }

  private checkOutgoing(rows: unknown[], validated: WeakSet<object>): Row[] {
    const out: Row[] = [];
    const seen = new Map<string, number>();
    const refuse = (i: number, row: unknown, why: string): never => {
      throw new StoreError('shape', this.file, `refusing to write ${this.file}: the update produced an invalid row ${rowLabel(row, i)}: ${why}; nothing written`);
    };
    rows.forEach((row, i) => {
      let ok: Row;
      if (typeof row === 'object' && row !== null && validated.has(row)) {
        ok = row as Row; // one of the frozen rows handed to fn, validated when read
      } else {
        const bad = findForbiddenKey(row);
        if (bad) refuse(i, row, bad);
        const parsed = this.rowSchema.safeParse(row);
        if (!parsed.success) return refuse(i, row, formatIssues(parsed.error.issues));
        ok = parsed.data;
      }
      const first = seen.get(ok.id);
      if (first !== undefined) refuse(i, row, `id: duplicate of rows[${first}]`);
      seen.set(ok.id, i);
      out.push(ok);
    });
    return out;
  }

  /** The digest file, read synchronously: it is 41 bytes and read only when many lines are new. */
  private sumSync(): string | undefined {
    try {
      return readFileSync(this.sumFile, 'utf8').trim();
    } catch {
      return undefined;
    }
  }

  private async readSum(): Promise<string | undefined> {
    try {
      return (await fsp.readFile(this.sumFile, 'utf8')).trim();
    } catch {
      return undefined;
    }
  }

  /** Best effort, outside the fault seam: a missing or stale digest only means the next reader validates the rows itself. */
  private async writeSum(sum: string): Promise<void> {
    const tmp = path.join(this.dir, `.${path.basename(this.sumFile)}.${process.pid}.${randomBase36(8)}.tmp`);
    try {
      await fsp.writeFile(tmp, `${sum}\n`);
      await fsp.rename(tmp, this.sumFile);
    } catch {
      await fsp.unlink(tmp).catch(() => undefined);
      await fsp.unlink(this.sumFile).catch(() => undefined);
    }
  }

  private async cleanStrayTemps(): Promise<void> {
    let names: string[];
    try {
      names = await this.fs.readdir(this.dir);
    } catch {
      return;
    }
    const prefixes = [`.${this.name}.`, `.${path.basename(this.sumFile)}.`];
    const now = Date.now();
    for (const n of names) {
      if (!prefixes.some((p) => n.startsWith(p)) || !/\.\d+\.[a-z0-9]+\.tmp$/.test(n)) continue;
      const p = path.join(this.dir, n);
      try {
        const st = await this.fs.stat(p);
        if (now - st.mtimeMs > STRAY_TEMP_AGE_MS) await this.fs.unlink(p);
      } catch {
        // Best effort: a leftover that cannot be removed now is tried again at the next update.
      }
    }
  }

  private async backup(bytes: Buffer, from: number): Promise<void> {
    let target = path.join(this.dir, `${this.name}.v${from}.bak.json`);
    try {
      const existing = await this.fs.readFile(target);
      if (existing.equals(bytes)) return;
      target = path.join(this.dir, `${this.name}.v${from}.${Date.now()}.bak.json`);
    } catch (e) {
      if (errCode(e) !== 'ENOENT') throw ioError('read', target, e);
    }
    await this.atomicWrite(target, bytes);
  }

  private async loadQuarantine(): Promise<{ kind: 'ok'; value: QuarantineFile } | { kind: 'unreadable'; why: string }> {
    let bytes: Buffer;
    try {
      const st = await this.fs.stat(this.quarantineFile);
      if (st.size > this.maxFileBytes) return { kind: 'unreadable', why: `${st.size} bytes, over the limit` };
      bytes = await this.fs.readFile(this.quarantineFile);
    } catch (e) {
      if (errCode(e) === 'ENOENT') return { kind: 'ok', value: { rows: [], reasons: [] } };
      throw ioError('read', this.quarantineFile, e);
    }
    let value: unknown;
    try {
      value = JSON.parse(stripBom(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)));
    } catch (e) {
      return { kind: 'unreadable', why: errText(e) };
    }
    if (!isRecord(value) || !Array.isArray(value.rows) || !Array.isArray(value.reasons)) {
      return { kind: 'unreadable', why: 'not { "rows": [...], "reasons": [...] }' };
    }
    return { kind: 'ok', value: { rows: value.rows, reasons: value.reasons.map(String) } };
  }

  private async appendQuarantine(items: QuarantinedRow[]): Promise<void> {
    const q = await this.loadQuarantine();
    let current: QuarantineFile = { rows: [], reasons: [] };
    if (q.kind === 'ok') {
      current = q.value;
    } else {
      // Keep a quarantine file someone broke by hand; a new one starts beside it.
      const aside = path.join(this.dir, `${this.name}.quarantine.unreadable-${Date.now()}.json`);
      await this.io('rename', `${this.quarantineFile} -> ${aside}`, () => this.fs.rename(this.quarantineFile, aside));
    }
    // Deep rows (thousands of levels) are kept verbatim too: no recursion in serializing them.
    const seen = new Set(current.rows.map((r) => stringifyDeep(r)));
    let added = 0;
    for (const { row, reason } of items) {
      const key = stringifyDeep(row);
      if (seen.has(key)) continue;
      seen.add(key);
      current.rows.push(row);
      current.reasons.push(reason);
      added++;
    }
    if (added === 0) return;
    await this.atomicWrite(this.quarantineFile, `${stringifyDeep(current, 2)}\n`);
  }

  /** Temp file in the same directory, write, fsync, rename over `target`, fsync the directory. */
  private async atomicWrite(target: string, data: Uint8Array | string): Promise<void> {
    const tmp = path.join(this.dir, `.${path.basename(target)}.${process.pid}.${randomBase36(8)}.tmp`);
    let handle: FileHandleSeam | undefined;
    let step = 'create temp file';
    try {
      handle = await this.fs.open(tmp, 'wx', 0o600);
      step = 'write temp file';
      await handle.writeFile(data);
      step = 'fsync temp file';
      await handle.sync();
      step = 'close temp file';
      const h = handle;
      handle = undefined;
      await h.close();
      step = 'rename temp file over';
      await this.fs.rename(tmp, target);
    } catch (e) {
      if (handle) await handle.close().catch(() => undefined);
      await this.fs.unlink(tmp).catch(() => undefined);
      throw new StoreError('io', target, `could not write ${target}: ${step} (${tmp}) failed: ${errText(e)}; ${path.basename(target)} is unchanged`, { cause: e });
    }
    await this.syncDir(target);
  }

  private async syncDir(target: string): Promise<void> {
    let handle: FileHandleSeam | undefined;
    try {
      handle = await this.fs.open(this.dir, 'r');
      await handle.sync();
    } catch (e) {
      // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
      const code = errCode(e);
      if (code === undefined || !DIR_FSYNC_UNSUPPORTED.has(code)) {
        throw new StoreError('io', target, `${target} was replaced but fsync of its directory ${this.dir} failed: ${errText(e)}; the change may not survive a power loss`, { cause: e });
      }
    } finally {
      if (handle) await handle.close().catch(() => undefined);
    }
  }

  private async io<T>(what: string, p: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw ioError(what, p, e);
    }
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const HEADER_BYTES = Buffer.from(`{"schemaVersion":${SCHEMA_VERSION},"rows":[\n`);
const SEPARATOR = Buffer.from(',\n');
const NEWLINE = Buffer.from('\n');
const EMPTY = Buffer.alloc(0);
const FOOTER_BYTES = Buffer.from(FOOTER);

/**
 * One row per line: `{"schemaVersion":1,"rows":[` ⏎ row,⏎ … row ⏎ `]}` (still one JSON value), from
 * lines that are already UTF-8: one copy of each line into the file's bytes.
 */
function encodeTableBytes(lines: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [HEADER_BYTES];
  lines.forEach((l, i) => {
    if (i > 0) parts.push(SEPARATOR);
    parts.push(l);
  });
  if (lines.length > 0) parts.push(NEWLINE);
  parts.push(FOOTER_BYTES);
  return Buffer.concat(parts);
}

/**
 * The version of a table file and either its row lines (the writer's layout: each line one row's
 * JSON, not parsed here) or, for any other layout, its parsed rows.
 */
function decodeTable(bytes: Buffer, file: string): { schemaVersion: number; raw?: unknown[]; spans?: Int32Array } {
  if (bytes.length === 0) throw corruptError(file, 'is empty');
  const laid = decodeLines(bytes);
  if (laid) {
    if (laid.schemaVersion > SCHEMA_VERSION) throw newerError(file, laid.schemaVersion);
    return laid;
  }
  let text: string;
  try {
    text = stripBom(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch (e) {
    throw corruptError(file, 'is not valid UTF-8', e);
  }
  return { ...parseText(text, bytes.length, file) };
}

function corruptError(file: string, why: string, cause?: unknown): StoreError {
  return new StoreError('corrupt', file, `${file} ${why}; it is left untouched and the table is read-only until a person repairs or removes it`, { cause });
}

function newerError(file: string, v: number): StoreError {
  return new StoreError(
    'newer',
    file,
    `${file} has schemaVersion ${v}, newer than this code's schemaVersion ${SCHEMA_VERSION} (a newer Life Thread wrote it); ` +
      'this process leaves it byte-identical and treats the table as read-only: update this window or the CLI',
  );
}

/** The rows of a file in the writer's layout whose lines turned out not to be JSON one by one. */
function parseAll(bytes: Buffer, file: string): unknown[] {
  const text = stripBom(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  return parseText(text, bytes.length, file).raw;
}

function parseText(text: string, size: number, file: string): { schemaVersion: number; raw: unknown[] } {
  const shape = (field: string, why: string): StoreError =>
    new StoreError('shape', file, `${file}: ${field} ${why}; it is left untouched and the table is read-only until a person repairs it`);
  if (/^\0+$/.test(text)) throw corruptError(file, `is filled with NUL bytes (${size} bytes; typical of a crash during a non-atomic write)`);
  if (text.trim() === '') throw corruptError(file, 'holds only whitespace');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw corruptError(file, `is not valid JSON (${errText(e)})`, e);
  }
  if (!isRecord(value)) throw shape('the top level', 'must be an object { "schemaVersion": N, "rows": [...] }');
  if (!Object.hasOwn(value, 'schemaVersion')) throw shape('schemaVersion', 'is missing');
  const v = value.schemaVersion;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw shape('schemaVersion', `must be a non-negative integer, found ${JSON.stringify(v)}`);
  if (v > SCHEMA_VERSION) throw newerError(file, v);
  if (!Object.hasOwn(value, 'rows')) throw shape('rows', 'is missing');
  const rows = value.rows;
  if (!Array.isArray(rows)) throw shape('rows', `must be an array, found ${rows === null ? 'null' : typeof rows}`);
  const extra = Object.keys(value).find((k) => k !== 'schemaVersion' && k !== 'rows');
  if (extra !== undefined) throw shape(JSON.stringify(extra), 'is not a known top-level key (only "schemaVersion" and "rows")');
  return { schemaVersion: v, raw: rows };
}

/**
 * The writer's layout, or undefined when the file has another (hand-edited) one: the byte offsets of
 * each row's line (without its trailing comma). Lines are neither decoded nor parsed here; a line that
 * is not valid UTF-8 or JSON is found when it is parsed.
 */
function decodeLines(bytes: Buffer): { schemaVersion: number; spans: Int32Array } | undefined {
  const head = HEADER_RE.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!head) return undefined;
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 32 || bytes[end - 1] === 10 || bytes[end - 1] === 13 || bytes[end - 1] === 9)) end--;
  if (bytes[end - 1] !== 125 /* } */ || bytes[end - 2] !== 93 /* ] */ || bytes[end - 3] !== 10) return undefined;
  const bodyEnd = end - 3;
  const spans: number[] = [];
  let pos = head[0].length;
  while (pos < bodyEnd) {
    let nl = bytes.indexOf(10, pos);
    if (nl < 0 || nl > bodyEnd) nl = bodyEnd;
    let lineEnd = nl;
    if (nl !== bodyEnd) {
      if (bytes[lineEnd - 1] !== 44 /* , */) return undefined;
      lineEnd--;
    }
    if (bytes[pos] !== 123 /* { */ || bytes[lineEnd - 1] !== 125 /* } */) return undefined;
    spans.push(pos, lineEnd);
    pos = nl + 1;
  }
  return { schemaVersion: Number(head[1]), spans: Int32Array.from(spans) };
}

function validateRows<Row extends { id: string }>(raw: unknown[], schema: RowSchema<Row>): { rows: Row[]; quarantined: QuarantinedRow[] } {
  const rows: Row[] = [];
  const quarantined: QuarantinedRow[] = [];
  const seen = new Map<string, number>();
  raw.forEach((row, i) => {
    const label = rowLabel(row, i);
    const bad = findForbiddenKey(row);
    if (bad) {
      quarantined.push({ row, reason: `${label}: ${bad}` });
      return;
    }
    const parsed = schema.safeParse(row);
    if (!parsed.success) {
      quarantined.push({ row, reason: `${label}: ${formatIssues(parsed.error.issues)}` });
      return;
    }
    const first = seen.get(parsed.data.id);
    if (first !== undefined) {
      quarantined.push({ row, reason: `${label}: id: duplicate of rows[${first}], which is kept` });
      return;
    }
    seen.set(parsed.data.id, i);
    rows.push(parsed.data);
  });
  return { rows, quarantined };
}

/** Names a key that could reach an object's prototype if some later code merged the row. */
function findForbiddenKey(value: unknown, at = '', depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_ROW_DEPTH) return `${at || '(row)'}: nested deeper than ${MAX_ROW_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenKey(value[i], `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const p = at ? `${at}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) return `${p}: forbidden key (it could alter an object prototype)`;
    const found = findForbiddenKey((value as Record<string, unknown>)[key], p, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function formatIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(row)'}: ${i.message}`);
  if (issues.length > 3) shown.push(`and ${issues.length - 3} more`);
  return shown.join('; ');
}

function rowLabel(row: unknown, i: number): string {
  if (isRecord(row) && Object.hasOwn(row, 'id') && typeof row.id === 'string') {
    return `rows[${i}] (id ${JSON.stringify(row.id.slice(0, 60))})`;
  }
  return `rows[${i}]`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
}

function digest(data: string | Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

function tooLarge(file: string, size: number, max: number): StoreError {
  return new StoreError('too_large', file, `${file} is ${size} bytes, over the ${max}-byte limit; refused before parsing and left untouched`);
}

function ioError(what: string, p: string, e: unknown): StoreError {
  return new StoreError('io', p, `could not ${what} ${p}: ${errText(e)}`, { cause: e });
}

function errCode(e: unknown): string | undefined {
  return isRecord(e) && typeof e.code === 'string' ? e.code : undefined;
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Records a dispatcher pass: `reminders.tick` holds the ISO time and gets a fresh mtime. */
export async function touchPulse(dir: string, fs: FsSeam = nodeFs, now: Date = new Date()): Promise<void> {
  const file = path.join(dir, PULSE_FILE);
  try {
    await fs.mkdir(dir);
    await fs.writeFile(file, `${now.toISOString()}\n`);
  } catch (e) {
    throw ioError('write', file, e);
  }
}

/** The last pass: the time written in the pulse file, else its mtime; null when there is none. */
export async function readPulse(dir: string, fs: FsSeam = nodeFs): Promise<Date | null> {
  const file = path.join(dir, PULSE_FILE);
  let mtime: Date;
  try {
    mtime = (await fs.stat(file)).mtime;
  } catch (e) {
    if (errCode(e) === 'ENOENT') return null;
    throw ioError('stat', file, e);
  }
  try {
    const text = (await fs.readFile(file)).toString('utf8').trim();
    const t = Date.parse(text);
    if (/^\d{4}-\d\d-\d\dT/.test(text) && Number.isFinite(t)) return new Date(t);
  } catch {
    // A torn or unreadable pulse still has a usable mtime.
  }
  return mtime;
}

/** One version of a file: a new inode per atomic write, plus size and mtime against inode reuse. */
function statKey(st: StatSeam): string {
  return `${st.ino ?? 0}:${st.size}:${st.mtimeMs}`;
}
