/**
 * What the OS timer does for reminders (README "Keep time while VS Code is closed"): nothing to the
 * rows — a reminder is an agent turn and waits for the next window, which takes it within its
 * catch-up limit — but where a desktop notifier exists (`notify-send`, `osascript`) it says once per
 * due reminder that one is waiting. Which ones were said is kept in `<store>/timer-notified.json`.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { ReminderRow } from '../core/schema';
import { describeInstant } from '../core/time/describe';
import { writeFileAtomic } from './atomicFile';
import { acquireLock } from './lock';
import type { ScheduleStore } from './schedule';
import { LOCKS_DIR } from './store/table';
import { runProgram, type RunResult } from './service/system';

export const NOTICE_FILE = 'timer-notified.json';
/** A notifier that fails is tried again at the next passes, this many times in all, then left. */
const MAX_TRIES = 3;
const NOTIFY_TIMEOUT_MS = 5000;
const TEXT_IN_NOTICE = 120;

const noticeState = z.object({
  /** Keyed by `<id> <nextRunAt>`: a recurring reminder's next due time is another notice. */
  said: z.record(z.string(), z.object({ at: z.string(), ok: z.boolean(), tries: z.number().int().nonnegative() })),
});
type NoticeState = z.infer<typeof noticeState>;

export interface Notifier {
  /** The program's path, for the log. */
  path: string;
  notify(title: string, body: string): Promise<RunResult>;
}

async function onPath(name: string, envPath: string | undefined): Promise<string | undefined> {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir.startsWith('/')) continue;
    const file = path.join(dir, name);
    try {
      await fsp.access(file, 1);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The desktop notifier on `env.PATH`: `notify-send` (Linux desktops), else `osascript` (macOS). A
 * process started by cron has no session bus address: the user's bus at /run/user/<uid>/bus is used.
 */
export async function findNotifier(env: NodeJS.ProcessEnv): Promise<Notifier | undefined> {
  const notifySend = await onPath('notify-send', env.PATH);
  if (notifySend) {
    const childEnv = { ...env };
    const uid = process.getuid?.();
    const bus = uid === undefined ? undefined : `/run/user/${uid}/bus`;
    if (!childEnv.DBUS_SESSION_BUS_ADDRESS && bus && (await fsp.stat(bus).catch(() => null))) childEnv.DBUS_SESSION_BUS_ADDRESS = `unix:path=${bus}`;
    return { path: notifySend, notify: (title, body) => runProgram(notifySend, ['--app-name=Life Thread', title, body], undefined, childEnv, NOTIFY_TIMEOUT_MS) };
  }
  const osascript = await onPath('osascript', env.PATH);
  if (osascript) {
    // The text goes in as an argument, so no quoting of AppleScript is needed.
    const script = ['on run argv', 'display notification (item 2 of argv) with title (item 1 of argv)', 'end run'];
    return { path: osascript, notify: (title, body) => runProgram(osascript, [...script.flatMap((l) => ['-e', l]), title, body], undefined, env, NOTIFY_TIMEOUT_MS) };
  }
  return undefined;
}

/** Reminders a window would fire now: pending, due, not running, within their catch-up limit. */
export function waitingReminders(rows: readonly ReminderRow[], now: Date, limitMs: number): ReminderRow[] {
  const t = now.getTime();
  return rows.filter((r) => {
    if (r.status !== 'pending' || r.nextRunAt === null || r.claim) return false;
    const due = Date.parse(r.nextRunAt);
    return due <= t && t - due <= limitMs;
  });
}

export interface NoticeOutcome {
  /** Reminders waiting for a window. */
  waiting: string[];
  /** Said in this pass. */
  said: string[];
  /** Notifier failures in this pass, in words. */
  failed: string[];
  notifier?: string;
}

async function readState(file: string): Promise<NoticeState> {
  try {
    const parsed = noticeState.safeParse(JSON.parse(await fsp.readFile(file, 'utf8')));
    return parsed.success ? parsed.data : { said: {} };
  } catch {
    // Missing or unreadable: at worst a waiting reminder is said once more.
    return { said: {} };
  }
}

function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** Says, once each, which due reminders wait for a window. Never changes a row. */
export async function noticeWaitingReminders(opts: { store: ScheduleStore; now: Date; limitMs: number; tz: string; env: NodeJS.ProcessEnv; notifier?: Notifier }): Promise<NoticeOutcome> {
  const rows = await opts.store.reminders.rows();
  const waiting = waitingReminders(rows, opts.now, opts.limitMs);
  const out: NoticeOutcome = { waiting: waiting.map((r) => r.id), said: [], failed: [] };
  const file = path.join(opts.store.dir, NOTICE_FILE);
  const keyOf = (r: ReminderRow): string => `${r.id} ${r.nextRunAt ?? ''}`;
  const live = new Set(waiting.map(keyOf));
  // The timer passes every minute: with nothing waiting and nothing to forget, it takes no lock and writes nothing.
  if (waiting.length === 0 && Object.keys((await readState(file)).said).length === 0) return out;
  const lock = await acquireLock(path.join(opts.store.dir, LOCKS_DIR, 'timer-notified'), { waitMs: 10_000 });
  try {
    const state = await readState(file);
    const before = JSON.stringify(state);
    // A notice stays only while its reminder waits: once a window took it, the key is dropped.
    for (const key of Object.keys(state.said)) if (!live.has(key)) delete state.said[key];
    const due = waiting.filter((r) => {
      const s = state.said[keyOf(r)];
      return !s || (!s.ok && s.tries < MAX_TRIES);
    });
    const notifier = due.length > 0 ? (opts.notifier ?? (await findNotifier(opts.env))) : undefined;
    if (notifier) out.notifier = notifier.path;
    for (const r of due) {
      if (!notifier) break;
      const when = describeInstant(new Date(r.nextRunAt ?? opts.now.toISOString()), opts.tz, opts.now);
      const body = `A reminder waits for VS Code (due ${when}): “${clip(r.text, TEXT_IN_NOTICE)}”. It runs when a window with Life Thread opens.`;
      const res = await notifier.notify('Life Thread', body);
      const ok = res.code === 0;
      const prev = state.said[keyOf(r)];
      state.said[keyOf(r)] = { at: opts.now.toISOString(), ok, tries: (prev?.tries ?? 0) + 1 };
      if (ok) out.said.push(r.id);
      else out.failed.push(`${r.id}: ${notifier.path} ${res.code === null ? 'did not run' : `exited ${res.code}`}${res.stderr.trim() ? `: ${clip(res.stderr, 200)}` : ''}`);
    }
    if (JSON.stringify(state) !== before) await writeFileAtomic(file, `${JSON.stringify(state, null, 1)}\n`);
  } finally {
    await lock.release();
  }
  return out;
}
