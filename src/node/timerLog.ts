/**
 * The OS timer's log, `<store>/logs/timer.log`: cron, systemd and launchd append every pass's output
 * to it, so a pass keeps it short — past 1 MiB it is cut to its last 256 KiB, in place (the shell that
 * started this pass holds it open for appending; a rename would leave this pass writing to a ghost).
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { TIMER_LOG } from '../core/service/timerUnits';

const MAX_BYTES = 1024 * 1024;
const KEEP_BYTES = 256 * 1024;

export async function trimTimerLog(storeDir: string, max = MAX_BYTES, keep = KEEP_BYTES): Promise<boolean> {
  const file = path.join(storeDir, TIMER_LOG);
  let handle: Awaited<ReturnType<typeof fsp.open>> | undefined;
  try {
    handle = await fsp.open(file, 'r+');
    const { size } = await handle.stat();
    if (size <= max) return false;
    const tail = Buffer.alloc(keep);
    const { bytesRead } = await handle.read(tail, 0, keep, size - keep);
    // Start at a whole line.
    const nl = tail.subarray(0, bytesRead).indexOf(10);
    const kept = Buffer.concat([Buffer.from(`[life-thread] the log passed ${max} bytes; older lines were removed\n`), tail.subarray(nl < 0 ? 0 : nl + 1, bytesRead)]);
    await handle.truncate(0);
    await handle.write(kept, 0, kept.length, 0);
    return true;
  } catch {
    // No log yet, or one that cannot be cut: the pass runs all the same.
    return false;
  } finally {
    await handle?.close();
  }
}
