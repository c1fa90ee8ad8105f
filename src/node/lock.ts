/**
 * The cross-process lock of a table (README "How the lock works"): a live holder never loses it, so a
 * dispatcher frozen at any instruction (SIGSTOP, a closed laptop lid, a debugger) cannot be overtaken
 * and run a row twice. A lock is a numbered "epoch" file in `<store>/.locks/<table>/`; the highest
 * number is the lock's state. Taking the lock is one atomic `link()` of a complete record to the next
 * number, which fails for all but one contender, so there is no delete-then-create race between two
 * processes that both saw a dead holder. A holder is dead when its process is gone (pid, boot and
 * start time on this host), never because the lock is old; a holder on another host (a network file
 * system) or in another PID namespace (a sandbox, whose pids this process cannot see) is judged by age only.
 *
 * The lock's files are a few hundred bytes in a local folder, so they are read and written with
 * synchronous calls: each takes microseconds, where a trip through the thread pool costs a
 * dispatcher far more CPU than the call itself. The functions stay async for their callers.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBase36 } from './ids';

export interface LockRecord {
  state: 'held' | 'free';
  token: string;
  pid: number;
  host: string;
  /** Linux boot id: a record from before a reboot names a process that is gone. */
  boot?: string;
  /** Linux start time of the process (clock ticks since boot): tells a reused pid apart. */
  start?: string;
  /** Linux PID namespace (`pid:[<inode>]`): a pid means something only inside its own namespace. */
  pidns?: string;
  at: string;
}

export interface LockOptions {
  /** How long to wait for a live holder before giving up. */
  waitMs: number;
  /** A holder on another host or PID namespace is taken as gone after this long (its pid cannot be checked). */
  foreignStaleMs?: number;
}

export class LockTimeout extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockRecord | undefined,
    waitMs: number,
  ) {
    const who = holder ? `process ${holder.pid} on ${holder.host} has held it since ${holder.at}` : 'another process holds it';
    super(`could not obtain the lock ${dir} within ${waitMs} ms: ${who} and is still alive (a stopped or busy process keeps its lock)`);
    this.name = 'LockTimeout';
  }
}

/** Epoch files older than the holder's minus this many are removed when the lock is taken. */
const KEEP_EPOCHS = 16;
const STRAY_TMP_MS = 60_000;
const DEFAULT_FOREIGN_STALE_MS = 60_000;
const EPOCH_RE = /^\d{1,15}$/;

const self = identity();
/** Tokens this process holds now: a record of ours that is not here was leaked by a failed release. */
const liveTokens = new Set<string>();

/** The identity a lock, a claim or an owner records for a process. */
interface ProcessIdentity {
  pid: number;
  host: string;
  boot?: string;
  start?: string;
  pidns?: string;
}

function identity(): ProcessIdentity {
  const id: ProcessIdentity = { pid: process.pid, host: hostname() };
  const boot = readText('/proc/sys/kernel/random/boot_id');
  if (boot) id.boot = boot.trim();
  const start = processStart(process.pid);
  if (start) id.start = start;
  const pidns = tryOr<string | undefined>(() => readlinkSync('/proc/self/ns/pid'), undefined);
  if (pidns) id.pidns = pidns;
  return id;
}

/**
 * Whether this process can check a pid recorded by `p`: same host and, when both sides know it, the
 * same PID namespace. A record without a namespace (written before it was recorded, or off Linux) is
 * checked by pid as before.
 */
export function pidVisible(p: { host?: string; pidns?: string }): boolean {
  if (p.host !== self.host) return false;
  return p.pidns === undefined || self.pidns === undefined || p.pidns === self.pidns;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
function procStat(pid: number): { state: string; start: string } | undefined {
  const text = readText(`/proc/${pid}/stat`);
  if (!text) return undefined;
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const start = rest[19];
  return state && start ? { state, start } : undefined;
}

function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/** Whether the process that wrote `rec` still runs. A stopped process is alive. */
export function holderAlive(rec: LockRecord, now = Date.now(), foreignStaleMs = DEFAULT_FOREIGN_STALE_MS): boolean {
  if (!pidVisible(rec)) return now - Date.parse(rec.at) < foreignStaleMs;
  if (rec.pid === self.pid && (rec.start === undefined || rec.start === self.start)) return liveTokens.has(rec.token);
  return processAlive(rec.pid, rec.boot, rec.start);
}

/** A process on this host, identified by pid and, on Linux, boot id and start time. */
export function processAlive(pid: number, boot?: string, start?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (boot !== undefined && self.boot !== undefined && boot !== self.boot) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const st = procStat(pid);
  if (st) {
    // A zombie is dead for us: it will never release anything.
    if (st.state === 'Z' || st.state === 'X') return false;
    if (start !== undefined && st.start !== start) return false;
  }
  return true;
}

/** The identity a claim or a lock records for this process. */
export function selfIdentity(): ProcessIdentity {
  return { ...self };
}

export class HeldLock {
  private released = false;
  constructor(
    readonly dir: string,
    readonly epoch: number,
    readonly token: string,
  ) {}

  /** Throws when the lock is no longer ours (removed by a person, or judged gone from another host). */
  async assertHeld(): Promise<void> {
    const names = tryOr(() => readdirSync(this.dir), []);
    const top = maxEpoch(names);
    const rec = readRecord(join(this.dir, String(this.epoch)));
    if (top !== this.epoch || !rec || rec.token !== this.token || rec.state !== 'held') {
      throw new Error(`the lock ${this.dir} is no longer held by this process (epoch ${this.epoch}, now ${top})`);
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    liveTokens.delete(this.token);
    const file = join(this.dir, String(this.epoch));
    try {
      const tmp = join(this.dir, `.tmp.${process.pid}.${randomBase36(8)}`);
      writeFileSync(tmp, JSON.stringify(record('free', this.token)));
      renameSync(tmp, file);
    } catch {
      // The previous epoch is a released record: without ours the lock is free again.
      tryOr(() => unlinkSync(file), undefined);
    }
  }
}

function record(state: LockRecord['state'], token: string): LockRecord {
  return { state, token, ...self, at: new Date().toISOString() };
}

function maxEpoch(names: readonly string[]): number {
  let max = 0;
  for (const n of names) if (EPOCH_RE.test(n)) max = Math.max(max, Number(n));
  return max;
}

function tryOr<T>(op: () => T, fallback: T): T {
  try {
    return op();
  } catch {
    return fallback;
  }
}

function readRecord(file: string): LockRecord | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as Partial<LockRecord>;
    if ((v.state === 'held' || v.state === 'free') && typeof v.token === 'string' && typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.at === 'string') {
      return v as LockRecord;
    }
  } catch {
    // unreadable: treated as a dead holder below
  }
  return { state: 'held', token: '', pid: 0, host: self.host, at: new Date(0).toISOString() };
}

/** Takes the lock in `dir`, waiting while a live process holds it. */
export async function acquireLock(dir: string, opts: LockOptions): Promise<HeldLock> {
  mkdirSync(dir, { recursive: true });
  const deadline = Date.now() + opts.waitMs;
  const token = randomBase36(16);
  let delay = 2;
  let lastHolder: LockRecord | undefined;
  for (;;) {
    const names = readdirSync(dir);
    const top = maxEpoch(names);
    let free = top === 0;
    if (!free) {
      const rec = readRecord(join(dir, String(top)));
      // Gone between readdir and read: look again.
      if (!rec) continue;
      free = rec.state === 'free' || !holderAlive(rec, Date.now(), opts.foreignStaleMs);
      if (!free) lastHolder = rec;
    }
    if (free) {
      const epoch = top + 1;
      const tmp = join(dir, `.tmp.${process.pid}.${randomBase36(8)}`);
      writeFileSync(tmp, JSON.stringify(record('held', token)));
      let linked = false;
      try {
        linkSync(tmp, join(dir, String(epoch)));
        linked = true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
          tryOr(() => unlinkSync(tmp), undefined);
          throw e;
        }
      }
      tryOr(() => unlinkSync(tmp), undefined);
      if (linked) {
        // A number removed long ago can be linked again by a process that looked before a long
        // freeze; it is ours only if nothing higher exists.
        const after = readdirSync(dir);
        if (maxEpoch(after) === epoch) {
          liveTokens.add(token);
          collect(dir, after, epoch);
          return new HeldLock(dir, epoch, token);
        }
        tryOr(() => unlinkSync(join(dir, String(epoch))), undefined);
      }
      continue;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new LockTimeout(dir, lastHolder, opts.waitMs);
    await new Promise((r) => setTimeout(r, Math.min(left, delay / 2 + Math.random() * delay)));
    delay = Math.min(delay * 1.5, 20);
  }
}

function collect(dir: string, names: readonly string[], epoch: number): void {
  const now = Date.now();
  for (const n of names) {
    if (EPOCH_RE.test(n)) {
      if (Number(n) < epoch - KEEP_EPOCHS) tryOr(() => unlinkSync(join(dir, n)), undefined);
    } else if (n.startsWith('.tmp.')) {
      const st = tryOr(() => statSync(join(dir, n)), undefined);
      if (st && now - st.mtimeMs > STRAY_TMP_MS) tryOr(() => unlinkSync(join(dir, n)), undefined);
    }
  }
}

/** What the lock in `dir` says now: free (or never taken), or held by a process that is alive or gone. */
export async function lockState(dir: string): Promise<{ state: 'free' | 'held' | 'abandoned'; holder?: LockRecord }> {
  const names = tryOr(() => readdirSync(dir), [] as string[]);
  const top = maxEpoch(names);
  if (top === 0) return { state: 'free' };
  const rec = readRecord(join(dir, String(top)));
  if (!rec || rec.state === 'free') return { state: 'free' };
  return { state: holderAlive(rec) ? 'held' : 'abandoned', holder: rec };
}
