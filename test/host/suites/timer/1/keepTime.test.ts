/**
 * `Life Thread: Keep Time While VS Code Is Closed` in the real extension host (README "Keep time while
 * VS Code is closed"), on a fake machine (test/unit/helpers/fakeTimerSystem.ts) so the test host's own
 * crontab is never touched: the modal is requested (and refused by the test workbench), the plan shown
 * is exactly what gets written, nothing is installed without a yes, and while the timer is installed
 * Doctor and the status bar give two lines. The store's CLI is the shim with its bundle in the store.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { shimPath } from '../../../../../src/core/mcpConfig';
import type { CommandRow } from '../../../../../src/core/schema';
import { parseShimHeader } from '../../../../../src/core/shimText';
import { cronLine } from '../../../../../src/core/service/timerUnits';
import { COMMANDS } from '../../../../../src/shared/commands';
import type { KeepTimeOutcome } from '../../../../../src/host/timerFeature';
import { fakeMachine } from '../../../../unit/helpers/fakeTimerSystem';
import { lifeThread } from '../../../helpers';

const keepTime = async (): Promise<KeepTimeOutcome> => (await vscode.commands.executeCommand<KeepTimeOutcome>(COMMANDS.keepTimeWhileClosed)) ?? { installed: false, reason: 'no answer' };

describe('Keep Time While VS Code Is Closed', () => {
  it('the store’s CLI: the shim runs the bundle copied into the store, written by this version', async () => {
    const api = await lifeThread();
    await api.ready;
    const header = parseShimHeader(readFileSync(shimPath(api.storeDir), 'utf8'));
    const version = String(vscode.extensions.getExtension('lifethread.life-thread')?.packageJSON.version);
    assert.equal(header?.version, version);
    assert.ok(header?.bundle.startsWith(`cli-${version}-`));
    const out = spawnSync(shimPath(api.storeDir), ['--version'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    assert.equal(out.stdout, `life-thread ${version}\n`, out.stderr);
  });

  it('shows exactly what it will write; installs only after a yes; two health lines while installed; removes it again', async () => {
    const api = await lifeThread();
    await api.ready;
    const mine = '# my own jobs\n0 4 * * * /bin/true\n';
    const m = fakeMachine(mkdtempSync(join(tmpdir(), 'lt-keeptime-')), { cron: true, crontab: mine });
    api.timer.system = m;
    const dialogs = api.timer.dialogs;
    try {
      // The real modal is asked for; the test workbench refuses modals, so nothing is installed.
      const refused = await keepTime();
      assert.equal(refused.installed, false);
      assert.match(refused.reason ?? '', /refused to show dialog/i);
      assert.equal(m.crontab, mine);

      const shown: { title: string; detail: string; actions: readonly string[] }[] = [];
      let answer: string | undefined;
      api.timer.dialogs = {
        choose: (o) => {
          shown.push(o);
          return Promise.resolve(answer);
        },
      };
      const declined = await keepTime();
      assert.deepEqual(declined, { installed: false, reason: 'not confirmed' });
      assert.equal(m.crontab, mine, 'nothing is written without a yes');
      assert.match(shown[0]?.title ?? '', /^Keep time while VS Code is closed\? .* cron timer/);
      assert.ok(shown[0]?.detail.includes(`Add this line to your crontab (every other line stays as it is):\n${cronLine(api.storeDir)}\n`), shown[0]?.detail);
      assert.deepEqual(shown[0]?.actions, ['Install']);
      assert.deepEqual(api.schedule.healthLines().length, 1);

      answer = 'Install';
      const installed = await keepTime();
      assert.deepEqual(installed, { installed: true, changed: true });
      assert.equal(m.crontab, `${mine}${cronLine(api.storeDir)}\n`, 'the line shown, and the user’s lines as they were');

      // A pass of the timer (what cron would start): the store's shim, commands only.
      const pass = spawnSync(shimPath(api.storeDir), ['dispatch', '--once', '--commands-only', '--store', api.storeDir], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
      assert.equal(pass.status, 0, pass.stderr);
      await api.schedule.refresh();
      const lines = api.schedule.healthLines();
      assert.equal(lines.length, 2, lines.join('\n'));
      assert.match(lines[0] ?? '', /^Commands: OS timer \(cron\) · last pass \d+ s ago$/);
      assert.match(lines[1] ?? '', /^Reminders: need a VS Code window · Dispatcher healthy · last pass \d+ s ago$/);
      const report = await api.doctor.report();
      assert.match(report, /^- Commands: OS timer \(cron\) · last pass \d+ s ago$/m);
      assert.match(report, /^- Reminders: need a VS Code window · Dispatcher healthy/m);
      assert.match(report, /^- Installed: \*\*cron\*\*$/m);

      // Asked again: install again or remove.
      answer = 'Remove the Timer';
      const removed = await keepTime();
      assert.deepEqual(removed, { installed: false, removed: true });
      assert.deepEqual(shown.at(-1)?.actions, ['Install Again', 'Remove the Timer']);
      assert.equal(m.crontab, mine, 'the crontab as it was');
      assert.equal(api.schedule.healthLines().length, 1);
    } finally {
      api.timer.dialogs = dialogs;
    }
  });

  it('a command scheduled from the palette records this window’s PATH for the timer', async () => {
    const api = await lifeThread();
    const row = await vscode.commands.executeCommand<CommandRow>(COMMANDS.scheduleCommand, { command: 'true', when: 'in 3 hours' });
    assert.ok(row, 'the row');
    assert.equal(row.envPath, process.env.PATH);
    await api.schedule.store.remove(row.id);
  });
});
