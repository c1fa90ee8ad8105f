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
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { stringifyDeep } from '../core/jsonText';
import { SCHEMA_VERSION, TABLE_MIGRATIONS } from '../core/schema';
import { nodeFs, type FileHandleSeam, type FsSeam } from './fs-seam';
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
/** The OS timer's own pulse (`dispatch --once --commands-only`): it runs commands only, so it never touches the windows'. */
export const TIMER_PULSE_FILE = 'timer.tick';
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
  schemaVersion: number;
  rows: Row[];
  quarantined: QuarantinedRow[];
  /** The file as read, kept only when a migration must back it up. */
  bytes?: Buffer;
  /** The version these rows come from (current schema only). */
  from?: Version<Row>;
}

/** A table as an update writes it: its bytes, its rows and where each row's line stands. */
interface Written<Row> {
  text: Buffer;
  rows: Row[];
  spans: Int32Array;
  /** The allocation `text` is a view of. */
  own: Buffer;
}

/** What a lock-free run of an update's function saw and answered. */
interface Seen<Row, T> {
  version: Version<Row>;
  out: UpdateResult<Row, T>;
}

/** One version of a table file as this process read or wrote it. */
interface Version<Row> {
  /** The file's bytes (owned: never a view of the read buffer). */
  bytes: Buffer;
  /** The valid rows, frozen; never mutated (a new version gets a new array). */
  rows: Row[];
  /** Start and end offset of each row's line in `bytes` (aligned with `rows`); absent for another layout. */
  spans?: Int32Array;
  /** The rows are the whole file: no line was quarantined and the schema is current. */
  clean: boolean;
  /** The allocation `bytes` is a view of, when this table made it (reused once the version is no longer known). */
  own?: Buffer;
  /** Row → its index, built when first needed. */
  index?: Map<object, number>;
  /** Line text → its row, built when first needed (lines that moved). */
  byLine?: Map<string, Row>;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_ROW_DEPTH = 32;
const DIR_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EPERM', 'EBADF', 'EACCES']);
const HEADER_RE = /^\{"schemaVersion":(\d{1,9}),"rows":\[\n/;
const FOOTER = ']}\n';
/** A write this soon after the previous one leaves its digest to a timer (one digest per burst of writes). */
const SUM_BURST_MS = 1000;
/** Tables with a digest still to write: written before the process exits. */
const pendingSums = new Set<{ flushSum(): Promise<void> }>();
let exitHooked = false;
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
  /** When this process last wrote the table, and the version whose digest is not written yet. */
  private lastWriteAt = -Infinity;
  private unsummed: Version<Row> | undefined;
  private sumTimer: NodeJS.Timeout | undefined;
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
   * the lock, so it must be pure — unless the file under the lock is byte for byte the version `fn`
   * has just seen, whose answer is then taken as it is.
   */
  async maybeUpdate<T>(fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>): Promise<T> {
    const loaded = await this.load(false);
    let seen: Seen<Row, T> | undefined;
    if (loaded.state === 'ok' && loaded.schemaVersion === SCHEMA_VERSION) {
      const rows = loaded.rows.slice();
      const before = rows.slice();
      const out = await fn(rows);
      if (out.rows === rows && sameElements(rows, before)) return out.result;
      if (loaded.from?.clean) seen = { version: loaded.from, out };
    }
    return this.locked((lock) => this.updateLocked(lock, fn, seen));
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

  private async updateLocked<T>(lock: HeldLock, fn: (rows: Row[]) => UpdateResult<Row, T> | Promise<UpdateResult<Row, T>>, seen?: Seen<Row, T>): Promise<T> {
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
    let written = base ? this.spliceRows(base, out.rows) : undefined;
    if (!written) {
      const next = this.checkOutgoing(out.rows, new WeakSet<object>(loaded.rows));
      const { parts, spans } = encodeTableBytes(next.map((r) => this.lineOf(r, loaded.from)));
      written = { rows: next, spans, ...this.assemble(parts) };
    }
    const size = written.text.length;
    if (size > this.maxFileBytes) {
      throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${size} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
    }
    if (migrated && loaded.bytes) await this.backup(loaded.bytes, loaded.schemaVersion);
    if (loaded.quarantined.length > 0) await this.appendQuarantine(loaded.quarantined);
    await this.commit(lock, written);
    return out.result;
  }

  /**
   * `out` as a change of `base` that only replaced rows in place (same id) and perhaps added rows at
   * the end — what claims, facts, heartbeats, moves and adds are: only those rows are validated and
   * serialized, and their lines spliced into base's bytes. Undefined for any other change (rows
   * removed, moved, renamed or duplicated), which takes the full path.
   */
  private spliceRows(base: Version<Row>, out: unknown[]): Written<Row> | undefined {
    const old = base.rows;
    const ks = base.spans;
    const n = old.length;
    if (!ks || n === 0 || out.length < n) return undefined;
    const rows = out.slice() as Row[];
    const changed: number[] = [];
    const lines: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      if (out[i] === old[i]) continue;
      const ok = this.checkRow(out[i], i);
      if (ok.id !== (old[i] as Row).id) return undefined;
      rows[i] = ok;
      changed.push(i);
      lines.push(Buffer.from(JSON.stringify(ok)));
    }
    const added = new Set<string>();
    for (let j = n; j < out.length; j++) {
      const ok = this.checkRow(out[j], j);
      // Only a real key holds `"id":"…"` unescaped: a match anywhere means the id is taken.
      if (added.has(ok.id) || base.bytes.includes(`"id":${JSON.stringify(ok.id)}`)) return undefined;
      added.add(ok.id);
      rows[j] = ok;
      lines.push(Buffer.from(JSON.stringify(ok)));
    }
    const parts: Buffer[] = [];
    const spans = new Int32Array(2 * rows.length);
    let pos = 0;
    let shift = 0;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const s = ks[2 * i] as number;
      const e = ks[2 * i + 1] as number;
      if (changed[c] === i) {
        const line = lines[c] as Buffer;
        parts.push(base.bytes.subarray(pos, s), line);
        pos = e;
        spans[2 * i] = s + shift;
        spans[2 * i + 1] = s + shift + line.length;
        shift += line.length - (e - s);
        c++;
      } else {
        spans[2 * i] = s + shift;
        spans[2 * i + 1] = e + shift;
      }
    }
    if (rows.length === n) {
      parts.push(base.bytes.subarray(pos));
    } else {
      const lastEnd = ks[2 * n - 1] as number;
      parts.push(base.bytes.subarray(pos, lastEnd));
      let at = lastEnd + shift;
      for (let j = n; j < rows.length; j++) {
        const line = lines[changed.length + j - n] as Buffer;
        parts.push(SEPARATOR, line);
        at += SEPARATOR.length;
        spans[2 * j] = at;
        spans[2 * j + 1] = at + line.length;
        at += line.length;
      }
      parts.push(NEWLINE, FOOTER_BYTES);
    }
    return { rows, spans, ...this.assemble(parts) };
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
      await this.atomicWrite(this.file, written.text);
    } catch (e) {
      this.spare = written.own;
      throw e;
    }
    const old = this.known;
    const version: Version<Row> = { bytes: written.text, rows: written.rows, spans: written.spans, clean: true, own: written.own };
    this.known = version;
    // Nothing reads the bytes of a version once it is no longer known: its allocation is the next write's.
    if (old?.own && old.own !== written.own) this.spare = old.own;
    await this.sumAfterWrite(version);
  }

  /**
   * The digest of a version just written. A write that follows another within SUM_BURST_MS (a
   * dispatcher claiming and settling rows) leaves it to a timer, so a burst of writes hashes the
   * table once; until then the digest file names an older version and matches nothing, which only
   * means a reader validates the rows itself. A process that exits first writes it before it goes.
   */
  private async sumAfterWrite(version: Version<Row>): Promise<void> {
    const now = Date.now();
    const burst = now - this.lastWriteAt < SUM_BURST_MS;
    this.lastWriteAt = now;
    this.unsummed = version;
    if (!burst && !this.sumTimer) {
      await this.flushSum();
      return;
    }
    if (this.sumTimer) return;
    this.sumTimer = setTimeout(() => void this.flushSum(), SUM_BURST_MS);
    this.sumTimer.unref();
    pendingSums.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('beforeExit', () => {
        for (const t of [...pendingSums]) void t.flushSum();
      });
    }
  }

  /** Writes the digest of the version this process last wrote, if the file still holds it. */
  async flushSum(): Promise<void> {
    if (this.sumTimer) clearTimeout(this.sumTimer);
    this.sumTimer = undefined;
    pendingSums.delete(this);
    const v = this.unsummed;
    this.unsummed = undefined;
    if (!v || this.known !== v) return;
    let sum: string | undefined;
    try {
      // Another writer since then left its own digest; and a version no longer known may be overwritten.
      sum = await this.withBytes(v.bytes.length, (onDisk) => (this.known === v && onDisk.equals(v.bytes) ? digest(v.bytes) : undefined));
    } catch {
      return;
    }
    if (sum) this.writeSum(sum);
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
    if (digest(bytes) !== this.sumSync()) return false;
    // Only a real key holds `"id":"…"` unescaped: a match anywhere means the id is taken.
    if (bytes.includes(`"id":${JSON.stringify(row.id)}`)) return false;
    const line = Buffer.from(JSON.stringify(row));
    const cut = bytes.length - FOOTER.length;
    const empty = cut === head[0].length;
    const text = Buffer.concat([bytes.subarray(0, empty ? cut : cut - 1), empty ? EMPTY : SEPARATOR, line, NEWLINE, FOOTER_BYTES]);
    if (text.length > this.maxFileBytes) {
      throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${text.length} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
    }
    await this.assertHeld(lock);
    await this.atomicWrite(this.file, text);
    this.writeSum(digest(text));
    return true;
  }

  /** A row's line: its bytes in the version it was read from, else its serialization. */
  private lineOf(row: Row, from: Version<Row> | undefined): Buffer {
    const spans = from?.spans;
    if (from && spans) {
      from.index ??= new Map(from.rows.map((r, i) => [r, i]));
      const i = from.index.get(row);
      if (i !== undefined) return from.bytes.subarray(spans[2 * i], spans[2 * i + 1]);
    }
    return Buffer.from(JSON.stringify(row));
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
    const laid = current && decoded.spans ? this.validateLines(decoded.spans, bytes) : undefined;
    if (laid) {
      ({ rows, quarantined } = laid);
      from = laid.version;
    } else {
      const raw = decoded.raw ?? parseAll(bytes, this.file);
      ({ rows, quarantined } = validateRows(this.migrate(decoded.schemaVersion, raw), this.rowSchema));
      for (const r of rows) deepFreeze(r);
      if (current) from = { bytes, rows, clean: quarantined.length === 0 };
    }
    if (from) this.known = from;
    return { state: 'ok', schemaVersion: decoded.schemaVersion, rows, quarantined, ...(from ? { from } : {}), ...(forWrite && !current ? { bytes } : {}) };
  }

  /**
   * Rows from the table's lines (`spans`: start and end offsets in `bytes`). A line that stands where
   * the same line stood in the version this process knows is its row; other lines are parsed and
   * validated — or only parsed when the file's digest says its writer validated them. Undefined when
   * a line is not JSON (then the whole file is parsed, and reported if it is not JSON either).
   */
  private validateLines(spans: Int32Array, bytes: Buffer): { rows: Row[]; quarantined: QuarantinedRow[]; version: Version<Row> } | undefined {
    const count = spans.length / 2;
    const known = this.known?.spans ? this.known : undefined;
    const kb = known?.bytes;
    const ks = known?.spans;
    const kn = known ? known.rows.length : 0;
    // 1: the line stands where the same line stood in the known version; 2: it does not.
    const state = new Uint8Array(count);
    const same = (i: number): boolean => {
      if (state[i] === 0) {
        const start = spans[2 * i] as number;
        const end = spans[2 * i + 1] as number;
        const k0 = ks?.[2 * i] as number;
        const k1 = ks?.[2 * i + 1] as number;
        state[i] = kb && i < kn && k1 - k0 === end - start && kb.compare(bytes, start, end, k0, k1) === 0 ? 1 : 2;
      }
      return state[i] === 1;
    };
    let fresh = 0;
    for (let i = 0; i < count && fresh < HASH_WORTH_LINES; i++) if (!same(i)) fresh++;
    // Many new lines: look moved lines up by text, and trust a file whose digest its writer left.
    const many = fresh >= HASH_WORTH_LINES;
    const trusted = many && digest(bytes) === this.sumSync();
    const rows: Row[] = [];
    const kept: number[] = [];
    const quarantined: QuarantinedRow[] = [];
    const seen = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const start = spans[2 * i] as number;
      const end = spans[2 * i + 1] as number;
      let row: Row | undefined;
      let value: unknown;
      if (same(i)) {
        row = (known as Version<Row>).rows[i] as Row;
        value = row;
      } else {
        let textLine: string;
        try {
          textLine = UTF8.decode(bytes.subarray(start, end));
        } catch {
          return undefined;
        }
        if (known && kb && ks && many) {
          known.byLine ??= new Map(known.rows.map((r, j) => [kb.toString('utf8', ks[2 * j], ks[2 * j + 1]), r]));
          row = known.byLine.get(textLine);
        }
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
      }
      const first = seen.get(row.id);
      if (first !== undefined) {
        quarantined.push({ row: value, reason: `${rowLabel(value, i)}: id: duplicate of rows[${first}], which is kept` });
        continue;
      }
      seen.set(row.id, i);
      kept.push(start, end);
      rows.push(row);
    }
    const version: Version<Row> = { bytes, rows, spans: Int32Array.from(kept), clean: quarantined.length === 0 };
    return { rows, quarantined, version };
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
    rows.forEach((row, i) => {
      // One of the frozen rows handed to fn, validated when read, or a new one.
      const ok = typeof row === 'object' && row !== null && validated.has(row) ? (row as Row) : this.checkRow(row, i);
      const first = seen.get(ok.id);
      if (first !== undefined) this.refuse(i, row, `id: duplicate of rows[${first}]`);
      seen.set(ok.id, i);
      out.push(ok);
    });
    return out;
  }

  /** A row an update returned, validated; refused (nothing written) when it is not a valid row. */
  private checkRow(row: unknown, i: number): Row {
    const bad = findForbiddenKey(row);
    if (bad) this.refuse(i, row, bad);
    const parsed = this.rowSchema.safeParse(row);
    if (!parsed.success) return this.refuse(i, row, formatIssues(parsed.error.issues));
    // Every row the table holds is frozen: the rows handed to the next update are these.
    deepFreeze(parsed.data);
    return parsed.data;
  }

  private refuse(i: number, row: unknown, why: string): never {
    throw new StoreError('shape', this.file, `refusing to write ${this.file}: the update produced an invalid row ${rowLabel(row, i)}: ${why}; nothing written`);
  }

  /** The digest file, read synchronously: it is 41 bytes and read only when many lines are new. */
  private sumSync(): string | undefined {
    try {
      return readFileSync(this.sumFile, 'utf8').trim();
    } catch {
      return undefined;
    }
  }

  /**
   * Best effort, outside the fault seam: a missing or stale digest only means the next reader
   * validates the rows itself. 41 bytes, written synchronously.
   */
  private writeSum(sum: string): void {
    const tmp = path.join(this.dir, `.${path.basename(this.sumFile)}.${process.pid}.${randomBase36(8)}.tmp`);
    try {
      writeFileSync(tmp, `${sum}\n`);
      renameSync(tmp, this.sumFile);
    } catch {
      for (const f of [tmp, this.sumFile]) {
        try {
          unlinkSync(f);
        } catch {
          // gone already
        }
      }
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
      value = JSON.parse(stripBom(UTF8.decode(bytes)));
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
 * lines that are already UTF-8: the parts to copy into the file's bytes, and where each line stands.
 */
function encodeTableBytes(lines: readonly Buffer[]): { parts: Buffer[]; spans: Int32Array } {
  const parts: Buffer[] = [HEADER_BYTES];
  const spans = new Int32Array(2 * lines.length);
  let at = HEADER_BYTES.length;
  lines.forEach((l, i) => {
    if (i > 0) {
      parts.push(SEPARATOR);
      at += SEPARATOR.length;
    }
    parts.push(l);
    spans[2 * i] = at;
    spans[2 * i + 1] = at + l.length;
    at += l.length;
  });
  if (lines.length > 0) parts.push(NEWLINE);
  parts.push(FOOTER_BYTES);
  return { parts, spans };
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
  return { ...parseText(decodeText(bytes, file), bytes.length, file) };
}

/** The whole file as text; bytes that are not UTF-8 (a flipped byte, another program's torn write) make it corrupt. */
function decodeText(bytes: Buffer, file: string): string {
  try {
    return stripBom(UTF8.decode(bytes));
  } catch (e) {
    throw corruptError(file, 'is not valid UTF-8', e);
  }
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
  return parseText(decodeText(bytes, file), bytes.length, file).raw;
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

/** Records a dispatcher pass: `reminders.tick` (or the timer's `timer.tick`) holds the ISO time and gets a fresh mtime. */
export async function touchPulse(dir: string, fs: FsSeam = nodeFs, now: Date = new Date(), name: string = PULSE_FILE): Promise<void> {
  const file = path.join(dir, name);
  try {
    await fs.mkdir(dir);
    await fs.writeFile(file, `${now.toISOString()}\n`);
  } catch (e) {
    throw ioError('write', file, e);
  }
}

/** The last pass: the time written in the pulse file, else its mtime; null when there is none. */
export async function readPulse(dir: string, fs: FsSeam = nodeFs, name: string = PULSE_FILE): Promise<Date | null> {
  const file = path.join(dir, name);
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
