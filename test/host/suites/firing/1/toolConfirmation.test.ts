/**
 * The instant a tool's confirmation showed is the instant stored, however long the user takes to
 * allow it (src/core/time/shownTimes.ts). `@life /remind` asks the scripted model, whose tool call the
 * chat holds on its confirmation; the test allows it seconds later, as a user clicking "Allow" would.
 * Each ask, and the end of the file, resets the tools' confirmations: the workbench remembers an Allow.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';
import { type ChatBody, toolResults, useScriptedModel } from '../../../scriptedModel';

const DELAY_MS = 5000;

/** With the tools' confirmations reset: the workbench does not ask again for a tool once allowed. */
async function askLife(prompt: string, modelId: string): Promise<unknown> {
  await vscode.commands.executeCommand('workbench.action.chat.resetTrustedTools');
  return vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /remind ${prompt}`, isPartialQuery: false, blockOnResponse: true, modelSelector: { vendor: 'lifethread', id: modelId } });
}

describe('a tool stores the instant its confirmation showed', () => {
  const server = useScriptedModel();
  after(() => vscode.commands.executeCommand('workbench.action.chat.resetTrustedTools'));

  const scriptRemind = (marker: string, when: string): void => {
    server.script = (b) => {
      if (!b.messages.some((m) => m.role === 'user' && (m.content ?? '').includes(marker))) return { text: 'unrelated' };
      const results = toolResults(b);
      if (results.length === 0) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: marker, when } }] };
      return { text: `Answered: ${(results[0] ?? '').split('\n')[0] ?? ''}` };
    };
  };

  it('"in 2 minutes" allowed seconds later is stored at the instant the confirmation showed', async () => {
    const api = await lifeThread();
    scriptRemind('CONFIRMED-TIME', 'in 2 minutes');
    const asked = Date.now();
    const result = await askLife('in 2 minutes CONFIRMED-TIME', server.modelId);
    const shownBy = Date.now();
    assert.deepEqual(result, { type: 'confirmation', kind: 'toolInvocation', toolId: 'lifethread_remind' });
    await new Promise((r) => setTimeout(r, DELAY_MS));
    const allowedAt = Date.now();
    await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
    const row = await waitFor(async () => (await api.schedule.store.listReminders()).rows.find((r) => r.text === 'CONFIRMED-TIME'), 10_000, 'the reminder stored once allowed');
    const due = Date.parse(row.nextRunAt ?? '');
    assert.ok(due >= asked + 120_000 && due <= shownBy + 120_000, `stored ${row.nextRunAt ?? '?'}: two minutes after the confirmation (${new Date(asked).toISOString()}–${new Date(shownBy).toISOString()}), not after the Allow at ${new Date(allowedAt).toISOString()}`);
    await api.schedule.store.remove(row.id);
  });

  it('an instant that passed before the Allow: nothing is stored and the model hears the new instant', async () => {
    const api = await lifeThread();
    scriptRemind('PASSED-TIME', 'in 2 seconds');
    const before = server.requests.length;
    const result = await askLife('in 2 seconds PASSED-TIME', server.modelId);
    assert.deepEqual(result, { type: 'confirmation', kind: 'toolInvocation', toolId: 'lifethread_remind' });
    await new Promise((r) => setTimeout(r, DELAY_MS));
    await vscode.commands.executeCommand('workbench.action.chat.acceptTool');
    const mine = (): ChatBody[] => server.requests.slice(before).filter((b) => b.messages.some((m) => m.role === 'user' && (m.content ?? '').includes('PASSED-TIME')));
    const answer = await waitFor(() => mine().map((b) => toolResults(b)[0]).find((t) => t !== undefined), 15_000, 'the tool\u2019s answer back at the model');
    assert.match(answer, /^Nothing was stored: the time the confirmation showed, .*, passed before the call was allowed\./);
    assert.match(answer, /now means Once, /);
    assert.equal((await api.schedule.store.listReminders()).rows.some((r) => r.text === 'PASSED-TIME'), false, 'nothing stored');
  });
});
