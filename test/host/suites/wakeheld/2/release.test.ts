/**
 * Durability, phase 2: after the reload the held rows are still held with their reasons
 * (not stranded as claimed by the dead window), the wake set before its task is lost, and resuming
 * delivers each exactly once to @life.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ownerOf } from '../../../../../src/core/claim';
import { parseWakeInput } from '../../../../../src/core/wake/contract';
import { lastUser, useScriptedModel } from '../../../scriptedModel';
import { lifeThread, phaseInfo, waitFor } from '../../../helpers';

describe('held wakes across a reload, phase 2: nothing stranded, each delivered once', () => {
  const server = useScriptedModel(() => ({ text: 'woken after the reload' }));

  it('keeps held rows held after the reload and delivers each once on resume', async () => {
    const info = phaseInfo();
    assert.ok(info);
    const ids = JSON.parse(readFileSync(join(info.ackDir, '..', 'wakeheld.json'), 'utf8')) as { cap: string; busy: string; paused: string; prestart: string };
    const api = await lifeThread();
    const received = new Map<string, number>();
    api.wakes.onDidReceive((e) => e.ids.forEach((id) => received.set(id, (received.get(id) ?? 0) + 1)));
    const rowOf = async (id: string) => (await api.wakes.store.get(id)) ?? assert.fail(`row ${id}`);

    // Still paused (the pause is the user's, it survives the reload): nothing goes out, nothing is stranded.
    assert.equal(api.wakes.paused, true, 'the pause survives the reload');
    // The wake set before its task is taken over as lost within 10 s of activation (held: paused).
    const lost = await waitFor(async () => {
      const r = await rowOf(ids.prestart);
      return r.status === 'held' ? r : undefined;
    }, 10_000, 'the pre-start wake taken over as lost').catch(async (err: unknown) => {
      throw new Error(`${String(err)}; rows: ${JSON.stringify(await api.wakes.store.list())}`);
    });
    assert.equal(lost.fact?.jobStatus, 'lost');
    for (const id of [ids.cap, ids.busy, ids.paused]) {
      const r = await rowOf(id);
      assert.equal(r.status, 'held', `${id} still held after the reload: ${JSON.stringify(r)}`);
    }
    assert.equal((await rowOf(ids.cap)).heldReason, 'cap');
    // The sidebar shows them with why.
    const sidebar = JSON.stringify(api.model.snapshot('sidebar'));
    for (const id of [ids.cap, ids.busy, ids.paused, ids.prestart]) assert.ok(sidebar.includes(id), `${id} in the sidebar`);
    assert.match(sidebar, /held: /);

    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('lifeThread.resumeWakes');
    for (const id of Object.values(ids)) {
      await waitFor(async () => ((await rowOf(id)).fact?.delivered ? true : undefined), 40_000, `${id} delivered`).catch(async (err: unknown) => {
        throw new Error(`${String(err)}; rows: ${JSON.stringify(await api.wakes.store.list())}`);
      });
    }
    await new Promise((r) => setTimeout(r, 3000));
    for (const [marker, id] of [['HELD-CAP', ids.cap], ['HELD-BUSY', ids.busy], ['HELD-PAUSED', ids.paused], ['HELD-PRESTART', ids.prestart]] as const) {
      const r = await rowOf(id);
      assert.equal(r.status, 'fired');
      assert.equal(r.fact?.via, 'life');
      assert.equal(received.get(id), 1, `${id} reached @life once`);
      const carrying = server.requests.filter((b) => lastUser(b).includes(marker) && lastUser(b).includes('life_wake:'));
      assert.equal(carrying.length, 1, `exactly one @life request carries ${marker}`);
    }
    assert.match(lastUser(server.requests.find((b) => lastUser(b).includes('HELD-PRESTART')) ?? assert.fail('no HELD-PRESTART request')), /status: lost/);
  });

  it('ownership: a task wake watched by another (live) window and a timer of another workspace do not fire here; this window’s own does', async () => {
    const api = await lifeThread();
    // Independent of the test above: not paused, the default cap.
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('lifeThread.resumeWakes');
    const now = new Date();
    const folders = api.wakes.folders();
    const parse = (input: object) => {
      const p = parseWakeInput(input, { now, tz: 'UTC' });
      assert.ok(p.kind === 'wake');
      return p;
    };
    // Another window of this workspace, alive (this very process stands in for it), set a wake on its own "fail-task".
    const other = await api.wakes.store.add(parse({ text: 'OWN-OTHER-WINDOW', when: 'job.done', job_id: 'fail-task' }), { now, owner: ownerOf({ ...api.wakes.holder, window: 'another-window' }, { kind: 'window', folders }) });
    // A window of another workspace set a timer.
    const elsewhere = await api.wakes.store.add(parse({ text: 'OWN-ELSEWHERE', delay_seconds: 1 }), { now, owner: ownerOf({ ...api.wakes.holder, window: 'another-window' }, { kind: 'window', folders: ['file:///somewhere/else'] }) });
    const mine = (await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'OWN-MINE', when: 'job.done', job_id: 'fail-task' }, toolInvocationToken: undefined })).content
      .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
      .join('');
    const mineId = /w-[\w-]+/.exec(mine)?.[0] ?? assert.fail(mine);
    const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === 'fail-task') ?? assert.fail('fail-task');
    await vscode.tasks.executeTask(task);
    await waitFor(async () => ((await api.wakes.store.get(mineId))?.fact?.delivered ? true : undefined), 30_000, 'this window’s own wake delivered');
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal((await api.wakes.store.get(other.id))?.status, 'pending', 'another window’s task wake is not taken by this window’s task of the same name');
    assert.equal((await api.wakes.store.get(elsewhere.id))?.status, 'pending', 'a timer of another workspace does not fire here');
    assert.equal(server.requests.filter((b) => /OWN-OTHER-WINDOW|OWN-ELSEWHERE/.test(lastUser(b))).length, 0);
  });
});
