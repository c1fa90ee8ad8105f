import * as vscode from 'vscode';
import { isOfflineModel, realModels } from './offlineModel';

/** The chat's own command that puts a model in every chat input (VS Code's `workbench.action.chat.changeModel`: vendor, id and family). */
export const CHANGE_MODEL_COMMAND = 'workbench.action.chat.changeModel';
/** globalState: the models already offered (`vendor/id`), so each is offered once. */
const OFFERED_KEY = 'lifeThread.modelsOffered';

export interface ModelOfferButton {
  /** The model's name as the picker shows it. */
  model: string;
  title: string;
  command: string;
  arguments: [{ vendor: string; id: string; family: string }];
}

/**
 * When the offline responder answered `@life` although another model exists (it sat in a collapsed
 * group of the picker, say), the answer offers a button that selects that model in the chat — once per
 * model, remembered across windows and reloads.
 */
export class ModelOffer {
  constructor(private readonly memento: vscode.Memento) {}

  /** The button to show under an answer given with `answeredWith`, or undefined (nothing to offer). */
  async next(answeredWith: { vendor: string; id: string } | undefined): Promise<ModelOfferButton | undefined> {
    if (!isOfflineModel(answeredWith)) return undefined;
    const offered = new Set(this.memento.get<string[]>(OFFERED_KEY, []));
    const model = (await realModels()).find((m) => !offered.has(`${m.vendor}/${m.id}`));
    if (!model) return undefined;
    offered.add(`${model.vendor}/${model.id}`);
    await this.memento.update(OFFERED_KEY, [...offered]);
    return { model: model.name, title: `Use ${model.name} in the chat`, command: CHANGE_MODEL_COMMAND, arguments: [{ vendor: model.vendor, id: model.id, family: model.family }] };
  }

  /** Adds the button, with a line that says why, to an answer the offline responder gave. */
  async offer(answeredWith: { vendor: string; id: string } | undefined, stream: Pick<vscode.ChatResponseStream, 'markdown' | 'button'>): Promise<ModelOfferButton | undefined> {
    const b = await this.next(answeredWith).catch(() => undefined);
    if (!b) return undefined;
    // `@life` itself answers free text with the connected model (chooseModel in ./lifeAgent.ts): say what the chat has selected, not who answered.
    stream.markdown(`\n\nThe chat has Life Thread's offline responder selected, which runs only slash commands; **${b.model}** is connected too. Pick it to talk with an agent:`);
    stream.button({ title: b.title, command: b.command, arguments: b.arguments });
    return b;
  }
}
