import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';
import { ScriptedModel, toolResults, type ChatBody } from '../../../scriptedModel';

interface Line {
  id: string;
  role: string;
  text: string;
}

function transcript(dir: string): Line[] {
  const file = join(dir, 'transcript.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/** Builds the agent's decisions from the transcript the harness put in the /partition prompt. */
function decisionsFrom(body: ChatBody, quoteOverride?: string): object {
  const prompt = body.messages.map((m) => m.content ?? '').join('\n');
  const lines = [...prompt.matchAll(/^\[(m-[\w-]+)\] (user|assistant): (.*)$/gm)].map((m) => ({ id: m[1] ?? '', text: m[3] ?? '' }));
  const user = lines.find((l) => l.text.includes('croner'));
  assert.ok(user, `the harness gave the transcript with ids: ${prompt.slice(0, 400)}`);
  const start = user.text.indexOf('croner');
  const polling = user.text.indexOf('minute poll');
  return {
    frame: 'Durable reminders for the agent, fired on time by one dispatcher.',
    accepted: [{ text: 'Use croner with an explicit zone', reason: 'DST-safe next runs', anchors: [{ msgId: user.id, start, end: start + 6, quote: quoteOverride ?? 'croner' }] }],
    rejected: [{ text: 'A minute poll', reason: 'wakes the laptop every minute', anchors: [{ msgId: user.id, start: polling, end: polling + 'minute poll'.length, quote: 'minute poll' }] }],
    new: [{ text: 'croner 11.0.1 passed the DST sweep' }],
    next: ['Wire the dispatcher to the store'],
    anchors: [],
  };
}

async function chat(query: string, server: ScriptedModel): Promise<unknown> {
  const result = await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: false, blockOnResponse: true, modelSelector: { vendor: 'lifethread', id: server.modelId } });
  if (typeof result === 'object' && result !== null && (result as { type?: string }).type === 'confirmation') {
    await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
  }
  return result;
}

describe('continuity pair: @life conversation → /partition → approval → /resume', () => {
  const server = new ScriptedModel();
  let quote: string | undefined;

  before(async () => {
    await server.start();
    await server.connect();
    server.script = (b) => {
      const tools = (b.tools ?? []).map((t) => t.function.name);
      if (tools.length === 1 && tools[0] === 'lifethread_partition') {
        const results = toolResults(b);
        if (results.length === 0) return { toolCalls: [{ name: 'lifethread_partition', args: { action: 'fill', topic: 'demo', decisions: decisionsFrom(b, quote) } }] };
        return { text: `Filled. ${results.at(-1)?.slice(0, 120) ?? ''}` };
      }
      return { text: 'Agreed: croner with an explicit zone; the minute poll is rejected.' };
    };
  });

  after(async () => {
    await server.disconnect().catch(() => undefined);
    await server.stop();
  });

  it('mints ids for every request and response and keeps the transcript durably', async () => {
    const api = await lifeThread();
    await api.continuity.setTopic('demo');
    const first = (await chat('@life we should use croner, not a minute poll', server)) as { metadata?: { lifeThread?: { requestId: string; responseId: string } } };
    await chat('@life and keep the zone explicit', server);
    const lines = await waitFor(() => {
      const t = transcript(api.continuity.dir('demo'));
      return t.length >= 4 ? t : undefined;
    }, 15_000, 'four messages in the transcript');
    assert.deepEqual(lines.map((l) => l.role), ['user', 'assistant', 'user', 'assistant']);
    assert.equal(new Set(lines.map((l) => l.id)).size, 4, 'every message has its own id');
    assert.ok(lines.every((l) => /^m-[a-z0-9]+-[a-z0-9]{6}$/.test(l.id)));
    assert.equal(lines[0]?.text, 'we should use croner, not a minute poll');
    assert.equal(first.metadata?.lifeThread?.requestId, lines[0]?.id, 'ChatResult.metadata carries the minted request id');
    assert.equal(first.metadata?.lifeThread?.responseId, lines[1]?.id, 'and the response id');
    assert.match(lines[1]?.text ?? '', /^Agreed: croner/);
  });

  it('/partition writes the pair, the agent fills valid anchors, and nothing opens before approval', async () => {
    const api = await lifeThread();
    quote = undefined;
    await chat('@life /partition demo', server);
    const view = await waitFor(() => api.model.snapshot('panel').partition ?? undefined, 20_000, 'the partition review in the panel');
    assert.deepEqual(view.problems, []);
    assert.equal(view.accepted[0]?.anchors[0]?.quote, 'croner');
    const dir = api.continuity.dir('demo');
    for (const f of ['export.jsonl', 'export.md', 'HandoverOps.md', 'handover-ops.json', 'TopicDecisions.md', 'topic-decisions.draft.json']) assert.ok(existsSync(join(dir, f)), `${f} written`);
    const md = readFileSync(join(dir, 'export.md'), 'utf8');
    assert.match(md, /<a id="m-[\w-]+"><\/a>/, 'an HTML-like anchor per message');
    const stub = JSON.parse(readFileSync(join(dir, 'topic-decisions.json'), 'utf8')) as { frame: string };
    assert.match(stub.frame, /^TODO/, 'the decisions stay a stub until the user approves');
    const ops = JSON.parse(readFileSync(join(dir, 'handover-ops.json'), 'utf8')) as Record<string, unknown>;
    assert.ok(!('frame' in ops) && !('accepted' in ops), 'ops never repeat the decisions');
  });

  it('on approval TopicDecisions is final and a new chat opens with /resume, its first reply built from TopicDecisions', async () => {
    const api = await lifeThread();
    const dir = api.continuity.dir('demo');
    const before = transcript(dir).length;
    await api.continuity.approve('demo');
    const final = JSON.parse(readFileSync(join(dir, 'topic-decisions.json'), 'utf8')) as { frame: string; accepted: { text: string }[] };
    assert.equal(final.frame, 'Durable reminders for the agent, fired on time by one dispatcher.');
    const reply = await waitFor(() => {
      const t = transcript(dir).slice(before);
      const r = t.find((l) => l.role === 'assistant');
      return r && t.some((l) => l.text === '/resume demo') ? r : undefined;
    }, 20_000, 'the /resume reply');
    assert.match(reply.text, /^Resuming topic demo, partition 1\./);
    const iFrame = reply.text.indexOf('Frame: Durable reminders');
    const iRejected = reply.text.indexOf('Rejected');
    const iOps = reply.text.indexOf('Handover ops');
    assert.ok(iFrame > 0 && iRejected > iFrame && iOps > iRejected, 'decisions first, ops last and by link');
    assert.match(reply.text, /A minute poll/);
  });

  it('refuses decisions whose anchor does not stand at its span', async () => {
    const api = await lifeThread();
    quote = 'cronos';
    await chat('@life /partition demo', server);
    const view = await waitFor(() => {
      const p = api.model.snapshot('panel').partition;
      return p && p.problems.length ? p : undefined;
    }, 20_000, 'the lint problems in the panel');
    assert.ok(view.problems.some((p) => /accepted\[0\].*(differs|cronos|croner)/.test(p)), view.problems.join('; '));
    await assert.rejects(api.continuity.approve('demo'), /cannot approve/);
  });
});
