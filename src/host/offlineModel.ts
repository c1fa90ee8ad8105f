import * as vscode from 'vscode';
import { LM_VENDOR } from '../shared/commands';

/**
 * `lifethread/offline` (design §9 "No model"): VS Code refuses every chat request while no language
 * model exists, so `@life` could not even run `/doctor` or show a wake. This deterministic responder is
 * always offered under Life Thread's vendor; it is not an LLM. `@life` answers with it only when there
 * is no other model; reminder turns never use it, and it never counts as "a model is back".
 */
export const OFFLINE_MODEL_ID = 'offline';
export const OFFLINE_MODEL_NAME = 'Life Thread — offline, commands only';

/** Whether the model picker offers a model; VS Code reads it where the stable type does not name it yet. */
export type PickableModel = vscode.LanguageModelChatInformation & { readonly isUserSelectable: boolean };

export function offlineModelInfo(): PickableModel {
  return {
    // The chat only sends requests to models a user may pick; without this `@life` gets "Language model unavailable".
    isUserSelectable: true,
    id: OFFLINE_MODEL_ID,
    name: OFFLINE_MODEL_NAME,
    family: 'lifethread-offline',
    version: '1',
    detail: 'no language model',
    tooltip: "Runs @life's slash commands and shows wakes when no language model is connected. Not a language model.",
    maxInputTokens: 1_000_000,
    maxOutputTokens: 4096,
    capabilities: { toolCalling: false },
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

/** Set while the chat's model picker is on the offline responder because Life Thread put it there. */
const SELECTED_KEY = 'lifeThread.offlineSelectedInChat';
/** Models of other extensions (Copilot) register a few seconds after activation: look after they had the time. */
const SETTLE_MS = 4000;

/**
 * The chat sends a request only to the model its picker shows, and with no model at all the picker
 * shows none: `@life` would meet "Language model unavailable" (design §9 "No model"). So while the
 * offline responder is the only model, Life Thread puts the picker on it (once; the picker keeps it);
 * when another model appears later, the picker goes to that one, so other participants are not left
 * on a responder that is not a language model. Each switch goes through `workbench.action.chat.open`
 * (the only stable way to pick a model), which reveals the chat view; the editor keeps the focus.
 */
export function selectOfflineWhenAlone(context: vscode.ExtensionContext, log?: { info(m: string): void }): vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  const check = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const real = await realModels();
      const ours = context.globalState.get<boolean>(SELECTED_KEY) === true;
      let selector: vscode.LanguageModelChatSelector | undefined;
      if (real.length === 0 && !ours) selector = OFFLINE_SELECTOR;
      else if (real.length > 0 && ours && real[0]) selector = { vendor: real[0].vendor, id: real[0].id };
      if (!selector) return;
      const hadEditor = vscode.window.tabGroups.activeTabGroup.activeTab !== undefined;
      await vscode.commands.executeCommand('workbench.action.chat.open', { modelSelector: selector });
      if (hadEditor) await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
      await context.globalState.update(SELECTED_KEY, selector === OFFLINE_SELECTOR);
      log?.info(`chat model picker set to ${selector.vendor ?? ''}/${selector.id ?? ''} (${selector === OFFLINE_SELECTOR ? 'no language model is connected' : 'a language model is connected'})`);
    } catch {
      // No chat in this build, or the model went away meanwhile: nothing to select.
    } finally {
      busy = false;
    }
  };
  const later = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void check(), ms);
  };
  later(SETTLE_MS);
  const sub = vscode.lm.onDidChangeChatModels(() => later(1500));
  return new vscode.Disposable(() => {
    if (timer) clearTimeout(timer);
    sub.dispose();
  });
}
