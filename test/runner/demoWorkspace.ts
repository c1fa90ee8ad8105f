/**
 * The demo workspace `npm start` opens (and the walkthrough test uses): demo/ copied to `dest`, made its
 * own git repository with a small history, and a sample topic "main" (the topic a window starts in) whose TopicDecisions/Handover pair
 * was partitioned at the last commit, so the panel has a pair to show and `life-thread topic verify` passes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './codeServer';
import { appendMessages, topicDir, writeDecisions, writeStub } from '../../src/node/topicFiles';
import { gitState } from '../../src/node/git';
import type { TopicDecisions } from '../../src/core/continuity/documents';
import type { TranscriptMessage } from '../../src/core/export';

export const DEMO_TOPIC = 'main';

/** The history: each commit adds these paths of demo/ (everything left goes into the last one). */
const HISTORY: { message: string; paths: string[] }[] = [
  { message: 'Calculator: add, percent, average', paths: ['package.json', '.gitignore', 'src'] },
  { message: 'Tests and the "tests" task (HTML report in reports/)', paths: ['test', '.vscode/tasks.json'] },
  { message: 'README: what to try in the demo', paths: ['.'] },
];

/** Bump when what makeDemoWorkspace builds from demo/ changes (history, sample topic): an older demo is rebuilt. */
const LAYOUT = 1;

/** The demo's version: the layout and every file under demo/, so an edit there makes `npm start` rebuild the demo. */
export function demoVersion(demoDir = join(ROOT, 'demo')): string {
  const hash = createHash('sha256').update(`layout ${LAYOUT}\n`);
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else hash.update(`${relative(demoDir, p)}\0`).update(readFileSync(p)).update('\0');
    }
  };
  walk(demoDir);
  return hash.digest('hex').slice(0, 16);
}

/** Beside the workspace, not in it: the demo's own git tree stays clean. */
function versionFile(dest: string): string {
  return `${dest}.version`;
}

export interface EnsuredDemo {
  /** `made`: there was none; `rebuilt`: it was of another version (the old one is kept at `oldKeptAt`); `kept`: current. */
  action: 'made' | 'rebuilt' | 'kept';
  oldKeptAt?: string;
}

/**
 * `npm start`'s demo at `dest`: made when missing, kept when its version is current, else rebuilt (an
 * old demo would show steps, files and a topic the walkthrough no longer describes). The old one is
 * moved to `<dest>.old` rather than deleted, in case the user changed something in it.
 */
export async function ensureDemoWorkspace(dest: string, opts: { now?: Date; version?: string } = {}): Promise<EnsuredDemo> {
  const version = opts.version ?? demoVersion();
  const file = versionFile(dest);
  if (!existsSync(dest)) {
    await makeDemoWorkspace(dest, opts);
    writeFileSync(file, `${version}\n`);
    return { action: 'made' };
  }
  let found = '';
  try {
    found = readFileSync(file, 'utf8').trim();
  } catch {
    // made before demos had a version
  }
  if (found === version) return { action: 'kept' };
  const old = `${dest}.old`;
  rmSync(old, { recursive: true, force: true });
  renameSync(dest, old);
  await makeDemoWorkspace(dest, opts);
  writeFileSync(file, `${version}\n`);
  return { action: 'rebuilt', oldKeptAt: old };
}

/**
 * Creates the demo workspace at `dest` (which must not exist yet) from `from` (default: the
 * repository's demo/). Returns its path.
 */
export async function makeDemoWorkspace(dest: string, opts: { now?: Date; from?: string } = {}): Promise<string> {
  if (existsSync(dest)) throw new Error(`${dest} exists already`);
  cpSync(opts.from ?? join(ROOT, 'demo'), dest, { recursive: true });
  const now = opts.now ?? new Date();
  git(dest, now.toISOString(), 'init', '-q');
  // A history an hour old, one commit every 20 minutes, so "git log" reads like a real one.
  HISTORY.forEach((c, i) => {
    const at = new Date(now.getTime() - (HISTORY.length - i) * 20 * 60_000).toISOString();
    git(dest, at, 'add', '-A', '--', ...c.paths);
    git(dest, at, 'commit', '-q', '-m', c.message);
  });
  await writeSampleTopic(dest, now);
  return dest;
}

function git(cwd: string, at: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Life Thread demo', '-c', 'user.email=demo@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null', ...args],
    { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_DATE: at, GIT_COMMITTER_DATE: at } },
  ).trim();
}

const USER_SAYS = 'average([]) should give 0, not throw. And let us not pull in lodash just for a mean; the calculator stays dependency-free.';
const ASSISTANT_SAYS = 'Agreed: Calculator.average returns 0 for an empty list, and no lodash. The "tests" task has a check for the empty list that fails today.';

/** A short conversation about the demo's bug, partitioned and approved: partition 1 of topic "main". */
async function writeSampleTopic(root: string, now: Date): Promise<void> {
  const dir = topicDir(root, DEMO_TOPIC);
  const t = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
  const messages: TranscriptMessage[] = [
    { id: 'm-demo-1', role: 'user', time: t(6), text: USER_SAYS },
    { id: 'm-demo-2', role: 'assistant', time: t(5), text: ASSISTANT_SAYS },
  ];
  await appendMessages(dir, messages);
  const repo = await gitState(root);
  await writeStub(dir, DEMO_TOPIC, { messages, now, repo, firstMoves: ['Run the task "tests" and read reports/tests.html'], openItems: ['Calculator.average throws on an empty list'] });
  const quote = (m: TranscriptMessage, q: string) => {
    const start = m.text.indexOf(q);
    if (start < 0) throw new Error(`"${q}" is not in ${m.id}`);
    return { msgId: m.id, start, end: start + q.length, quote: q };
  };
  const [user, assistant] = messages as [TranscriptMessage, TranscriptMessage];
  const decisions: TopicDecisions = {
    schemaVersion: 1,
    topic: DEMO_TOPIC,
    partition: 1,
    createdAt: now.toISOString(),
    frame: "The demo's calculator: make Calculator.average safe on an empty list without adding dependencies.",
    rejected: [{ text: 'Use lodash for the mean', reason: 'the calculator stays dependency-free', anchors: [quote(user, 'let us not pull in lodash just for a mean')] }],
    accepted: [{ text: 'average([]) returns 0', reason: 'an empty list has no mean to throw about', anchors: [quote(user, 'average([]) should give 0, not throw')] }],
    new: [{ text: 'The "tests" task checks the empty list and fails today', anchors: [quote(assistant, 'The "tests" task has a check for the empty list that fails today')] }],
    next: ['Fix Calculator.average in src/calc.js, then run the "tests" task again'],
    anchors: [],
    opsLink: 'HandoverOps.md',
  };
  await writeDecisions(dir, decisions);
}
