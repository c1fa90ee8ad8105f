/**
 * Prepare while the job runs (src/host/deskWarmup.ts), in the real extension host with Debian's
 * Chromium as the desk browser: configured but with no `job.done` wake waiting, no Chromium runs; a
 * wake set on a running task has Chromium up before the task ends, with nothing taking the editor's
 * place; with `lifeThread.wake.prepare` off, a waiting wake starts nothing.
 * Runs after desk.test.ts and deskWake.test.ts in the same window (each stops the Chromium it started).
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { CHROMIUM, setCdp } from '../deskSettings';
import { lifeThread, waitFor } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function wakeOn(jobId: string, text: string): Promise<string> {
  const answer = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text, when: 'job.done', job_id: jobId }, toolInvocationToken: undefined }));
  return (JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string }).id;
}

/** A shell task that runs for `seconds`, its terminal not revealed. */
function slowTask(name: string, seconds: number): vscode.Task {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const t = new vscode.Task({ type: 'shell', deskWarmup: name }, folder, name, 'desk-test', new vscode.ShellExecution(`sleep ${seconds}; echo '# pass 1'; echo '# fail 0'`), []);
  t.presentationOptions = { reveal: vscode.TaskRevealKind.Never, focus: false };
  return t;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('prepare while the job runs: the desk starts when a job.done wake is set', function () {
  this.timeout(150_000);
  useScriptedModel(() => ({ text: 'woken' }));

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    const api = await lifeThread();
    await api.desk.stopStarted();
    // Nothing answers at the endpoint: a desk browser can only be one Life Thread starts.
    await setCdp({ endpoint: 'http://127.0.0.1:9', chromiumPath: CHROMIUM });
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    const api = await lifeThread();
    await api.desk.stopStarted().catch(() => undefined);
    await setCdp({ endpoint: undefined, chromiumPath: undefined });
    await vscode.workspace.getConfiguration('lifeThread').update('wake.prepare', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', undefined, vscode.ConfigurationTarget.Global);
  });

  it('configured, no job.done wake waiting: no Chromium runs', async () => {
    const api = await lifeThread();
    const waiting = (await api.wakes.store.list()).filter((r) => r.when === 'job.done' && (r.status === 'pending' || r.status === 'held'));
    assert.deepEqual(waiting.map((r) => r.id), [], 'no wake waits');
    api.wakes.refreshView();
    await sleep(4000);
    assert.equal(api.desk.desk.started, undefined, 'no Chromium was started');
  });

  it('lifeThread.wake.prepare off: a waiting wake starts nothing', async () => {
    const api = await lifeThread();
    await vscode.workspace.getConfiguration('lifeThread').update('wake.prepare', false, vscode.ConfigurationTarget.Global);
    const id = await wakeOn('warm-off', 'WARM-OFF never run');
    await sleep(4000);
    assert.equal(api.desk.desk.started, undefined, 'no Chromium with the warm-up off');
    await api.wakes.cancel(id);
    await vscode.workspace.getConfiguration('lifeThread').update('wake.prepare', undefined, vscode.ConfigurationTarget.Global);
  });

  it('a wake set on a running task: Chromium is up before the task ends, and the editor keeps its place', async () => {
    const api = await lifeThread();
    const doc = await vscode.workspace.openTextDocument({ content: 'the user is typing here' });
    const editor = await vscode.window.showTextDocument(doc);
    let endedAt: number | undefined;
    const sub = vscode.tasks.onDidEndTaskProcess((e) => {
      if (e.execution.task.name === 'warm-task') endedAt = Date.now();
    });
    try {
      await vscode.tasks.executeTask(slowTask('warm-task', 25));
      const id = await wakeOn('warm-task', 'WARM-TASK the slow task ended');
      const up = await waitFor(() => api.desk.desk.started, 22_000, 'Chromium started by the warm-up');
      assert.ok(up.pid > 0);
      assert.equal(endedAt, undefined, 'the task is still running');
      assert.equal(vscode.window.activeTextEditor?.document, editor.document, 'nothing took the editor\u2019s place');
      const row = await waitFor(async () => {
        const r = await api.wakes.store.get(id);
        return r?.status === 'fired' ? r : undefined;
      }, 60_000, 'the wake fired after the task');
      assert.ok(endedAt !== undefined && row.fact !== undefined);
    } finally {
      sub.dispose();
    }
  });
});
