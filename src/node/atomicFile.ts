/** One atomic write for the small files beside the tables (state files, logs, topic files). */
import { promises as fsp } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBase36 } from './ids';

/**
 * Writes `target` so that a reader sees the old file or the new one, never a torn one: a temp file in
 * the same directory, fsync, rename over. The directory is created when missing. On failure the temp
 * file is removed and the error says the target is unchanged.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
  await fsp.mkdir(dirname(target), { recursive: true });
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBase36(8)}.tmp`);
  let handle: Awaited<ReturnType<typeof fsp.open>> | undefined;
  try {
    handle = await fsp.open(tmp, 'wx', opts.mode ?? 0o600);
    await handle.writeFile(data);
    await handle.sync();
    const h = handle;
    handle = undefined;
    await h.close();
    await fsp.rename(tmp, target);
  } catch (e) {
    if (handle) await handle.close().catch(() => undefined);
    await fsp.unlink(tmp).catch(() => undefined);
    throw new Error(`could not write ${target}: ${e instanceof Error ? e.message : String(e)}; it is unchanged`, { cause: e });
  }
}
