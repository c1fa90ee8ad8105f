/**
 * A durable JSON table (`reminders.json`, `schedule-commands.json`, `wakes.json`, `feed.json`):
 * `{ "schemaVersion": N, "rows": [...] }` in the store directory, read without a lock, changed only
 * under the table's cross-process lock (../lock.ts) with an atomic write (./files.ts). Bad rows are
 * quarantined beside the table (./quarantine.ts); a file that cannot be read is never touched
 * (./codec.ts, ./errors.ts). The version a process remembers (./lines.ts) and the writer's digest
 * (./digest.ts) keep a 10,000-row table from being re-validated or re-serialized for one changed row.
 * README "The store" says what a person sees of it.
 */
import * as path from 'node:path';
import { SCHEMA_VERSION, TABLE_MIGRATIONS } from '../../core/schema';
import { nodeFs, type FsSeam } from '../fs-seam';
import { acquireLock, LockTimeout, type HeldLock } from '../lock';
import { decodeTable, digest, encodeTableBytes, parseAll } from './codec';
import { TableDigest } from './digest';
import { errCode, errText, ioError, StoreError, tooLarge } from './errors';
import { atomicWrite, backupBeforeMigration, cleanStrayTemps } from './files';
import { appendLine, lineOf, readLines, spliceRows, type Version, type Written } from './lines';
import { migrateRows, type Migration } from './migrate';
import { appendQuarantine, loadQuarantine, type QuarantineFile, type QuarantinePlace } from './quarantine';
import { checkOneRow, checkOutgoingRows, deepFreeze, rowLabel, validateRows, type QuarantinedRow, type RowSchema } from './rows';

export type TableName = 'reminders' | 'schedule-commands' | 'wakes' | 'feed';

export const DEFAULT_LOCK_WAIT_MS = 10_000;
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Where the tables' locks live (README "How the lock works"). */
export const LOCKS_DIR = '.locks';

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

export interface TableSnapshot<Row> {
  rows: Row[];
  /** Rows of the table file that failed validation; they move to the quarantine file at the next write. */
  quarantined: QuarantinedRow[];
  /** The version of the file on disk (rows are already migrated to the code's version). */
  schemaVersion: number;
  state: 'ok' | 'missing';
}

/** Work done under a table's lock right after its change was written (it must not throw for the write's sake). */
export type AfterWrite<T> = (result: T) => Promise<void>;

export interface UpdateResult<Row, T> {
  rows: Row[];
  result: T;
}

/** One version of the table as read: valid rows (frozen) with their lines, and what failed. */
interface Loaded<Row> {
  state: 'ok' | 'missing';
  schemaVersion: number;
  rows: Row[];
  quarantined: QuarantinedRow[];
  /** The file as read, kept only when a migration must back it up. */
  bytes?: Buffer;
  /** The version these rows come from (current schema only). */
  from?: Version<Row>;
}

/** What a lock-free run of an update's function saw and answered. */
interface Seen<Row, T> {
  version: Version<Row>;
  out: UpdateResult<Row, T>;
}

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
  /**
   * The version of the file this process last read or wrote: its bytes, the rows it holds and where
   * each row's line stands. A read that finds the very same bytes (compared in full, not by stat,
   * so a rewrite in the same mtime tick with the same size is seen) reuses the rows; a read of a
   * changed file matches its lines against these in place, so only changed lines are parsed; a write
   * that changed a few rows splices their lines into these bytes.
   */
  private known: Version<Row> | undefined;
  /** Reused for reading the table, so a read that finds the file unchanged allocates nothing. */
  private scratch: Buffer = Buffer.alloc(0);
  private scratchBusy = false;
  /**
   * The allocation of a version this table wrote earlier and no longer knows: the next write is
   * assembled into it (allocating 3 MB for each write of a 10,000-row table costs more than copying).
   */
  private spare: Buffer | undefined;
  private readonly digest: TableDigest<Version<Row>>;
  private readonly quarantinePlace: QuarantinePlace;
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
    this.migrations = { ...TABLE_MIGRATIONS, ...opts.migrations };
    this.digest = new TableDigest(this.dir, this.sumFile, {
      isKnown: (v) => this.known === v,
      digestIfUnchanged: (v) => this.withBytes(v.bytes.length, (onDisk) => (this.known === v && onDisk.equals(v.bytes) ? digest(v.bytes) : undefined)),
    });
    this.quarantinePlace = { fs: this.fs, dir: this.dir, name: this.name, file: this.quarantineFile, maxFileBytes: this.maxFileBytes };
  }

  /** Reads the table without the lock. Throws StoreError when the file cannot be used. */
  async read(): Promise<TableSnapshot<Row>> {
    const loaded = await this.load(false);
    return { rows: loaded.rows.slice(), quarantined: loaded.quarantined, schemaVersion: loaded.schemaVersion, state: loaded.state };
  }

  /**
   * The valid rows as `read` finds them, without a copy: while the file is unchanged this is the
   * same array each time (callers must not change it).
   */
  async rows(): Promise<readonly Row[]> {
    return (await this.load(false)).rows;
  }

  /** The rows already moved aside, as written at earlier updates. */
  async readQuarantine(): Promise<QuarantineFile> {
    const q = await loadQuarantine(this.quarantinePlace);
    return q.kind === 'ok' ? q.value : { rows: [], reasons: [] };
  }

  /**
   * Re-reads the table under the cross-process lock, calls `fn` with the valid rows (frozen: return
   * new row objects), validates what it returns and writes it atomically. Invalid rows found in the
   * file move to the quarantine file at this write. Returning the very same array unchanged skips the
   * write. A table that is corrupt, newer or of a wrong shape is left byte-identical and the error
   * propagates. `after` runs once the change is written, still under this table's lock (another
   * table's lock may be taken there, in a fixed order: schedule-commands before wakes).
   */
  async update<T>(fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>, after?: AfterWrite<T>): Promise<T> {
    return this.locked((lock) => this.updateLocked(lock, fn, undefined, after));
  }

  /**
   * An update for work that is usually absent (a dispatcher's idle pass): `fn` first runs on a
   * lock-free read, and when it changes nothing its result is returned without taking the lock, so an
   * idle pass writes nothing. Otherwise this is `update(fn)`: `fn` runs again on the rows read under
   * the lock, so it must be pure — unless the file under the lock is byte for byte the version `fn`
   * has just seen, whose answer is then taken as it is.
   */
  async maybeUpdate<T>(fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>, after?: AfterWrite<T>): Promise<T> {
    const loaded = await this.load(false);
    let seen: Seen<Row, T> | undefined;
    if (loaded.state === 'ok' && loaded.schemaVersion === SCHEMA_VERSION) {
      const rows = loaded.rows.slice();
      const before = rows.slice();
      const out = await fn(rows);
      if (out.rows === rows && sameElements(rows, before)) return out.result;
      if (loaded.from?.clean) seen = { version: loaded.from, out };
    }
    return this.locked((lock) => this.updateLocked(lock, fn, seen, after));
  }

  /**
   * Adds one row. When the file is exactly as a writer of this code left it (its digest matches), the
   * line is spliced in without parsing the other rows; otherwise this is an update.
   */
  async append(row: Row): Promise<void> {
    const [valid] = this.checkOutgoing([row], new WeakSet());
    if (!valid) return;
    await this.locked(async (lock) => {
      if (!this.known && (await this.spliceIn(lock, valid))) return;
      await this.updateLocked(lock, (rows) => ({ rows: [...rows, valid], result: undefined }));
    });
  }

  private async locked<T>(work: (lock: HeldLock) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      await this.fs.mkdir(this.dir).catch((e: unknown) => {
        throw ioError('create the store directory', this.dir, e);
      });
      let lock: HeldLock;
      try {
        lock = await acquireLock(this.lockFile, { waitMs: this.lockWaitMs });
      } catch (e) {
        if (e instanceof LockTimeout) throw new StoreError('lock', this.lockFile, `${e.message}; nothing was changed in ${this.file}`, { cause: e });
        throw ioError('take the lock', this.lockFile, e);
      }
      try {
        await cleanStrayTemps(this.fs, this.dir, [`.${this.name}.`, `.${path.basename(this.sumFile)}.`]);
        return await work(lock);
      } finally {
        await lock.release();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async updateLocked<T>(lock: HeldLock, fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>, seen?: Seen<Row, T>, after?: AfterWrite<T>): Promise<T> {
    const loaded = await this.load(true);
    const migrated = loaded.state === 'ok' && loaded.schemaVersion < SCHEMA_VERSION;
    let out: UpdateResult<Row, T>;
    if (seen && loaded.from === seen.version) {
      // The very bytes the lock-free run saw: its answer stands (fn is pure).
      out = seen.out;
    } else {
      const rows = loaded.rows.slice();
      const before = rows.slice();
      out = await fn(rows);
      if (typeof out !== 'object' || out === null || !Array.isArray(out.rows)) {
        throw new StoreError('shape', this.file, `refusing to write ${this.file}: the update did not return { rows: [...], result }; nothing written`);
      }
      const unchanged = out.rows === rows && sameElements(rows, before);
      if (unchanged && loaded.state === 'ok' && !migrated) return out.result;
    }

    const base = !migrated && loaded.from?.clean ? loaded.from : undefined;
    let written = base ? spliceRows(base, out.rows, (row, i) => this.checkRow(row, i), (parts) => this.assemble(parts)) : undefined;
    if (!written) {
      const next = this.checkOutgoing(out.rows, new WeakSet<object>(loaded.rows));
      const { parts, spans } = encodeTableBytes(next.map((r) => lineOf(r, loaded.from)));
      written = { rows: next, spans, ...this.assemble(parts) };
    }
    const size = written.text.length;
    if (size > this.maxFileBytes) {
      throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${size} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
    }
    if (migrated && loaded.bytes) await backupBeforeMigration(this.fs, this.dir, this.name, loaded.bytes, loaded.schemaVersion);
    if (loaded.quarantined.length > 0) await appendQuarantine(this.quarantinePlace, loaded.quarantined);
    await this.commit(lock, written);
    if (after) await after(out.result);
    return out.result;
  }

  /** `parts` copied into one buffer: the spare allocation when it is large enough. */
  private assemble(parts: readonly Buffer[]): { text: Buffer; own: Buffer } {
    let total = 0;
    for (const p of parts) total += p.length;
    let own = this.spare;
    this.spare = undefined;
    if (!own || own.length < total) own = Buffer.allocUnsafeSlow(total + (total >> 3) + 4096);
    let at = 0;
    for (const p of parts) at += p.copy(own, at);
    return { text: own.subarray(0, total), own };
  }

  /** Writes the table (the lock checked first), then its digest, and remembers the version. */
  private async commit(lock: HeldLock, written: Written<Row>): Promise<void> {
    try {
      await this.assertHeld(lock);
      await atomicWrite(this.fs, this.dir, this.file, written.text);
    } catch (e) {
      this.spare = written.own;
      throw e;
    }
    const old = this.known;
    const version: Version<Row> = { bytes: written.text, rows: written.rows, spans: written.spans, clean: true, own: written.own };
    this.known = version;
    // Nothing reads the bytes of a version once it is no longer known: its allocation is the next write's.
    if (old?.own && old.own !== written.own) this.spare = old.own;
    await this.digest.afterWrite(version);
  }

  /** Writes the digest of the version this process last wrote now (a burst leaves it to a timer). */
  flushSum(): Promise<void> {
    return this.digest.flush();
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
    const text = appendLine(bytes, row, () => this.digest.read());
    if (!text) return false;
    if (text.length > this.maxFileBytes) {
      throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${text.length} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
    }
    await this.assertHeld(lock);
    await atomicWrite(this.fs, this.dir, this.file, text);
    this.digest.write(digest(text));
    return true;
  }

  /**
   * The file read into the reused buffer, handed to `use` (synchronously: the view is overwritten by
   * the next read); a read while another is in flight gets a buffer of its own, and so does a seam
   * that cannot read into one.
   */
  private async withBytes<T>(size: number, use: (view: Buffer, owned: boolean) => T): Promise<T> {
    if (!this.fs.readInto) return use(await this.fs.readFile(this.file), true);
    if (this.scratchBusy) return use(await this.fs.readInto(this.file, Buffer.allocUnsafeSlow(size + 4096), size), true);
    this.scratchBusy = true;
    try {
      if (this.scratch.length < size + 1) this.scratch = Buffer.allocUnsafeSlow(size + (size >> 2) + 4096);
      const view = await this.fs.readInto(this.file, this.scratch, size);
      return use(view, view.buffer !== this.scratch.buffer);
    } finally {
      this.scratchBusy = false;
    }
  }

  private async load(forWrite: boolean): Promise<Loaded<Row>> {
    let size: number;
    try {
      const st = await this.fs.stat(this.file);
      if (st.isDirectory()) throw new StoreError('corrupt', this.file, `${this.file} is a directory, not a table file; the store is read-only until a person fixes it`);
      size = st.size;
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (errCode(e) === 'ENOENT') return { state: 'missing', schemaVersion: SCHEMA_VERSION, rows: [], quarantined: [] };
      throw ioError('stat', this.file, e);
    }
    if (size > this.maxFileBytes) throw tooLarge(this.file, size, this.maxFileBytes);
    let read: Buffer | Version<Row>;
    try {
      read = await this.withBytes(size, (view, owned) => {
        if (view.length > this.maxFileBytes) throw tooLarge(this.file, view.length, this.maxFileBytes);
        // The same bytes as the version this process knows: its rows, nothing parsed.
        const known = this.known;
        if (known?.clean && view.equals(known.bytes)) return known;
        return owned ? view : Buffer.from(view);
      });
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (errCode(e) === 'ENOENT') return { state: 'missing', schemaVersion: SCHEMA_VERSION, rows: [], quarantined: [] };
      throw ioError('read', this.file, e);
    }
    if (!Buffer.isBuffer(read)) return { state: 'ok', schemaVersion: SCHEMA_VERSION, rows: read.rows, quarantined: [], from: read };
    const bytes = read;

    const decoded = decodeTable(bytes, this.file);
    const current = decoded.schemaVersion === SCHEMA_VERSION;
    let rows: Row[];
    let quarantined: QuarantinedRow[];
    let from: Version<Row> | undefined;
    const laid = current && decoded.spans ? readLines(decoded.spans, bytes, this.known, this.rowSchema, () => this.digest.read()) : undefined;
    if (laid) {
      ({ rows, quarantined } = laid);
      from = laid.version;
    } else {
      const raw = decoded.raw ?? parseAll(bytes, this.file);
      ({ rows, quarantined } = validateRows(migrateRows(this.file, decoded.schemaVersion, raw, this.migrations), this.rowSchema));
      for (const r of rows) deepFreeze(r);
      if (current) from = { bytes, rows, clean: quarantined.length === 0 };
    }
    if (from) this.known = from;
    return { state: 'ok', schemaVersion: decoded.schemaVersion, rows, quarantined, ...(from ? { from } : {}), ...(forWrite && !current ? { bytes } : {}) };
  }

  /** The rows an update returned, each valid and ids unique; refused (nothing written) otherwise. */
  private checkOutgoing(rows: unknown[], validated: WeakSet<object>): Row[] {
    return checkOutgoingRows(rows, validated, this.rowSchema, (i, row, why) => this.refuse(i, row, why));
  }

  private checkRow(row: unknown, i: number): Row {
    const checked = checkOneRow(row, this.rowSchema);
    return 'row' in checked ? checked.row : this.refuse(i, row, checked.why);
  }

  private refuse(i: number, row: unknown, why: string): never {
    throw new StoreError('shape', this.file, `refusing to write ${this.file}: the update produced an invalid row ${rowLabel(row, i)}: ${why}; nothing written`);
  }
}

function sameElements(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
