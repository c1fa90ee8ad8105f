/**
 * Platforms (src/core/platform.ts, package.json): native Windows gets one notice instead of the
 * extension, its palette entries are hidden there (but not in a remote window opened from Windows), the
 * extension runs where the workspace is, and terminals' PATH takes the platform's delimiter — the
 * platform injected, the Windows branch checked with path.win32.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { pathPrefix, unsupportedPlatform } from '../../src/core/platform';
import { REPO } from './helpers/cliHarness';

interface Manifest {
  extensionKind?: string[];
  contributes: { commands: { command: string }[]; menus: { commandPalette?: { command: string; when?: string }[] } };
}
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Manifest;

describe('native Windows is said plainly', () => {
  it('only win32 gets the notice, and it says where Life Thread does run', () => {
    const notice = unsupportedPlatform('win32') ?? '';
    assert.match(notice, /^Life Thread does not run on native Windows yet: /);
    assert.match(notice, /WSL/);
    assert.match(notice, /Remote-SSH/);
    for (const p of ['linux', 'darwin', 'freebsd']) assert.equal(unsupportedPlatform(p), undefined, p);
  });

  it('every palette entry but Doctor is hidden on Windows unless the window is remote', () => {
    const palette = new Map((manifest.contributes.menus.commandPalette ?? []).map((m) => [m.command, m.when]));
    for (const { command } of manifest.contributes.commands) {
      if (command === 'lifeThread.doctor') assert.equal(palette.has(command), false, 'Doctor stays in the palette: it shows the platform line');
      else assert.equal(palette.get(command), '!isWindows || remoteName', command);
    }
  });

  it('runs where the workspace is (a remote window runs it on the remote machine)', () => {
    assert.deepEqual(manifest.extensionKind, ['workspace']);
  });
});

describe('terminals find the store\u2019s CLI first on PATH', () => {
  it('PATH is prefixed with the platform\u2019s delimiter', () => {
    const winBin = path.win32.join('C:\\Users\\Ana', 'AppData', 'Roaming', 'Code', 'User', 'globalStorage', 'lifethread.life-thread', 'bin');
    assert.equal(pathPrefix(winBin, 'win32'), `${winBin};`);
    assert.equal(pathPrefix('/s/bin', 'linux'), '/s/bin:');
    assert.equal(pathPrefix('/s/bin', 'darwin'), '/s/bin:');
  });
});
