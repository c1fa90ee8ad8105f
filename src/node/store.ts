/**
 * The durable JSON tables (design §2 "Store", §8): `{ "schemaVersion": N, "rows": [...] }` files in
 * the store directory, read without a lock, changed only under one cross-process lock per table
 * with an atomic write (temp file in the same directory, fsync, rename, fsync of the directory).
 * Bad rows are quarantined beside the table; a file that cannot be read is never touched.
 */
import * as fsCb from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import lockfile from 'proper-lockfile';
import type { z } from 'zod';
import { SCHEMA_VERSION } from '../core/schema';
import { nodeFs, type FileHandleSeam, type FsSeam, type StatSeam } from './fs-seam';
import { randomBase36 } from './ids';

export type TableName = 'reminders' | 'schedule-commands' | 'wakes';
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

export const DEFAULT_LOCK_STALE_MS = 10_000;
export const DEFAULT_LOCK_WAIT_MS = 10_000;
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Temp files older than this found under the lock are leftovers of a killed writer. */
export const STRAY_TEMP_AGE_MS = 60_000;
export const PULSE_FILE = 'reminders.tick';

/** Rewrites the rows of a file at version `from` into rows of version `from + 1`. */
export type Migration = (rows: unknown[]) => unknown[];

export interface TableOptions<Row> {
  dir: string;
  name: TableName;
  rowSchema: z.ZodType<Row>;
  fs?: FsSeam;
  /** proper-lockfile raises anything below 2000 ms to 2000 ms. */
  lockStaleMs?: number;
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

interface Loaded {
  state: 'ok' | 'missing';
  /** Identifies the file version read (see statKey). */
  key?: string;
  schemaVersion: number;
  rawRows: unknown[];
  bytes: Buffer | undefined;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_ROW_DEPTH = 32;
const DIR_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EPERM', 'EBADF', 'EACCES']);

export class Table<Row extends { id: string }> {
  readonly dir: string;
  readonly name: TableName;
  readonly file: string;
  readonly lockFile: string;
  readonly quarantineFile: string;
  /** Set when the lock was lost while held (event loop frozen past the stale limit). */
  lastLockCompromise: { at: Date; message: string } | undefined;

  private readonly rowSchema: z.ZodType<Row>;
  private readonly fs: FsSeam;
  private readonly lockStaleMs: number;
  private readonly lockWaitMs: number;
  private readonly maxFileBytes: number;
  private readonly migrations: Record<number, Migration>;
  /** The validated rows of the file version last read or written by this process: skips parse + validation. */
  private cache: { key: string; rows: Row[] } | undefined;

  constructor(opts: TableOptions<Row>) {
    this.dir = path.resolve(opts.dir);
    this.name = opts.name;
    this.file = path.join(this.dir, `${opts.name}.json`);
    this.lockFile = `${this.file}.lock`;
    this.quarantineFile = path.join(this.dir, `${opts.name}.quarantine.json`);
    this.rowSchema = opts.rowSchema;
    this.fs = opts.fs ?? nodeFs;
    this.lockStaleMs = opts.lockStaleMs ?? DEFAULT_LOCK_STALE_MS;
    this.lockWaitMs = opts.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.migrations = opts.migrations ?? {};
  }

  /** Reads the table without the lock. Throws StoreError when the file cannot be used. */
  async read(): Promise<TableSnapshot<Row>> {
    const cached = await this.cached();
    if (cached) return { rows: cached.slice(), quarantined: [], schemaVersion: SCHEMA_VERSION, state: 'ok' };
    const loaded = await this.load();
    if (loaded.state === 'missing') return { rows: [], quarantined: [], schemaVersion: SCHEMA_VERSION, state: 'missing' };
    const { rows, quarantined } = validateRows(this.migrate(loaded), this.rowSchema);
    for (const r of rows) deepFreeze(r);
    this.remember(loaded, rows, quarantined);
    return { rows: rows.slice(), quarantined, schemaVersion: loaded.schemaVersion, state: 'ok' };
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

  private remember(loaded: Loaded, rows: Row[], quarantined: QuarantinedRow[]): void {
    this.cache = loaded.state === 'ok' && loaded.key && loaded.schemaVersion === SCHEMA_VERSION && quarantined.length === 0 ? { key: loaded.key, rows } : undefined;
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
    await this.io('create the store directory', this.dir, () => this.fs.mkdir(this.dir));
    const lock = await this.acquire();
    try {
      await this.cleanStrayTemps();
      const hit = await this.cached();
      const loaded: Loaded = hit ? { state: 'ok', schemaVersion: SCHEMA_VERSION, rawRows: [], bytes: undefined } : await this.load();
      const migrated = loaded.state === 'ok' && loaded.schemaVersion < SCHEMA_VERSION;
      const { rows, quarantined } = hit ? { rows: hit.slice(), quarantined: [] } : validateRows(this.migrate(loaded), this.rowSchema);
      if (!hit) {
        for (const r of rows) deepFreeze(r);
        this.remember(loaded, rows.slice(), quarantined);
      }
      const validated = new WeakSet<object>(rows);
      const before = rows.slice();

      const out = await fn(rows);
      if (typeof out !== 'object' || out === null || !Array.isArray(out.rows)) {
        throw new StoreError('shape', this.file, `refusing to write ${this.file}: the update did not return { rows: [...], result }; nothing written`);
      }
      const unchanged = out.rows === rows && sameElements(rows, before);
      if (unchanged && loaded.state === 'ok' && !migrated) return out.result;

      const next = this.checkOutgoing(out.rows, validated);
      const text = `${JSON.stringify({ schemaVersion: SCHEMA_VERSION, rows: next }, null, 2)}\n`;
      const size = Buffer.byteLength(text);
      if (size > this.maxFileBytes) {
        throw new StoreError('too_large', this.file, `refusing to write ${this.file}: ${size} bytes would exceed the ${this.maxFileBytes}-byte limit; nothing written`);
      }
      if (migrated && loaded.bytes) {
        await lock.assertHeld();
        await this.backup(loaded.bytes, loaded.schemaVersion);
      }
      if (quarantined.length > 0) {
        await lock.assertHeld();
        await this.appendQuarantine(quarantined);
      }
      await lock.assertHeld();
      this.cache = undefined;
      await this.atomicWrite(this.file, text);
      for (const r of next) deepFreeze(r);
      try {
        this.cache = { key: statKey(await this.fs.stat(this.file)), rows: next };
      } catch {
        this.cache = undefined;
      }
      return out.result;
    } finally {
      await lock.release();
    }
  }

  private async load(): Promise<Loaded> {
    let size: number;
    let key: string;
    try {
      const st = await this.fs.stat(this.file);
      if (st.isDirectory()) throw new StoreError('corrupt', this.file, `${this.file} is a directory, not a table file; the store is read-only until a person fixes it`);
      size = st.size;
      key = statKey(st);
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (errCode(e) === 'ENOENT') return { state: 'missing', schemaVersion: SCHEMA_VERSION, rawRows: [], bytes: undefined };
      throw ioError('stat', this.file, e);
    }
    if (size > this.maxFileBytes) throw tooLarge(this.file, size, this.maxFileBytes);
    let bytes: Buffer;
    try {
      bytes = await this.fs.readFile(this.file);
    } catch (e) {
      if (errCode(e) === 'ENOENT') return { state: 'missing', schemaVersion: SCHEMA_VERSION, rawRows: [], bytes: undefined };
      throw ioError('read', this.file, e);
    }
    if (bytes.length > this.maxFileBytes) throw tooLarge(this.file, bytes.length, this.maxFileBytes);
    const { schemaVersion, rows } = decodeTable(bytes, this.file);
    return { state: 'ok', schemaVersion, rawRows: rows, bytes, key };
  }

  private migrate(loaded: Loaded): unknown[] {
    let rows = loaded.rawRows;
    for (let v = loaded.schemaVersion; v < SCHEMA_VERSION; v++) {
      const step = this.migrations[v];
      if (!step) {
        throw new StoreError('shape', this.file, `${this.file} has schemaVersion ${loaded.schemaVersion}, older than this code's ${SCHEMA_VERSION}, and there is no migration from version ${v}; the file is left untouched`);
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

  private async acquire(): Promise<HeldLock> {
    const deadline = Date.now() + this.lockWaitMs;
    let delay = 4;
    const held = new HeldLock(this.file, this.lockFile);
    for (;;) {
      try {
        const release = await lockfile.lock(this.file, {
          stale: this.lockStaleMs,
          realpath: false,
          retries: 0,
          lockfilePath: this.lockFile,
          fs: lockFs,
          // The default throws from a timer and would take the extension host down.
          onCompromised: (err: Error) => {
            held.compromised = err;
            this.lastLockCompromise = { at: new Date(), message: err.message };
          },
        });
        await held.taken(release);
        return held;
      } catch (e) {
        if (errCode(e) !== 'ELOCKED') throw ioError('take the lock', this.lockFile, e);
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new StoreError(
            'lock',
            this.lockFile,
            `could not obtain the lock on ${this.file} within ${this.lockWaitMs} ms: another window or the CLI holds ${this.lockFile}. ` +
              `A lock left by a killed process is taken over once it is older than ${this.lockStaleMs} ms.`,
            { cause: e },
          );
        }
        // Short jittered polls: a lock is held for milliseconds, and each poll is one mkdir and one stat.
        await sleep(Math.min(left, delay / 2 + Math.random() * delay));
        delay = Math.min(delay * 1.5, 16);
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
    const prefix = `.${this.name}.`;
    const now = Date.now();
    for (const n of names) {
      if (!n.startsWith(prefix) || !/\.\d+\.[a-z0-9]+\.tmp$/.test(n)) continue;
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
    const seen = new Set(current.rows.map((r) => JSON.stringify(r)));
    let added = 0;
    for (const { row, reason } of items) {
      const key = JSON.stringify(row);
      if (seen.has(key)) continue;
      seen.add(key);
      current.rows.push(row);
      current.reasons.push(reason);
      added++;
    }
    if (added === 0) return;
    await this.atomicWrite(this.quarantineFile, `${JSON.stringify(current, null, 2)}\n`);
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

/**
 * What proper-lockfile writes into the lock directory's mtime, seen through the `fs` it is given:
 * the refresh timer's `utimes` calls. A value is accepted while its `utimes` is in flight too.
 */
const lockMtimes = new Map<string, { confirmed: number; pending: Set<number> }>();

const lockFs = {
  mkdir: fsCb.mkdir,
  stat: fsCb.stat,
  rmdir: fsCb.rmdir,
  rmdirSync: fsCb.rmdirSync,
  realpath: fsCb.realpath,
  utimes(p: string, atime: Date, mtime: Date, cb: (err: NodeJS.ErrnoException | null) => void): void {
    const key = path.resolve(p);
    const rec = lockMtimes.get(key);
    const t = mtime.getTime();
    rec?.pending.add(t);
    fsCb.utimes(p, atime, mtime, (err) => {
      if (rec) {
        rec.pending.delete(t);
        if (!err) rec.confirmed = t;
      }
      cb(err);
    });
  },
};

class HeldLock {
  compromised: Error | undefined;
  private releaseFn: (() => Promise<void>) | undefined;
  private lostToOther = false;
  private record: { confirmed: number; pending: Set<number> } | undefined;

  constructor(
    private readonly file: string,
    private readonly lockFile: string,
  ) {}

  /** Called right after proper-lockfile created the lock directory. */
  async taken(release: () => Promise<void>): Promise<void> {
    this.releaseFn = release;
    // The refresh timer first runs stale/2 (at least 1 s) from now, so this stat sees our own mtime.
    let confirmed = Number.NaN;
    try {
      confirmed = (await fsp.stat(this.lockFile)).mtimeMs;
    } catch {
      // NaN matches nothing: the first check before a write reports the lock as lost.
    }
    this.record = { confirmed, pending: new Set() };
    lockMtimes.set(this.lockFile, this.record);
  }

  /**
   * Refuses to let a write go ahead when the lock is no longer ours. proper-lockfile reports a lost
   * lock only from its refresh timer, which a frozen event loop delays, so the lock directory's
   * mtime is compared with the one this process last gave it: another holder means another mtime.
   */
  async assertHeld(): Promise<void> {
    this.throwIfCompromised();
    const rec = this.record;
    let mtimeMs: number;
    try {
      mtimeMs = (await fsp.stat(this.lockFile)).mtimeMs;
    } catch (e) {
      this.lostToOther = true;
      throw this.lost(`the lock directory is gone: ${errText(e)}`);
    }
    // onCompromised may have run while the stat was in flight.
    this.throwIfCompromised();
    if (!rec) return;
    const near = (t: number): boolean => Math.abs(t - mtimeMs) < 0.5;
    if (near(rec.confirmed) || [...rec.pending].some(near)) return;
    this.lostToOther = true;
    throw this.lost('another process has taken it over');
  }

  async release(): Promise<void> {
    const release = this.releaseFn;
    this.releaseFn = undefined;
    // Removing a lock directory another process now owns would let a third one in.
    if (release && !this.lostToOther && !this.compromised) await release().catch(() => undefined);
    if (this.record && lockMtimes.get(this.lockFile) === this.record) lockMtimes.delete(this.lockFile);
  }

  private throwIfCompromised(): void {
    if (this.compromised) throw this.lost(this.compromised.message);
  }

  private lost(why: string): StoreError {
    return new StoreError(
      'lock',
      this.lockFile,
      `lost the lock on ${this.file} before writing (${why}); the event loop was probably frozen longer than the stale limit; nothing written`,
    );
  }
}

function decodeTable(bytes: Buffer, file: string): { schemaVersion: number; rows: unknown[] } {
  const corrupt = (why: string, cause?: unknown): StoreError =>
    new StoreError('corrupt', file, `${file} ${why}; it is left untouched and the table is read-only until a person repairs or removes it`, { cause });
  const shape = (field: string, why: string): StoreError =>
    new StoreError('shape', file, `${file}: ${field} ${why}; it is left untouched and the table is read-only until a person repairs it`);

  if (bytes.length === 0) throw corrupt('is empty');
  let text: string;
  try {
    text = stripBom(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes));
  } catch (e) {
    throw corrupt('is not valid UTF-8', e);
  }
  if (/^\0+$/.test(text)) throw corrupt(`is filled with NUL bytes (${bytes.length} bytes; typical of a crash during a non-atomic write)`);
  if (text.trim() === '') throw corrupt('holds only whitespace');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw corrupt(`is not valid JSON (${errText(e)})`, e);
  }
  if (!isRecord(value)) throw shape('the top level', 'must be an object { "schemaVersion": N, "rows": [...] }');
  if (!Object.hasOwn(value, 'schemaVersion')) throw shape('schemaVersion', 'is missing');
  const v = value.schemaVersion;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw shape('schemaVersion', `must be a non-negative integer, found ${JSON.stringify(v)}`);
  if (v > SCHEMA_VERSION) {
    throw new StoreError(
      'newer',
      file,
      `${file} has schemaVersion ${v}, newer than this code's schemaVersion ${SCHEMA_VERSION} (a newer Life Thread wrote it); ` +
        'this process leaves it byte-identical and treats the table as read-only: update this window or the CLI',
    );
  }
  if (!Object.hasOwn(value, 'rows')) throw shape('rows', 'is missing');
  const rows = value.rows;
  if (!Array.isArray(rows)) throw shape('rows', `must be an array, found ${rows === null ? 'null' : typeof rows}`);
  const extra = Object.keys(value).find((k) => k !== 'schemaVersion' && k !== 'rows');
  if (extra !== undefined) throw shape(JSON.stringify(extra), 'is not a known top-level key (only "schemaVersion" and "rows")');
  return { schemaVersion: v, rows };
}

function validateRows<Row extends { id: string }>(raw: unknown[], schema: z.ZodType<Row>): { rows: Row[]; quarantined: QuarantinedRow[] } {
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
