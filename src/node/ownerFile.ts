/**
 * The store's `owner.json`: the owner's zone as a VS Code window last decided it (src/core/time/ownerZone.ts),
 * so the CLI, `wait`, `run` and the MCP server read times in the zone the user's UI is in. Read fresh on
 * every use (the MCP server sees a change without a restart); written atomically, and only by a window.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { decideOwnerZone, OWNER_FILE, parseOwnerFile, type OwnerFile, type OwnerFileRead, type OwnerZone } from '../core/time/ownerZone';
import { systemZone } from '../core/time/zone';
import { writeFileAtomic } from './atomicFile';

/** More than any record needs: a bigger file is not one of ours and is not read whole. */
const MAX_BYTES = 4096;

export async function readOwnerFile(storeDir: string): Promise<OwnerFileRead> {
  let handle: Awaited<ReturnType<typeof fsp.open>> | undefined;
  try {
    handle = await fsp.open(join(storeDir, OWNER_FILE), 'r');
    const buf = Buffer.alloc(MAX_BYTES + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_BYTES) return { state: 'corrupt', problem: `${OWNER_FILE} is larger than ${MAX_BYTES} bytes` };
    return parseOwnerFile(buf.subarray(0, bytesRead).toString('utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'corrupt', problem: `${OWNER_FILE} cannot be read: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

export async function writeOwnerFile(storeDir: string, record: OwnerFile): Promise<void> {
  await writeFileAtomic(join(storeDir, OWNER_FILE), `${JSON.stringify(record)}\n`);
}

/** The zone of the CLI, `wait`, `run` and `mcp`: `--tz`, `LIFE_THREAD_TZ`, owner.json, the system zone. */
export async function zoneOutsideWindow(storeDir: string, flag: string | undefined, env: string | undefined): Promise<OwnerZone> {
  // An explicit zone needs no file; LIFE_THREAD_TZ reads it only to say whether a window's setting put it there.
  const owner: OwnerFileRead = flag !== undefined ? { state: 'missing' } : await readOwnerFile(storeDir);
  return decideOwnerZone({ surface: 'outside', flag, env, owner, system: systemZone() });
}
