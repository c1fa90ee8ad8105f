/**
 * A window whose first folder is virtual (../workspace.ts) holds no topic and runs no command "in" it:
 * its URI's path names a folder on this machine that is not the workspace (src/host/diskFolders.ts).
 * The tools refuse with words that say why, and nothing is made at that path.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { lifeThread } from '../../../helpers';
import { VIRTUAL_SCHEME } from '../workspace';

async function invoke(name: string, input: object): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The local path the virtual folder's URI spells (the runner put it in the suite's state folder). */
function virtualPath(): string {
  const first = vscode.workspace.workspaceFolders?.[0];
  assert.equal(first?.uri.scheme, VIRTUAL_SCHEME, 'the first folder is the virtual one');
  return first.uri.path;
}

describe('a virtual first folder is not a folder on disk', function () {
  this.timeout(60_000);

  it('a scheduled command is refused, naming the field and that the first folder is virtual; nothing is stored', async () => {
    const api = await lifeThread();
    const before = (await api.schedule.store.listCommands()).rows.length;
    await assert.rejects(invoke('lifethread_schedule', { action: 'add_command', command: 'echo hi', when: 'in 2 hours' }), (err: Error) => {
      assert.match(err.message, /command/);
      assert.match(err.message, /on this machine's disk/);
      assert.match(err.message, new RegExp(`${VIRTUAL_SCHEME}:`));
      return true;
    });
    assert.equal((await api.schedule.store.listCommands()).rows.length, before, "a command row was stored");
    assert.equal(existsSync(virtualPath()), false, `something was made at ${virtualPath()}`);
  });

  it('Partition is refused for the topic with the same reason; no continuity folder is made at the virtual path', async () => {
    await assert.rejects(invoke('lifethread_partition', { action: 'start' }), (err: Error) => {
      assert.match(err.message, /topic/);
      assert.match(err.message, /on this machine's disk/);
      return true;
    });
    assert.equal(existsSync(virtualPath()), false, `something was made at ${virtualPath()}`);
  });
});
