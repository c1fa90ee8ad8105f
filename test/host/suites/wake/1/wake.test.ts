import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread, runnerAction, waitFor } from '../../../helpers';
import { type ScriptedModel, useScriptedModel, type ChatBody } from '../../../scriptedModel';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function wake(input: object): Promise<{ id: string }> {
  const answer = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input, toolInvocationToken: undefined }));
  const json = JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string };
  return json;
}

function pulseFor(server: ScriptedModel, marker: string): ChatBody | undefined {
  return server.requests.find((b) => b.messages.some((m) => m.role === 'user' && (m.content ?? '').includes(marker) && (m.content ?? '').includes('life_wake:')));
}

function pulseText(b: ChatBody, marker: string): string {
  return b.messages.find((m) => (m.content ?? '').includes(marker))?.content ?? '';
}

describe('life thread wake in the real extension host', () => {
  const server = useScriptedModel(() => ({ text: 'woken and continuing' }));

  it('a shell task "sleep 1; exit 3" wakes @life with status and exit code 3, and the landing opens', async () => {
    const api = await lifeThread();
    const w = await wake({ text: 'WAKE-TASK the task ended: read the failures', when: 'job.done', job_id: 'fail-task' });
    const tasks = await vscode.tasks.fetchTasks();
    const task = tasks.find((t) => t.name === 'fail-task');
    assert.ok(task, 'the fixture task exists');
    const landed = new Promise<void>((resolve) => {
      const sub = api.wakes.onDidDeliver((e) => {
        if (e.ids.includes(w.id)) {
          sub.dispose();
          resolve();
        }
      });
    });
    await vscode.tasks.executeTask(task);
    const body = await waitFor(() => pulseFor(server, 'WAKE-TASK'), 30_000, 'the pulse at @life');
    const pulse = pulseText(body, 'WAKE-TASK');
    assert.match(pulse, /reason: job\.done/);
    assert.match(pulse, /job: \{ id: "fail-task", status: failed, exit_code: 3 \}/);
    assert.match(pulse, /landing: \{ kind: deep_link, path: "\.life-thread\/evidence\/w-[\w-]+\.log#L\d+" \}/, pulse);
    assert.ok(pulse.length < 1200);
    await landed;
    assert.match(vscode.window.activeTextEditor?.document.uri.fsPath ?? '', /\.life-thread\/evidence\/w-[\w-]+\.log$/, 'the evidence opened');
    const row = await waitFor(async () => {
      const r = await api.wakes.store.get(w.id);
      return r?.fact?.wakeChars !== undefined ? r : undefined;
    }, 10_000, 'the delivery fact');
    assert.equal(row.status, 'fired');
    assert.equal(row.fact?.delivered, true);
    assert.equal(row.fact?.via, 'life', 'delivered means the @life handler had it');
    assert.equal(row.fact?.jobStatus, 'failed');
    assert.equal(row.fact?.exitCode, 3);
    assert.equal(typeof row.fact?.timeToLocusMs, 'number');
    assert.match(await api.doctor.report(), new RegExp(`${w.id}.*life, wake_chars \\d+, time-to-report-locus \\d+ ms`));
  });

  it('Wake Me When Task Ends… with a defined task that is not running starts it and wakes when it ends', async () => {
    const api = await lifeThread();
    assert.equal(vscode.tasks.taskExecutions.some((e) => e.task.name === 'fail-task'), false, 'not running before');
    const started = new Promise<string>((resolve) => {
      const sub = vscode.tasks.onDidStartTask((e) => {
        sub.dispose();
        resolve(e.execution.task.name);
      });
    });
    const row = (await vscode.commands.executeCommand('lifeThread.wakeOnTaskEnd', { task: 'fail-task', text: 'WAKE-DEFINED the tests ended' })) as { id: string; jobId: string; when: string } | undefined;
    assert.ok(row, 'the command returns the wake row');
    assert.equal(row.when, 'job.done');
    assert.equal(row.jobId, 'fail-task', 'job_id is the task\u2019s name');
    assert.equal(await started, 'fail-task', 'the command started the task');
    const body = await waitFor(() => pulseFor(server, 'WAKE-DEFINED'), 30_000, 'the pulse at @life');
    assert.match(pulseText(body, 'WAKE-DEFINED'), /job: \{ id: "fail-task", status: failed, exit_code: 3 \}/);
    const fired = await waitFor(async () => {
      const r = await api.wakes.store.get(row.id);
      return r?.status === 'fired' ? r : undefined;
    }, 10_000, 'the wake fired');
    assert.equal(fired.fact?.exitCode, 3);
  });

  it('Wake Me When Task Ends… with a task name the workspace does not define sets no wake', async () => {
    const api = await lifeThread();
    const before = (await api.wakes.store.list()).length;
    const row = await vscode.commands.executeCommand('lifeThread.wakeOnTaskEnd', { task: 'no-such-task', text: 'never' });
    assert.equal(row, undefined);
    assert.equal((await api.wakes.store.list()).length, before, 'no wake row was added');
    assert.equal(vscode.tasks.taskExecutions.some((e) => e.task.name === 'no-such-task'), false);
  });

  it('a terminal command\u2019s end wakes with its exit code and summary (shell integration)', async () => {
    const terminal = vscode.window.createTerminal({ name: 'wake-term', hideFromUser: true });
    const integration = await waitFor(() => terminal.shellIntegration, 15_000, 'shell integration');
    await wake({ text: 'WAKE-TERM the tests ended', when: 'job.done', job_id: 'terminal:wake-term' });
    integration.executeCommand("sleep 1; echo 'Tests: 1 failed, 12 passed, 13 total'; (exit 4)");
    const body = await waitFor(() => pulseFor(server, 'WAKE-TERM'), 30_000, 'the terminal pulse');
    const pulse = pulseText(body, 'WAKE-TERM');
    assert.match(pulse, /job: \{ id: "terminal:wake-term", status: failed, exit_code: 4 \}/);
    assert.match(pulse, /summary: "jest: 12 passed, 1 failed"/);
    terminal.dispose();
  });

  it('a timer wake after 2 s', async () => {
    const t0 = Date.now();
    await wake({ text: 'WAKE-TIMER two seconds', delay_seconds: 2 });
    await waitFor(() => pulseFor(server, 'WAKE-TIMER'), 20_000, 'the timer pulse');
    const took = Date.now() - t0;
    assert.ok(took >= 2000 && took < 8000, `woke after ${took} ms`);
  });

  it('cancel by token removes the wake; nothing fires', async () => {
    const api = await lifeThread();
    const w = await wake({ text: 'WAKE-CANCELLED never', delay_seconds: 2, cancel_token: 'tok-1' });
    const cancelled = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { cancel_token: 'tok-1' }, toolInvocationToken: undefined }));
    assert.match(cancelled, /Cancelled 1 wake/);
    assert.equal((await api.wakes.store.get(w.id))?.status, 'cancelled');
    await new Promise((r) => setTimeout(r, 3500));
    assert.equal(pulseFor(server, 'WAKE-CANCELLED'), undefined);
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { cancel_token: 'tok-1' }, toolInvocationToken: undefined })), /cancel_token/);
  });

  it('bad input names the field', async () => {
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'a', payload: { b: 1 } }, toolInvocationToken: undefined })), /payload|text/);
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'a', when: 'job.done' }, toolInvocationToken: undefined })), /job_id/);
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'a', delay_seconds: -5 }, toolInvocationToken: undefined })), /delay_seconds/);
  });

  it('a commit in a git repository fires scm.changed', async () => {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(root, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'first');
    await vscode.commands.executeCommand('git.openRepository', root).then(undefined, () => undefined);
    await new Promise((r) => setTimeout(r, 2500));
    await wake({ text: 'WAKE-SCM the repo changed', when: 'scm.changed' });
    // The git extension re-reads a repository only while the window has the focus (its whenIdleAndFocused):
    // the user comes back and sees the commit made elsewhere, then leaves, and the pulse goes
    // (a focused, active window would hold it behind "Wake ready — Send": suite wakefocus).
    await runnerAction({ action: 'focus' });
    writeFileSync(join(root, 'a.txt'), 'two\n');
    git('commit', '-q', '-am', 'second');
    const head = git('rev-parse', 'HEAD').toString().trim();
    const gitApi = vscode.extensions.getExtension<{ getAPI(v: 1): { repositories: { state: { HEAD?: { commit?: string } } }[] } }>('vscode.git')?.exports.getAPI(1);
    await waitFor(() => gitApi?.repositories.some((r) => r.state.HEAD?.commit === head), 30_000, 'the git extension seeing the second commit');
    await runnerAction({ action: 'blur' });
    const body = await waitFor(() => pulseFor(server, 'WAKE-SCM'), 30_000, 'the scm pulse');
    assert.match(pulseText(body, 'WAKE-SCM'), /reason: scm\.changed/);
  });

  it('pause holds a wake (the status bar says paused) and resume releases it once', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('lifeThread.pauseWakes');
    assert.equal(api.schedule.health().state, 'paused');
    await wake({ text: 'WAKE-PAUSED held', delay_seconds: 1 });
    const held = await waitFor(async () => (await api.wakes.store.list()).find((r) => (r.text ?? '').startsWith('WAKE-PAUSED') && r.status === 'held'), 10_000, 'the wake held on disk');
    assert.equal(held.heldReason, 'paused');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(pulseFor(server, 'WAKE-PAUSED'), undefined, 'nothing reaches the chat while paused');
    await vscode.commands.executeCommand('lifeThread.resumeWakes');
    await waitFor(() => pulseFor(server, 'WAKE-PAUSED'), 15_000, 'the released pulse');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(server.requests.filter((b) => b.messages.some((m) => (m.content ?? '').includes('WAKE-PAUSED') && (m.content ?? '').includes('life_wake:'))).length, 1, 'released once');
  });
});
