import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('after-turn requests, phase 1: accepted, deduplicated, refused, carried out after the turn', () => {
  it('stores the request durably and carries it out once the turn is over', async () => {
    const api = await lifeThread();
    const executed: string[] = [];
    // The reload itself would end this test host; the restart between phases stands in for it.
    api.afterTurn.executor = async (command) => {
      executed.push(command);
    };
    const first = textOf(await vscode.lm.invokeTool('lifethread_afterTurn', { input: { action: 'reload_window' }, toolInvocationToken: undefined }));
    assert.match(first, /^Accepted: reload_window will run after this turn ends/);
    const again = textOf(await vscode.lm.invokeTool('lifethread_afterTurn', { input: { action: 'reload_window' }, toolInvocationToken: undefined }));
    assert.match(again, /^Already accepted: reload_window/);
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('lifethread_afterTurn', { input: { action: 'restart_extension_host' }, toolInvocationToken: undefined })), /refused: reload_window requested at .* is still pending/);
    await assert.rejects(Promise.resolve(vscode.lm.invokeTool('lifethread_afterTurn', { input: { action: 'shutdown' }, toolInvocationToken: undefined })), /action: /);
    await waitFor(() => (executed.length ? true : undefined), 10_000, 'the request carried out');
    assert.deepEqual(executed, ['workbench.action.reloadWindow']);
    const state = JSON.parse(readFileSync(join(api.storeDir, 'after-turn.json'), 'utf8')) as { current: { status: string; action: string } };
    assert.equal(state.current.status, 'running');
    assert.equal(state.current.action, 'reload_window');
  });
});
