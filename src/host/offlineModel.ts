import * as vscode from 'vscode';
import { LM_VENDOR } from '../shared/commands';

/**
 * `lifethread/offline`: VS Code refuses every chat request while no language
 * model exists, so `@life` could not even run `/doctor` or show a wake. This deterministic responder is
 * always offered under Life Thread's vendor; it is not an LLM. `@life` answers with it only when there
 * is no other model; reminder turns never use it, and it never counts as "a model is back".
 */
export const OFFLINE_MODEL_ID = 'offline';
export const OFFLINE_MODEL_NAME = 'Life Thread — offline, commands only';

/** Whether the model picker offers a model; VS Code reads it where the stable type does not name it yet. */
export type PickableModel = vscode.LanguageModelChatInformation & { readonly isUserSelectable: boolean };

/**
 * The offline responder as the vendor lists it. `pickable` is false while the OpenAI-compatible endpoint
 * offers models: the picker would otherwise take the responder (listed for agent mode) over them.
 */
export function offlineModelInfo(pickable = true): PickableModel {
  return {
    // The chat only sends requests to models a user may pick; without this `@life` gets "Language model unavailable".
    isUserSelectable: pickable,
    id: OFFLINE_MODEL_ID,
    name: OFFLINE_MODEL_NAME,
    family: 'lifethread-offline',
    version: '1',
    detail: 'no language model',
    tooltip: "Runs @life's slash commands and shows wakes when no language model is connected. Not a language model.",
    maxInputTokens: 1_000_000,
    maxOutputTokens: 4096,
    // Agent mode, the chat's default, lists only tool-calling models; listed there, the chat's model
    // picker takes the offline responder by itself while it is the only model, so @life works without
    // Life Thread opening the chat view to select it (a request's tools are simply not called).
    capabilities: { toolCalling: true },
  };
}

export function isOfflineModel(m: { vendor: string; id: string } | undefined): boolean {
  return m !== undefined && m.vendor === LM_VENDOR && m.id === OFFLINE_MODEL_ID;
}

/** What the offline responder says to anyone who sends it a request directly. */
export const OFFLINE_ANSWER =
  'This is Life Thread\u2019s offline responder, not a language model: it runs @life\u2019s slash commands (/doctor, /remind, /schedule, /wake, /resume) and shows wakes. ' +
  'To talk with an agent, connect a model: install GitHub Copilot, or set lifeThread.openai.baseUrl to an OpenAI-compatible server (Ollama, llama.cpp, vLLM) and run "Life Thread: Set API Key…" if it needs a key.';

/** How `workbench.action.chat.open` selects the offline responder (when it is the only model). */
export const OFFLINE_SELECTOR = { vendor: LM_VENDOR, id: OFFLINE_MODEL_ID } as const;

/** Every model but the offline responder. */
export async function realModels(selector?: vscode.LanguageModelChatSelector): Promise<vscode.LanguageModelChat[]> {
  return (await vscode.lm.selectChatModels(selector)).filter((m) => !isOfflineModel(m));
}
