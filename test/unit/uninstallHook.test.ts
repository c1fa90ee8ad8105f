/**
 * Uninstalling Life Thread removes its OS timers (package.json `vscode:uninstall` → dist/uninstall.js,
 * src/cli/uninstallHook.ts): the windows record their stores per extensions folder, and the hook of
 * the Life Thread being removed takes down the timers of exactly those stores — another VS Code's
 * (Insiders, code-server) and the user's own crontab lines stay.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { removeTimersOf } from '../../src/cli/uninstallHook';
import { cronLine } from '../../src/core/service/timerUnits';
import { installTimer, planTimer } from '../../src/node/service/osTimer';
import { recordStore, registryPath, storesOf } from '../../src/node/service/storeRegistry';
import { REPO } from './helpers/cliHarness';
import { fakeMachine } from './helpers/fakeTimerSystem';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-uninstall-');

describe('the uninstall hook', () => {
  it('removes the timers of the stores of the Life Thread being removed, and only those', async () => {
    const root = dirs.freshDir();
    const m = fakeMachine(path.join(root, 'home'), { cron: true, crontab: '# mine\n0 4 * * * /bin/true\n' });
    fs.mkdirSync(m.home);
    const stable = path.join(root, 'home', '.vscode', 'extensions');
    const insiders = path.join(root, 'home', '.vscode-insiders', 'extensions');
    const [a, b, c] = ['Code', 'Code - Insiders', 'Code/profile-2'].map((p) => path.join(root, 'home', '.config', p, 'globalStorage', 'lifethread.life-thread'));
    const file = registryPath(m.env, m.home);
    assert.equal(file, path.join(m.home, '.config', 'life-thread', 'stores.json'));
    await recordStore(file, a ?? '', stable);
    await recordStore(file, b ?? '', insiders);
    await recordStore(file, c ?? '', stable);
    const written = fs.statSync(file).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await recordStore(file, a ?? '', stable);
    assert.equal(fs.statSync(file).mtimeMs, written, 'a window that finds its store recorded writes nothing');
    for (const s of [a, b]) await installTimer(planTimer(s ?? '', 'cron', m), m);

    const lines: string[] = [];
    await removeTimersOf(stable, m, (l) => lines.push(l));
    assert.equal(m.crontab, `# mine\n0 4 * * * /bin/true\n${cronLine(b ?? '')}\n`, 'the other VS Code’s timer and the user’s lines stay');
    assert.deepEqual(lines, [`life-thread: removed the cron timer of ${a ?? ''}`, `life-thread: no OS timer for ${c ?? ''}`]);
    assert.deepEqual(await storesOf(file, stable), []);
    assert.deepEqual(await storesOf(file, insiders), [b]);
  });

  it('dist/uninstall.js runs on its own, as VS Code forks it; with nothing recorded it changes nothing', () => {
    const home = dirs.freshDir();
    const r = spawnSync(process.execPath, [path.join(REPO, 'dist', 'uninstall.js'), '--type=extensionUninstall'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: home }, timeout: 5000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  });
});
