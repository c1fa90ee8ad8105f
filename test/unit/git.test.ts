/**
 * The node side of the continuity pair against a real git repository in a temp folder:
 * gitState on a clean and a dirty repo and outside one; checkOps says stale after a commit (HEAD
 * moved), after the branch is deleted, when the dirty set changed and when the ops expired, and fresh
 * right after gitState; a repository above the folder is refused when the caller says so. Then the
 * topic files (src/node/topicFiles.ts): the live transcript, the stub written on Partition in that
 * repo, history/ (pair and export) on the next partition whose export holds only the new span, the
 * draft, every export read back, atomic writes, listing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TopicDecisions } from '../../src/core/continuity/documents';
import { carryForward } from '../../src/core/continuity/carry';
import { lintDecisions } from '../../src/core/continuity/lint';
import { renderOpsMarkdown } from '../../src/core/continuity/markdown';
import { makeOps } from '../../src/core/continuity/ops';
import { resumePack } from '../../src/core/continuity/resume';
import { InputError } from '../../src/core/errors';
import { anchorOnQuote } from './fixtures/messageAnchors';
import { checkOps, gitState, isIgnored, parsePorcelainZ, runGit } from '../../src/node/git';
import {
  appendMessages,
  listTopics,
  nextPartition,
  pendingSpan,
  readAllDecisions,
  readAllRecords,
  readDecisions,
  readDraft,
  readExport,
  readExports,
  readOps,
  readTranscript,
  removeDraft,
  topicDir,
  validateFolder,
  writeDecisions,
  writeDraft,
  writeOps,
  writeStub,
} from '../../src/node/topicFiles';

const NOW = new Date('2026-07-18T12:00:00.000Z');
const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lt-git-')));
const repo = join(tmp, 'repo');
const outside = join(tmp, 'outside');

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, encoding: 'utf8' }).trim();
}

function commitAll(msg: string): string {
  git('add', '-A');
  git('commit', '-q', '-m', msg);
  return git('rev-parse', 'HEAD');
}

before(() => {
  mkdirSync(repo, { recursive: true });
  mkdirSync(outside, { recursive: true });
  git('init', '-q');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  writeFileSync(join(repo, 'b.txt'), 'b\n');
  commitAll('first');
});

after(() => rmSync(tmp, { recursive: true, force: true }));

describe('gitState', () => {
  it('a clean repo: root, branch, HEAD, no dirty files', async () => {
    const s = await gitState(repo);
    assert.deepEqual(s, { root: repo, branch: 'main', head: git('rev-parse', 'HEAD'), dirty: [] });
  });

  it('from a subfolder it finds the root', async () => {
    mkdirSync(join(repo, 'sub'), { recursive: true });
    assert.equal((await gitState(join(repo, 'sub')))?.root, repo);
  });

  it('a dirty repo: modified, untracked, staged and non-ASCII paths (quotepath off), sorted', async () => {
    writeFileSync(join(repo, 'a.txt'), 'a changed\n');
    writeFileSync(join(repo, 'новый файл.txt'), 'x\n');
    writeFileSync(join(repo, 'c.txt'), 'c\n');
    git('add', 'c.txt');
    const s = await gitState(repo);
    assert.deepEqual(s?.dirty, ['a.txt', 'c.txt', 'новый файл.txt']);
    git('checkout', '-q', '--', 'a.txt');
    git('rm', '-q', '--cached', 'c.txt');
    rmSync(join(repo, 'c.txt'));
    rmSync(join(repo, 'новый файл.txt'));
    assert.deepEqual((await gitState(repo))?.dirty, []);
  });

  it('outside a repository: null', async () => {
    assert.equal(await gitState(outside), null);
  });

  it('reads renames in -z output (the source path is skipped)', () => {
    assert.deepEqual(parsePorcelainZ('R  new.ts\0old.ts\0 M a b.ts\0?? z\0'), ['a b.ts', 'new.ts', 'z']);
  });

  it('leaves the continuity folder out of the dirty set (default .life-thread; configurable)', async () => {
    mkdirSync(join(repo, '.life-thread', 'topics'), { recursive: true });
    writeFileSync(join(repo, '.life-thread', 'topics', 'x.json'), '{}');
    assert.deepEqual((await gitState(repo))?.dirty, []);
    assert.deepEqual((await gitState(repo, { ignore: [] }))?.dirty, ['.life-thread/']);
    assert.equal(isIgnored('docs/lt/topics/a.md', ['./docs/lt/']), true);
    assert.equal(isIgnored('docs/ltx', ['docs/lt']), false);
    rmSync(join(repo, '.life-thread'), { recursive: true });
  });

  it('runGit reports the exit code and times out', async () => {
    const r = await runGit(repo, ['rev-parse', '--verify', '-q', 'refs/heads/nope']);
    assert.equal(r.code, 1);
    // cat-file --batch waits for stdin, which stays open: only the timeout ends it.
    await assert.rejects(runGit(repo, ['cat-file', '--batch'], { timeoutMs: 300 }), /timed out after 300 ms/);
    await assert.rejects(runGit(repo, ['status'], { git: join(tmp, 'no-such-git') }), /git could not run/);
  });
});

describe('checkOps', () => {
  async function opsNow(now = NOW): Promise<ReturnType<typeof makeOps>> {
    return makeOps({ topic: 't', partition: 1, now, ttlHours: 12, repo: await gitState(repo) });
  }

  it('is fresh right after gitState', async () => {
    const ops = await opsNow();
    assert.deepEqual(await checkOps(ops, { now: NOW }), { stale: false, changes: [] });
  });

  it('is stale after a commit: HEAD moved from X to Y', async () => {
    const ops = await opsNow();
    const from = ops.repo?.head ?? '';
    writeFileSync(join(repo, 'd.txt'), 'd\n');
    const to = commitAll('second');
    const r = await checkOps(ops, { now: NOW });
    assert.equal(r.stale, true);
    assert.deepEqual(r.changes, [`HEAD moved from ${from.slice(0, 12)} to ${to.slice(0, 12)} (1 commit ahead)`]);
  });

  it('is stale when HEAD was reset behind the recorded commit', async () => {
    const ops = await opsNow();
    git('reset', '-q', '--hard', 'HEAD~1');
    const r = await checkOps(ops, { now: NOW });
    assert.match(r.changes[0] ?? '', /^HEAD moved from \w{12} to \w{12}, which does not contain it/);
  });

  it('is stale after the branch is deleted', async () => {
    git('checkout', '-q', '-b', 'feature');
    const ops = await opsNow();
    assert.equal(ops.repo?.branch, 'feature');
    git('checkout', '-q', 'main');
    git('branch', '-q', '-D', 'feature');
    const r = await checkOps(ops, { now: NOW });
    assert.equal(r.stale, true);
    assert.deepEqual(r.changes, ['branch feature no longer exists (now on main)']);
  });

  it('is stale when switched to another branch', async () => {
    git('branch', '-q', 'other');
    const ops = await opsNow();
    git('checkout', '-q', 'other');
    const r = await checkOps(ops, { now: NOW });
    assert.deepEqual(r.changes, ['switched from branch main to other']);
    git('checkout', '-q', 'main');
    git('branch', '-q', '-D', 'other');
  });

  it('is stale when the dirty set changed (added and removed files)', async () => {
    writeFileSync(join(repo, 'a.txt'), 'dirty a\n');
    const ops = await opsNow();
    assert.deepEqual(ops.repo?.dirty, ['a.txt']);
    git('checkout', '-q', '--', 'a.txt');
    writeFileSync(join(repo, 'b.txt'), 'dirty b\n');
    writeFileSync(join(repo, 'e.txt'), 'e\n');
    const r = await checkOps(ops, { now: NOW });
    assert.equal(r.stale, true);
    assert.deepEqual(r.changes, ['newly dirty: b.txt, e.txt', 'no longer dirty: a.txt']);
    git('checkout', '-q', '--', 'b.txt');
    rmSync(join(repo, 'e.txt'));
  });

  it('is stale when expired, with or without a repository', async () => {
    const ops = await opsNow(new Date(NOW.getTime() - 13 * 3_600_000));
    assert.deepEqual((await checkOps(ops, { now: NOW })).changes, [`expired at ${ops.expiresAt} (60 min ago)`]);
    // For a person (the panel, /resume): the instant in their zone, as the sidebar shows times.
    const words = (await checkOps(ops, { now: NOW, tz: 'Asia/Tokyo' })).changes;
    assert.equal(words.length, 1);
    assert.match(words[0] ?? '', /^expired \w{3} \d+ \w{3} \d\d:\d\d(:\d\d)? (?:JST|GMT\+9) \([^)]*Z\), 1 h ago$/);
    const none = makeOps({ topic: 't', partition: 1, now: NOW, repo: null });
    assert.deepEqual(await checkOps(none, { now: NOW }), { stale: false, changes: [] });
    assert.equal((await checkOps(none, { now: new Date(NOW.getTime() + 13 * 3_600_000) })).stale, true);
  });

  it('is stale when the repository is gone', async () => {
    const ops = makeOps({ topic: 't', partition: 1, now: NOW, repo: { root: outside, branch: 'main', head: 'a'.repeat(40), dirty: [] } });
    assert.deepEqual((await checkOps(ops, { now: NOW })).changes, [`${outside} is no longer a git repository`]);
  });
});

describe('topic files', () => {
  const root = repo;
  const dir = topicDir(root, 'adcm-partition');

  it('validates topic names and the folder', () => {
    assert.equal(dir, join(repo, '.life-thread', 'topics', 'adcm-partition'));
    for (const bad of ['', '../x', '.hidden', 'a/b', 'x'.repeat(101), 'с-кириллицей']) assert.throws(() => topicDir(root, bad), InputError, bad);
    assert.throws(() => validateFolder('../out'), InputError);
    assert.throws(() => validateFolder('/abs'), InputError);
    assert.equal(topicDir(root, 't', 'docs/continuity'), join(repo, 'docs', 'continuity', 'topics', 't'));
  });

  it('appends to the live transcript (redacted) and reads it back; a torn last line is reported', async () => {
    await appendMessages(dir, [{ id: 'm-1', role: 'user', time: '2026-07-18T09:00:00Z', text: 'Один гибридный handoff-файл отклонён. password=hunter2' }]);
    await appendMessages(dir, [{ id: 'm-2', role: 'assistant', time: '2026-07-18T09:01:00Z', text: 'Agreed: TopicDecisions first, ops by link.' }]);
    await assert.rejects(appendMessages(dir, [{ id: '', role: 'user', time: 't', text: '' }]), InputError);
    const t = await readTranscript(dir);
    assert.deepEqual(
      t.messages.map((m) => m.id),
      ['m-1', 'm-2'],
    );
    assert.ok(!readFileSync(join(dir, 'transcript.jsonl'), 'utf8').includes('hunter2'));
    writeFileSync(join(dir, 'torn.jsonl'), '');
    const raw = readFileSync(join(dir, 'transcript.jsonl'), 'utf8');
    writeFileSync(join(dir, 'transcript.jsonl'), `${raw}{"id":"m-3","ro`);
    const torn = await readTranscript(dir);
    assert.equal(torn.messages.length, 2);
    assert.deepEqual(torn.errors, ['line 3: not JSON (a write cut short?)']);
    writeFileSync(join(dir, 'transcript.jsonl'), raw);
    rmSync(join(dir, 'torn.jsonl'));
  });

  it('writes the stub on Partition: export, decisions with placeholders, ops from git, linked both ways', async () => {
    assert.equal(await nextPartition(dir), 1);
    writeFileSync(join(repo, 'a.txt'), 'dirty for ops\n');
    const r = await writeStub(dir, 'adcm-partition', { now: NOW, repo: await gitState(repo), openItems: ['finish the validator'] });
    assert.equal(r.partition, 1);
    assert.equal(r.archived, null);
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, ['HandoverOps.md', 'TopicDecisions.md', 'export.jsonl', 'export.md', 'handover-ops.json', 'topic-decisions.json', 'transcript.jsonl']);
    assert.ok(!files.some((f) => f.endsWith('.tmp')));
    assert.deepEqual(await readDecisions(dir), r.decisions);
    assert.deepEqual(await readOps(dir), r.ops);
    assert.deepEqual((await readExport(dir))?.records, r.export.records);
    assert.deepEqual(r.ops.repo?.dirty, ['a.txt']);
    // Writing the pair does not make its own ops stale.
    assert.deepEqual(await checkOps(r.ops, { now: NOW }), { stale: false, changes: [] });
    assert.ok(readFileSync(join(dir, 'TopicDecisions.md'), 'utf8').includes('[HandoverOps.md](HandoverOps.md)'));
    assert.ok(readFileSync(join(dir, 'HandoverOps.md'), 'utf8').includes('[TopicDecisions.md](TopicDecisions.md)'));
    assert.equal(lintDecisions(r.decisions, r.export.records).ok, false);
    git('checkout', '-q', '--', 'a.txt');
  });

  it('re-writing an unfilled stub keeps its partition', async () => {
    const r = await writeStub(dir, 'adcm-partition', { now: NOW, repo: null });
    assert.equal(r.partition, 1);
    assert.equal(r.archived, null);
  });

  it('the agent fills the decisions; they lint clean and resume decisions-first', async () => {
    const ex = await readExport(dir);
    const records = ex?.records ?? [];
    const m1 = records[0];
    const m2 = records[1];
    assert.ok(m1 && m2);
    const a1 = anchorOnQuote(m1, 'Один гибридный handoff-файл отклонён');
    const a2 = anchorOnQuote(m2, 'TopicDecisions first, ops by link');
    assert.ok(a1 && a2);
    const stub = (await readDecisions(dir)) as TopicDecisions;
    const d: TopicDecisions = {
      ...stub,
      frame: 'The continuity pair for Partition.',
      rejected: [{ text: 'One hybrid handoff file', reason: 'layers mimic each other', anchors: [a1] }],
      accepted: [{ text: 'Decisions first, ops by link', reason: 'meaning before inventory', anchors: [a2] }],
      new: [],
      next: ['Implement the lint'],
    };
    assert.deepEqual(lintDecisions(d, records), { ok: true, problems: [] });
    assert.deepEqual(await writeDecisions(dir, d), { archived: null });
    const ops = await readOps(dir);
    assert.ok(ops);
    const st = await checkOps(ops, { now: NOW });
    await writeOps(dir, ops, { stale: st.changes });
    const text = resumePack(d, ops, st);
    assert.ok(text.indexOf('Frame:') < text.indexOf('Handover ops'));
  });

  it('the next partition archives the pair and its export in history/1/; its export holds only the new span', async () => {
    assert.deepEqual(await pendingSpan(dir), { partition: 2, messages: [], conversation: 0, previousPartition: 1 }, 'nothing new since partition 1');
    await appendMessages(dir, [
      { id: 'm-3', role: 'user', time: '2026-07-18T13:00:00Z', text: '/resume adcm-partition' },
      { id: 'm-4', role: 'assistant', time: '2026-07-18T13:00:01Z', text: 'Resuming topic adcm-partition, partition 1.' },
    ]);
    const harnessOnly = await pendingSpan(dir);
    assert.deepEqual([harnessOnly.messages.length, harnessOnly.conversation], [2, 0], 'a /resume turn is not something new to hand over');
    await appendMessages(dir, [{ id: 'm-5', role: 'user', time: '2026-07-18T13:01:00Z', text: 'Next window.' }]);
    assert.equal(await nextPartition(dir), 2);
    const r = await writeStub(dir, 'adcm-partition', { now: new Date(NOW.getTime() + 3_600_000), repo: await gitState(repo) });
    assert.equal(r.partition, 2);
    assert.equal(r.archived, 1);
    assert.equal(r.previous?.partition, 1);
    assert.deepEqual(readdirSync(join(dir, 'history', '1')).sort(), ['HandoverOps.md', 'TopicDecisions.md', 'export.jsonl', 'export.md', 'handover-ops.json', 'topic-decisions.json']);
    assert.ok(readFileSync(join(dir, 'history', '1', 'TopicDecisions.md'), 'utf8').includes('(export.md#m-1)'), 'the archived decisions link their own export');
    assert.equal(r.decisions.previous, 1);
    assert.ok(r.decisions.rejected.some((x) => x.text === 'One hybrid handoff file' && x.carriedFrom === 1));
    assert.deepEqual(r.export.records.map((x) => x.id), ['m-3', 'm-4', 'm-5'], 'partition 2 exports the messages since partition 1');
    assert.deepEqual((await readExport(join(dir, 'history', '1')))?.records.map((x) => x.id), ['m-1', 'm-2'], 'partition 1’s export stays checkable in history/1/');
    const exports = await readExports(dir);
    assert.deepEqual(exports.map((e) => [e.file, e.partition, e.records.length]), [['export.jsonl', 2, 3], ['history/1/export.jsonl', 1, 2]]);
    // The carried anchor stands in partition 1's export, which the lint reads with the new one.
    const all = await readAllRecords(dir);
    const carried = carryForward((await readDecisions(join(dir, 'history', '1'))) as TopicDecisions, { ...r.decisions, rejected: [] });
    const lint = lintDecisions({ ...carried, frame: 'f', accepted: [], new: [], next: ['n'] }, all);
    assert.deepEqual(lint.problems, []);
    assert.equal(lintDecisions({ ...carried, frame: 'f', accepted: [], new: [], next: ['n'] }, r.export.records).ok, false, 'against the new span alone it would not stand');
    assert.equal(await nextPartition(dir), 3);
    // Partition again before the stub was filled: the same partition, the same carried items, the span since partition 1.
    await appendMessages(dir, [{ id: 'm-6', role: 'assistant', time: '2026-07-18T13:02:00Z', text: 'One more.' }]);
    const again = await writeStub(dir, 'adcm-partition', { now: new Date(NOW.getTime() + 7_200_000), repo: null });
    assert.deepEqual([again.partition, again.archived, again.decisions.previous], [2, null, 1]);
    assert.deepEqual(again.export.records.map((x) => x.id), ['m-3', 'm-4', 'm-5', 'm-6']);
    assert.ok(again.decisions.rejected.some((x) => x.text === 'One hybrid handoff file' && x.carriedFrom === 1));
    await assert.rejects(writeDecisions(dir, { ...r.decisions, partition: 1 }), /older than the current partition 2/);
    assert.ok(renderOpsMarkdown(r.ops).includes('expires'));
  });

  it('keeps the draft apart from the decisions until it is approved; a new partition drops a stale draft', async () => {
    const stub = (await readDecisions(dir)) as TopicDecisions;
    assert.equal(await readDraft(dir), null);
    await writeDraft(dir, { ...stub, frame: 'Drafted frame' });
    assert.equal((await readDraft(dir))?.frame, 'Drafted frame');
    assert.match((await readDecisions(dir))?.frame ?? '', /^TODO/, 'the decisions stay the stub');
    assert.deepEqual((await readAllDecisions(dir)).map((d) => [d.file, d.kind]), [['topic-decisions.draft.json', 'draft'], ['topic-decisions.json', 'current'], ['history/1/topic-decisions.json', 'history']]);
    await assert.rejects(writeDraft(dir, { ...stub, frame: 'x'.repeat(9000) }), InputError);
    await writeStub(dir, 'adcm-partition', { now: NOW, repo: null });
    assert.equal(await readDraft(dir), null);
    await removeDraft(dir);
  });

  it('acceptRoot refuses a repository above the folder', async () => {
    const sub = join(repo, 'pkg');
    mkdirSync(sub, { recursive: true });
    assert.equal((await gitState(sub))?.root, repo);
    assert.equal(await gitState(sub, { acceptRoot: (root) => root === sub }), null);
  });

  it('lists topics', async () => {
    await appendMessages(topicDir(root, 'other.topic'), [{ id: 'x', role: 'user', time: '2026-07-18T09:00:00Z', text: 'hi' }]);
    mkdirSync(join(repo, '.life-thread', 'topics', '..bad'), { recursive: true });
    const list = await listTopics(root, '.life-thread');
    assert.deepEqual(
      list.map((t) => [t.topic, t.partition, t.hasTranscript, t.hasExport, t.hasOps]),
      [
        ['adcm-partition', 2, true, true, true],
        ['other.topic', null, true, false, false],
      ],
    );
    assert.ok(list.every((t) => t.updatedAt !== null));
    assert.deepEqual(await listTopics(outside), []);
  });

  it('refuses to read an invalid or newer file', async () => {
    const d = topicDir(root, 'broken');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'topic-decisions.json'), '{"schemaVersion":2}');
    await assert.rejects(readDecisions(d), /newer than this version/);
    writeFileSync(join(d, 'handover-ops.json'), '{"schemaVersion":1,"topic":"broken","frame":"x"}');
    await assert.rejects(readOps(d), /handover-ops\.json: /);
    assert.equal(existsSync(join(d, 'export.jsonl')), false);
    assert.equal(await readExport(d), null);
  });
});
