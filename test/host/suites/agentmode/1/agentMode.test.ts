import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';
import { COPILOT_AGENT, askAgent, enableCopilotChat } from '../../../copilotAgent';
import { useScriptedModel, type ChatBody, type WireMessage } from '../../../scriptedModel';

const WAKE_TEXT = 'AGENT-WAKE the hour is up: continue the refactor';

function lastMessage(b: ChatBody): WireMessage | undefined {
  return b.messages[b.messages.length - 1];
}

/** Where the first message holding `marker` sits in a request (-1 when none does). */
function indexOf(b: ChatBody, marker: string, role?: string): number {
  return b.messages.findIndex((m) => (role === undefined || m.role === role) && (m.content ?? '').includes(marker));
}

describe('Agent mode in the test host: Copilot Chat\u2019s agent answering with Life Thread\u2019s provider', () => {
  const server = useScriptedModel((b) => {
    const last = lastMessage(b);
    if (last?.role === 'tool') return { text: 'AGENT-SLEEPS until the wake' };
    const asked = last?.content ?? '';
    if (asked.includes('AGENT-FIRST')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: WAKE_TEXT, delay_seconds: 3600 } }] };
    if (asked.includes('AGENT-REMIND')) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: 'AGENT-REMINDER look at the logs', when: 'in 2 hours' } }] };
    return { text: 'AGENT-SECOND-ANSWER' };
  });
  let model: { vendor: string; id: string };
  let firstSession: string | undefined;

  before(async () => {
    await lifeThread();
    await enableCopilotChat();
    model = { vendor: 'lifethread', id: server.modelId };
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  it('a prompt without @life reaches the model through Copilot\u2019s agent; the model\u2019s call of lifethread_sendToLifeThread sets a wake', async () => {
    const api = await lifeThread();
    const answer = await askAgent('AGENT-FIRST I am going to sleep: wake me in an hour', model);
    assert.equal(answer.metadata?.agentId, COPILOT_AGENT, 'Agent mode\u2019s default agent answered');
    firstSession = answer.metadata?.sessionId;
    assert.ok(firstSession, 'the answer names its chat session');

    const [first, afterTool] = server.requests;
    assert.ok(first && afterTool, `two model requests for the turn (got ${server.requests.length})`);
    assert.equal(first.model, server.modelId);
    assert.ok(indexOf(first, 'AGENT-FIRST', 'user') >= 0, 'the user\u2019s words reached the model');
    assert.equal(first.messages.some((m) => (m.content ?? '').includes('@life')), false, 'the prompt was not addressed to @life');
    assert.ok(first.tools?.some((t) => t.function.name === 'lifethread_sendToLifeThread'), 'Life Thread\u2019s wake tool is offered to the agent');

    const row = (await api.wakes.store.list()).find((r) => r.text === WAKE_TEXT);
    assert.ok(row, 'Life Thread stored the wake the agent asked for');
    assert.equal(row.status, 'pending');
    const toolMessage = afterTool.messages.find((m) => m.role === 'tool');
    assert.ok(toolMessage?.content?.includes(row.id), 'the tool\u2019s answer, naming the wake, went back to the model');
  });

  it('a later prompt in the same chat carries the earlier turn to the model: the user\u2019s words, the tool call, its answer and the reply', async () => {
    const api = await lifeThread();
    const row = (await api.wakes.store.list()).find((r) => r.text === WAKE_TEXT);
    assert.ok(row, 'the wake of the first test');
    const before = server.requests.length;
    // No model this time: a wake's submit does not pick one, and the chat keeps the model it has.
    const answer = await askAgent('AGENT-SECOND what did you ask for?');
    assert.equal(answer.metadata?.agentId, COPILOT_AGENT);
    assert.equal(answer.metadata?.sessionId, firstSession, 'the same chat session');
    const body = server.requests[before];
    assert.ok(body, 'the second prompt reached the model');
    assert.equal(body.model, server.modelId);
    const order = [
      indexOf(body, 'AGENT-FIRST', 'user'),
      body.messages.findIndex((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function.name === 'lifethread_sendToLifeThread' && c.function.arguments.includes('AGENT-WAKE'))),
      body.messages.findIndex((m) => m.role === 'tool' && (m.content ?? '').includes(row.id)),
      indexOf(body, 'AGENT-SLEEPS', 'assistant'),
      indexOf(body, 'AGENT-SECOND', 'user'),
    ];
    assert.ok(order.every((i) => i >= 0), `every earlier part is in the request (positions ${order.join(', ')})`);
    assert.deepEqual([...order].sort((a, b) => a - b), order, 'in the order they happened');
  });

  it('a tool that asks for confirmation holds the turn until the user allows it (workbench.action.chat.acceptTool)', async () => {
    const api = await lifeThread();
    const before = server.requests.length;
    const answer = await askAgent('AGENT-REMIND remind me to look at the logs in two hours');
    assert.equal(answer.type, 'confirmation', 'the turn waits on a confirmation');
    assert.equal(answer.toolId, 'lifethread_remind');
    const stored = async () => (await api.schedule.store.listReminders()).rows.some((r) => r.text?.startsWith('AGENT-REMINDER'));
    assert.equal(await stored(), false, 'nothing is stored before the user allows it');
    await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
    await waitFor(async () => ((await stored()) ? true : undefined), 15_000, 'the reminder stored once allowed');
    await waitFor(() => server.requests.slice(before).find((b) => lastMessage(b)?.role === 'tool'), 15_000, 'the tool\u2019s answer back at the model');
  });
});
