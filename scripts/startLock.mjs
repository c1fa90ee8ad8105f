// The record of a running `npm start` (`.tools/start/running.json`): one IDE per checkout, because two
// would share one user-data dir (settings, store). A second start finds the first and says where it is.
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Claims `file` for this process: `{ claimed: true, publish(info), release(), stale }`, or `{ claimed: false, holder }`
 * when a live `npm start` holds it. A record whose process is gone (killed, crashed) or that does not parse is
 * replaced; `stale` is that record, if it parsed (its `serverPid` may have outlived it).
 */
export function claimStart(file) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }));
  let stale;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        // link() fails when the record exists: two starts at once cannot both claim it.
        linkSync(tmp, file);
        return { claimed: true, stale, publish: (info) => publish(file, info), release: () => release(file) };
      } catch (err) {
        if (err?.code !== 'EEXIST') throw err;
      }
      const holder = readRecord(file);
      if (holder && isStartProcess(holder.pid)) return { claimed: false, holder };
      stale = holder;
      rmSync(file, { force: true });
    }
    throw new Error(`cannot claim ${file}: it keeps reappearing`);
  } finally {
    rmSync(tmp, { force: true });
  }
}

function readRecord(file) {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    return r && Number.isInteger(r.pid) && r.pid > 0 ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live `npm start` other than this one (a recycled pid of another program is not). */
function isStartProcess(pid) {
  return pid !== process.pid && isLive(pid, (args) => args.some((a) => a.endsWith('start.mjs')));
}

/** Whether `pid` is a live process whose arguments pass `test`; without /proc (macOS) a live pid is taken at its word. */
export function isLive(pid, test) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err?.code !== 'EPERM') return false;
  }
  try {
    return test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
  } catch {
    return true;
  }
}

function publish(file, info) {
  const mine = readRecord(file);
  if (mine?.pid !== process.pid) return;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...mine, ...info }));
  renameSync(tmp, file);
}

function release(file) {
  if (readRecord(file)?.pid === process.pid) rmSync(file, { force: true });
}
