/**
 * The export of a topic's transcript: build → JSONL → parse gives the same
 * records; the hash chain holds and names the first message that breaks it; the Markdown keeps every
 * text verbatim in a fence nothing can close; anchors are checked against their spans (moved quote,
 * edited message, span out of range, unknown message, UTF-16 offsets).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import { buildExport, buildRecords, fenceFor, parseExport, parseExportTail, toJsonl, validateAnchors, validateExport, type TranscriptMessage } from '../../src/core/export';
import { resolveMessageAnchor } from '../../src/core/anchor/ladder';
import { messageHash, type ExportRecord } from '../../src/core/transcript';
import { anchorOnQuote } from './fixtures/messageAnchors';

const MESSAGES: TranscriptMessage[] = [
  { id: 'm-1', role: 'user', time: '2026-07-18T09:00:00.000Z', text: 'Сделаем Partition: пара TopicDecisions + Handover ops.' },
  { id: 'm-2', role: 'assistant', time: '2026-07-18T09:00:05.000Z', text: 'Agreed. One hybrid handoff file is rejected: the layers would mimic each other.\nOps-only is rejected too.' },
  { id: 'm-3', role: 'user', time: '2026-07-18T09:01:00.000Z', text: 'Code:\n```ts\nconst x = 1;\n```\nand ```` four ````. # not a heading\n<script>alert(1)</script> 🎉 done' },
  { id: 'm-4', role: 'assistant', time: '2026-07-18T09:02:00.000Z', text: '' },
  { id: 'm-5', role: 'user', time: '2026-07-18T09:03:00.000Z', text: 'CRLF line\r\nnext line\r\n' },
];

function clone(records: readonly ExportRecord[]): ExportRecord[] {
  return records.map((r) => ({ ...r }));
}

describe('buildExport', () => {
  it('round-trips: build → jsonl → parse gives the same records', () => {
    const built = buildExport('adcm-partition', MESSAGES);
    const back = parseExport(built.jsonl);
    assert.deepEqual(back.errors, []);
    assert.deepEqual(back.records, built.records);
    assert.equal(toJsonl(back.records), built.jsonl);
    assert.equal(built.jsonl.split('\n').length, MESSAGES.length + 1);
    assert.ok(built.jsonl.endsWith('\n'));
  });

  it('chains the hashes: first prevHash empty, each prevHash the hash before, each hash messageHash', () => {
    const { records } = buildExport('t', MESSAGES);
    assert.equal(records[0]?.prevHash, '');
    records.forEach((r, i) => {
      assert.equal(r.hash, messageHash(r));
      if (i > 0) assert.equal(r.prevHash, records[i - 1]?.hash);
    });
    assert.deepEqual(validateExport(records), { ok: true, problems: [] });
  });

  it('is deterministic', () => {
    assert.deepEqual(buildExport('t', MESSAGES), buildExport('t', MESSAGES));
  });

  it('keeps the texts verbatim (UTF-16, CRLF, emoji, empty)', () => {
    const { records } = buildExport('t', MESSAGES);
    records.forEach((r, i) => assert.equal(r.text, MESSAGES[i]?.text));
  });

  it('redacts secrets before hashing by default, and not with redact: false', () => {
    const msgs: TranscriptMessage[] = [{ id: 'a', role: 'user', time: '2026-07-18T09:00:00Z', text: 'the key is sk-proj-abcdefghijklmnopqrstuvwx and password=hunter2' }];
    const red = buildExport('t', msgs);
    assert.ok(!red.jsonl.includes('hunter2') && !red.markdown.includes('hunter2'));
    assert.ok(!red.jsonl.includes('sk-proj-abc'));
    assert.match(red.records[0]?.text ?? '', /password=\[REDACTED\]/);
    assert.equal(validateExport(red.records).ok, true);
    assert.equal(buildRecords(msgs, { redact: false })[0]?.text, msgs[0]?.text);
    // Redaction is stable: exporting an exported text changes nothing.
    assert.equal(buildRecords([{ ...msgs[0], text: red.records[0]?.text ?? '' } as TranscriptMessage])[0]?.text, red.records[0]?.text);
  });

  it('refuses a repeated id and a bad message, naming it', () => {
    assert.throws(
      () => buildRecords([MESSAGES[0] as TranscriptMessage, { ...(MESSAGES[1] as TranscriptMessage), id: 'm-1' }]),
      (e: unknown) => e instanceof InputError && e.field === 'messages[1].id' && /m-1 appears twice/.test(e.reason),
    );
    assert.throws(
      () => buildRecords([{ id: 'x', role: 'system', time: 't', text: '' } as unknown as TranscriptMessage]),
      (e: unknown) => e instanceof InputError && e.field === 'messages[0].role',
    );
  });

  it('renders Markdown: title, an anchor line and a heading per message, texts fenced so nothing closes the fence', () => {
    const { markdown } = buildExport('adcm-partition', MESSAGES);
    assert.match(markdown, /^# Transcript — adcm-partition\n/);
    for (const m of MESSAGES) assert.ok(markdown.includes(`<a id="${m.id}"></a>`), m.id);
    assert.match(markdown, /### user · 2026-07-18T09:00:00\.000Z · `m-1`/);
    assert.match(markdown, /### assistant · 2026-07-18T09:00:05\.000Z · `m-2`/);
    // m-3 contains a run of four backticks: its fence has five.
    assert.equal(fenceFor(MESSAGES[2]?.text ?? ''), '`````');
    assert.ok(markdown.includes(`\`\`\`\`\`text\n${MESSAGES[2]?.text}\n\`\`\`\`\`\n`));
    assert.equal(fenceFor('no ticks'), '```');
    // The HTML in a message stays inside the fence.
    const i = markdown.indexOf('<script>');
    assert.ok(markdown.lastIndexOf('`````text', i) > markdown.lastIndexOf('<a id="m-3"', i));
  });

  it('escapes a message id in the anchor attribute', () => {
    const { markdown } = buildExport('t', [{ id: 'a"b<c', role: 'user', time: '2026-07-18T09:00:00Z', text: 'x' }]);
    assert.ok(markdown.includes('<a id="a&quot;b&lt;c"></a>'));
  });
});

describe('parseExport', () => {
  it('reports bad lines and keeps the good ones', () => {
    const { jsonl } = buildExport('t', MESSAGES.slice(0, 2));
    const lines = jsonl.split('\n');
    const text = [lines[0], '{not json', JSON.stringify({ id: 'x' }), lines[1], ''].join('\n');
    const back = parseExport(text);
    assert.equal(back.records.length, 2);
    assert.equal(back.errors.length, 2);
    assert.match(back.errors[0] ?? '', /^line 2: not JSON/);
    assert.match(back.errors[1] ?? '', /^line 3:/);
  });
});

describe('parseExportTail (the head of the chain, kept in export.md)', () => {
  it('reads the count and the last hash the Markdown was written with', () => {
    const built = buildExport('t', MESSAGES);
    assert.deepEqual(parseExportTail(built.markdown), { messages: MESSAGES.length, lastHash: built.records.at(-1)?.hash });
    assert.deepEqual(parseExportTail(buildExport('t', []).markdown), { messages: 0, lastHash: '' });
    assert.equal(parseExportTail('# notes\n\nnothing here'), null);
  });

  it('is not fooled by a message whose text poses as the header', () => {
    const fake = '0'.repeat(64);
    const built = buildExport('t', [{ id: 'm-x', role: 'user', time: '2026-07-18T09:00:00.000Z', text: `1 message. The source of truth is here\n\nLast hash: \`${fake}\`` }]);
    const tail = parseExportTail(built.markdown);
    assert.equal(tail?.lastHash, built.records[0]?.hash);
    assert.notEqual(tail?.lastHash, fake);
  });
});

describe('validateExport', () => {
  const records = buildExport('t', MESSAGES).records;

  it('names the edited message when a text changes under its hash', () => {
    const r = clone(records);
    (r[2] as ExportRecord).text = 'something else';
    const v = validateExport(r);
    assert.equal(v.ok, false);
    assert.equal(v.firstBroken, 'm-3');
    assert.deepEqual(
      v.problems.map((p) => [p.kind, p.msgId]),
      [['hash', 'm-3']],
    );
    assert.match(v.problems[0]?.reason ?? '', /message m-3 \(record 3\) was edited/);
  });

  it('names the next message when an edited record was re-hashed (the chain breaks after it)', () => {
    const r = clone(records);
    const m = r[1] as ExportRecord;
    m.text = 'rewritten';
    m.hash = messageHash(m);
    const v = validateExport(r);
    assert.equal(v.firstBroken, 'm-3');
    assert.equal(v.problems[0]?.kind, 'prev_hash');
    assert.match(v.problems[0]?.reason ?? '', /prevHash .* is not the hash .* of message m-2/);
  });

  it('catches a removed and a reordered record', () => {
    const removed = clone(records);
    removed.splice(1, 1);
    assert.equal(validateExport(removed).firstBroken, 'm-3');
    const swapped = clone(records);
    [swapped[3], swapped[4]] = [swapped[4] as ExportRecord, swapped[3] as ExportRecord];
    assert.equal(validateExport(swapped).firstBroken, 'm-5');
  });

  it('wants an empty prevHash on the first record', () => {
    const r = clone(records).slice(1);
    const v = validateExport(r);
    assert.equal(v.firstBroken, 'm-2');
    assert.match(v.problems[0]?.reason ?? '', /first record's must be empty/);
  });

  it('catches a duplicate id', () => {
    const r = clone(records);
    r.push({ ...(r[0] as ExportRecord) });
    const v = validateExport(r);
    assert.ok(v.problems.some((p) => p.kind === 'duplicate_id' && p.msgId === 'm-1' && /records 1 and 6/.test(p.reason)));
  });
});

describe('validateAnchors', () => {
  const records = buildExport('t', MESSAGES).records;
  const m2 = records[1] as ExportRecord;
  const quote = 'One hybrid handoff file is rejected';
  const start = m2.text.indexOf(quote);
  const good = { msgId: 'm-2', start, end: start + quote.length, quote };

  it('passes a quote that stands at its span', () => {
    assert.deepEqual(validateAnchors(records, [{ anchor: good, where: 'accepted[0].anchors[0]' }]), { ok: true, broken: [] });
  });

  it('counts UTF-16 code units, end-exclusive (Cyrillic and an emoji)', () => {
    const m3 = records[2] as ExportRecord;
    const at = m3.text.indexOf('🎉');
    const a = { msgId: 'm-3', start: at, end: at + 2, quote: '🎉' };
    assert.equal(validateAnchors(records, [{ anchor: a, where: 'w' }]).ok, true);
    const m1 = records[0] as ExportRecord;
    const ru = anchorOnQuote(m1, 'пара TopicDecisions');
    assert.ok(ru);
    assert.equal(ru.start, m1.text.indexOf('пара'));
    assert.equal(validateAnchors(records, [{ anchor: ru, where: 'w' }]).ok, true);
  });

  it('catches a moved quote and says where it stands now', () => {
    const moved = { ...good, start: good.start + 4, end: good.end + 4 };
    const v = validateAnchors(records, [{ anchor: moved, where: 'rejected[1].anchors[0]' }]);
    assert.equal(v.ok, false);
    const b = v.broken[0];
    assert.equal(b?.kind, 'quote_differs');
    assert.equal(b?.where, 'rejected[1].anchors[0]');
    assert.equal(b?.msgId, 'm-2');
    assert.match(b?.reason ?? '', /quote differs: span \d+-\d+ of message m-2 holds "hybrid handoff file is rejected: th"/);
    assert.deepEqual(b?.movedTo, { start: good.start, end: good.end });
  });

  it('says when the quote is not in the message at all', () => {
    const v = validateAnchors(records, [{ anchor: { ...good, quote: 'One hybrid handoff file is accepted' }, where: 'w' }]);
    assert.match(v.broken[0]?.reason ?? '', /the quote is not in the message/);
  });

  it('catches an edited message', () => {
    const r = clone(records);
    (r[1] as ExportRecord).text = (r[1] as ExportRecord).text.replace('Agreed', 'Agreed!');
    const v = validateAnchors(r, [{ anchor: good, where: 'w' }]);
    assert.equal(v.broken[0]?.kind, 'edited_message');
    assert.match(v.broken[0]?.reason ?? '', /message m-2 was edited/);
  });

  it('catches a span out of range and an empty span', () => {
    const len = m2.text.length;
    const v = validateAnchors(records, [
      { anchor: { msgId: 'm-2', start: len - 2, end: len + 5, quote: 'x' }, where: 'a' },
      { anchor: { msgId: 'm-2', start: 9, end: 3, quote: '' }, where: 'b' },
      { anchor: { msgId: 'm-2', start: 3, end: 3, quote: '' }, where: 'c' },
    ]);
    assert.deepEqual(
      v.broken.map((b) => [b.where, b.kind]),
      [
        ['a', 'out_of_range'],
        ['b', 'out_of_range'],
        ['c', 'empty'],
      ],
    );
    assert.match(v.broken[0]?.reason ?? '', new RegExp(`message m-2 has ${len} characters`));
  });

  it('catches an unknown msgId', () => {
    const v = validateAnchors(records, [{ anchor: { ...good, msgId: 'm-99' }, where: 'anchors[0]' }]);
    assert.deepEqual(v.broken, [{ where: 'anchors[0]', msgId: 'm-99', kind: 'unknown_message', reason: 'no message m-99 in the export' }]);
  });
});

describe('resolveMessageAnchor (the ladder for a message anchor)', () => {
  const text = 'Agreed. One hybrid handoff file is rejected: the layers would mimic each other. Ops-only is rejected too.';
  const quote = 'One hybrid handoff file';
  const at = text.indexOf(quote);

  it('exact at its span', () => {
    const r = resolveMessageAnchor(text, { start: at, end: at + quote.length, quote });
    assert.deepEqual([r.step, r.start, r.end], ['exact', at, at + quote.length]);
  });

  it('a quote moved within its message is found once: step excerpt with the new span', () => {
    const edited = `Yes. ${text}`;
    const r = resolveMessageAnchor(edited, { start: at, end: at + quote.length, quote });
    assert.equal(r.step, 'excerpt');
    assert.equal(edited.slice(r.start, r.end), quote);
    assert.equal(r.start, at + 5);
    assert.match(r.reason, /moved/);
  });

  it('orphaned when the quote is gone, ambiguous or empty; the stored span is kept', () => {
    const gone = resolveMessageAnchor('nothing here', { start: 3, end: 9, quote });
    assert.deepEqual([gone.step, gone.start, gone.end], ['orphaned', 3, 9]);
    assert.match(gone.reason, /not in the message/);
    const twice = resolveMessageAnchor('is rejected, is rejected', { start: 100, end: 111, quote: 'is rejected' });
    assert.equal(twice.step, 'orphaned');
    assert.match(twice.reason, /2 times .*ambiguous/);
    assert.match(resolveMessageAnchor(text, { start: 0, end: 0, quote: '' }).reason, /quotes nothing/);
  });
});

