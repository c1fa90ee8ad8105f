/**
 * A second partition keeps what still holds from the first: the fill prompt lists the inherited
 * anchors with their quotes, the scripted model copies them (and cites one by reference, without the
 * quote) and the fill is accepted. A fill refused for an anchor without a quote is named in words, in
 * the tool's answer and in @life's reply.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../../../src/shared/commands';
import type { ApprovalOutcome } from '../../../../../src/host/approvePartition';
import { lifeThread, waitFor } from '../../../helpers';
import { type ChatBody, type ScriptedModel, toolResults, useScriptedModel } from '../../../scriptedModel';

const TOPIC = 'inherit';

interface Anchor {
  msgId: string;
  start: number;
  end: number;
  quote: string;
}

function promptOf(body: ChatBody): string {
  return body.messages.map((m) => m.content ?? '').join('\n');
}

function spanLines(body: ChatBody): { id: string; role: string; text: string }[] {
  return [...promptOf(body).matchAll(/^\[(m-[\w-]+)\] (user|assistant): (.*)$/gm)].map((m) => ({ id: m[1] ?? '', role: m[2] ?? '', text: m[3] ?? '' }));
}

function cite(line: { id: string; text: string }, quote: string): Anchor {
  const start = line.text.indexOf(quote);
  assert.ok(start >= 0, `${quote} in ${line.text}`);
  return { msgId: line.id, start, end: start + quote.length, quote };
}

/** The inherited anchors as the prompt lists them (`msgId start-end "quote"`), read back as a model would. */
function anchorsInPrompt(body: ChatBody): Anchor[] {
  return [...promptOf(body).matchAll(/(m-[\w-]+) (\d+)-(\d+) ("(?:[^"\\]|\\.)*")/g)].map((m) => ({ msgId: m[1] ?? '', start: Number(m[2]), end: Number(m[3]), quote: JSON.parse(m[4] ?? '""') as string }));
}

function transcriptTexts(dir: string): string[] {
  const file = join(dir, 'transcript.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text);
}

async function chat(query: string, server: ScriptedModel): Promise<void> {
  const result = await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: false, blockOnResponse: true, modelSelector: { vendor: 'lifethread', id: server.modelId } });
  if (typeof result === 'object' && result !== null && (result as { type?: string }).type === 'confirmation') await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
}

async function approve(api: Awaited<ReturnType<typeof lifeThread>>): Promise<void> {
  const dialogs = api.continuity.dialogs;
  api.continuity.dialogs = { confirm: async () => 'approve' };
  try {
    const approved = (await vscode.commands.executeCommand(COMMANDS.approvePartition, TOPIC)) as ApprovalOutcome;
    assert.equal(approved.approved, true, JSON.stringify(approved));
  } finally {
    api.continuity.dialogs = dialogs;
  }
}

describe('a partition keeps the anchors of the previous decisions', () => {
  let mode: 'first' | 'refuse' | 'copy' = 'first';
  const fillAnswers: string[] = [];
  const server = useScriptedModel((b) => {
    const tools = (b.tools ?? []).map((t) => t.function.name);
    if (!(tools.length === 1 && tools[0] === 'lifethread_partition')) return { text: 'Noted.' };
    const results = toolResults(b);
    if (results.length > 0) {
      fillAnswers.push(results.at(-1) ?? '');
      return { text: mode === 'refuse' ? 'I could not fill them.' : 'Filled.' };
    }
    const lines = spanLines(b);
    if (mode === 'first') {
      const user = lines.find((l) => l.text.includes('zone explicit')) ?? assert.fail(promptOf(b).slice(0, 600));
      return {
        toolCalls: [
          {
            name: 'lifethread_partition',
            args: {
              action: 'fill',
              topic: TOPIC,
              decisions: {
                frame: 'Durable reminders with explicit zones.',
                accepted: [{ text: 'Keep the zone explicit', reason: 'DST-safe', anchors: [cite(user, 'keep the zone explicit in every row')] }],
                rejected: [{ text: 'A floating local time', reason: 'ambiguous across zones', anchors: [cite(user, 'not a floating local time')] }],
                new: [],
                next: ['Wire the store'],
                anchors: [],
              },
            },
          },
        ],
      };
    }
    const user = lines.find((l) => l.text.includes('quarantine')) ?? assert.fail(promptOf(b).slice(0, 600));
    const listed = anchorsInPrompt(b);
    const kept = listed.find((a) => a.quote === 'keep the zone explicit in every row') ?? assert.fail(`the prompt lists the inherited anchor with its quote: ${promptOf(b).slice(0, 1500)}`);
    const byReference = { msgId: kept.msgId, start: kept.start, end: kept.end };
    const quarantine = cite(user, 'quarantine bad rows');
    return {
      toolCalls: [
        {
          name: 'lifethread_partition',
          args: {
            action: 'fill',
            topic: TOPIC,
            decisions: {
              frame: 'Durable reminders with explicit zones; bad rows quarantined.',
              accepted: [
                { text: 'Keep the zone explicit', reason: 'DST-safe', anchors: [kept] },
                // Refused: a new anchor needs its quote. Accepted: an inherited one may be cited by reference.
                { text: 'Quarantine bad rows', reason: 'nothing stored is lost', anchors: [mode === 'refuse' ? { msgId: quarantine.msgId, start: quarantine.start, end: quarantine.end } : quarantine] },
              ],
              rejected: [],
              new: [],
              next: ['Write the quarantine file'],
              anchors: mode === 'copy' ? [byReference] : [],
            },
          },
        },
      ],
    };
  });

  it('the second fill copies the inherited anchors from the prompt and is accepted; a quote left out is named', async () => {
    const api = await lifeThread();
    const dir = api.continuity.dir(TOPIC);
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await api.continuity.setTopic(TOPIC);
    await chat('@life we keep the zone explicit in every row, not a floating local time', server);
    mode = 'first';
    await chat(`@life /partition ${TOPIC}`, server);
    await waitFor(async () => ((await api.continuity.draftOf(TOPIC))?.lint.ok ? true : undefined), 20_000, 'the first draft');
    await approve(api);

    await chat('@life we should quarantine bad rows, never drop them', server);
    mode = 'refuse';
    const answersBefore = fillAnswers.length;
    await chat(`@life /partition ${TOPIC}`, server);
    const refused = await waitFor(() => fillAnswers[answersBefore], 20_000, 'the refused fill');
    assert.match(refused, /Accepted item 2 \("Quarantine bad rows"\), anchor 1 \(m-[\w-]+ \d+-\d+\) has no quote: give the exact text at characters \d+-\d+ of message m-[\w-]+ .* The text there is "quarantine bad rows"\. Fix it and call fill again\./);
    assert.equal(await api.continuity.draftOf(TOPIC), undefined, 'nothing drafted');
    const reply = await waitFor(() => transcriptTexts(dir).find((t) => t.includes('its last fill was refused')), 15_000, '@life names the refusal');
    assert.match(reply, /its last fill was refused — Accepted item 2 \("Quarantine bad rows"\), anchor 1 .* has no quote/);

    mode = 'copy';
    await chat(`@life /partition ${TOPIC}`, server);
    const draft = await waitFor(async () => await api.continuity.draftOf(TOPIC), 20_000, 'the draft of partition 2');
    assert.equal(draft.decisions.partition, 2);
    assert.deepEqual(draft.lint.problems, [], 'the fill is accepted and passes the lint');
    assert.equal(draft.decisions.accepted[0]?.anchors[0]?.quote, 'keep the zone explicit in every row', 'the inherited anchor kept with its quote');
    assert.equal(draft.decisions.anchors[0]?.quote, 'keep the zone explicit in every row', 'the anchor cited by reference got its quote');
    assert.ok(!fillAnswers.slice(answersBefore + 1).some((a) => /Invalid input/.test(a)), fillAnswers.slice(answersBefore + 1).join('\n'));
    // No draft of this topic is left waiting for the files that run after this one.
    await approve(api);
  });
});
