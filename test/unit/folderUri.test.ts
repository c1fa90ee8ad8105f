/**
 * Folder ownership for any URI scheme (src/core/folderUri.ts): a row's window folders against this
 * window's (mayFire), the MCP server's working directory against the open windows' folders
 * (foldersHolding), a path against the workspace folders (isInsideFolders) — for `file:` and
 * `vscode-remote:` URIs, on Linux, macOS and Windows rules (the platform is injected, not the machine's).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { mayFire } from '../../src/core/claim';
import { fileUriOfPath, isInsidePath, pathRulesOf, sameFolder, uriInsideFolder } from '../../src/core/folderUri';
import { isInsideFolders } from '../../src/core/landing';
import type { Owner } from '../../src/core/schema';
import { foldersHolding, type WindowPresence } from '../../src/node/windows';

const LINUX = pathRulesOf('linux');
const MAC = pathRulesOf('darwin');
const WIN = pathRulesOf('win32');
const owner = (...folders: string[]): Owner => ({ kind: 'window', folders, window: 'w1', pid: 1 });
const window = (...folders: string[]): WindowPresence => ({ window: 'w2', pid: 2, folders, at: '2026-10-01T00:00:00.000Z' });

describe('window ownership (mayFire) compares folder URIs by scheme, authority and path', () => {
  const REMOTE = 'vscode-remote://ssh-remote+build-box/home/ana/proj';

  it('file: the same folder, with or without a trailing slash; another folder is not', () => {
    assert.equal(mayFire(owner('file:///home/ana/proj'), ['file:///home/ana/proj'], LINUX), true);
    assert.equal(mayFire(owner('file:///home/ana/proj/'), ['file:///home/ana/proj'], LINUX), true);
    assert.equal(mayFire(owner('file:///home/ana/proj'), ['file:///home/ana/other', 'file:///home/ana/proj//'], LINUX), true);
    assert.equal(mayFire(owner('file:///home/ana/proj'), ['file:///home/ana/project'], LINUX), false);
    assert.equal(mayFire(owner('file:///home/ana/proj'), ['file:///home/ana/proj/sub'], LINUX), false, 'a folder inside is another folder');
  });

  it('vscode-remote: the same folder on the same authority; another authority is another machine', () => {
    assert.equal(mayFire(owner(REMOTE), [REMOTE], LINUX), true);
    assert.equal(mayFire(owner(REMOTE), [`${REMOTE}/`], LINUX), true);
    assert.equal(mayFire(owner(REMOTE), ['vscode-remote://ssh-remote+other-box/home/ana/proj'], LINUX), false);
    assert.equal(mayFire(owner(REMOTE), ['file:///home/ana/proj'], LINUX), false, 'a local folder of the same path is another folder');
    assert.equal(mayFire(owner('vscode-remote://dev-container%2B7b22/workspaces/app'), ['vscode-remote://dev-container%2b7b22/workspaces/app'], LINUX), true);
  });

  it('case: scheme and authority fold always; the path folds on Windows and macOS, not on Linux', () => {
    assert.equal(mayFire(owner(REMOTE), ['VSCODE-REMOTE://SSH-REMOTE+Build-Box/home/ana/proj'], LINUX), true);
    assert.equal(mayFire(owner(REMOTE), ['vscode-remote://ssh-remote+build-box/home/ana/Proj'], LINUX), false);
    assert.equal(mayFire(owner('file:///Users/ana/Proj'), ['file:///users/ana/proj'], MAC), true);
    assert.equal(mayFire(owner('file:///c%3A/Users/ana/proj'), ['file:///C:/users/Ana/Proj/'], WIN), true);
    assert.equal(mayFire(owner('file:///c%3A/Users/ana/proj'), ['file:///C:/users/Ana/Proj/'], LINUX), false);
  });

  it('a row without folders fires anywhere; one with folders never outside a window', () => {
    assert.equal(mayFire(undefined, undefined, LINUX), true);
    assert.equal(mayFire(owner(REMOTE), undefined, LINUX), false);
  });

  it('sameFolder and uriInsideFolder are the same rule both ways', () => {
    assert.equal(sameFolder('file:///a/b/./c/../c', 'file:///a/b/c', LINUX), true);
    assert.equal(uriInsideFolder('file:///a/b/c/d.ts', 'file:///a/b', LINUX), true);
    assert.equal(uriInsideFolder('file:///a/bc', 'file:///a/b', LINUX), false);
    assert.equal(sameFolder('not a uri/', 'not a uri', LINUX), true, 'anything that is not a URI compares as written');
  });
});

describe('the MCP server finds the windows that hold its directory (foldersHolding)', () => {
  it('Linux: a window on the folder or a parent holds it; a sibling with a common prefix does not', () => {
    const windows = [window('file:///work/app'), window('file:///work/application', 'vscode-remote://ssh-remote+box/work/app')];
    assert.deepEqual(foldersHolding(windows, '/work/app/sub', LINUX), ['file:///work/app']);
    assert.deepEqual(foldersHolding(windows, '/work/applic', LINUX), []);
  });

  it('Windows: drive letters and case fold, backslashes separate, UNC shares have an authority', () => {
    const windows = [window('file:///c%3A/Users/ana/proj'), window('file://fileserver/share/team')];
    assert.deepEqual(foldersHolding(windows, path.win32.join('C:\\Users\\Ana', 'Proj', 'src'), WIN), ['file:///c%3A/Users/ana/proj']);
    assert.deepEqual(foldersHolding(windows, '\\\\FileServer\\share\\team\\notes', WIN), ['file://fileserver/share/team']);
    assert.deepEqual(foldersHolding(windows, 'D:\\Users\\ana\\proj', WIN), []);
  });

  it('a path becomes a file: URI by each branch', () => {
    assert.equal(fileUriOfPath('/home/ana/my proj', LINUX), 'file:///home/ana/my%20proj');
    assert.equal(fileUriOfPath(path.win32.join('C:\\', 'Users', 'ana'), WIN), 'file:///C%3A/Users/ana');
    assert.equal(fileUriOfPath('\\\\server\\share\\a b', WIN), 'file://server/share/a%20b');
    assert.equal(fileUriOfPath('\\\\server', WIN), 'file://server/');
  });
});

describe('a path inside the workspace folders (isInsideFolders)', () => {
  it('Linux: exact case, no `..` escape, no sibling prefix', () => {
    assert.equal(isInsideFolders('/work/app/src/x.ts', ['/work/app/'], LINUX), true);
    assert.equal(isInsideFolders('/work/App/src/x.ts', ['/work/app'], LINUX), false);
    assert.equal(isInsideFolders('/work/app/../secret', ['/work/app'], LINUX), false);
    assert.equal(isInsideFolders('/work/application', ['/work/app'], LINUX), false);
  });

  it('Windows (path.win32): either separator, any case; macOS folds case with `/` only', () => {
    const folder = path.win32.join('C:\\Users\\Ana', 'proj');
    assert.equal(isInsidePath(path.win32.join(folder, 'src', 'x.ts'), 'c:/users/ana/PROJ', WIN), true);
    assert.equal(isInsidePath(path.win32.join(folder, '..', 'other'), folder, WIN), false);
    assert.equal(isInsidePath('C:\\Users\\Ana\\project', folder, WIN), false);
    assert.equal(isInsidePath('/Users/Ana/Proj/x', '/users/ana/proj', MAC), true);
    assert.equal(isInsidePath('\\Users\\ana\\proj\\x', '/Users/ana/proj', MAC), false);
  });
});
