/**
 * The desk in the job-finish pipeline, end to end in the real extension host: a real
 * shell task writes `report/index.html` into the workspace and prints its path, a `job.done` wake
 * waits on it (set through the language-model tool), and the delivered pulse is read.
 * - Default settings (endpoint http://127.0.0.1:9222 with nothing there, no chromiumPath): the pulse
 *   says `desk: none`, the landing is the evidence's summary line (not the report's HTML source), and
 *   the panel's desk line and Open Desk say why there is no desk browser.
 * - With Debian's Chromium (lifeThread.cdp.chromiumPath): `desk: prepared`, the page is open and in
 *   front over CDP, the pulse's `cdp://evidence/…` landing brings it back to front after another page
 *   took it; a second run of the same task finds the page there (`desk: ok`), and the desk remembers
 *   it once, while the first run's landing still opens it.
 * Runs after desk.test.ts in the same window (its `after` stops the Chromium it started).
 */
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { ChromeRemoteTransport } from '../../../../../src/node/cdpTransport';
import type { OpenDeskResult } from '../../../../../src/host/desk';
import type { LandResult } from '../../../../../src/host/landing';
import { COMMANDS } from '../../../../../src/shared/commands';
import { CHROMIUM, root, setCdp } from '../deskSettings';
import { hasBrowserRunner, lifeThread, runnerAction } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';


function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** Sets a job.done wake through the tool, as a model would; resolves with the delivered pulse. */
async function wakeOn(jobId: string, text: string): Promise<{ id: string; delivered: Promise<{ text: string; landing?: LandResult }> }> {
  const api = await lifeThread();
  const answer = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text, when: 'job.done', job_id: jobId }, toolInvocationToken: undefined }));
  const { id } = JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string };
  const delivered = new Promise<{ text: string; landing?: LandResult }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wake ${id} (${jobId}) was not delivered within 60 s`)), 60_000);
    const sub = api.wakes.onDidDeliver((e) => {
      if (!e.ids.includes(id)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve({ text: e.text, ...(e.landing ? { landing: e.landing } : {}) });
    });
  });
  return { id, delivered };
}

/** A real shell task in the workspace folder, out of the way (its terminal is not revealed). */
function shellTask(name: string, command: string): vscode.Task {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const t = new vscode.Task({ type: 'shell', deskWake: name }, folder, name, 'desk-test', new vscode.ShellExecution(command, { cwd: folder.uri.fsPath }), []);
  t.presentationOptions = { reveal: vscode.TaskRevealKind.Never };
  return t;
}

/** The task of this test: writes report/index.html (in `dir`) and prints its path. */
function reportTask(name: string, dir: string, heading: string): vscode.Task {
  return shellTask(
    name,
    `mkdir -p ${dir}; printf '<!doctype html><title>Task report</title><body style="font:22px sans-serif"><h1>${heading}</h1></body>' > ${dir}/index.html; echo 'Report written to ${dir}/index.html'; echo '# pass 4'; echo '# fail 0'; exit 0`,
  );
}

/** Whether anything answers CDP's /json/version at this address (the default endpoint must be silent for the default-settings test). */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/json/version`, { timeout: 1500 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(true);
    });
    req.on('error', () => resolve(false));
  });
}

async function visibility(t: ChromeRemoteTransport, url: string): Promise<string> {
  const target = (await t.list()).find((p) => p.url === url);
  assert.ok(target, `${url} is open on the desk`);
  const v = await t.evaluate(target.id, 'document.visibilityState');
  return typeof v === 'string' ? v : String(v);
}

const landingUri = (pulse: string): string | undefined => /landing: \{ kind: deep_link, uri: "([^"]+)" \}/.exec(pulse)?.[1];

describe('the desk in the job-finish pipeline (real tasks)', function () {
  this.timeout(180_000);
  useScriptedModel(() => ({ text: 'woken' }));

  before(async () => {
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    const api = await lifeThread();
    await api.desk.desk.stopStarted().catch(() => undefined);
    await setCdp({ endpoint: undefined, chromiumPath: undefined });
    await vscode.workspace.getConfiguration('lifeThread').update('wake.prepare', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', undefined, vscode.ConfigurationTarget.Global);
  });

  it('default settings (nothing at 127.0.0.1:9222, no chromiumPath): desk none, the landing is the evidence\'s summary line, not the HTML source', async function () {
    if (await answers('http://127.0.0.1:9222')) this.skip();
    await setCdp({ endpoint: undefined, chromiumPath: undefined });
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { delivered } = await wakeOn('desk-default', 'DESK-DEFAULT the report task ended');
    await vscode.tasks.executeTask(reportTask('desk-default', 'rep-default', 'x'));
    const { text, landing } = await delivered;
    assert.match(text, /desk: none/, text);
    assert.match(text, /summary: "4 passed, 0 failed"|summary: "[^"]*4[^"]*"/, text);
    const path = /landing: \{ kind: deep_link, path: "([^"]+)" \}/.exec(text)?.[1] ?? '';
    assert.match(path, /^\.life-thread\/evidence\/w-[\w-]+\.log#L\d+$/, `the landing is the evidence's summary line, in the workspace: ${text}`);
    assert.equal(landing?.kind, 'file', JSON.stringify(landing));
    const ed = vscode.window.activeTextEditor;
    assert.ok(ed, 'an editor is open on the landing');
    assert.ok(ed.document.uri.fsPath.startsWith(join(root(), '.life-thread', 'evidence')), `the evidence, not ${ed.document.uri.fsPath}`);
    assert.match(ed.document.lineAt(ed.selection.start.line).text, /# (pass 4|fail 0)/, 'the summary line is selected');
    assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath.endsWith('.html')), 'the report\'s HTML source is not shown');
    assert.ok(ed.document.getText().includes('rep-default/index.html'), 'the evidence names the report\'s path');
    // The panel's desk line, Doctor and Open Desk say why there is no desk, without calling it a restore.
    assert.equal(api.desk.lastResult?.status, 'none', api.desk.lastResult?.reason);
    assert.match(api.model.snapshot('panel').desk.line, /^No desk browser \(nothing answers at http:\/\/127\.0\.0\.1:9222 and lifeThread\.cdp\.chromiumPath is empty\): set lifeThread\.cdp\.chromiumPath/);
    assert.match(await api.desk.doctorSection(), /- Last prepare: none — no browser answers at http:\/\/127\.0\.0\.1:9222 \(.*\) and lifeThread\.cdp\.chromiumPath is empty/);
    const open = await vscode.commands.executeCommand<OpenDeskResult>(COMMANDS.openDesk);
    assert.equal(open.status, 'none');
    assert.match(open.message ?? '', /the desk has no browser \(nothing answers at http:\/\/127\.0\.0\.1:9222 and lifeThread\.cdp\.chromiumPath is empty\)\. Set lifeThread\.cdp\.chromiumPath/);
    if (hasBrowserRunner()) await runnerAction({ action: 'screenshot', name: 'desk-default-landing' });
  });

  it('Chromium: a task writes report/index.html and prints its path → desk: prepared, the page open over CDP, the cdp://evidence/… landing brings it to front; a second run is desk: ok and one desk page', async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    // The job's end prepares the desk itself here: the warm-up at the wake's setting (deskWarmup.test.ts) would restore the page first.
    await vscode.workspace.getConfiguration('lifeThread').update('wake.prepare', false, vscode.ConfigurationTarget.Global);
    await setCdp({ endpoint: '', chromiumPath: CHROMIUM });
    const api = await lifeThread();
    const reportUrl = pathToFileURL(join(root(), 'report', 'index.html')).href;

    const first = await wakeOn('desk-report', 'DESK-REPORT the report task ended');
    await vscode.tasks.executeTask(reportTask('desk-report', 'report', 'Task report: 4 passed'));
    const { text, landing } = await first.delivered;
    assert.match(text, /desk: prepared/, text);
    const uri = landingUri(text) ?? '';
    // The report's evidence id is the wake's id, as the evidence file is named after it.
    assert.equal(uri, `cdp://evidence/${first.id}-report`, text);
    assert.equal(landing?.kind, 'cdp');
    const evidenceId = uri.slice('cdp://evidence/'.length);

    // The page is open (and in front) on the desk's browser, and the desk remembers it under that id.
    const started = api.desk.desk.started;
    assert.ok(started, 'Life Thread started Chromium itself');
    const t = new ChromeRemoteTransport(started.endpoint);
    assert.equal(await visibility(t, reportUrl), 'visible');
    const mine = (await api.desk.desk.pages()).filter((p) => p.url === reportUrl);
    assert.deepEqual(mine.map((p) => p.evidenceId), [evidenceId]);

    // Another page takes the front; landing on the pulse's cdp://evidence/… brings the report back.
    writeFileSync(join(root(), 'other-front.html'), '<!doctype html><title>Other</title><h1>Another page</h1>');
    const other = await t.newPage(pathToFileURL(join(root(), 'other-front.html')).href);
    await t.activate(other.id);
    assert.equal(await visibility(t, reportUrl), 'hidden');
    const landed = await vscode.commands.executeCommand<LandResult>(COMMANDS.openLanding, uri);
    assert.equal(landed.kind, 'cdp');
    assert.equal(await visibility(t, reportUrl), 'visible');

    // The same task again: the page is there (desk: ok), the desk remembers it once, under the new id.
    const second = await wakeOn('desk-report', 'DESK-REPORT2 the report task ended again');
    await vscode.tasks.executeTask(reportTask('desk-report', 'report', 'Task report: 4 passed (again)'));
    const again = await second.delivered;
    assert.match(again.text, /desk: ok/, again.text);
    const uri2 = landingUri(again.text) ?? '';
    assert.notEqual(uri2, uri);
    const once = (await api.desk.desk.pages()).filter((p) => p.url === reportUrl);
    assert.equal(once.length, 1, JSON.stringify(once));
    assert.equal(once[0]?.evidenceId, uri2.slice('cdp://evidence/'.length));
    assert.ok(once[0]?.aliases?.includes(evidenceId), 'the first run\'s id is kept');
    assert.equal((await t.list()).filter((p) => p.url === reportUrl).length, 1, 'one tab of the report');
    // The first run's landing still opens the page.
    await t.activate(other.id);
    const old = await vscode.commands.executeCommand<LandResult>(COMMANDS.openLanding, uri);
    assert.equal(old.kind, 'cdp');
    assert.equal(await visibility(t, reportUrl), 'visible');
  });
});
