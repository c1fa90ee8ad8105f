/** The durable feed: feed.json keeps the last 200 items or 30 days; answers are cut at 8,000 with the cut marked. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clipMarked, FEED_MAX_AGE_MS, pushFeed, type FeedRow } from '../../src/core/feed';
import { FeedStore } from '../../src/node/feed';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-feed-');
const NOW = new Date('2026-10-01T08:00:00.000Z');
const item = (i: number, at = new Date(NOW.getTime() - i * 1000)): FeedRow => ({ id: `r-x${i}@${at.toISOString()}`, at: at.toISOString(), kind: 'reminder', ref: `r-x${i}`, title: `Reminder ${i}`, body: `answer ${i}`, tone: 'ok' });

describe('feed', () => {
  it('keeps the newest 200, newest first; a push with the same id replaces', () => {
    let rows: FeedRow[] = [];
    for (let i = 250; i >= 1; i--) rows = pushFeed(rows, item(i), NOW);
    assert.equal(rows.length, 200);
    assert.equal(rows[0]?.ref, 'r-x1');
    assert.equal(rows.at(-1)?.ref, 'r-x200');
    rows = pushFeed(rows, { ...item(5), body: 'changed' }, NOW);
    assert.equal(rows.length, 200);
    assert.equal(rows.filter((r) => r.ref === 'r-x5').length, 1);
    assert.equal(rows[0]?.body, 'changed');
  });

  it('drops items older than 30 days', () => {
    const old = item(1, new Date(NOW.getTime() - FEED_MAX_AGE_MS - 1));
    const recent = item(2, new Date(NOW.getTime() - FEED_MAX_AGE_MS + 60_000));
    assert.deepEqual(pushFeed([recent, old], item(3), NOW).map((r) => r.ref), ['r-x3', 'r-x2']);
  });

  it('clipMarked: at most max characters, the cut stated; short text unchanged', () => {
    const long = 'a'.repeat(20_000);
    const cut = clipMarked(long, 8000);
    assert.ok(cut.length <= 8000, String(cut.length));
    assert.match(cut, /… \(cut: \d+ more characters\)$/);
    assert.equal(Number(/cut: (\d+)/.exec(cut)?.[1]) + cut.indexOf('\n…'), long.length, 'the mark counts what was cut');
    assert.equal(clipMarked('short', 8000), 'short');
  });

  it('survives a restart: a new store on the same directory reads what the old one wrote', async () => {
    const dir = dirs.freshDir();
    await new FeedStore(dir).push(item(1), NOW);
    await new FeedStore(dir).push(item(2), NOW);
    assert.deepEqual((await new FeedStore(dir).list()).map((r) => r.ref), ['r-x2', 'r-x1']);
  });
});
