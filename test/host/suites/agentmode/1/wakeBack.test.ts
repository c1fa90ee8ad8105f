/**
 * A wake goes back to the agent that set it (`lifeThread.wake.target` `auto`): one set by Agent mode's
 * agent (Copilot's, on Life Thread's scripted provider: docs/test-host.md "Agent mode") records
 * `sender: agent` and its pulse goes into Agent mode, in the same conversation; one set by `@life`'s own
 * tool loop records `sender: life` and wakes `@life`. With `lifeThread.wake.target` `life`, a wake set by
 * Agent mode still records `sender: agent` but wakes `@life`. The window is blurred, as every phase starts
 * it (test/host/index.ts), so the pulse goes at once (src/host/wakeFocus.ts).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { WakeRow } from '../../../../../src/core/wake/row';
import { WakeStore } from '../../../../../src/node/wakes';
import { lifeThread, runnerAction, waitFor } from '../../../helpers';
import { COPILOT_AGENT, askAgent, enableCopilotChat } from '../../../copilotAgent';
import { useScriptedModel, type ChatBody } from '../../../scriptedModel';

const holds = (b: ChatBody, marker: string, role?: string): boolean => b.messages.some((m) => (role === undefined || m.role === role) && (m.content ?? '').includes(marker));
const callsWake = (b: ChatBody, marker: string): boolean =>
  b.messages.some((m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => c.function.name === 'lifethread_sendToLifeThread' && c.function.arguments.includes(marker)));

/** The row as wakes.json holds it, read by a store of its own (nothing remembered from the window's). */
async function firedOnDisk(storeDir: string, id: string): Promise<WakeRow> {
  return waitFor(async () => {
    const r = await new WakeStore({ dir: storeDir }).get(id);
    return r?.status === 'fired' ? r : undefined;
  }, 15_000, `wake ${id} fired in wakes.json`);
}

async function setTarget(value: 'life' | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('lifeThread').update('wake.target', value, vscode.ConfigurationTarget.Global);
  await waitFor(() => (vscode.workspace.getConfiguration('lifeThread').get('wake.target') === (value ?? 'auto') ? true : undefined), 5_000, `lifeThread.wake.target ${value ?? 'auto'}`);
}

describe('a wake goes back to the agent that set it', () => {
  const server = useScriptedModel((b) => {
    const last = b.messages[b.messages.length - 1];
    if (last?.role === 'tool') return { text: 'SLEEPING until the wake' };
    const asked = last?.content ?? '';
    if (asked.includes('life_wake:')) return { text: 'CONTINUING after the wake' };
    if (asked.includes('AGENT-SLEEP-BACK')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: 'WAKE-BACK-AGENT continue the refactor', delay_seconds: 4 } }] };
    if (asked.includes('TARGET-LIFE-SLEEP')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: 'WAKE-TO-LIFE read the notes', delay_seconds: 4 } }] };
    if (asked.includes('LIFE-SLEEP-BACK')) return { toolCalls: [{ name: 'lifethread_sendToLifeThread', args: { text: 'WAKE-BACK-LIFE continue the notes', delay_seconds: 4 } }] };
    return { text: 'ok' };
  });

  before(async () => {
    await lifeThread();
    await enableCopilotChat();
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  // Leave the window as every phase starts it (test/host/index.ts): blurred, no one at work, the target at its default.
  after(async () => {
    await runnerAction({ action: 'blur' });
    await setTarget(undefined);
  });

  it('Agent mode sets a wake: sender agent; the pulse goes back into Agent mode in the same conversation, recorded via agent, verified', async () => {
    const api = await lifeThread();
    const answer = await askAgent('AGENT-SLEEP-BACK wake me when the timer is up', { vendor: 'lifethread', id: server.modelId });
    assert.equal(answer.metadata?.agentId, COPILOT_AGENT);
    const row = await waitFor(async () => (await api.wakes.store.list()).find((r) => r.text?.startsWith('WAKE-BACK-AGENT')), 10_000, 'the agent\u2019s wake');
    assert.deepEqual(row.sender, { kind: 'agent' }, 'a call from Agent mode records the agent as sender');
    const woken = await waitFor(() => server.requests.find((b) => holds(b, 'WAKE-BACK-AGENT', 'user') && holds(b, 'life_wake:', 'user')), 30_000, 'the pulse at the model');
    assert.ok(holds(woken, 'AGENT-SLEEP-BACK', 'user'), 'the request holds the conversation in which the agent went to sleep');
    assert.ok(callsWake(woken, 'WAKE-BACK-AGENT'), 'and the tool call that set the wake');
    assert.equal(holds(woken, 'You are @life'), false, 'Agent mode answered, not @life');
    // Life Thread's provider saw the pulse beside the call that set the wake: the receipt is verified (src/host/agentTurns.ts).
    const fired = await waitFor(async () => {
      const r = await api.wakes.store.get(row.id);
      return r?.status === 'fired' && r.fact?.unverified === undefined ? r : undefined;
    }, 15_000, 'fired and verified');
    assert.equal(fired.fact?.via, 'agent');
  });

  it('@life sets a wake through its own tool loop: sender life; the pulse wakes @life', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@life LIFE-SLEEP-BACK wake me when the timer is up', mode: 'ask', isPartialQuery: false, blockOnResponse: true });
    const row = await waitFor(async () => (await api.wakes.store.list()).find((r) => r.text?.startsWith('WAKE-BACK-LIFE')), 15_000, '@life\u2019s wake');
    assert.deepEqual(row.sender, { kind: 'life' }, '@life\u2019s own call is recognised as its own');
    const woken = await waitFor(() => server.requests.find((b) => holds(b, 'WAKE-BACK-LIFE', 'user') && holds(b, 'life_wake:', 'user')), 30_000, 'the pulse at the model');
    assert.ok(holds(woken, 'You are @life'), '@life answered the pulse');
    const fired = await firedOnDisk(api.storeDir, row.id);
    assert.deepEqual(fired.sender, { kind: 'life' });
    assert.equal(fired.fact?.delivered, true);
    assert.equal(fired.fact?.via, 'life');
    assert.equal(fired.fact?.unverified, undefined);
  });

  it('with lifeThread.wake.target life, a wake set in Agent mode (sender agent) wakes @life, not Agent mode', async () => {
    const api = await lifeThread();
    await setTarget('life');
    try {
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      const answer = await askAgent('TARGET-LIFE-SLEEP wake me when the timer is up', { vendor: 'lifethread', id: server.modelId });
      assert.equal(answer.metadata?.agentId, COPILOT_AGENT, 'Agent mode\u2019s agent set the wake');
      const row = await waitFor(async () => (await api.wakes.store.list()).find((r) => r.text?.startsWith('WAKE-TO-LIFE')), 10_000, 'the agent\u2019s wake');
      assert.deepEqual(row.sender, { kind: 'agent' }, 'the sender is still the agent: the setting decides only the receiver');
      const woken = await waitFor(() => server.requests.find((b) => holds(b, 'WAKE-TO-LIFE', 'user') && holds(b, 'life_wake:', 'user')), 30_000, 'the pulse at the model');
      assert.ok(holds(woken, 'You are @life'), '@life answered the pulse (its system prompt is in the request)');
      assert.equal(callsWake(woken, 'WAKE-TO-LIFE'), false, 'a new @life turn: the agent\u2019s tool call is not in the request, as it would be in Agent mode');
      const fired = await firedOnDisk(api.storeDir, row.id);
      assert.deepEqual(fired.sender, { kind: 'agent' });
      assert.equal(fired.fact?.delivered, true);
      assert.equal(fired.fact?.via, 'life', 'wakes.json records the pulse delivered through @life');
      assert.equal(fired.fact?.unverified, undefined, '@life\u2019s own receipt, not Agent mode\u2019s unverified one');
    } finally {
      await setTarget(undefined);
    }
  });
});
