/**
 * `life-thread topic verify <topic dir>`, run as a user runs it: exit 0 for a topic whose
 * chains and anchors hold (and for an unfilled stub, reported as not filled yet), exit 3 naming the
 * first broken message for a tampered export or an anchor that does not stand, exit 2 for a folder
 * that is not a topic. It needs no store.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TopicDecisions } from '../../src/core/continuity/documents';
import { anchorOnQuote } from './fixtures/messageAnchors';
import { appendMessages, readDecisions, readExport, writeDecisions, writeStub } from '../../src/node/topicFiles';
import { runCli, tempStores } from './helpers/cliHarness';

const NOW = new Date('2026-07-18T12:00:00.000Z');
const dirs = tempStores('lt-cli-topic-');

async function topic(filled: boolean): Promise<string> {
  const dir = join(dirs.freshStore(), 'topics', 'demo');
  await appendMessages(dir, [
    { id: 'm-1', role: 'user', time: '2026-07-18T09:00:00Z', text: 'We should use croner, not a minute poll.' },
    { id: 'm-2', role: 'assistant', time: '2026-07-18T09:00:05Z', text: 'Agreed: croner with an explicit zone.' },
  ]);
  await writeStub(dir, 'demo', { now: NOW, repo: null });
  if (!filled) return dir;
  const records = (await readExport(dir))?.records ?? [];
  const [m1, m2] = records;
  const a1 = m1 && anchorOnQuote(m1, 'minute poll');
  const a2 = m2 && anchorOnQuote(m2, 'croner with an explicit zone');
  assert.ok(a1 && a2);
  const stub = (await readDecisions(dir)) as TopicDecisions;
  await writeDecisions(dir, {
    ...stub,
    frame: 'Durable reminders.',
    rejected: [{ text: 'A minute poll', reason: 'wakes the laptop', anchors: [a1] }],
    accepted: [{ text: 'croner', reason: 'DST-safe', anchors: [a2] }],
    new: [],
    next: ['Wire the store'],
  });
  return dir;
}

describe('life-thread topic verify', () => {
  it('exit 0 for a topic whose chain and anchors hold; no store needed', async () => {
    const dir = await topic(true);
    const r = await runCli(['topic', 'verify', dir], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /export\.jsonl: 2 messages, chain intact/);
    assert.match(r.stdout, /topic-decisions\.json \(partition 1, current\): 2 anchors checked, 0 broken/);
    assert.match(r.stdout, /^ok — export verified/m);
  });

  it('exit 3 naming the message whose text was changed after the export', async () => {
    const dir = await topic(true);
    const file = join(dir, 'export.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('croner with an explicit zone', 'croner with an implicit zone'));
    const r = await runCli(['topic', 'verify', 'export.jsonl/..'], { cwd: dir });
    assert.equal(r.code, 3, r.stdout);
    assert.match(r.stderr, /^life-thread: export: export\.jsonl: message m-2 — message m-2 \(record 2\) was edited/);
    assert.match(r.stdout, /chain broken at m-2/);
    const j = await runCli(['topic', 'verify', dir, '--json'], { cwd: dir });
    assert.equal(j.code, 3);
    const out = JSON.parse(j.stdout) as { ok: boolean; firstProblem: string; chains: { firstBroken: string }[] };
    assert.deepEqual([out.ok, out.chains[0]?.firstBroken], [false, 'm-2']);
    const err = JSON.parse(j.stderr) as { error: { field: string; reason: string } };
    assert.equal(err.error.field, 'export');
    assert.match(err.error.reason, /message m-2/);
  });

  it('exit 3 when messages are cut from the end of the export, or the last one is edited and re-hashed', async () => {
    // The chain alone holds for any prefix of itself: export.md's count and last hash are its head.
    const dir = await topic(true);
    const file = join(dir, 'export.jsonl');
    const original = readFileSync(file, 'utf8');
    const lines = original.split('\n').filter(Boolean);
    writeFileSync(file, `${lines[0] ?? ''}\n`);
    const cut = await runCli(['topic', 'verify', dir], { cwd: dir });
    assert.equal(cut.code, 3, cut.stdout);
    assert.match(cut.stderr, /^life-thread: export: export\.jsonl: chain — export\.md was written with 2 messages, export\.jsonl holds 1, ending at message m-1: 1 message was removed from its end/);
    assert.match(cut.stdout, /chain broken at its end/);
    const last = JSON.parse(lines[1] ?? '{}') as { id: string; role: string; time: string; text: string; prevHash: string; hash: string };
    last.text = 'Agreed: a minute poll after all.';
    last.hash = createHash('sha256').update(JSON.stringify([last.id, last.role, last.time, last.text, last.prevHash])).digest('hex');
    writeFileSync(file, `${lines[0] ?? ''}\n${JSON.stringify(last)}\n`);
    const rehashed = await runCli(['topic', 'verify', dir], { cwd: dir });
    assert.equal(rehashed.code, 3, rehashed.stdout);
    assert.match(rehashed.stderr, /^life-thread: export: export\.jsonl: message m-2 — message m-2 \(record 2\) hashes to [0-9a-f]{12}, but export\.md recorded the last hash [0-9a-f]{12}: the end of the export was edited and re-hashed/);
    const extra = { ...last, id: 'm-3', text: 'added later', prevHash: last.hash };
    const appended = JSON.parse(lines[1] ?? '{}') as typeof last;
    extra.prevHash = appended.hash;
    extra.hash = createHash('sha256').update(JSON.stringify([extra.id, extra.role, extra.time, extra.text, extra.prevHash])).digest('hex');
    writeFileSync(file, `${original}${JSON.stringify(extra)}\n`);
    const added = await runCli(['topic', 'verify', dir], { cwd: dir });
    assert.equal(added.code, 3, added.stdout);
    assert.match(added.stderr, /^life-thread: export: export\.jsonl: message m-3 — message m-3 \(record 3\) was added after the export/);
    writeFileSync(file, original);
    assert.equal((await runCli(['topic', 'verify', dir], { cwd: dir })).code, 0, 'the untouched export still verifies');
  });

  it('exit 3 for an anchor that does not stand, with the chain intact', async () => {
    const dir = await topic(true);
    const file = join(dir, 'topic-decisions.json');
    const d = JSON.parse(readFileSync(file, 'utf8')) as TopicDecisions;
    const a = d.accepted[0]?.anchors[0];
    assert.ok(a);
    a.quote = 'cronos with an explicit zone';
    writeFileSync(file, JSON.stringify(d));
    const r = await runCli(['topic', 'verify', dir], { cwd: dir });
    assert.equal(r.code, 3, r.stdout);
    assert.match(r.stderr, /^life-thread: anchor: message m-2 \(topic-decisions\.json accepted\[0\]\.anchors\[0\]\): quote differs/);
  });

  it('exit 0 for a stub that is not filled yet, saying so', async () => {
    const dir = await topic(false);
    const r = await runCli(['topic', 'verify', dir], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /not filled yet: topic-decisions\.json \(partition 1\) is not filled yet/);
    assert.doesNotMatch(r.stdout, /broken/i);
  });

  it('exit 2 for a folder that is not a topic, or no folder', async () => {
    const empty = dirs.freshStore();
    const r = await runCli(['topic', 'verify', empty, '--json'], { cwd: empty });
    assert.equal(r.code, 2);
    assert.equal((JSON.parse(r.stderr) as { error: { field: string } }).error.field, 'dir');
    const missing = await runCli(['topic', 'verify'], { cwd: empty });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /dir: is missing/);
    const gone = await runCli(['topic', 'verify', join(empty, 'nope')], { cwd: empty });
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /is not a folder/);
    const verb = await runCli(['topic', 'check', empty], { cwd: empty });
    assert.equal(verb.code, 2);
    assert.match(verb.stderr, /'topic' takes verify/);
  });
});
