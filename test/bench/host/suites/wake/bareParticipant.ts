/** The wake benches' shared pieces: a task that stamps its exit, and the bare participant asked after such a task ends. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { OFFLINE_SELECTOR } from '../../../../../src/host/offlineModel';
import type { OtherParticipantApi } from '../../../../fixtures/extensions/other-participant/extension';

/** A test run that prints a node:test summary, writes the instant it exits to `stamp`, and exits 1. */
export function benchTask(name: string, stamp: string): vscode.Task {
  const cmd = `printf '# tests 4\\n# pass 3\\n# fail 1\\n'; t=$(date +%s%3N); echo "EXIT-AT $t"; echo $t > '${stamp}'; exit 1`;
  return new vscode.Task({ type: 'shell' }, vscode.TaskScope.Workspace, name, 'bench', new vscode.ShellExecution(cmd), []);
}

/** The instant (ms) the bench task whose stamp is `stamp` exited. */
export function exitAt(stamp: string): number {
  const t = Number(readFileSync(stamp, 'utf8').trim());
  assert.ok(Number.isFinite(t) && t > 0, `no exit time in ${stamp}`);
  return t;
}

/** The bare participant (@other, a test extension whose handler only notes the time), activated. */
export async function bareParticipant(): Promise<OtherParticipantApi> {
  const other = vscode.extensions.getExtension<OtherParticipantApi>('lifethread-test.other-participant');
  assert.ok(other, 'the bare participant extension (test/fixtures/extensions/other-participant) is installed');
  return other.activate();
}

/**
 * Runs the bench task `name`; when VS Code says it ended, asks the bare participant `@other <prompt>`
 * through the command the wake uses. Answers the ms from the task's exit to the handler having it.
 */
export async function bareAfterTask(api: OtherParticipantApi, name: string, stamp: string, prompt: string): Promise<number> {
  const heard = new Promise<number>((resolve) => {
    const sub = api.onDidReceive((e) => {
      if (!e.prompt.includes(prompt)) return;
      sub.dispose();
      resolve(e.at);
    });
  });
  const end = vscode.tasks.onDidEndTaskProcess((e) => {
    if (e.execution.task.name !== name) return;
    end.dispose();
    void vscode.commands.executeCommand('workbench.action.chat.open', { query: `@other ${prompt}`, isPartialQuery: false, modelSelector: OFFLINE_SELECTOR });
  });
  await vscode.tasks.executeTask(benchTask(name, stamp));
  return (await heard) - exitAt(stamp);
}
