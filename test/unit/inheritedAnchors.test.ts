/**
 * A new partition's fill and the anchors it inherits (src/core/continuity/inherited.ts): the fill
 * prompt carries each inherited anchor with its quote, a model that copies them — or cites one by
 * reference without the quote — fills decisions the schema and the lint accept, and a refused fill
 * names the item and the anchor in words.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDecisions, type TopicDecisions } from '../../src/core/continuity/documents';
import { completeInheritedQuotes, inheritedAnchors, refusalWords } from '../../src/core/continuity/inherited';
import { lintDecisions } from '../../src/core/continuity/lint';
import { stubDecisions } from '../../src/core/continuity/stub';
import { buildExport, type TranscriptMessage } from '../../src/core/export';
import { fillPrompt } from '../../src/core/topicSpan';
import type { MessageAnchor } from '../../src/core/transcript';
import { anchorOnQuote } from './fixtures/messageAnchors';

const NOW = new Date('2026-07-18T12:00:00.000Z');
const msg = (id: string, role: 'user' | 'assistant', text: string): TranscriptMessage => ({ id, role, time: '2026-07-18T09:00:00Z', text });
const EXPORT1 = buildExport('demo', [msg('m-demo-1', 'user', 'We keep the zone explicit in every row of the table, not a floating local time.'), msg('m-demo-2', 'assistant', 'Agreed.')]).records;
const EXPORT2 = buildExport('demo', [msg('m-demo-3', 'user', 'Quarantine bad rows instead of dropping them.')]).records;
const RECORDS = [...EXPORT1, ...EXPORT2];

function anchor(id: string, quote: string): MessageAnchor {
  const r = RECORDS.find((x) => x.id === id);
  const a = r && anchorOnQuote(r, quote);
  if (!a) throw new Error(`no ${quote} in ${id}`);
  return a;
}

function previous(): TopicDecisions {
  return {
    ...stubDecisions('demo', 1, undefined, NOW),
    frame: 'Durable reminders.',
    rejected: [{ text: 'A floating local time', reason: 'ambiguous across zones', anchors: [anchor('m-demo-1', 'not a floating local time')] }],
    accepted: [{ text: 'Keep the zone explicit', reason: 'DST-safe', anchors: [anchor('m-demo-1', 'We keep the zone explicit in every row of the table')] }],
    new: [],
    next: ['Wire the store'],
  };
}

/** The anchors the prompt lists: `msgId start-end "quote"`, read back as a model would. */
function anchorsInPrompt(prompt: string): MessageAnchor[] {
  return [...prompt.matchAll(/(m-[\w-]+) (\d+)-(\d+) ("(?:[^"\\]|\\.)*")/g)].map((m) => ({ msgId: m[1] ?? '', start: Number(m[2]), end: Number(m[3]), quote: JSON.parse(m[4] ?? '""') as string }));
}

function fill(prev: TopicDecisions, raw: object): ReturnType<typeof parseDecisions> {
  const given = completeInheritedQuotes(raw, inheritedAnchors(prev));
  return parseDecisions({ ...stubDecisions('demo', 2, prev, NOW), ...(given as object), createdAt: NOW.toISOString() });
}

describe('inherited anchors in the fill prompt', () => {
  it('the prompt gives each anchor of the previous decisions with its quote, which stands at its span', () => {
    const prev = previous();
    const prompt = fillPrompt({ topic: 'demo', partition: 2, records: EXPORT2, previous: prev, carried: prev.rejected.map((r) => ({ ...r, carriedFrom: 1 })) });
    const listed = anchorsInPrompt(prompt);
    const accepted = prev.accepted[0]?.anchors[0];
    assert.ok(accepted);
    assert.ok(prompt.includes(`${accepted.msgId} ${accepted.start}-${accepted.end} "We keep the zone explicit in every row of the table"`), prompt);
    assert.deepEqual(new Set(listed.map((a) => JSON.stringify(a))), new Set(inheritedAnchors(prev).map((a) => JSON.stringify(a))));
    for (const a of listed) assert.equal(RECORDS.find((r) => r.id === a.msgId)?.text.slice(a.start, a.end), a.quote);
  });

  it('a model that copies the anchors from the prompt fills decisions the schema and the lint accept', () => {
    const prev = previous();
    const [kept] = anchorsInPrompt(fillPrompt({ topic: 'demo', partition: 2, records: EXPORT2, previous: prev, carried: [] })).filter((a) => a.quote.startsWith('We keep'));
    assert.ok(kept);
    const parsed = fill(prev, {
      frame: 'Durable reminders, bad rows quarantined.',
      accepted: [
        { text: 'Keep the zone explicit', reason: 'DST-safe', anchors: [kept] },
        { text: 'Quarantine bad rows', reason: 'nothing is lost', anchors: [anchor('m-demo-3', 'Quarantine bad rows')] },
      ],
      rejected: [],
      new: [],
      next: ['Write the quarantine file'],
      anchors: [],
    });
    assert.ok(parsed.ok, JSON.stringify(parsed));
    if (parsed.ok) assert.deepEqual(lintDecisions(parsed.value, RECORDS).problems, []);
  });

  it('an inherited anchor cited by reference ({ msgId, start, end }) gets its quote from the harness', () => {
    const prev = previous();
    const a = prev.accepted[0]?.anchors[0];
    assert.ok(a);
    const parsed = fill(prev, { frame: 'f', accepted: [{ text: 'Keep the zone explicit', reason: 'DST-safe', anchors: [{ msgId: a.msgId, start: a.start, end: a.end }] }], rejected: [], new: [], next: ['n'], anchors: [{ msgId: a.msgId, start: a.start, end: a.end }] });
    assert.ok(parsed.ok, JSON.stringify(parsed));
    if (!parsed.ok) return;
    assert.equal(parsed.value.accepted[0]?.anchors[0]?.quote, a.quote);
    assert.equal(parsed.value.anchors[0]?.quote, a.quote);
    assert.deepEqual(lintDecisions(parsed.value, RECORDS).problems, []);
  });

  it('an anchor without a quote that no previous decision holds is refused, naming the item, the anchor and the text there', () => {
    const prev = previous();
    const raw = { frame: 'f', accepted: [{ text: 'Quarantine bad rows', reason: 'nothing is lost', anchors: [{ msgId: 'm-demo-3', start: 0, end: 10 }] }], rejected: [], new: [], next: ['n'], anchors: [] };
    const parsed = fill(prev, raw);
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.equal(parsed.field, 'accepted.0.anchors.0.quote');
    assert.equal(
      refusalWords(parsed.field, parsed.reason, raw, RECORDS),
      'Accepted item 1 ("Quarantine bad rows"), anchor 1 (m-demo-3 0-10) has no quote: give the exact text at characters 0-10 of message m-demo-3 (UTF-16, end exclusive), or copy the anchor with its quote as the prompt lists it. The text there is "Quarantine". Fix it and call fill again.',
    );
  });

  it('other refusals name the item and the field', () => {
    assert.equal(refusalWords('rejected.1.reason', 'Invalid input: expected string, received undefined', { rejected: [{}, { text: 'x' }] }), 'Rejected item 2 ("x"): reason is missing. Fix it and call fill again.');
    assert.equal(refusalWords('anchors.0.start', 'Invalid input: expected number, received undefined', { anchors: [{ msgId: 'm-1' }] }), 'The Anchors slot, anchor 1: start is missing. An anchor is { msgId, start, end, quote }. Fix it and call fill again.');
    assert.equal(refusalWords('frame', 'Invalid input: expected string, received undefined', {}), '"frame" is missing. Fix it and call fill again.');
  });
});
