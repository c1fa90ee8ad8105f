/**
 * Durability: wakes held over the hourly cap, while @life is answering and while paused are
 * held on disk, and a wake set before its task started is left waiting — then the window goes away
 * (phase 2 checks that nothing was stranded and each is delivered exactly once).
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread, phaseInfo, waitFor } from '../../../helpers';
import { ScriptedModel } from '../../../scriptedModel';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function wake(input: object): Promise<{ id: string; jobStartedAt?: string }> {
  const answer = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input, toolInvocationToken: undefined }));
  return JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string; jobStartedAt?: string };
}

describe('held wakes across a reload, phase 1: held over the cap, while @life answers, while paused; a wake before its task', () => {
  const server = new ScriptedModel();

  before(async () => {
    await server.start();
    await server.connect();
    server.script = () => ({ text: 'woken' });
  });

  // The server is left holding the busy turn: the window goes away in the middle of it.
  after(() => void server.stop().catch(() => undefined));

  it('holds each on disk with its reason', async () => {
    const api = await lifeThread();
    const rowOf = async (id: string) => (await api.wakes.store.get(id)) ?? assert.fail(`row ${id}`);
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 1, vscode.ConfigurationTarget.Global);

    // Over the cap: the first wake of the hour is delivered, the second is held.
    const first = await wake({ text: 'HELD-FIRST uses the hour\u2019s one wake', delay_seconds: 1 });
    await waitFor(async () => ((await rowOf(first.id)).fact?.delivered ? true : undefined), 30_000, 'the first wake delivered');
    const cap = await wake({ text: 'HELD-CAP over the cap', delay_seconds: 1 });
    await waitFor(async () => ((await rowOf(cap.id)).status === 'held' ? true : undefined), 15_000, 'held over the cap');
    assert.equal((await rowOf(cap.id)).heldReason, 'cap');

    // While @life answers: a turn whose model has not answered yet.
    let release!: () => void;
    server.hold = new Promise<void>((r) => (release = r));
    void vscode.commands.executeCommand('workbench.action.chat.open', { query: '@life BUSY-TURN think long', isPartialQuery: false, blockOnResponse: true });
    await waitFor(() => (server.requests.some((b) => b.messages.some((m) => (m.content ?? '').includes('BUSY-TURN'))) ? true : undefined), 20_000, 'the busy turn at the model');
    const busy = await wake({ text: 'HELD-BUSY while @life answers', delay_seconds: 1 });
    await waitFor(async () => ((await rowOf(busy.id)).status === 'held' ? true : undefined), 15_000, 'held while @life answers');
    assert.equal((await rowOf(busy.id)).heldReason, 'busy');

    // Paused.
    await vscode.commands.executeCommand('lifeThread.pauseWakes');
    const paused = await wake({ text: 'HELD-PAUSED while paused', delay_seconds: 1 });
    await waitFor(async () => ((await rowOf(paused.id)).status === 'held' ? true : undefined), 15_000, 'held while paused');
    assert.equal((await rowOf(paused.id)).heldReason, 'paused');

    // A task wake set before its task started; the task never runs in this window.
    const prestart = await wake({ text: 'HELD-PRESTART the task ended', when: 'job.done', job_id: 'fail-task' });
    assert.equal(prestart.jobStartedAt, undefined, 'the task is not running');
    assert.equal((await rowOf(prestart.id)).status, 'pending');

    const info = phaseInfo();
    assert.ok(info);
    writeFileSync(join(info.ackDir, '..', 'wakeheld.json'), JSON.stringify({ cap: cap.id, busy: busy.id, paused: paused.id, prestart: prestart.id }));
    // Nothing releases the busy turn before the window goes away.
    void release;
  });
});
