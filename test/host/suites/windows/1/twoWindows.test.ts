/**
 * Addressing across two real windows: the runner opens a
 * second workbench page of the same code-server on another workspace (window B, its own extension
 * host, the same store). Both run a task named `tests`. A task wake set here (window A) is delivered
 * here, not in B; a wake set outside any window (CLI, no folders) is taken by B when B's task ends,
 * which shows B was alive and watching its own `tests` while it left A's wake alone.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { parseWakeInput } from '../../../../../src/core/wake/contract';
import { hasBrowserRunner, lifeThread, phaseInfo, runnerAction, waitFor } from '../../../helpers';
import { lastUser, ScriptedModel } from '../../../scriptedModel';

describe('two windows on two workspaces, both with a task named "tests"', function () {
  this.timeout(240_000);
  const server = new ScriptedModel();

  before(async function () {
    if (!hasBrowserRunner()) this.skip();
    await server.start();
    await server.connect();
    server.script = () => ({ text: 'woken' });
  });

  after(async () => {
    await vscode.workspace.getConfiguration('task').update('allowAutomaticTasks', undefined, vscode.ConfigurationTarget.Global);
    await server.disconnect().catch(() => undefined);
    await server.stop();
  });

  it('delivers window A’s task wake in A, not in B; B takes only a wake set outside any window', async () => {
    const info = phaseInfo() ?? assert.fail('phase info');
    const api = await lifeThread();
    await api.ready;
    const received = new Map<string, number>();
    api.wakes.onDidReceive((e) => e.ids.forEach((id) => received.set(id, (received.get(id) ?? 0) + 1)));

    // Window B's workspace: a `tests` task of its own that runs when the folder opens.
    const folderB = join(info.ackDir, '..', '..', 'workspace-b');
    mkdirSync(join(folderB, '.vscode'), { recursive: true });
    writeFileSync(
      join(folderB, '.vscode', 'tasks.json'),
      JSON.stringify({
        version: '2.0.0',
        tasks: [{ label: 'tests', type: 'shell', command: "sleep 12; echo 'B-TESTS-OUTPUT 9 passing'; exit 1", problemMatcher: [], presentation: { reveal: 'never' }, runOptions: { runOn: 'folderOpen' } }],
      }),
    );
    await vscode.workspace.getConfiguration('task').update('allowAutomaticTasks', 'on', vscode.ConfigurationTarget.Global);

    // A's own wake on `tests`, through the tool as an agent sets it (owner: this window and its folders).
    const out = (await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'TWO-WINDOWS-A', when: 'job.done', job_id: 'tests' }, toolInvocationToken: undefined })).content
      .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
      .join('');
    const mine = /w-[\w-]+/.exec(out)?.[0] ?? assert.fail(out);
    assert.deepEqual((await api.wakes.store.get(mine))?.owner?.folders, api.wakes.folders());
    // A wake set outside any window (as `life-thread wake` does): no folders, no window.
    const parsed = parseWakeInput({ text: 'TWO-WINDOWS-ANY', when: 'job.done', job_id: 'tests' }, { now: new Date(), tz: 'UTC' });
    assert.ok(parsed.kind === 'wake');
    const anyRow = await api.wakes.store.add(parsed, { now: new Date(), owner: { kind: 'cli', cwd: '/' } });

    await runnerAction({ action: 'openWindow', folder: folderB }, 90_000);
    const uriB = pathToFileURL(folderB).toString();
    await waitFor(
      () => {
        const dir = join(api.storeDir, 'windows');
        const records = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
        return records.some((r) => r.includes(uriB.replace(/\/$/, ''))) ? true : undefined;
      },
      60_000,
      'window B announced in the store',
      500,
    );

    // B's `tests` ends: B takes the window-less wake (delivered there: this window's @life never had it) …
    const anyFired = await waitFor(async () => {
      const r = await api.wakes.store.get(anyRow.id);
      return r?.status === 'fired' && r.fact?.delivered ? r : undefined;
    }, 90_000, 'the window-less wake delivered by window B', 250).catch(async (err: unknown) => {
      throw new Error(`${String(err)}; rows: ${JSON.stringify(await api.wakes.store.list())}`);
    });
    await new Promise((r) => setTimeout(r, 3000));
    await runnerAction({ action: 'screenshot', name: 'host-windows-b', window: 1 });
    assert.equal(anyFired.fact?.via, 'life');
    assert.equal(received.get(anyRow.id), undefined, 'the window-less wake reached window B’s @life, not this one');
    assert.match(anyFired.fact?.summary ?? '', /B-TESTS-OUTPUT/, 'its pulse names B’s task output');
    // … and leaves A's wake alone.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal((await api.wakes.store.get(mine))?.status, 'pending', 'B’s `tests` does not fire A’s wake');
    assert.equal(server.requests.filter((b) => /TWO-WINDOWS-A(?!NY)/.test(lastUser(b))).length, 0, 'no @life request carries A’s wake yet');

    // A's own `tests` ends: A's wake is delivered here, once, with A's output.
    const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === 'tests' && t.scope !== undefined) ?? assert.fail('the tests task');
    await vscode.tasks.executeTask(task);
    const row = await waitFor(async () => {
      const r = await api.wakes.store.get(mine);
      return r?.fact?.delivered ? r : undefined;
    }, 60_000, 'A’s wake delivered', 250);
    assert.equal(row.fact?.via, 'life');
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(received.get(mine), 1, 'A’s @life received A’s wake exactly once');
    const carryingMine = server.requests.filter((b) => /TWO-WINDOWS-A(?!NY)/.test(lastUser(b)));
    assert.equal(carryingMine.length, 1, 'exactly one @life request carries A’s wake');
    const pulseA = lastUser(carryingMine[0] ?? assert.fail('no request'));
    assert.match(pulseA, /3 passed, 1 failed/, `A’s pulse names A’s own task output: ${pulseA}`);
    assert.doesNotMatch(pulseA, /B-TESTS-OUTPUT/);
  });
});
