import * as vscode from 'vscode';
import { setting } from './settings';
import { realModels } from './offlineModel';
import { markLifeCall } from '../node/tools/lifeCalls';

/** The wake tool's name (package.json `languageModelTools`). */
export const WAKE_TOOL = 'lifethread_sendToLifeThread';

/** A tool as a turn sees it: its schema for the model and how to run it. */
export interface TurnTool {
  name: string;
  description: string;
  inputSchema?: object;
  invoke(input: unknown, token: vscode.CancellationToken): Promise<string>;
}

export interface TurnResult {
  text: string;
  toolCalls: { name: string; input: unknown; result: string; refused: boolean }[];
  rounds: number;
}

export const MAX_TOOL_ROUNDS = 8;

/**
 * One agent turn: send, run the tools the model asks for, send their results back, until the model
 * answers with text only (or the round limit). Tool failures go back to the model as text.
 */
export async function runAgentTurn(opts: {
  model: vscode.LanguageModelChat;
  messages: vscode.LanguageModelChatMessage[];
  tools: TurnTool[];
  token: vscode.CancellationToken;
  onText?: (chunk: string) => void;
  onToolCall?: (name: string, input: unknown) => void;
  onActivity?: () => void;
  maxRounds?: number;
}): Promise<TurnResult> {
  const messages = [...opts.messages];
  const byName = new Map(opts.tools.map((t) => [t.name, t]));
  const result: TurnResult = { text: '', toolCalls: [], rounds: 0 };
  const maxRounds = opts.maxRounds ?? MAX_TOOL_ROUNDS;
  for (let round = 0; round < maxRounds; round++) {
    result.rounds = round + 1;
    const response = await opts.model.sendRequest(
      messages,
      { tools: opts.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })), justification: 'Life Thread runs an agent turn' },
      opts.token,
    );
    let text = '';
    const calls: vscode.LanguageModelToolCallPart[] = [];
    for await (const part of response.stream) {
      opts.onActivity?.();
      if (part instanceof vscode.LanguageModelTextPart) {
        text += part.value;
        opts.onText?.(part.value);
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        calls.push(part);
      }
    }
    result.text = text;
    if (calls.length === 0) return result;
    messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
    const results: vscode.LanguageModelToolResultPart[] = [];
    for (const call of calls) {
      opts.onToolCall?.(call.name, call.input);
      const tool = byName.get(call.name);
      let out: string;
      let refused = false;
      if (!tool) {
        out = `Tool "${call.name}" is not available in this turn.`;
        refused = true;
      } else {
        try {
          out = await tool.invoke(call.input, opts.token);
        } catch (err) {
          out = `Error: ${err instanceof Error ? err.message : String(err)}`;
          refused = /not allowed|refused/i.test(out);
        }
      }
      result.toolCalls.push({ name: call.name, input: call.input, result: out, refused });
      results.push(new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(out)]));
    }
    messages.push(vscode.LanguageModelChatMessage.User(results));
  }
  return result;
}

/** Wraps a tool registered in `vscode.lm.tools` so a turn can call it through `lm.invokeTool`. */
export function registeredTool(info: vscode.LanguageModelToolInformation, toolInvocationToken?: vscode.ChatParticipantToolToken): TurnTool {
  return {
    name: info.name,
    description: info.description,
    inputSchema: info.inputSchema,
    async invoke(input, token) {
      // The wake tool records who set a wake: `@life`'s own calls carry a key it recognises (src/node/tools/lifeCalls.ts).
      const marked = toolInvocationToken !== undefined && info.name === WAKE_TOOL ? markLifeCall(input) : undefined;
      try {
        const r = await vscode.lm.invokeTool(info.name, { input: (marked?.input ?? input ?? {}) as object, toolInvocationToken }, token);
        return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      } finally {
        marked?.done();
      }
    },
  };
}

/** The model for turns: `lifeThread.model` (`vendor/id`) when set and present, else the first available. */
export async function pickModel(): Promise<{ model?: vscode.LanguageModelChat; reason?: string }> {
  const wanted = setting('model').trim();
  if (wanted) {
    const slash = wanted.indexOf('/');
    const selector = slash > 0 ? { vendor: wanted.slice(0, slash), id: wanted.slice(slash + 1) } : { id: wanted };
    const found = await realModels(selector);
    if (found[0]) return { model: found[0] };
    const all = await realModels();
    if (!all[0]) return { reason: `no language model is available (lifeThread.model is "${wanted}")` };
    return { model: all[0], reason: `lifeThread.model "${wanted}" is not available; used ${all[0].vendor}/${all[0].id}` };
  }
  const all = await realModels();
  return all[0] ? { model: all[0] } : { reason: 'no language model is available (install Copilot, or set lifeThread.openai.baseUrl for an OpenAI-compatible endpoint)' };
}
