/**
 * A wake never takes the keyboard from a user at work in the window. The window state is driven the
 * way the browser reports it (test/runner/host.ts): `focus`/`blur` set what `document.hasFocus()`
 * answers and dispatch the event, and a key press through the page (`keyboard`) is user activity, after
 * which VS Code reports the window active for 30–40 s. The status bar's "Wake ready — Send" runs
 * `lifeThread.sendReadyWake`, which is what a click on it does; the test runs that command.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../../../src/shared/commands';
import { lifeThread, runnerAction, waitFor } from '../../../helpers';
import { useScriptedModel, type ChatBody, type ScriptedModel } from '../../../scriptedModel';

const pulses = (server: ScriptedModel, marker: string): string[] =>
  server.requests.flatMap((b: ChatBody) => b.messages.filter((m) => m.role === 'user' && (m.content ?? '').includes(marker) && (m.content ?? '').includes('life_wake:')).map((m) => m.content ?? ''));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The user at work here: the window has the focus and a key was just pressed in it. */
async function atWork(): Promise<void> {
  await runnerAction({ action: 'focus' });
  await runnerAction({ action: 'keyboard', keys: 'Shift' });
  await waitFor(() => (vscode.window.state.focused && vscode.window.state.active ? true : undefined), 10_000, 'the window focused and active').catch((err: unknown) => {
    const s = vscode.window.state;
    throw new Error(`${String(err)} (focused ${s.focused}, active ${s.active})`);
  });
}

async function setWake(text: string, seconds: number): Promise<string> {
  const api = await lifeThread();
  const r = await api.wakes.request({ text, delay_seconds: seconds });
  const id = r.rows[0]?.id;
  assert.ok(id, 'a wake was set');
  return id;
}

describe('a wake never takes the keyboard from a user at work in the window', () => {
  const server = useScriptedModel(() => ({ text: 'woken' }));

  before(async () => {
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
    await lifeThread();
  });

  // Leave the window as every phase starts it (test/host/index.ts): blurred, no one at work.
  after(async () => {
    await runnerAction({ action: 'blur' });
  });

  it('at work: the pulse waits behind "Wake ready — Send" in the status bar; the click sends it; a draft in the chat box survives', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: 'DRAFT-KEPT-77 half a thought', isPartialQuery: true });
    await atWork();
    const id = await setWake('WAKE-READY the timer is up', 2);
    await waitFor(() => (api.wakes.focus.waitingIds().includes(id) ? true : undefined), 15_000, 'the wake waiting for the user');
    const shown = (await runnerAction({ action: 'pageText', text: 'Wake ready — Send', timeoutMs: 10_000 })) as { found?: boolean };
    assert.equal(shown.found, true, 'the status bar shows "Wake ready — Send"');
    await sleep(2000);
    assert.ok(vscode.window.state.active && vscode.window.state.focused, 'the user is still at work here');
    assert.deepEqual(pulses(server, 'WAKE-READY'), [], 'nothing went to the chat while the user works');
    assert.equal((await api.wakes.store.get(id))?.status, 'delivering', 'the wake stays claimed by this window');
    const clickedAt = Date.now();
    assert.equal(await vscode.commands.executeCommand(COMMANDS.sendReadyWake), 1, 'the click sends the waiting pulse');
    await waitFor(() => pulses(server, 'WAKE-READY')[0], 15_000, 'the pulse at @life after the click');
    const row = await waitFor(async () => ((await api.wakes.store.get(id))?.status === 'fired' ? api.wakes.store.get(id) : undefined), 10_000, 'fired');
    assert.equal(row?.fact?.via, 'life');
    console.log(`wakefocus: pulse ${Date.now() - clickedAt} ms after the click`);
    assert.deepEqual(api.wakes.focus.waitingIds(), [], 'nothing waits any more');
    const draft = (await runnerAction({ action: 'pageText', text: 'DRAFT-KEPT-77', timeoutMs: 5_000 })) as { found?: boolean };
    assert.equal(draft.found, true, 'the draft is still in the chat box');
    assert.equal(pulses(server, 'DRAFT-KEPT-77').length, 0, 'the draft was not sent');
  });

  it('at work, then the user leaves the window: the waiting pulse goes without a click', async () => {
    const api = await lifeThread();
    await atWork();
    const id = await setWake('WAKE-LEAVE the timer is up', 1);
    await waitFor(() => (api.wakes.focus.waitingIds().includes(id) ? true : undefined), 15_000, 'the wake waiting for the user');
    assert.deepEqual(pulses(server, 'WAKE-LEAVE'), []);
    await runnerAction({ action: 'blur' });
    await waitFor(() => pulses(server, 'WAKE-LEAVE')[0], 15_000, 'the pulse once the window lost the focus');
    await waitFor(async () => ((await api.wakes.store.get(id))?.status === 'fired' ? true : undefined), 10_000, 'fired');
  });

  it('away from the window: the pulse goes at once, nothing waits in the status bar', async () => {
    const api = await lifeThread();
    await runnerAction({ action: 'blur' });
    await waitFor(() => (vscode.window.state.focused ? undefined : true), 10_000, 'the window without focus');
    const id = await setWake('WAKE-AWAY the timer is up', 1);
    let waited = false;
    await waitFor(() => {
      if (api.wakes.focus.waitingIds().includes(id)) waited = true;
      return pulses(server, 'WAKE-AWAY')[0];
    }, 15_000, 'the pulse while away');
    assert.equal(waited, false, 'it never waited for a click');
  });
});
