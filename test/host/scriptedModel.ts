/** The scripted model for host tests: the server of test/runner/scriptedServer.ts, connected to Life Thread's provider through the settings. */
import * as vscode from 'vscode';
import { ScriptedServer } from '../runner/scriptedServer';
import { waitFor } from './helpers';

export { lastUser, toolResults, type ChatBody, type Reply, type WireMessage } from '../runner/scriptedServer';

export class ScriptedModel extends ScriptedServer {
  /** Points Life Thread's provider at this server and waits for the model to appear in vscode.lm. */
  async connect(): Promise<vscode.LanguageModelChat> {
    const cfg = vscode.workspace.getConfiguration('lifeThread');
    await cfg.update('openai.baseUrl', this.baseUrl, vscode.ConfigurationTarget.Global);
    await cfg.update('openai.model', this.modelId, vscode.ConfigurationTarget.Global);
    return waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'lifethread', id: this.modelId }))[0], 15_000, 'the scripted model in vscode.lm');
  }

  async disconnect(): Promise<void> {
    const cfg = vscode.workspace.getConfiguration('lifeThread');
    await cfg.update('openai.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await cfg.update('openai.model', undefined, vscode.ConfigurationTarget.Global);
    // The offline responder stays: it is always offered.
    await waitFor(async () => ((await vscode.lm.selectChatModels({ vendor: 'lifethread' })).every((m) => m.id === 'offline') ? true : undefined), 15_000, 'the scripted model gone');
  }
}

/**
 * A scripted model for the enclosing `describe`: started and in vscode.lm (with `script`, if given)
 * before its tests; disconnected and stopped after them. The suite's own hooks run after these.
 */
export function useScriptedModel(script?: ScriptedModel['script']): ScriptedModel {
  const server = new ScriptedModel();
  before(async () => {
    await server.start();
    await server.connect();
    if (script) server.script = script;
  });
  after(async () => {
    await server.disconnect().catch(() => undefined);
    await server.stop();
  });
  return server;
}
