/**
 * Bounded partitions and the checks of a topic as it is read: the span since the previous export,
 * harness turns (/partition, /resume) that are not "something new", the fill prompt that holds only
 * the previous decisions and the new span; the verification of every export's chain and of the
 * latest filled decisions' anchors (a tampered message named; placeholders "not filled yet"; anchors
 * into an earlier partition's export stand); the summary the approval dialog shows; and the import of
 * VS Code's chat export.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopicDecisions } from '../../src/core/continuity/documents';
import { stubDecisions } from '../../src/core/continuity/stub';
import { lintDecisions } from '../../src/core/continuity/lint';
import { makeOps } from '../../src/core/continuity/ops';
import { resumePack } from '../../src/core/continuity/resume';
import { importChatExport, importedId } from '../../src/core/chatImport';
import { buildExport, type TranscriptMessage } from '../../src/core/export';
import { anchorOnQuote } from './fixtures/messageAnchors';
import { conversation, fillPrompt, harnessTurns, newSpan } from '../../src/core/topicSpan';
import { latestFilled, verifyTopic, type DecisionsOnDisk, type ExportOnDisk } from '../../src/core/topicVerify';
import { decisionsView, diffLines, draftSummary, topicView } from '../../src/core/topicView';
import type { ExportRecord, MessageAnchor } from '../../src/core/transcript';

const NOW = new Date('2026-07-18T12:00:00.000Z');
const msg = (id: string, role: 'user' | 'assistant', text: string): TranscriptMessage => ({ id, role, time: '2026-07-18T09:00:00Z', text });

const FIRST: TranscriptMessage[] = [
  msg('m-1', 'user', 'We should use croner, not a minute poll.'),
  msg('m-2', 'assistant', 'Agreed: croner with an explicit zone; the minute poll is rejected.'),
  msg('m-3', 'user', '/partition demo'),
  msg('m-4', 'assistant', 'Wrote the export. TopicDecisions wait for your approval.'),
];
const SECOND: TranscriptMessage[] = [
  msg('m-5', 'user', '/resume demo'),
  msg('m-6', 'assistant', 'Resuming topic demo, partition 1. Frame: durable reminders.'),
  msg('m-7', 'user', 'Quarantine bad rows instead of dropping them.'),
  msg('m-8', 'assistant', 'Yes: a quarantine file beside the table.'),
];

function anchor(records: readonly ExportRecord[], id: string, quote: string): MessageAnchor {
  const r = records.find((x) => x.id === id);
  const a = r && anchorOnQuote(r, quote);
  if (!a) throw new Error(`no ${quote} in ${id}`);
  return a;
}

const EXPORT1 = buildExport('demo', FIRST.slice(0, 2)).records;
const EXPORT2 = buildExport('demo', [...FIRST.slice(2), ...SECOND]).records;

function decisions1(): TopicDecisions {
  return {
    ...stubDecisions('demo', 1, undefined, NOW),
    frame: 'Durable reminders fired by one dispatcher.',
    rejected: [{ text: 'A minute poll', reason: 'wakes the laptop', anchors: [anchor(EXPORT1, 'm-1', 'minute poll')] }],
    accepted: [{ text: 'croner with an explicit zone', reason: 'DST-safe', anchors: [anchor(EXPORT1, 'm-2', 'croner with an explicit zone')] }],
    new: [],
    next: ['Wire the store'],
  };
}

function decisions2(): TopicDecisions {
  const d1 = decisions1();
  return {
    ...stubDecisions('demo', 2, d1, NOW),
    frame: 'Durable reminders fired by one dispatcher, bad rows quarantined.',
    rejected: d1.rejected.map((r) => ({ ...r, carriedFrom: 1 })),
    accepted: [{ text: 'Quarantine bad rows', reason: 'nothing stored is lost', anchors: [anchor(EXPORT2, 'm-7', 'Quarantine bad rows')] }],
    new: [],
    next: ['Write the quarantine file'],
  };
}

describe('newSpan and harness turns', () => {
  it('the span starts after the last message the previous export holds', () => {
    const transcript = [...FIRST, ...SECOND];
    assert.deepEqual(newSpan(transcript, new Set(['m-1', 'm-2'])).map((m) => m.id), ['m-3', 'm-4', 'm-5', 'm-6', 'm-7', 'm-8']);
    assert.deepEqual(newSpan(transcript, new Set()).length, 8);
    assert.deepEqual(newSpan(transcript, new Set(transcript.map((m) => m.id))), []);
    // A transcript that no longer holds the previous ids: what is not among them.
    assert.deepEqual(newSpan([msg('x-1', 'user', 'a'), msg('m-2', 'user', 'b')].slice(0, 1), new Set(['m-2'])).map((m) => m.id), ['x-1']);
  });

  it('/partition and /resume requests and their answers are harness turns, not conversation', () => {
    assert.deepEqual(harnessTurns([...FIRST, ...SECOND]), [false, false, true, true, true, true, false, false]);
    assert.deepEqual(conversation([...FIRST.slice(2), ...SECOND.slice(0, 2)]), []);
    assert.deepEqual(conversation(SECOND).map((m) => m.id), ['m-7', 'm-8']);
    assert.deepEqual(harnessTurns([msg('a', 'user', '/partitioned is a word'), msg('b', 'assistant', 'x')]), [false, false]);
  });
});

describe('fillPrompt', () => {
  it('a second partition sends the previous decisions and the new span — nothing older, no harness turns', () => {
    const prev = decisions1();
    const prompt = fillPrompt({ topic: 'demo', partition: 2, records: EXPORT2, previous: prev, carried: prev.rejected });
    assert.match(prompt, /^Partition of topic "demo" \(partition 2\)/);
    assert.match(prompt, /Previous TopicDecisions \(partition 1\):\nFrame: Durable reminders fired by one dispatcher\./);
    assert.match(prompt, /- A minute poll — because wakes the laptop \(anchors: m-1 /);
    const spanLines = prompt.split('\n').filter((l) => /^\[m-\d\] /.test(l));
    assert.deepEqual(spanLines, ['[m-7] user: Quarantine bad rows instead of dropping them.', '[m-8] assistant: Yes: a quarantine file beside the table.']);
    assert.ok(!prompt.includes('We should use croner'), 'the first span is not sent again');
    assert.ok(!prompt.includes('/resume demo') && !prompt.includes('Resuming topic'), 'harness turns are left out');
    assert.match(prompt, /The user approves the decisions; you never do\./);
  });

  it('the first partition has no previous decisions', () => {
    const prompt = fillPrompt({ topic: 'demo', partition: 1, records: EXPORT1, carried: [] });
    assert.ok(!prompt.includes('Previous TopicDecisions'));
    assert.match(prompt, /since the topic began/);
    assert.equal(prompt.split('\n').filter((l) => /^\[m-\d\] /.test(l)).length, 2);
  });
});

function exports(e2 = EXPORT2): ExportOnDisk[] {
  return [
    { file: 'export.jsonl', partition: 2, records: e2, errors: [] },
    { file: 'history/1/export.jsonl', partition: 1, records: EXPORT1, errors: [] },
  ];
}

describe('verifyTopic', () => {
  it('verifies both chains and the anchors of the latest filled decisions, including carried anchors into history/1', () => {
    const d2 = decisions2();
    assert.deepEqual(lintDecisions(d2, [...EXPORT2, ...EXPORT1]).problems, []);
    const v = verifyTopic({ exports: exports(), decisions: [{ file: 'topic-decisions.draft.json', decisions: d2, kind: 'draft' }, { file: 'topic-decisions.json', decisions: stubDecisions('demo', 2, decisions1(), NOW), kind: 'current' }, { file: 'history/1/topic-decisions.json', decisions: decisions1(), kind: 'history' }] });
    assert.equal(v.ok, true, v.firstProblem);
    assert.equal(v.checked?.kind, 'draft');
    assert.equal(v.checked?.anchors, 2);
    assert.deepEqual(v.broken, []);
    assert.match(v.line, /^export verified: 8 messages in 2 exports, chain intact; 2 anchors of partition 2 stand$/);
    assert.deepEqual(v.notFilled, [], 'the stub beside a filled draft of its partition is not "not filled": the draft waits for approval');
  });

  it('a stub with no draft, or with a draft still holding placeholders, is reported as not filled yet', () => {
    const stub = { file: 'topic-decisions.json', decisions: stubDecisions('demo', 2, decisions1(), NOW), kind: 'current' as const };
    const alone = verifyTopic({ exports: exports(), decisions: [stub] });
    assert.equal(alone.ok, true);
    assert.match(alone.notFilled[0] ?? '', /topic-decisions\.json \(partition 2\) is not filled yet/);
    assert.match(alone.line, /; decisions not filled yet$/);
    const unfilledDraft = verifyTopic({ exports: exports(), decisions: [{ ...stub, file: 'topic-decisions.draft.json', kind: 'draft' }, stub] });
    assert.equal(unfilledDraft.notFilled.length, 2);
  });

  it('a tampered message breaks the chain and is named', () => {
    const tampered = EXPORT2.map((r) => (r.id === 'm-7' ? { ...r, text: r.text.replace('instead of', 'and also') } : r));
    const v = verifyTopic({ exports: exports(tampered), decisions: [{ file: 'topic-decisions.json', decisions: decisions2(), kind: 'current' }] });
    assert.equal(v.ok, false);
    assert.match(v.firstProblem ?? '', /^export\.jsonl: message m-7 — message m-7 \(record 5\) was edited/);
    assert.match(v.line, /^export broken — export\.jsonl: message m-7/);
    // The anchor into it is reported as well, for the edited message.
    assert.equal(v.broken[0]?.kind, 'edited_message');
  });

  it('a line that does not parse is the first problem, before the gap it leaves', () => {
    const v = verifyTopic({ exports: [{ file: 'export.jsonl', records: EXPORT2.filter((r) => r.id !== 'm-4'), errors: ['line 2: not JSON'] }], decisions: [] });
    assert.equal(v.ok, false);
    assert.match(v.firstProblem ?? '', /^export\.jsonl: line 2: not JSON — export\.jsonl line 2: not JSON/);
  });

  it('an anchor that does not stand fails and names its message; an unfilled stub only says "not filled yet"', () => {
    const d1 = decisions1();
    const bad = { ...d1, accepted: [{ ...d1.accepted[0], text: 'x', reason: 'y', anchors: [{ msgId: 'm-2', start: 0, end: 6, quote: 'Denied' }] }] };
    const v = verifyTopic({ exports: exports().slice(1), decisions: [{ file: 'topic-decisions.json', decisions: bad, kind: 'current' }] });
    assert.equal(v.ok, false);
    assert.match(v.firstProblem ?? '', /^message m-2 \(topic-decisions\.json accepted\[0\]\.anchors\[0\]\): quote differs/);
    const stub = verifyTopic({ exports: exports().slice(1), decisions: [{ file: 'topic-decisions.json', decisions: stubDecisions('demo', 1, undefined, NOW), kind: 'current' }] });
    assert.equal(stub.ok, true);
    assert.equal(stub.checked, undefined);
    assert.match(stub.notFilled.join(' '), /not filled yet/);
  });

  it('a filled draft with a placeholder anchor left: "not filled yet", not broken', () => {
    const d = { ...decisions1(), anchors: [{ msgId: 'TODO', start: 0, end: 0, quote: 'TODO: quote it' }] };
    const v = verifyTopic({ exports: exports().slice(1), decisions: [{ file: 'topic-decisions.draft.json', decisions: d, kind: 'draft' }] });
    assert.equal(v.ok, true);
    assert.match(v.notFilled.join(' '), /1 anchor is still placeholders/);
  });

  it('latestFilled prefers the draft, then the current decisions, then the newest history', () => {
    const h1: DecisionsOnDisk = { file: 'h1', decisions: decisions1(), kind: 'history' };
    const cur: DecisionsOnDisk = { file: 'cur', decisions: stubDecisions('demo', 2, decisions1(), NOW), kind: 'current' };
    assert.equal(latestFilled([cur, h1])?.file, 'h1');
    assert.equal(latestFilled([h1, { file: 'd', decisions: decisions2(), kind: 'draft' }, cur])?.file, 'd');
  });
});

describe('topicView and draftSummary', () => {
  it('the panel view of a topic under review: the draft beside the ops, the diff against partition 1, the verification', () => {
    const d2 = decisions2();
    const v = verifyTopic({ exports: exports(), decisions: [{ file: 'topic-decisions.draft.json', decisions: d2, kind: 'draft' }] });
    const view = topicView({
      topic: 'demo',
      topics: ['demo'],
      current: stubDecisions('demo', 2, decisions1(), NOW),
      draft: { decisions: d2, lint: lintDecisions(d2, [...EXPORT2, ...EXPORT1]) },
      previous: decisions1(),
      ops: null,
      verification: v,
      history: [{ partition: 1, createdAt: NOW.toISOString(), frame: decisions1().frame, messages: 2 }],
      newMessages: 0,
      time: { tz: 'Europe/Berlin', now: NOW },
    });
    assert.equal(view.state, 'review');
    assert.equal(view.decisions?.partition, 1, 'the decisions in force are partition 1 until the draft is approved');
    assert.deepEqual(view.review?.problems, []);
    assert.deepEqual(view.review?.diff, ['~ frame: Durable reminders fired by one dispatcher, bad rows quarantined.', '+ accepted: Quarantine bad rows', '− accepted: croner with an explicit zone', '+ next: Write the quarantine file', '− next: Wire the store']);
    assert.equal(view.review?.decisions.rejected[0]?.carried, true);
    assert.equal(view.review?.decisions.accepted[0]?.anchors[0]?.msgId, 'm-7');
    assert.equal(view.verify.ok, true);
    // Times as the sidebar shows them, in the owner's zone; the ISO instants stay beside them for the files.
    assert.equal(view.history[0]?.written, 'Sat 18 Jul 14:00 CEST (12:00Z), now');
    assert.equal(view.decisions?.createdAt, decisions1().createdAt);
    assert.doesNotMatch(view.decisions?.written ?? '', /\d{4}-\d\d-\d\dT/);
  });

  it('Handover ops and /resume show times in the owner\u2019s zone, not ISO', () => {
    const ops = makeOps({ topic: 'demo', partition: 1, now: new Date('2026-07-18T10:00:00Z'), ttlHours: 1, repo: null });
    const time = { tz: 'America/Los_Angeles', now: NOW };
    const staleness = { stale: true, changes: ['expired Sat 18 Jul 04:00 PDT (11:00Z), 1 h ago'] };
    const view = topicView({ topic: 'demo', topics: ['demo'], current: decisions1(), draft: null, previous: null, ops, check: { staleness, at: NOW }, verification: verifyTopic({ exports: exports(), decisions: [] }), history: [], newMessages: 0, time });
    assert.equal(view.ops?.expires, 'Sat 18 Jul 04:00 PDT (11:00Z), 1 h ago');
    assert.equal(view.ops?.checked, 'Sat 18 Jul 05:00 PDT (12:00Z), now');
    assert.equal(view.ops?.expiresAt, '2026-07-18T11:00:00.000Z', 'the ISO instant stays in the view data');
    const text = resumePack(decisions1(), ops, { stale: false, changes: [] }, time);
    assert.match(text, /fresh \(checked; expires Sat 18 Jul 04:00 PDT \(11:00Z\), 1 h ago\)/);
    assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT\d\d:\d\d/, 'no ISO instant in /resume\u2019s text');
    // Without a reader's zone (the pack a wake sends the agent) the instants stay as in the files.
    assert.match(resumePack(decisions1(), ops), /expires 2026-07-18T11:00:00\.000Z/);
  });

  it('the approval summary gives counts and the lint\u2019s verdict', () => {
    const d2 = decisions2();
    const ok = draftSummary('demo', d2, lintDecisions(d2, [...EXPORT2, ...EXPORT1]));
    assert.equal(ok.title, 'Approve partition 2 of topic demo?');
    assert.match(ok.detail, /^1 accepted, 1 rejected \(1 carried forward\), 0 new, 1 next; the lint passes\./);
    const refused = draftSummary('demo', d2, lintDecisions({ ...d2, next: [] }, EXPORT2));
    assert.match(refused.detail, /the lint refuses it: next: Next is empty/);
    assert.equal(decisionsView('demo', d2, { tz: 'UTC', now: NOW }).next[0], 'Write the quarantine file');
    assert.deepEqual(diffLines(undefined, decisions1()).slice(0, 2), ['+ accepted: croner with an explicit zone', '+ rejected: A minute poll']);
  });
});

describe('importChatExport (the JSON workbench.action.chat.export writes, VS Code 1.139)', () => {
  const agent = (id: string, name: string) => ({ extensionId: { value: 'x.y', _lower: 'x.y' }, id, name, fullName: name, locations: ['panel'], metadata: {} });
  const exported = {
    responderUsername: '',
    initialLocation: 'panel',
    requests: [
      {
        requestId: 'request_5ebd6426-1532-4c2e-8d0c-12f56e7856db',
        message: { parts: [{ kind: 'agent' }, { kind: 'text', text: ' hello there' }], text: '@other hello there' },
        variableData: { variables: [] },
        response: [
          { kind: 'mcpServersStarting', didStartServerIds: [] },
          { value: 'Other agent heard: ', supportThemeIcons: false, supportHtml: false, uris: {} },
          { kind: 'toolInvocationSerialized', toolId: 'run', invocationMessage: 'Running' },
          { value: 'hello there', supportThemeIcons: false },
        ],
        agent: agent('lifethread-test.other', 'other'),
        timestamp: Date.parse('2026-07-18T09:00:00Z'),
        responseTimestamp: Date.parse('2026-07-18T09:00:02Z'),
      },
      {
        requestId: 'request_life_done',
        message: { text: '@life we should use croner' },
        response: [{ value: 'Agreed.' }],
        agent: agent('lifethread.life', 'life'),
        timestamp: Date.parse('2026-07-18T09:00:30Z'),
        result: { metadata: { command: 'default', lifeThread: { topic: 'main', requestId: 'm-own-aaaaaa', responseId: 'm-own-bbbbbb' } } },
      },
      { requestId: 'request_life', message: { text: '@life /partition demo' }, response: [{ value: 'Wrote…' }], agent: agent('lifethread.life', 'life'), timestamp: Date.parse('2026-07-18T09:01:00Z') },
      {
        requestId: 'request_life_skipped',
        message: { text: '@life /partition demo' },
        response: [{ value: 'Nothing new to hand over.' }],
        agent: agent('lifethread.life', 'life'),
        timestamp: Date.parse('2026-07-18T09:01:30Z'),
        result: { metadata: { transcript: 'skip', lifeThread: { topic: 'demo', requestId: 'm-skip-aaaaaa', responseId: 'm-skip-bbbbbb' } } },
      },
      { requestId: 'request_default', message: { text: 'what does croner do?' }, response: [], timestamp: Date.parse('2026-07-18T09:02:00Z') },
      { message: { text: 'no request id' } },
    ],
  };

  it('imports the other participants\u2019 requests and answers (Markdown only) with minted ids, @life\u2019s finished turns with their own ids; skips one in flight and malformed ones', () => {
    const r = importChatExport(exported, { ownParticipant: 'lifethread.life', now: NOW });
    assert.deepEqual(
      r.messages.map((m) => [m.role, m.time, m.text]),
      [
        ['user', '2026-07-18T09:00:00.000Z', '@other hello there'],
        ['assistant', '2026-07-18T09:00:02.000Z', 'Other agent heard: hello there'],
        ['user', '2026-07-18T09:00:30.000Z', 'we should use croner'],
        ['assistant', '2026-07-18T09:00:30.000Z', 'Agreed.'],
        ['user', '2026-07-18T09:02:00.000Z', 'what does croner do?'],
      ],
    );
    assert.deepEqual([r.skippedOwn, r.skippedBad, r.participants], [2, 1, ['', 'lifethread-test.other']], 'the one in flight and the one @life did not keep');
    assert.deepEqual(r.messages.slice(2, 4).map((m) => m.id), ['m-own-aaaaaa', 'm-own-bbbbbb'], '@life\u2019s minted ids are kept');
    assert.ok(r.messages.every((m) => /^m-[a-z0-9]+-[a-z0-9]{6}$/.test(m.id)), 'ids look like @life\u2019s');
    assert.equal(new Set(r.messages.map((m) => m.id)).size, 5);
  });

  it('the same chat imports to the same ids; another request to others', () => {
    const a = importChatExport(exported, { ownParticipant: 'lifethread.life', now: NOW });
    const b = importChatExport(JSON.parse(JSON.stringify(exported)) as unknown, { ownParticipant: 'lifethread.life', now: new Date(0) });
    assert.deepEqual(a.messages.map((m) => m.id), b.messages.map((m) => m.id));
    assert.notEqual(importedId('request_a', 'user', 1), importedId('request_b', 'user', 1));
    assert.notEqual(importedId('request_a', 'user', 1), importedId('request_a', 'assistant', 1));
  });

  it('refuses a file that is not a chat export', () => {
    assert.throws(() => importChatExport({ version: 3 }, { ownParticipant: 'lifethread.life', now: NOW }), /requests/);
    assert.throws(() => importChatExport('nope', { ownParticipant: 'lifethread.life', now: NOW }));
  });
});
