/**
 * Agent mode in the test host: the Copilot Chat extension that code-server ships, answering with
 * Life Thread's own provider and no sign-in (docs/test-host.md, "Agent mode"). Copilot's agent is the
 * real default agent of Agent mode, not a stand-in.
 */
import * as vscode from 'vscode';
import { waitFor } from './helpers';

export const COPILOT_CHAT = 'GitHub.copilot-chat';
/** The participant that answers an unaddressed prompt in Agent mode. */
export const COPILOT_AGENT = 'github.copilot.editsAgent';

/** What `workbench.action.chat.open` returns with `blockOnResponse`: Copilot's result, or a tool confirmation the turn waits on. */
export interface AgentAnswer {
  metadata?: { agentId?: string; sessionId?: string };
  type?: string;
  kind?: string;
  toolId?: string;
}

/**
 * A fresh profile starts with the built-in Copilot Chat disabled ("chat set-up not completed": no
 * sign-in); enabling it is what a user does in the Extensions view. It then loads without a reload.
 */
export async function enableCopilotChat(): Promise<void> {
  if (!vscode.extensions.getExtension(COPILOT_CHAT)) await vscode.commands.executeCommand('workbench.extensions.action.enableAll');
  const ext = await waitFor(() => vscode.extensions.getExtension(COPILOT_CHAT), 30_000, 'Copilot Chat enabled in the extension host');
  await ext.activate();
}

/**
 * Sends `query` as the user does, with no `@participant`, in Agent mode, into the chat on screen; waits
 * for the turn's end (or for a tool confirmation). `model` picks the chat's model; without it the chat
 * keeps the one it has.
 */
export async function askAgent(query: string, model?: { vendor: string; id: string }, timeoutMs = 45_000): Promise<AgentAnswer> {
  const sent = vscode.commands.executeCommand<AgentAnswer>('workbench.action.chat.open', {
    query,
    mode: 'agent',
    isPartialQuery: false,
    blockOnResponse: true,
    ...(model ? { modelSelector: model } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Agent mode did not answer ${JSON.stringify(query)} within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve(sent), late]);
  } finally {
    clearTimeout(timer);
  }
}
