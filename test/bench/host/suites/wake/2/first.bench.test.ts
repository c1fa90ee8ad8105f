/**
 * What a window's first chat request costs VS Code itself, without Life Thread: after a restart, a
 * task ends and a bare chat participant (@other, a test extension whose handler only notes the time)
 * is asked through the same `workbench.action.chat.open` the wake uses. Printed beside phase 1's first
 * run (Life Thread's wake as the window's first request); not a figure of its own.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread } from '../../../../../host/helpers';
import { OFFLINE_SELECTOR } from '../../../../../../src/host/offlineModel';
import type { OtherParticipantApi } from '../../../../../fixtures/extensions/other-participant/extension';

describe('bench: a window\u2019s first chat request, without Life Thread', () => {
  it('a task ends → a bare participant has the request', async function () {
    this.timeout(3 * 60_000);
    await lifeThread();
    const other = vscode.extensions.getExtension<OtherParticipantApi>('lifethread-test.other-participant');
    assert.ok(other, 'the bare participant extension is installed');
    const api = await other.activate();
    const dir = mkdtempSync(join(tmpdir(), 'lt-bench-first-'));
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const stamp = join(dir, `first-${i}.exit`);
      const heard = new Promise<number>((resolve) => {
        const sub = api.onDidReceive((e) => {
          if (!e.prompt.includes(`FIRST ${i}`)) return;
          sub.dispose();
          resolve(e.at);
        });
      });
      const end = vscode.tasks.onDidEndTaskProcess((e) => {
        if (e.execution.task.name !== `first-${i}`) return;
        end.dispose();
        void vscode.commands.executeCommand('workbench.action.chat.open', { query: `@other FIRST ${i}`, isPartialQuery: false, modelSelector: OFFLINE_SELECTOR });
      });
      const cmd = `echo '# pass 3'; t=$(date +%s%3N); echo $t > '${stamp}'; exit 1`;
      await vscode.tasks.executeTask(new vscode.Task({ type: 'shell' }, vscode.TaskScope.Workspace, `first-${i}`, 'bench', new vscode.ShellExecution(cmd), []));
      const at = await heard;
      times.push(at - Number(readFileSync(stamp, 'utf8').trim()));
    }
    console.log(`job end → bare participant, the window's first three requests (ms): ${times.map((t) => Math.round(t)).join(', ')}`);
    assert.equal(times.length, 3);
  });
});
