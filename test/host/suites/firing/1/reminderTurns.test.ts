import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ReminderRow } from '../../../../../src/core/schema';
import type { DeliveredReminder } from '../../../../../src/host/reminderTurn';
import { lifeThread, waitFor } from '../../../helpers';
import { useScriptedModel, toolResults, type ChatBody } from '../../../scriptedModel';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function addReminder(text: string, inMs = 1500): Promise<ReminderRow> {
  const answer = textOf(await vscode.lm.invokeTool('lifethread_remind', { input: { action: 'add', text, when: new Date(Date.now() + inMs).toISOString() }, toolInvocationToken: undefined }));
  return JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as ReminderRow;
}

async function firedRow(id: string): Promise<ReminderRow> {
  const api = await lifeThread();
  return waitFor(async () => {
    const r = (await api.schedule.store.get(id)) as ReminderRow | undefined;
    return r?.fact?.delivered !== undefined && !r.claim ? r : undefined;
  }, 30_000, `reminder ${id} delivered`, 100);
}

/** The turns' tool calls as ReminderTurns reported them. */
const turns = new Map<string, DeliveredReminder>();

/** What the reminder delivered, as kept on its row (fact.answer; an error means it went out as written). */
async function answerOf(id: string): Promise<{ text?: string; viaTurn: boolean; toolCalls?: DeliveredReminder['toolCalls'] }> {
  const r = await firedRow(id);
  return { text: r.fact?.answer, viaTurn: r.fact?.error === undefined, toolCalls: turns.get(id)?.toolCalls };
}

const isReminderTurn = (b: ChatBody) => b.messages.some((m) => m.role === 'user' && (m.content ?? '').includes('reminder agent'));

describe('reminder turns through the real vscode.lm API (scripted OpenAI-compatible server)', () => {
  const server = useScriptedModel();

  before(async () => {
    (await lifeThread()).reminderTurns.onDidDeliver((d) => turns.set(d.id, d));
  });

  it('a normal turn: the text is an instruction, the agent\u2019s final answer is delivered', async () => {
    const api = await lifeThread();
    server.script = (b) => (isReminderTurn(b) ? { text: 'Three headlines: build green, 2 PRs merged, release tomorrow.' } : { text: 'unrelated' });
    const row = await addReminder('find the news and send them');
    const fired = await firedRow(row.id);
    assert.equal(fired.fact?.delivered, true);
    assert.equal(fired.fact?.error, undefined);
    const d = await answerOf(row.id);
    assert.equal(d?.text, 'Three headlines: build green, 2 PRs merged, release tomorrow.');
    assert.equal(d?.viaTurn, true);
    const turnRequest = server.requests.find((b) => isReminderTurn(b) && b.messages.some((m) => (m.content ?? '').includes('find the news and send them')));
    assert.ok(turnRequest, 'the reminder text reached the model as the instruction');
    const toolNames = (turnRequest.tools ?? []).map((t) => t.function.name);
    assert.ok(toolNames.includes('lifethread_remind'));
    assert.ok(!toolNames.includes('lifethread_sendToLifeThread'), 'the turn may not send anything itself');
    assert.ok(api.model.feed.some((f) => f.body.startsWith('Three headlines')), 'the answer reaches the sidebar feed');
  });

  it('a turn that calls remind list gets the list back and answers from it', async () => {
    server.script = (b) => {
      if (!isReminderTurn(b)) return { text: 'unrelated' };
      const results = toolResults(b);
      if (results.length === 0) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'list' } }] };
      return { text: `I looked: ${/(\d+) reminder\(s\)/.exec(results[0] ?? '')?.[1] ?? '?'} reminders are set.` };
    };
    const row = await addReminder('tell me which reminders are still set');
    await firedRow(row.id);
    const d = await answerOf(row.id);
    assert.match(d?.text ?? '', /^I looked: \d+ reminders are set\.$/);
    assert.deepEqual(d?.toolCalls, [{ name: 'lifethread_remind:list', refused: false }]);
  });

  it('a turn that tries to add a reminder is refused, and no reminder is added', async () => {
    const api = await lifeThread();
    server.script = (b) => {
      if (!isReminderTurn(b)) return { text: 'unrelated' };
      const results = toolResults(b);
      if (results.length === 0) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: 'again', when: 'in 1 hour' } }] };
      return { text: `Could not add: ${results[0] ?? ''}` };
    };
    const before = (await api.schedule.store.listReminders()).rows.filter((r) => r.text === 'again').length;
    const row = await addReminder('remind me again in an hour');
    await firedRow(row.id);
    const d = await answerOf(row.id);
    assert.deepEqual(d?.toolCalls, [{ name: 'lifethread_remind:add', refused: true }]);
    assert.match(d?.text ?? '', /refused/);
    const afterCount = (await api.schedule.store.listReminders()).rows.filter((r) => r.text === 'again').length;
    assert.equal(afterCount, before, 'no reminder was added by the turn');
  });

  it('the model throws: the reminder\u2019s own text is delivered, the error is recorded', async () => {
    server.script = (b) => (isReminderTurn(b) ? { status: 500, error: 'scripted failure' } : { text: 'unrelated' });
    const row = await addReminder('stand up and stretch');
    const fired = await firedRow(row.id);
    assert.equal(fired.fact?.delivered, true);
    assert.match(fired.fact?.error ?? '', /the turn failed: .*500/);
    assert.equal((await answerOf(row.id))?.text, 'stand up and stretch');
  });

  it('the model answers empty: the text is delivered as written, the reason recorded', async () => {
    server.script = (b) => (isReminderTurn(b) ? { text: '' } : { text: 'unrelated' });
    const row = await addReminder('drink water');
    const fired = await firedRow(row.id);
    assert.equal(fired.fact?.delivered, true);
    assert.match(fired.fact?.error ?? '', /no text/);
    assert.equal((await answerOf(row.id))?.text, 'drink water');
  });

  it('@life /remind: the chat agent adds a reminder through the tool on request.model', async () => {
    const api = await lifeThread();
    server.script = (b) => {
      const results = toolResults(b);
      const wantsRemind = b.messages.some((m) => m.role === 'user' && (m.content ?? '').includes('check the deploy'));
      if (!wantsRemind) return { text: 'unrelated' };
      if (results.length === 0) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: 'check the deploy', when: 'in 20 minutes' } }] };
      return { text: `Done. ${(results[0] ?? '').split('\n')[0] ?? ''}` };
    };
    const result = await vscode.commands.executeCommand('workbench.action.chat.open', {
      query: '@life /remind in 20 minutes check the deploy',
      isPartialQuery: false,
      blockOnResponse: true,
      modelSelector: { vendor: 'lifethread', id: server.modelId },
    });
    // The tool has a side effect, so the chat asks the user first; accept as a user clicking "Allow" would.
    assert.deepEqual(result, { type: 'confirmation', kind: 'toolInvocation', toolId: 'lifethread_remind' });
    await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
    const row = await waitFor(async () => (await api.schedule.store.listReminders()).rows.find((r) => r.text === 'check the deploy'), 10_000, 'the reminder added by @life');
    const minutes = (Date.parse(row.nextRunAt ?? '') - Date.now()) / 60_000;
    assert.ok(minutes > 19 && minutes <= 20, `due in ${minutes} min`);
  });

  it('model missing: the reminder\u2019s text is delivered as it is, with the reason', async () => {
    const api = await lifeThread();
    await server.disconnect();
    const row = await addReminder('water the plants');
    const fired = await firedRow(row.id);
    assert.equal(fired.fact?.delivered, true);
    assert.match(fired.fact?.error ?? '', /no language model/);
    assert.equal((await answerOf(row.id))?.viaTurn, false);
    assert.equal((await answerOf(row.id))?.text, 'water the plants');
    const doctor = await api.doctor.report();
    assert.match(doctor, /Without a language model VS Code refuses every chat request/);
  });
});
