/**
 * What a continuity text (`/resume`, a wake's cold-start pack) says of the Handover ops is what the
 * panel shows of them: both read the ops file and its re-check through readOpsChecked
 * (src/node/opsChecked.ts). A topic whose ops were written is never told "no ops were written".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopicDecisions } from '../../src/core/continuity/documents';
import { makeOps } from '../../src/core/continuity/ops';
import { resumePack } from '../../src/core/continuity/resume';
import { stubDecisions } from '../../src/core/continuity/stub';
import { opsView } from '../../src/core/topicView';
import { readOpsChecked } from '../../src/node/opsChecked';
import { writeOps } from '../../src/node/topicFiles';
import { tempDirs } from './helpers/tempDirs';

const NOW = new Date('2026-07-18T10:00:00.000Z');
const dirs = tempDirs('lt-opschecked-');

function decisions(partition: number): TopicDecisions {
  return { ...stubDecisions('demo', partition, undefined, NOW), frame: 'Durable reminders.', next: ['Wire the store'] };
}

/** The pack's line about the ops. */
function opsLine(text: string): string {
  return text.split('\n').find((l) => l.startsWith('Handover ops')) ?? '';
}

describe('the ops a continuity text states are the ops the panel shows', () => {
  it('ops written and fresh: the panel shows them fresh and the text says fresh, not "no ops were written"', async () => {
    const dir = dirs.freshDir();
    await writeOps(dir, makeOps({ topic: 'demo', partition: 1, now: NOW, repo: null, openItems: ['reminder r-1'] }));
    const held = await readOpsChecked(dir, { now: new Date(NOW.getTime() + 60_000) });
    assert.ok(held.ops && held.check);
    const panel = opsView(held.ops, held.check, { tz: 'UTC', now: NOW });
    assert.equal(panel.stale, false);
    assert.deepEqual(panel.openItems, ['reminder r-1']);
    const line = opsLine(resumePack(decisions(1), held.ops, held.check.staleness));
    assert.equal(line, 'Handover ops (read only when this turn executes): HandoverOps.md — fresh (checked; expires 2026-07-18T22:00:00.000Z).');
  });

  it('ops past their expiry: stale in the panel and in the text, with the same reason', async () => {
    const dir = dirs.freshDir();
    await writeOps(dir, makeOps({ topic: 'demo', partition: 1, now: NOW, ttlHours: 1, repo: null }));
    const held = await readOpsChecked(dir, { now: new Date(NOW.getTime() + 2 * 3600_000) });
    assert.ok(held.ops && held.check);
    const panel = opsView(held.ops, held.check, { tz: 'UTC', now: NOW });
    assert.equal(panel.stale, true);
    assert.equal(panel.changes.length, 1);
    assert.equal(opsLine(resumePack(decisions(1), held.ops, held.check.staleness)), `Handover ops (read only when this turn executes): HandoverOps.md — stale — ${panel.changes[0] ?? ''}.`);
  });

  it('while a new partition is written, the ops file is that partition\u2019s, and the text says so', async () => {
    const dir = dirs.freshDir();
    await writeOps(dir, makeOps({ topic: 'demo', partition: 2, now: NOW, repo: null }));
    const held = await readOpsChecked(dir, { now: NOW });
    assert.ok(held.ops);
    assert.match(opsLine(resumePack(decisions(1), held.ops, held.check?.staleness)), /^Handover ops \(read only when this turn executes\): HandoverOps\.md \(written for partition 2\) — fresh /);
  });

  it('no ops file: nothing for the panel, and the text says none was written', async () => {
    const dir = dirs.freshDir();
    const held = await readOpsChecked(dir, { now: NOW });
    assert.deepEqual(held, { ops: null });
    assert.match(opsLine(resumePack(decisions(1), held.ops ?? undefined, undefined)), /— no ops were written\.$/);
  });
});
