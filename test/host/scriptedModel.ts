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
    // The offline responder stays: it is always offered (design §9 "No model").
    await waitFor(async () => ((await vscode.lm.selectChatModels({ vendor: 'lifethread' })).every((m) => m.id === 'offline') ? true : undefined), 15_000, 'the scripted model gone');
  }
}
