/**
 * The continuity pair (src/core/continuity/): TopicDecisions and Handover ops — the schemas (ops never
 * carry Frame/Rejected/Accepted), the stub, carry-forward of Rejected until superseded, the lint that
 * gates approval (empty Frame/Next, an item without anchor or reason, a placeholder left in, a broken
 * anchor, secret-like text), the diff the panel shows, the Markdown (intercom:// links, the cross
 * links, the expiry) and the resume text ("A then B": decisions first, ops by link).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { handoverOpsSchema, parseDecisions, parseOps, topicDecisionsSchema, type DecisionItem, type HandoverOps, type TopicDecisions } from '../../src/core/continuity/documents';
import { carryForward, normalizeText, supersededItems } from '../../src/core/continuity/carry';
import { stubDecisions } from '../../src/core/continuity/stub';
import { lintDecisions } from '../../src/core/continuity/lint';
import { diffDecisions } from '../../src/core/continuity/diff';
import { renderDecisionsMarkdown, renderOpsMarkdown } from '../../src/core/continuity/markdown';
import { makeOps } from '../../src/core/continuity/ops';
import { resumePack } from '../../src/core/continuity/resume';
import { buildExport, type TranscriptMessage } from '../../src/core/export';
import { anchorOnQuote } from './fixtures/messageAnchors';
import type { ExportRecord, MessageAnchor } from '../../src/core/transcript';
import { REPO } from './helpers/cliHarness';

const NOW = new Date('2026-07-18T12:00:00.000Z');
const TOPIC = 'adcm-partition';

const MESSAGES: TranscriptMessage[] = [
  { id: 'm-1', role: 'user', time: '2026-07-18T09:00:00Z', text: 'Оператор ожидал смысловой срез checkpoint; агент выдал runbook-seed.' },
  { id: 'm-2', role: 'assistant', time: '2026-07-18T09:01:00Z', text: 'A single hybrid handoff file is rejected: the layers would mimic each other and ops would drown the conclusions.' },
  { id: 'm-3', role: 'user', time: '2026-07-18T09:02:00Z', text: 'Accepted: the pair is TopicDecisions plus Handover ops, linked both ways; the new chat reads decisions first.' },
  { id: 'm-4', role: 'assistant', time: '2026-07-18T09:03:00Z', text: 'Anchors reuse the CodeAnchor pattern; no rival schema.' },
];
const RECORDS: ExportRecord[] = buildExport(TOPIC, MESSAGES).records;

function anchor(msgId: string, quote: string): MessageAnchor {
  const r = RECORDS.find((x) => x.id === msgId);
  const a = r && anchorOnQuote(r, quote);
  if (!a) throw new Error(`no ${quote} in ${msgId}`);
  return a;
}

function filled(partition = 1): TopicDecisions {
  return {
    schemaVersion: 1,
    topic: TOPIC,
    partition,
    createdAt: NOW.toISOString(),
    frame: 'How Partition hands a line of work to a new chat without losing its meaning.',
    rejected: [{ text: 'One hybrid handoff file', reason: 'the layers mimic each other; ops drown the conclusions', anchors: [anchor('m-2', 'A single hybrid handoff file is rejected')] }],
    accepted: [{ text: 'TopicDecisions plus Handover ops, linked both ways', reason: 'meaning and desk state age at different speeds', anchors: [anchor('m-3', 'the pair is TopicDecisions plus Handover ops')] }],
    new: [{ text: 'The operator expected a meaning checkpoint, got a runbook', anchors: [anchor('m-1', 'агент выдал runbook-seed')] }],
    next: ['Write the validator for anchors'],
    anchors: [anchor('m-4', 'no rival schema')],
    opsLink: 'HandoverOps.md',
  };
}

function ops(): HandoverOps {
  return makeOps({
    topic: TOPIC,
    partition: 1,
    now: NOW,
    ttlHours: 12,
    repo: { root: '/work/repo', branch: 'main', head: 'a'.repeat(40), dirty: ['src/b.ts', 'src/a.ts'] },
    openEditors: ['/work/repo/src/a.ts'],
    runningTasks: ['npm: watch'],
    openItems: ['finish validateAnchors'],
    firstMoves: ['run the unit tests'],
  });
}

function problems(d: TopicDecisions): string[] {
  return lintDecisions(d, RECORDS).problems.map((p) => `${p.slot}${p.index === undefined ? '' : `[${p.index}]`}: ${p.reason}`);
}

describe('schemas', () => {
  it('accept a filled TopicDecisions and ops', () => {
    assert.equal(topicDecisionsSchema.safeParse(filled()).success, true);
    assert.equal(handoverOpsSchema.safeParse(ops()).success, true);
  });

  it('ops never carry frame, rejected or accepted', () => {
    for (const key of ['frame', 'rejected', 'accepted']) {
      const r = parseOps({ ...ops(), [key]: key === 'frame' ? 'x' : [] });
      assert.equal(r.ok, false, key);
    }
  });

  it('refuse a bad topic and name the field', () => {
    const r = parseDecisions({ ...filled(), topic: '../etc' });
    assert.deepEqual(r.ok ? null : r.field, 'topic');
  });

  it('makeOps sets the expiry from the TTL and sorts the dirty files', () => {
    const o = ops();
    assert.equal(o.expiresAt, '2026-07-19T00:00:00.000Z');
    assert.deepEqual(o.repo?.dirty, ['src/a.ts', 'src/b.ts']);
    assert.equal(o.decisionsLink, 'TopicDecisions.md');
  });
});

describe('stubDecisions', () => {
  it('has placeholders in every slot and links the ops', () => {
    const s = stubDecisions(TOPIC, 1, undefined, NOW);
    assert.equal(topicDecisionsSchema.safeParse(s).success, true);
    assert.match(s.frame, /^TODO: /);
    assert.match(s.accepted[0]?.text ?? '', /^TODO: /);
    assert.equal(s.accepted[0]?.anchors[0]?.msgId, 'TODO');
    assert.match(s.next[0] ?? '', /^TODO: /);
    assert.equal(s.opsLink, 'HandoverOps.md');
    assert.equal(s.previous, undefined);
    assert.equal(s.createdAt, NOW.toISOString());
  });

  it('carries the previous Rejected forward, marked, and sets previous', () => {
    const s = stubDecisions(TOPIC, 2, filled(1), NOW);
    assert.equal(s.previous, 1);
    const carried = s.rejected.filter((r) => r.carriedFrom !== undefined);
    assert.deepEqual(
      carried.map((r) => [r.text, r.carriedFrom]),
      [['One hybrid handoff file', 1]],
    );
    assert.deepEqual(carried[0]?.anchors, filled().rejected[0]?.anchors);
    // Accepted does not carry (it lives in history/1/).
    assert.ok(!s.accepted.some((a) => a.text.startsWith('TopicDecisions plus')));
  });

  it('keeps the partition that first rejected an item', () => {
    const p2 = { ...filled(2), rejected: [{ ...(filled().rejected[0] as DecisionItem), carriedFrom: 1 }], previous: 1 };
    const s = stubDecisions(TOPIC, 3, p2, NOW);
    assert.deepEqual(
      s.rejected.filter((r) => r.carriedFrom !== undefined).map((r) => r.carriedFrom),
      [1],
    );
  });

  it('the stub does not pass lint', () => {
    const r = lintDecisions(stubDecisions(TOPIC, 1, undefined, NOW), RECORDS);
    assert.equal(r.ok, false);
    for (const slot of ['frame', 'rejected', 'accepted', 'new', 'next']) assert.ok(r.problems.some((p) => p.slot === slot && /placeholder/.test(p.reason)), slot);
  });
});

describe('lintDecisions', () => {
  it('passes filled decisions whose anchors stand', () => {
    assert.deepEqual(lintDecisions(filled(), RECORDS), { ok: true, problems: [] });
  });

  it('refuses an empty Frame', () => {
    assert.deepEqual(problems({ ...filled(), frame: '  \n' }), ['frame: Frame is empty: say what this line of work is about']);
  });

  it('refuses an empty Next', () => {
    assert.deepEqual(problems({ ...filled(), next: [] }), ['next: Next is empty: say where the cycle goes next']);
    assert.deepEqual(problems({ ...filled(), next: [' '] }), ['next: Next is empty: say where the cycle goes next']);
  });

  it('refuses an Accepted/Rejected item without an anchor or a reason', () => {
    const d = filled();
    d.accepted.push({ text: 'Export as JSONL plus Markdown', reason: 'offsets need one source of truth', anchors: [] });
    (d.rejected[0] as DecisionItem).reason = '';
    assert.deepEqual(problems(d), [
      'rejected[0]: Rejected item 1 has no reason',
      'accepted[1]: Accepted item 2 has no anchor: cite at least one message span that supports it',
    ]);
  });

  it('refuses a placeholder left in', () => {
    const d = filled();
    d.next.push('TODO: decide the TTL');
    (d.accepted[0] as DecisionItem).anchors.push({ msgId: 'TODO', start: 0, end: 0, quote: 'TODO: quote' });
    const p = problems(d);
    assert.equal(p.length, 2);
    assert.match(p[0] ?? '', /^accepted\[0\]: accepted\[0\]\.anchors\[1\] is still a placeholder/);
    assert.match(p[1] ?? '', /^next\[1\]: Next item 2 is still a placeholder/);
  });

  it('refuses an anchor that does not stand in the export, naming the slot, item and anchor', () => {
    const d = filled();
    const a = (d.rejected[0] as DecisionItem).anchors[0] as MessageAnchor;
    a.start += 2;
    a.end += 2;
    const unknown = { ...a, msgId: 'm-404' };
    d.anchors.push(unknown);
    const r = lintDecisions(d, RECORDS);
    assert.deepEqual(
      r.problems.map((p) => [p.slot, p.index]),
      [
        ['rejected', 0],
        ['anchors', 1],
      ],
    );
    assert.match(r.problems[0]?.reason ?? '', /^rejected\[0\]\.anchors\[0\]: quote differs: .*stands once at 0-40 \(moved\)/);
    assert.match(r.problems[1]?.reason ?? '', /^anchors\[1\]: no message m-404 in the export/);
  });

  it('refuses an anchor into an edited message', () => {
    const edited = RECORDS.map((r) => (r.id === 'm-3' ? { ...r, text: r.text.replace('Accepted', 'Approved') } : r));
    const r = lintDecisions(filled(), edited);
    assert.deepEqual(
      r.problems.map((p) => [p.slot, p.index]),
      [['accepted', 0]],
    );
    assert.match(r.problems[0]?.reason ?? '', /message m-3 was edited/);
  });

  it('refuses text that looks like a secret, naming the slot and not echoing it', () => {
    const d = filled();
    d.frame = 'Deploy with sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    (d.accepted[0] as DecisionItem).reason = 'the staging login is password=hunter2';
    d.next = ['rotate token: ghp_abcdefghijklmnopqrstuvwxyz0123456789'];
    const r = lintDecisions(d, RECORDS);
    assert.deepEqual(
      r.problems.map((p) => [p.slot, p.index]),
      [
        ['frame', undefined],
        ['accepted', 0],
        ['next', 0],
      ],
    );
    for (const p of r.problems) {
      assert.match(p.reason, /looks like a secret/);
      assert.ok(!/hunter2|sk-proj|ghp_/.test(p.reason), p.reason);
    }
  });
});

describe('carryForward and supersede', () => {
  const prev = (): TopicDecisions => ({
    ...filled(1),
    rejected: [
      { text: 'One hybrid handoff file', reason: 'layers mimic', anchors: [anchor('m-2', 'hybrid handoff file')] },
      { text: 'Ops-only seed.', reason: 'inventory without a frame', anchors: [anchor('m-1', 'runbook-seed')] },
      { text: 'Silent host summary', reason: 'anti-ADCM', anchors: [anchor('m-1', 'checkpoint')] },
    ],
  });

  it('keeps previous Rejected items that are not superseded', () => {
    const next = { ...filled(2), rejected: [] };
    const out = carryForward(prev(), next);
    assert.deepEqual(
      out.rejected.map((r) => [r.text, r.carriedFrom]),
      [
        ['One hybrid handoff file', 1],
        ['Ops-only seed.', 1],
        ['Silent host summary', 1],
      ],
    );
    assert.equal(out.previous, 1);
  });

  it('drops one the next partition accepts (same normalized text)', () => {
    const next = { ...filled(2), rejected: [], accepted: [{ text: '  ops-ONLY   seed ', reason: 'for executing turns it is enough', anchors: [anchor('m-4', 'CodeAnchor')] }] };
    assert.equal(normalizeText('  ops-ONLY   seed '), normalizeText('Ops-only seed.'));
    const out = carryForward(prev(), next);
    assert.deepEqual(
      out.rejected.map((r) => r.text),
      ['One hybrid handoff file', 'Silent host summary'],
    );
    assert.deepEqual(
      supersededItems(prev(), next).map((s) => [s.item.text, s.by.how]),
      [['Ops-only seed.', 'accepted']],
    );
  });

  it('drops one an item names in `supersedes` (a New item here)', () => {
    const next = { ...filled(2), rejected: [], new: [{ text: 'A host summary is fine when it is shown and approved', supersedes: 'silent host summary' }] };
    const out = carryForward(prev(), next);
    assert.ok(!out.rejected.some((r) => r.text === 'Silent host summary'));
    assert.deepEqual(supersededItems(prev(), next)[0]?.by, { slot: 'new', text: 'A host summary is fine when it is shown and approved', how: 'supersedes' });
  });

  it('keeps a restated Rejected item once, in its new wording', () => {
    const restated: DecisionItem = { text: 'one hybrid handoff file.', reason: 'restated with a new reason', anchors: [anchor('m-2', 'mimic each other')] };
    const out = carryForward(prev(), { ...filled(2), rejected: [restated] });
    assert.equal(out.rejected.filter((r) => normalizeText(r.text) === 'one hybrid handoff file').length, 1);
    assert.equal(out.rejected[0], restated);
    assert.equal(out.rejected[0]?.carriedFrom, undefined);
  });
});

describe('diffDecisions', () => {
  it('without a previous partition everything is added', () => {
    const d = diffDecisions(undefined, filled());
    assert.equal(d.frame.changed, true);
    assert.equal(d.accepted.added.length, 1);
    assert.equal(d.rejected.removed.length, 0);
  });

  it('says per slot what was added, removed and kept (by normalized text)', () => {
    const before = filled(1);
    const after = filled(2);
    after.accepted = [
      { ...(before.accepted[0] as DecisionItem), text: 'TopicDecisions PLUS Handover ops, linked both ways.' },
      { text: 'Export in JSONL', reason: 'offsets', anchors: [anchor('m-4', 'CodeAnchor')] },
    ];
    after.rejected = [];
    after.next = ['Write the validator for anchors', 'Bench the export'];
    after.anchors = [];
    const d = diffDecisions(before, after);
    assert.deepEqual(
      d.accepted.kept.map((i) => i.text),
      ['TopicDecisions PLUS Handover ops, linked both ways.'],
    );
    assert.deepEqual(
      d.accepted.added.map((i) => i.text),
      ['Export in JSONL'],
    );
    assert.deepEqual(
      d.rejected.removed.map((i) => i.text),
      ['One hybrid handoff file'],
    );
    assert.deepEqual(d.next, { added: ['Bench the export'], removed: [], kept: ['Write the validator for anchors'], changed: [] });
    assert.deepEqual(
      d.accepted.changed.map((i) => i.text),
      ['TopicDecisions PLUS Handover ops, linked both ways.'],
    );
    assert.equal(d.anchors.removed.length, 1);
    assert.equal(d.frame.changed, false);
  });
});

describe('Markdown', () => {
  it('TopicDecisions: slots, reasons, intercom:// links with quotes, links to the ops and the export', () => {
    const d = { ...filled(2), previous: 1, rejected: [{ ...(filled().rejected[0] as DecisionItem), carriedFrom: 1 }] };
    const md = renderDecisionsMarkdown(d, { exportLink: 'export.md' });
    assert.match(md, /^# TopicDecisions — adcm-partition · partition 2\n/);
    for (const h of ['## Frame', '## Rejected', '## Accepted', '## New', '## Next', '## Anchors']) assert.ok(md.includes(`\n${h}\n`), h);
    assert.ok(md.indexOf('## Frame') < md.indexOf('## Rejected') && md.indexOf('## Rejected') < md.indexOf('## Accepted'));
    assert.ok(md.includes('[HandoverOps.md](HandoverOps.md)'));
    assert.ok(md.includes('[export.md](export.md)'));
    const a = d.rejected[0]?.anchors[0] as MessageAnchor;
    assert.ok(md.includes(`(intercom://message/${TOPIC}/m-2#${a.start}-${a.end})`));
    assert.ok(md.includes(`: “${a.quote}”`));
    assert.ok(md.includes('([in the export](export.md#m-2))'));
    assert.ok(md.includes('Reason: the layers mimic each other; ops drown the conclusions'));
    assert.ok(md.includes('Carried forward from partition 1'));
    assert.ok(md.includes('Follows partition 1'));
    // Every anchor in the decisions is rendered as a link.
    const links = md.match(/\]\(intercom:\/\/message\//g) ?? [];
    assert.equal(links.length, 4);
    // The Cyrillic quote and Markdown in texts are escaped, not interpreted.
    const esc = renderDecisionsMarkdown({ ...filled(), frame: 'a *b* [c](d) <e>' });
    assert.ok(esc.includes('a \\*b\\* \\[c\\](d) \\<e\\>'));
  });

  it('Handover ops: link back to TopicDecisions, expiry, repository, no decisions', () => {
    const md = renderOpsMarkdown(ops());
    assert.match(md, /^# Handover ops — adcm-partition · partition 1\n/);
    assert.ok(md.includes('[TopicDecisions.md](TopicDecisions.md)'));
    assert.ok(md.includes('**expires 2026-07-19T00:00:00.000Z**'));
    assert.ok(md.includes(`HEAD: \`${'a'.repeat(40)}\``));
    assert.ok(md.includes('  - `src/a.ts`\n  - `src/b.ts`'));
    assert.ok(!/## (Frame|Rejected|Accepted)/.test(md));
    assert.ok(!md.includes('State:'));
  });

  it('Handover ops: says stale or fresh when checked', () => {
    const stale = renderOpsMarkdown(ops(), { stale: ['HEAD moved from aaaaaaaaaaaa to bbbbbbbbbbbb'] });
    assert.ok(stale.includes('State: **stale**'));
    assert.ok(stale.includes('- HEAD moved from aaaaaaaaaaaa to bbbbbbbbbbbb'));
    assert.ok(renderOpsMarkdown(ops(), { stale: [] }).includes('State: **fresh**'));
    assert.ok(renderOpsMarkdown({ ...ops(), repo: null }).includes('_not in a git repository_'));
  });
});

describe('resumePack', () => {
  it('puts the decisions first and the ops only as a link with one line of state', () => {
    const text = resumePack(filled(), ops(), { stale: true, changes: ['HEAD moved from aaaaaaaaaaaa to bbbbbbbbbbbb', 'newly dirty: src/c.ts'] });
    const order = ['Frame: How Partition', 'Rejected', 'One hybrid handoff file — because the layers mimic', 'Accepted', 'TopicDecisions plus Handover ops', 'New information', 'Next:', 'Write the validator', 'Handover ops'];
    let at = -1;
    for (const s of order) {
      const i = text.indexOf(s, at + 1);
      assert.ok(i > at, `${s} after the previous part`);
      at = i;
    }
    assert.ok(text.includes(`intercom://message/${TOPIC}/m-2#`));
    const opsLine = text.split('\n').find((l) => l.startsWith('Handover ops')) ?? '';
    assert.match(opsLine, /HandoverOps\.md — stale — HEAD moved from aaaaaaaaaaaa to bbbbbbbbbbbb; newly dirty: src\/c\.ts\.$/);
    // The ops' content is not inlined.
    for (const s of ['src/a.ts', 'npm: watch', 'run the unit tests', 'finish validateAnchors']) assert.ok(!text.includes(s), s);
  });

  it('says fresh, unchecked or absent', () => {
    assert.match(resumePack(filled(), ops(), { stale: false, changes: [] }), /HandoverOps\.md — fresh \(checked; expires 2026-07-19T00:00:00\.000Z\)\.\n$/);
    assert.match(resumePack(filled(), ops()), /not re-checked yet/);
    assert.match(resumePack(filled()), /no ops were written/);
  });
});

describe('approval belongs to the user', () => {
  interface Manifest {
    contributes: {
      commands: { command: string; title: string; category?: string }[];
      languageModelTools: { name: string; modelDescription: string; inputSchema: { properties: { action: { enum: string[] } } } }[];
    };
  }
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;

  it('the partition tool offers start, fill and status only, and says the user approves', () => {
    const tool = pkg.contributes.languageModelTools.find((t) => t.name === 'lifethread_partition');
    assert.ok(tool);
    assert.deepEqual(tool.inputSchema.properties.action.enum, ['start', 'fill', 'status']);
    assert.match(tool.modelDescription, /You cannot approve: the user approves the draft \(the panel's Approve, Life Thread: Approve Partition…, or @life \/partition approve\)/);
  });

  it('Approve Partition… is a palette command of the category Life Thread', () => {
    assert.deepEqual(
      pkg.contributes.commands.filter((c) => c.command === 'lifeThread.approvePartition').map((c) => [c.title, c.category]),
      [['Approve Partition…', 'Life Thread']],
    );
  });
});
