/**
 * The digest a writer leaves beside a table (`.<table>.json.sum`: the SHA-1 of the bytes it wrote). A
 * reader that finds it matching knows every row was validated by the writer and skips validating
 * them. Writes that follow each other within a second (a dispatcher claiming and settling rows)
 * leave it to a timer, so a burst hashes the table once; until then the digest names an older
 * version and matches nothing, which only means a reader validates the rows itself. A process that
 * exits first writes it before it goes. Best effort, outside the fault seam: a missing or stale
 * digest costs validation, never correctness.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { tempName } from './files';

/** A write this soon after the previous one leaves its digest to a timer (one digest per burst of writes). */
const SUM_BURST_MS = 1000;
/** Digests still to write: written before the process exits. */
const pending = new Set<TableDigest<unknown>>();
let exitHooked = false;

/** What the digest needs of its table. */
export interface DigestOwner<V> {
  /** Whether `v` is still the version the table knows (only its digest is worth writing). */
  isKnown(v: V): boolean;
  /** The file on disk, if it still holds exactly `v`'s bytes: their digest; else undefined. */
  digestIfUnchanged(v: V): Promise<string | undefined>;
}

export class TableDigest<V> {
  private lastWriteAt = -Infinity;
  private unsummed: V | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dir: string,
    readonly file: string,
    private readonly owner: DigestOwner<V>,
  ) {}

  /** After a write of `version`: its digest now, or after the burst. */
  async afterWrite(version: V): Promise<void> {
    const now = Date.now();
    const burst = now - this.lastWriteAt < SUM_BURST_MS;
    this.lastWriteAt = now;
    this.unsummed = version;
    if (!burst && !this.timer) {
      await this.flush();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), SUM_BURST_MS);
    this.timer.unref();
    pending.add(this as TableDigest<unknown>);
    if (!exitHooked) {
      exitHooked = true;
      process.on('beforeExit', () => {
        for (const t of [...pending]) void t.flush();
      });
    }
  }

  /** Writes the digest of the version this process last wrote, if the file still holds it. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    pending.delete(this as TableDigest<unknown>);
    const v = this.unsummed;
    this.unsummed = undefined;
    if (v === undefined || !this.owner.isKnown(v)) return;
    let sum: string | undefined;
    try {
      // Another writer since then left its own digest; and a version no longer known may be overwritten.
      sum = await this.owner.digestIfUnchanged(v);
    } catch {
      return;
    }
    if (sum) this.write(sum);
  }

  /** The digest file's content, read synchronously: it is 41 bytes and read only when many lines are new. */
  read(): string | undefined {
    try {
      return readFileSync(this.file, 'utf8').trim();
    } catch {
      return undefined;
    }
  }

  /** Writes `sum` at once (41 bytes, synchronously). */
  write(sum: string): void {
    const tmp = tempName(this.dir, this.file);
    try {
      writeFileSync(tmp, `${sum}\n`);
      renameSync(tmp, this.file);
    } catch {
      for (const f of [tmp, this.file]) {
        try {
          unlinkSync(f);
        } catch {
          // gone already
        }
      }
    }
  }
}
