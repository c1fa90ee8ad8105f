import * as vscode from 'vscode';
import { contrib } from './contrib';
import { estimateTokens, type NeutralMessage, type NeutralPart } from '../core/openai';
import { listModels, streamChat } from '../node/openaiClient';
import { COMMANDS, LM_VENDOR } from '../shared/commands';
import { setting } from './settings';
import { OFFLINE_ANSWER, offlineModelInfo, type PickableModel } from './offlineModel';
import type { AgentRequest, AgentTurns } from './agentTurns';

export const API_KEY_SECRET = 'lifeThread.openai.apiKey';

interface OpenAiModel extends PickableModel {
  /** The model's name on the server; undefined for the offline responder. */
  readonly serverModel?: string;
}

function partsOf(message: vscode.LanguageModelChatRequestMessage): NeutralPart[] {
  const parts: NeutralPart[] = [];
  for (const p of message.content) {
    if (p instanceof vscode.LanguageModelTextPart) parts.push({ kind: 'text', text: p.value });
    else if (p instanceof vscode.LanguageModelToolCallPart) parts.push({ kind: 'toolCall', callId: p.callId, name: p.name, input: p.input });
    else if (p instanceof vscode.LanguageModelToolResultPart) {
      const text = p.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : typeof c === 'string' ? c : JSON.stringify(c))).join('');
      parts.push({ kind: 'toolResult', callId: p.callId, text });
    } else if (p instanceof vscode.LanguageModelDataPart && p.mimeType.startsWith('text/')) {
      parts.push({ kind: 'text', text: new TextDecoder().decode(p.data) });
    }
  }
  return parts;
}

export function toNeutral(messages: readonly vscode.LanguageModelChatRequestMessage[]): NeutralMessage[] {
  return messages.map((m) => ({ role: m.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', parts: partsOf(m) }));
}

/**
 * Life Thread's own language-model provider for an OpenAI-compatible endpoint (Ollama, llama.cpp's
 * server, vLLM, OpenAI): so `@life` and reminder turns have a model where Copilot is not there.
 * Base URL and model come from settings; the key from SecretStorage (`Life Thread: Set API Key`).
 */
export class OpenAiCompatibleProvider implements vscode.LanguageModelChatProvider<OpenAiModel>, vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this._onDidChange.event;
  private readonly subs: vscode.Disposable[] = [];
  lastError: string | null = null;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly agents?: AgentTurns,
  ) {
    this.subs.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('lifeThread.openai')) this._onDidChange.fire();
      }),
      context.secrets.onDidChange((e) => {
        if (e.key === API_KEY_SECRET) this._onDidChange.fire();
      }),
    );
  }

  get baseUrl(): string {
    return setting('openai.baseUrl').trim();
  }

  async provideLanguageModelChatInformation(options: vscode.PrepareLanguageModelChatModelOptions, token: vscode.CancellationToken): Promise<OpenAiModel[]> {
    const server = await this.serverModels(options, token);
    return [...server, offlineModelInfo(server.length === 0)];
  }

  private async serverModels(_options: vscode.PrepareLanguageModelChatModelOptions, token: vscode.CancellationToken): Promise<OpenAiModel[]> {
    const baseUrl = this.baseUrl;
    if (!baseUrl) return [];
    let names = setting('openai.model').trim() ? [setting('openai.model').trim()] : [];
    if (names.length === 0) {
      const ctl = new AbortController();
      token.onCancellationRequested(() => ctl.abort());
      try {
        names = await listModels(baseUrl, await this.context.secrets.get(API_KEY_SECRET), ctl.signal);
        this.lastError = null;
      } catch (err) {
        this.lastError = `cannot list models at ${baseUrl}: ${err instanceof Error ? err.message : String(err)}`;
        return [];
      }
    }
    const maxInputTokens = setting('openai.maxInputTokens');
    return names.map((name) => ({
      id: name,
      name,
      family: name,
      version: '1',
      detail: new URL(baseUrl).host,
      tooltip: `OpenAI-compatible model "${name}" at ${baseUrl} (Life Thread)`,
      maxInputTokens,
      maxOutputTokens: 4096,
      capabilities: { toolCalling: true },
      isUserSelectable: true,
      serverModel: name,
    }));
  }

  async provideLanguageModelChatResponse(
    model: OpenAiModel,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const turn = this.agentRequest(messages, options, model.serverModel !== undefined);
    let toolCalled = false;
    if (model.serverModel === undefined) {
      progress.report(new vscode.LanguageModelTextPart(OFFLINE_ANSWER));
      turn?.end(false);
      return;
    }
    const serverModel = model.serverModel;
    const ctl = new AbortController();
    const sub = token.onCancellationRequested(() => ctl.abort());
    try {
      const tools = (options.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
      for await (const e of streamChat({
        baseUrl: this.baseUrl,
        apiKey: await this.context.secrets.get(API_KEY_SECRET),
        model: serverModel,
        messages: toNeutral(messages),
        tools,
        toolChoice: options.toolMode === vscode.LanguageModelChatToolMode.Required ? 'required' : 'auto',
        signal: ctl.signal,
      })) {
        turn?.activity();
        if (e.kind === 'text') progress.report(new vscode.LanguageModelTextPart(e.text));
        else if (e.kind === 'toolCall') {
          toolCalled = true;
          progress.report(new vscode.LanguageModelToolCallPart(e.callId, e.name, (e.input ?? {}) as object));
        }
      }
      this.lastError = null;
    } catch (err) {
      if (token.isCancellationRequested) return;
      this.lastError = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      sub.dispose();
      // A failed or cancelled response ends the agent's turn too: its agent has no tool to run.
      turn?.end(toolCalled && !token.isCancellationRequested);
    }
  }

  /**
   * A request from another extension (Agent mode's agent) is reported to ./agentTurns.ts; Life Thread's
   * own (`@life`, reminder turns) are not. VS Code tells a provider which extension asked
   * (`requestInitiator`, the extension id in lower case; not in the typed API of this engine).
   */
  private agentRequest(messages: readonly vscode.LanguageModelChatRequestMessage[], options: vscode.ProvideLanguageModelChatResponseOptions, real: boolean): AgentRequest | undefined {
    if (!this.agents) return undefined;
    const initiator = (options as { requestInitiator?: unknown }).requestInitiator;
    if (typeof initiator === 'string' && initiator.toLowerCase() === this.context.extension.id.toLowerCase()) return undefined;
    return this.agents.request(real ? toNeutral(messages) : [], real);
  }

  async provideTokenCount(_model: OpenAiModel, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    if (typeof text === 'string') return estimateTokens(text);
    return estimateTokens(partsOf(text).map((p) => (p.kind === 'text' ? p.text : p.kind === 'toolResult' ? p.text : JSON.stringify(p.input))).join(''));
  }

  dispose(): void {
    this._onDidChange.dispose();
    for (const s of this.subs) s.dispose();
  }
}

export function registerOpenAiProvider(context: vscode.ExtensionContext, agents?: AgentTurns): OpenAiCompatibleProvider {
  const provider = new OpenAiCompatibleProvider(context, agents);
  context.subscriptions.push(
    provider,
    contrib.registerLanguageModelChatProvider(LM_VENDOR, provider),
    contrib.registerCommand(COMMANDS.setApiKey, async () => {
      const key = await vscode.window.showInputBox({
        title: 'Life Thread: API key for the OpenAI-compatible endpoint',
        prompt: `Kept in VS Code's secret storage. Leave empty to remove it. Endpoint: ${provider.baseUrl || '(set lifeThread.openai.baseUrl first)'}`,
        password: true,
        ignoreFocusOut: true,
      });
      if (key === undefined) return;
      if (key) await context.secrets.store(API_KEY_SECRET, key);
      else await context.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage(key ? 'Life Thread: API key saved.' : 'Life Thread: API key removed.');
    }),
  );
  return provider;
}
