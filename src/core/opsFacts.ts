/**
 * The two fields of Handover ops that make the next session executable: `openItems` and
 * `firstMoves`, computed from facts — the store's rows, the running tasks, the last runs' summaries,
 * the repository — not from the model.
 *
 * Open items: the topic's pending wakes, reminders and command rows of this workspace, running jobs
 * (command rows in flight) and VS Code tasks, failing last runs. A row that names another topic or
 * another workspace is left out; a row that names neither (an older row, or one added from a
 * terminal without a folder) is kept.
 *
 * First moves, in order: re-run what failed last, wait for what is running, then TopicDecisions'
 * Next, then the uncommitted files.
 *
 * Rows come in as plain objects with only the fields read here, so the store's own row types can grow.
 */
import { describeInstant } from './time/describe';

export interface FactLike {
  exitCode?: number | null;
  signal?: string;
  timedOut?: boolean;
  interrupted?: boolean;
  error?: string;
}

interface Owned {
  owner?: { folders?: readonly string[] };
}

export interface ReminderLike extends Owned {
  id: string;
  text: string;
  status: string;
  nextRunAt: string | null;
  destination?: { threadId?: string; folder?: string };
}

export interface CommandLike extends Owned {
  id: string;
  command: string;
  cwd: string;
  status: string;
  nextRunAt: string | null;
  firedAt?: string;
  fact?: FactLike;
  /** Present while a run is in flight. */
  claim?: object;
}

export interface WakeLike extends Owned {
  id: string;
  text?: string;
  when: string;
  jobId?: string;
  threadId?: string;
  status: string;
  nextRunAt: string | null;
}

export interface OpsFactsInput {
  topic: string;
  /** The workspace folders (paths or file:// URIs). */
  folders: readonly string[];
  reminders: readonly ReminderLike[];
  commands: readonly CommandLike[];
  wakes: readonly WakeLike[];
  /** Names of the VS Code tasks running now. */
  tasks: readonly string[];
  /** Per command id: the one-line summary of its last run's log ("12 passed, 1 failed"). */
  summaries?: Readonly<Record<string, string>>;
  /** TopicDecisions' Next (placeholders are skipped). */
  next: readonly string[];
  /** Uncommitted files, relative to the repository root. */
  dirty?: readonly string[];
  now: Date;
  /** The owner's zone, for the times shown. */
  tz: string;
}

export interface OpsFacts {
  openItems: string[];
  firstMoves: string[];
}

const OPEN_WAKE = new Set(['pending', 'held', 'delivering']);
const MAX_ITEMS = 200;
const MAX_MOVES = 50;
const TEXT_SHOWN = 120;

function toPath(folder: string): string {
  if (!folder.startsWith('file://')) return folder;
  try {
    return decodeURIComponent(new URL(folder).pathname);
  } catch {
    return folder;
  }
}

function trimSep(p: string): string {
  return p.length > 1 ? p.replace(/[\\/]+$/, '') : p;
}

/** Whether `path` is one of `folders` or lies under one. */
export function insideFolders(path: string, folders: readonly string[]): boolean {
  const p = trimSep(toPath(path));
  return folders.some((f) => {
    const root = trimSep(toPath(f));
    return p === root || p.startsWith(`${root}/`) || p.startsWith(`${root}\\`);
  });
}

/** True: the row belongs here; false: it names another topic or workspace. */
function belongs(topic: string, folders: readonly string[], threadId: string | undefined, rowFolders: readonly string[]): boolean {
  if (threadId !== undefined) return threadId === topic;
  if (rowFolders.length > 0) return rowFolders.some((f) => insideFolders(f, folders));
  return true;
}

function cut(s: string, max = TEXT_SHOWN): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function code(s: string): string {
  return `\`${cut(s, 80).replace(/`/g, "'")}\``;
}

/** How a failed last run reads, or undefined when the last run did not fail. */
export function failureOf(fact: FactLike | undefined, summary?: string): string | undefined {
  if (!fact) return undefined;
  const s = summary?.trim() ? `: ${cut(summary, 100)}` : '';
  if (fact.interrupted) return `was interrupted${fact.error ? ` (${cut(fact.error, 80)})` : ''}${s}`;
  if (fact.timedOut) return `timed out${s}`;
  if (typeof fact.exitCode === 'number' && fact.exitCode !== 0) return `failed (exit ${fact.exitCode}${s})`;
  if (fact.signal) return `was killed by ${fact.signal}${s}`;
  if (fact.error && (fact.exitCode === undefined || fact.exitCode === null)) return `could not run: ${cut(fact.error, 100)}`;
  return undefined;
}

function when(at: string | null, tz: string, now: Date): string {
  if (at === null) return '';
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? '' : `, next ${describeInstant(new Date(ms), tz, now)}`;
}

function wakeCondition(w: WakeLike, tz: string, now: Date): string {
  switch (w.when) {
    case 'timer':
      return w.nextRunAt ? `at ${describeInstant(new Date(Date.parse(w.nextRunAt)), tz, now)}` : 'on a timer';
    case 'job.done':
      return `when ${w.jobId ?? 'its job'} ends`;
    case 'presence.online':
      return 'when the user is back';
    case 'scm.changed':
      return 'when the repository changes';
    default:
      return `on ${w.when}`;
  }
}

/** Open items and first moves of a topic's Handover ops, from facts. */
export function opsFacts(input: OpsFactsInput): OpsFacts {
  const { topic, folders, now, tz } = input;
  const openItems: string[] = [];
  const failing: string[] = [];
  const waiting: string[] = [];

  for (const c of input.commands) {
    const rowFolders = c.owner?.folders?.length ? c.owner.folders : [c.cwd];
    if (!belongs(topic, folders, undefined, rowFolders)) continue;
    if (c.claim) {
      openItems.push(`running: command ${c.id} ${code(c.command)}${c.firedAt ? ` since ${describeInstant(new Date(Date.parse(c.firedAt)), tz, now)}` : ''}`);
      waiting.push(`wait for ${code(c.command)} (command ${c.id}) to end — it is running`);
      continue;
    }
    const failed = failureOf(c.fact, input.summaries?.[c.id]);
    if (failed) {
      openItems.push(`failing: command ${c.id} ${code(c.command)} — last run ${failed}`);
      failing.push(`re-run ${code(c.command)} — last run ${failed}`);
    }
    if (c.status === 'pending') openItems.push(`scheduled: command ${c.id} ${code(c.command)}${when(c.nextRunAt, tz, now)}`);
  }

  for (const t of input.tasks) {
    openItems.push(`running: task ${code(t)}`);
    waiting.push(`wait for task ${code(t)} to end — it is running`);
  }

  for (const r of input.reminders) {
    if (r.status !== 'pending') continue;
    const rowFolders = r.owner?.folders?.length ? r.owner.folders : r.destination?.folder ? [r.destination.folder] : [];
    if (!belongs(topic, folders, r.destination?.threadId, rowFolders)) continue;
    openItems.push(`reminder ${r.id} “${cut(r.text)}”${when(r.nextRunAt, tz, now)}`);
  }

  for (const w of input.wakes) {
    if (!OPEN_WAKE.has(w.status)) continue;
    if (!belongs(topic, folders, w.threadId, w.owner?.folders ?? [])) continue;
    const state = w.status === 'pending' ? '' : ` (${w.status})`;
    openItems.push(`wake ${w.id} ${wakeCondition(w, tz, now)}${state}${w.text ? `: “${cut(w.text)}”` : ''}`);
  }

  const next = input.next.map((n) => n.trim()).filter((n) => n !== '' && !n.startsWith('TODO'));
  const moves = [...failing, ...waiting, ...next];
  const dirty = input.dirty ?? [];
  if (dirty.length) {
    const shown = dirty.slice(0, 5).join(', ');
    moves.push(`look at the ${dirty.length} uncommitted file${dirty.length === 1 ? '' : 's'} before building on them: ${shown}${dirty.length > 5 ? `, and ${dirty.length - 5} more` : ''}`);
  }
  return { openItems: openItems.slice(0, MAX_ITEMS), firstMoves: moves.slice(0, MAX_MOVES) };
}
