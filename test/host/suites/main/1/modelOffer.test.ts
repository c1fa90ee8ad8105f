/**
 * An `@life` answer the chat sent to the offline responder while another model is connected offers a
 * button that picks that model in the chat (src/host/modelOffer.ts), once per model.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';

/** What an answer said: its Markdown and its buttons. */
class RecordingStream {
  readonly texts: string[] = [];
  readonly buttons: vscode.Command[] = [];
  markdown(value: string | vscode.MarkdownString): void {
    this.texts.push(typeof value === 'string' ? value : value.value);
  }
  button(command: vscode.Command): void {
    this.buttons.push(command);
  }
}

const recordingStream = (): RecordingStream & Pick<vscode.ChatResponseStream, 'markdown' | 'button'> => new RecordingStream() as RecordingStream & Pick<vscode.ChatResponseStream, 'markdown' | 'button'>;

describe('the offline responder offers the connected model', function () {
  this.timeout(60_000);
  const scripted = useScriptedModel(() => ({ text: 'ok' }));

  it('offers a button that selects the model in the chat, once per model', async () => {
    const api = await lifeThread();
    const offline = await waitFor(async () => (await vscode.lm.selectChatModels({ vendor: 'lifethread', id: 'offline' }))[0], 15_000, 'the offline responder');
    const real = (await vscode.lm.selectChatModels({ vendor: 'lifethread', id: scripted.modelId }))[0] ?? assert.fail('the scripted model');

    // Answered by a real model: nothing to offer.
    const quiet = recordingStream();
    assert.equal(await api.modelOffer.offer(real, quiet), undefined);
    assert.equal(quiet.buttons.length, 0);

    const first = recordingStream();
    const b = (await api.modelOffer.offer(offline, first)) ?? assert.fail('no offer while a model is connected');
    assert.equal(first.buttons.length, 1);
    const button = first.buttons[0] ?? assert.fail('button');
    assert.equal(button.command, 'workbench.action.chat.changeModel');
    assert.deepEqual(button.arguments, [{ vendor: 'lifethread', id: scripted.modelId, family: real.family }]);
    assert.equal(button.title, `Use ${real.name} in the chat`);
    assert.equal(b.model, real.name);
    assert.match(first.texts.join(''), new RegExp(`offline responder[^]*${real.name}`));

    // The command the button runs is the chat's own, present in this VS Code.
    assert.ok((await vscode.commands.getCommands(false)).includes(button.command), `${button.command} is not a command here`);
    await vscode.commands.executeCommand(button.command, ...(button.arguments ?? []));

    // Offered once: the next offline answer says nothing more about it.
    const again = recordingStream();
    assert.equal(await api.modelOffer.offer(offline, again), undefined);
    assert.equal(again.buttons.length, 0);
  });
});
