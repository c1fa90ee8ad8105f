/**
 * The demo workspace `npm start` opens (and the walkthrough test uses): demo/ copied to `dest`, made its
 * own git repository with a small history, and a sample topic "main" (the topic a window starts in) whose TopicDecisions/Handover pair
 * was partitioned at the last commit, so the panel has a pair to show and `life-thread topic verify` passes.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './codeServer';
import { appendMessages, topicDir, writeDecisions, writeStub } from '../../src/node/topicFiles';
import { gitState } from '../../src/node/git';
import type { TopicDecisions } from '../../src/core/continuity';
import type { TranscriptMessage } from '../../src/core/export';

export const DEMO_TOPIC = 'main';

/** The history: each commit adds these paths of demo/ (everything left goes into the last one). */
const HISTORY: { message: string; paths: string[] }[] = [
  { message: 'Calculator: add, percent, average', paths: ['package.json', '.gitignore', 'src'] },
  { message: 'Tests and the "tests" task (HTML report in reports/)', paths: ['test', '.vscode/tasks.json'] },
  { message: 'README: what to try in the demo', paths: ['.'] },
];

/** Creates the demo workspace at `dest` (which must not exist yet). Returns its path. */
export async function makeDemoWorkspace(dest: string, opts: { now?: Date } = {}): Promise<string> {
  if (existsSync(dest)) throw new Error(`${dest} exists already`);
  cpSync(join(ROOT, 'demo'), dest, { recursive: true });
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
