import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';
import { ScriptedModel } from '../../../scriptedModel';

describe('after-turn requests, phase 2: after the restart the outcome is there for the next turn', () => {
  it('settles the request as done and shows the outcome to the next @life turn', async () => {
    const api = await lifeThread();
    const outcome = await api.afterTurn.lastOutcome();
    assert.match(outcome ?? '', /^reload_window \(id a-\w+\) requested .*: done — the window reloaded; Life Thread started again at /);
    const server = new ScriptedModel();
    await server.start();
    try {
      await server.connect();
      server.script = () => ({ text: 'noted' });
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@life did the reload happen?', isPartialQuery: false, blockOnResponse: true, modelSelector: { vendor: 'lifethread', id: server.modelId } });
      const body = await waitFor(() => server.requests.find((b) => b.messages.some((m) => (m.content ?? '').includes('did the reload happen'))), 10_000, 'the @life turn');
      assert.ok(body.messages.some((m) => (m.content ?? '').includes('Last after-turn request: reload_window')), 'the next turn reads the outcome');
      const next = await vscode.lm.invokeTool('lifethread_afterTurn', { input: { action: 'restart_extension_host' }, toolInvocationToken: undefined });
      assert.match(next.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join(''), /^Accepted: restart_extension_host/);
      api.afterTurn.executor = async () => undefined;
    } finally {
      await server.disconnect().catch(() => undefined);
      await server.stop();
    }
  });
});
