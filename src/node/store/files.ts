/**
 * How the store writes a file: a temp file in the same directory, write, fsync, rename over the
 * target, fsync of the directory — so a reader sees the old file or the new one, never half of one,
 * and a crash leaves the old file intact. Temp files a killed writer left are removed later, under
 * the table's lock. Every call goes through the file-system seam, where tests inject disk faults.
 */
import * as path from 'node:path';
import type { FileHandleSeam, FsSeam } from '../fs-seam';
import { randomBase36 } from '../ids';
import { errCode, errText, ioError, StoreError } from './errors';

/** Temp files older than this found under the lock are leftovers of a killed writer. */
export const STRAY_TEMP_AGE_MS = 60_000;
const DIR_FSYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'ENOTSUP', 'EPERM', 'EBADF', 'EACCES']);

/** A temp file's name beside `target`: `.<name>.<pid>.<random>.tmp`. */
export function tempName(dir: string, target: string): string {
  return path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBase36(8)}.tmp`);
}

/** Temp file in the same directory, write, fsync, rename over `target`, fsync the directory. */
export async function atomicWrite(fs: FsSeam, dir: string, target: string, data: Uint8Array | string): Promise<void> {
  const tmp = tempName(dir, target);
  let handle: FileHandleSeam | undefined;
  let step = 'create temp file';
  try {
    handle = await fs.open(tmp, 'wx', 0o600);
    step = 'write temp file';
    await handle.writeFile(data);
    step = 'fsync temp file';
    await handle.sync();
    step = 'close temp file';
    const h = handle;
    handle = undefined;
    await h.close();
    step = 'rename temp file over';
    await fs.rename(tmp, target);
  } catch (e) {
    if (handle) await handle.close().catch(() => undefined);
    await fs.unlink(tmp).catch(() => undefined);
    throw new StoreError('io', target, `could not write ${target}: ${step} (${tmp}) failed: ${errText(e)}; ${path.basename(target)} is unchanged`, { cause: e });
  }
  await syncDir(fs, dir, target);
}

async function syncDir(fs: FsSeam, dir: string, target: string): Promise<void> {
  let handle: FileHandleSeam | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (e) {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
    const code = errCode(e);
    if (code === undefined || !DIR_FSYNC_UNSUPPORTED.has(code)) {
      throw new StoreError('io', target, `${target} was replaced but fsync of its directory ${dir} failed: ${errText(e)}; the change may not survive a power loss`, { cause: e });
    }
  } finally {
    if (handle) await handle.close().catch(() => undefined);
  }
}

/** Removes temp files older than STRAY_TEMP_AGE_MS whose names start with one of `prefixes`. */
export async function cleanStrayTemps(fs: FsSeam, dir: string, prefixes: readonly string[]): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const n of names) {
    if (!prefixes.some((p) => n.startsWith(p)) || !/\.\d+\.[a-z0-9]+\.tmp$/.test(n)) continue;
    const p = path.join(dir, n);
    try {
      const st = await fs.stat(p);
      if (now - st.mtimeMs > STRAY_TEMP_AGE_MS) await fs.unlink(p);
    } catch {
      // Best effort: a leftover that cannot be removed now is tried again at the next update.
    }
  }
}

/**
 * Keeps the bytes of a table about to be migrated as `<name>.v<from>.bak.json` (a second, different
 * file of the same version gets a timestamped name; the same bytes again are not written twice).
 */
export async function backupBeforeMigration(fs: FsSeam, dir: string, name: string, bytes: Buffer, from: number): Promise<void> {
  let target = path.join(dir, `${name}.v${from}.bak.json`);
  try {
    const existing = await fs.readFile(target);
    if (existing.equals(bytes)) return;
    target = path.join(dir, `${name}.v${from}.${Date.now()}.bak.json`);
  } catch (e) {
    if (errCode(e) !== 'ENOENT') throw ioError('read', target, e);
  }
  await atomicWrite(fs, dir, target, bytes);
}
