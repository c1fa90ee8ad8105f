import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';

describe('wake across a reload, phase 1: a job is running and a wake waits for it', () => {
  it('starts a long task and asks to be woken when it ends', async () => {
    const api = await lifeThread();
    const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === 'long-task');
    assert.ok(task);
    await vscode.tasks.executeTask(task);
    await waitFor(() => (api.wakes.triggers.running.has('long-task') ? true : undefined), 15_000, 'the task running');
    const result = await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'WAKE-LOST the long task ended', when: 'job.done', job_id: 'long-task' }, toolInvocationToken: undefined });
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const row = JSON.parse(text.slice(text.indexOf('\n{') + 1)) as { id: string; jobStartedAt?: string };
    assert.ok(row.jobStartedAt, 'the wake watches the running job');
  });
});
