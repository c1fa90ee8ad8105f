/**
 * Where a job's evidence goes when the window's first folder is virtual (../workspace.ts: a folder no
 * file system serves, then the fixture folder on disk): test/host/evidenceInStore.ts, the store. Nothing
 * is made under the second folder, nor at the path the virtual folder's URI spells.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { evidenceInStore } from '../../../evidenceInStore';
import { VIRTUAL_SCHEME } from '../workspace';

const folders = (): readonly vscode.WorkspaceFolder[] => vscode.workspace.workspaceFolders ?? [];
/** The folder on disk: the window's second. */
const disk = (): vscode.WorkspaceFolder => {
  const f = folders()[1];
  assert.ok(f, 'the second folder is open');
  return f;
};

describe('evidence when the window\u2019s first folder is virtual', function () {
  this.timeout(180_000);
  evidenceInStore({
    parent: () => disk().uri.fsPath,
    scope: disk,
    window: () => assert.deepEqual(folders().map((f) => f.uri.scheme), [VIRTUAL_SCHEME, 'file'], 'the window: a virtual folder, then one on disk'),
    nothingOutsideStore: (id) => {
      const virtualPath = folders()[0]?.uri.path ?? '';
      assert.ok(virtualPath, 'the virtual folder has a path');
      assert.equal(existsSync(join(virtualPath, '.life-thread', 'evidence')), false, `the virtual folder's URI was read as a disk path: ${virtualPath}/.life-thread/evidence exists`);
      assert.equal(existsSync(join(disk().uri.fsPath, '.life-thread', 'evidence', `${id}.log`)), false, 'written in the second folder instead');
    },
  });
});
