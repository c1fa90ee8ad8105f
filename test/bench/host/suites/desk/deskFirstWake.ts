/**
 * desk_first_wake_ms: the demo workspace's `tests` task (demo/.vscode/tasks.json: its checks take
 * about 6 s, then it writes reports/tests.html and exits failing) with the desk configured
 * (`lifeThread.cdp.chromiumPath` = the Debian Chromium the host tests use) and a `job.done` wake on
 * it, in a fresh window (one phase each): the task's exit → the report in front on the desk (its page
 * the visible one in the desk's Chromium, loaded, showing this run's report). Target 3000 ms.
 * Its baseline, in the same run and the same kind of window: the same build with the warm-up off
 * (`lifeThread.wake.prepare: false`), so Chromium starts only when the job ends.
 * Fairness: each window starts with no desk browser running and no page remembered (an earlier
 * window's report would otherwise be restored by the warm-up before the job ends); the warm-up's
 * window (phase 1) runs first, paying the first start of the desk's Chromium profile, which only
 * makes the figure more conservative. The task stamps the instant it exits, so the figure counts from
 * the real exit. No language model: @life answers with the offline responder.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { ChromeRemoteTransport } from '../../../../../src/node/cdpTransport';
import { lifeThread, phaseInfo, waitFor } from '../../../../host/helpers';
import { CHROMIUM } from '../../../../host/suites/desk/deskSettings';
import { round, writeFigures } from '../../../figures';
import { addPhaseSample, sleep } from '../../phaseSamples';

/** After the settings are written, before the task starts: the window's start-up work settles alike for both sides. */
const SETTLE_MS = 3000;

/** The demo's `tests` task as its .vscode/tasks.json defines it, with the instant its command exits written to `stamp`. */
function demoTestsTask(folder: vscode.WorkspaceFolder, stamp: string): vscode.Task {
  const tasks = JSON.parse(readFileSync(join(folder.uri.fsPath, '.vscode', 'tasks.json'), 'utf8')) as { tasks: { label: string; type: string; command: string; options?: { env?: Record<string, string> } }[] };
  const tests = tasks.tasks.find((t) => t.label === 'tests');
  assert.ok(tests?.type === 'shell', "the demo's tests task is a shell command");
  const cmd = `${tests.command}; s=$?; date +%s%3N > '${stamp}'; exit $s`;
  return new vscode.Task({ type: 'shell' }, folder, tests.label, 'Workspace', new vscode.ShellExecution(cmd, { cwd: folder.uri.fsPath, ...(tests.options?.env ? { env: tests.options.env } : {}) }), []);
}

/** When the desk shows this run's report in front: polled over CDP on the Chromium Life Thread started. */
async function reportInFront(api: Awaited<ReturnType<typeof lifeThread>>, reportUrl: string, shows: () => string | undefined): Promise<number> {
  let transport: ChromeRemoteTransport | undefined;
  const probe = `document.visibilityState === 'visible' && document.readyState === 'complete' ? document.body.innerText : ''`;
  return waitFor(
    async () => {
      const marker = shows();
      const started = api.desk.desk.started;
      if (!marker || !started) return undefined;
      if (transport?.endpoint !== started.endpoint) transport = new ChromeRemoteTransport(started.endpoint);
      try {
        const page = (await transport.list()).find((p) => p.url === reportUrl);
        if (!page) return undefined;
        const text = await transport.evaluate(page.id, probe);
        return typeof text === 'string' && text.includes(marker) ? Date.now() : undefined;
      } catch {
        return undefined;
      }
    },
    60_000,
    'the report in front on the desk',
    20,
  );
}

/** One window of the desk bench: the warm-up on (`prepared`) or off (`unprepared`); the last phase writes the figure. */
export function deskFirstWakePhase(side: 'prepared' | 'unprepared'): void {
  describe(`bench: the desk's first wake in a fresh window (warm-up ${side === 'prepared' ? 'on' : 'off'})`, () => {
    after(async () => {
      const api = await lifeThread();
      await api.desk.stopStarted();
    });

    it("the demo's tests task exits → its report in front on the desk", async function () {
      this.timeout(3 * 60_000);
      assert.ok(existsSync(CHROMIUM), `the desk's Chromium ${CHROMIUM} is installed (LIFE_THREAD_CHROMIUM names another)`);
      const api = await lifeThread();
      const c = vscode.workspace.getConfiguration('lifeThread');
      // Only a Chromium Life Thread starts: nothing another program runs at the default endpoint.
      await c.update('cdp.endpoint', '', vscode.ConfigurationTarget.Global);
      await c.update('cdp.chromiumPath', CHROMIUM, vscode.ConfigurationTarget.Global);
      await c.update('wake.prepare', side === 'prepared', vscode.ConfigurationTarget.Global);
      await c.update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
      await api.desk.stopStarted();
      for (const p of await api.desk.desk.pages()) await api.desk.desk.forget(p.key);
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder, 'the demo workspace is open');
      const report = join(folder.uri.fsPath, 'reports', 'tests.html');
      rmSync(report, { force: true });
      const stamp = join(mkdtempSync(join(tmpdir(), 'lt-bench-desk-')), 'tests.exit');
      const task = demoTestsTask(folder, stamp);
      await sleep(SETTLE_MS);

      const delivered = new Promise<string>((resolve) => {
        const sub = api.wakes.onDidDeliver((e) => {
          sub.dispose();
          resolve(e.text);
        });
      });
      let landedAt: number | undefined;
      const landed = vscode.window.onDidChangeActiveTextEditor((e) => {
        if (landedAt === undefined && e?.document.uri.fsPath.endsWith(join('src', 'calc.js'))) landedAt = Date.now();
      });
      await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: 'DESK-BENCH the tests ended', when: 'job.done', job_id: 'tests' }, toolInvocationToken: undefined });
      await vscode.tasks.executeTask(task);
      // The report names the instant it was written: a page showing it shows this run's report.
      const marker = (): string | undefined => (existsSync(stamp) ? /\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(readFileSync(report, 'utf8'))?.[0] : undefined);
      const front = await reportInFront(api, pathToFileURL(report).href, marker);
      const exit = Number(readFileSync(stamp, 'utf8').trim());
      const pulse = await delivered;
      landed.dispose();
      assert.match(pulse, /\n {2}desk: (prepared|ok)\b/, pulse);
      const ms = front - exit;
      console.log(`desk, warm-up ${side === 'prepared' ? 'on' : 'off'}: the report in front ${ms} ms after the task's exit; the landing (src/calc.js) on screen at ${landedAt === undefined ? 'never' : `${landedAt - exit} ms`}`);
      const samples = addPhaseSample('desk-first-wake', side, ms);
      const on = samples.find((s) => s.side === 'prepared');
      const off = samples.find((s) => s.side === 'unprepared');
      if (!on || !off) return;
      const info = phaseInfo();
      assert.ok(info);
      writeFigures(info.resultsDir, 'desk-first-wake', { desk_first_wake_ms: { value: round(on.ms), unit: 'ms', baseline: round(off.ms), target: 3000 } });
      for (const key of ['cdp.endpoint', 'cdp.chromiumPath', 'wake.prepare', 'wake.maxPerHour']) await c.update(key, undefined, vscode.ConfigurationTarget.Global);
    });
  });
}
