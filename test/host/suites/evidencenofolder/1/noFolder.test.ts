/**
 * Where a job's evidence goes in a window with no folder (../workspace.ts): test/host/evidenceInStore.ts,
 * the store. The demo lies in the fixture folder the runner copied, which this window does not open;
 * nothing of Life Thread's continuity folder is made there.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { evidenceInStore } from '../../../evidenceInStore';

/** The fixture folder beside the phase file (test/runner/host.ts: `<state>/workspace`, `<state>/phase-1.json`). */
const fixture = (): string => {
  const phase = process.env.LIFE_THREAD_TEST_PHASE;
  assert.ok(phase, 'run by test/runner/host.ts');
  return join(dirname(phase), 'workspace');
};

describe('evidence in a window with no folder', function () {
  this.timeout(180_000);
  evidenceInStore({
    parent: fixture,
    scope: () => vscode.TaskScope.Workspace,
    window: () => assert.deepEqual(vscode.workspace.workspaceFolders ?? [], [], 'the window has no folder'),
    nothingOutsideStore: () => assert.equal(existsSync(join(fixture(), '.life-thread')), false, 'a continuity folder was made in the demo\u2019s folder'),
  });
});
