/**
 * The desk in the real extension host: `Life Thread: Open Desk` with no browser configured says how to
 * set one; with `lifeThread.cdp.chromiumPath` (Debian's Chromium) the report a job's output names is
 * open and in front over CDP, a `cdp://evidence/…` landing (Open Landing, and a /land link) brings it back to
 * front after another page took it and shows it in the desk view, Open Desk brings a remembered page to front
 * in the desk view, and the panel shows the desk's status with the thumbnail (screenshot: test-results/desk-panel.png).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { encodeRef } from '../../../helpers';
import { ChromeRemoteTransport } from '../../../../../src/node/cdpTransport';
import type { OpenDeskResult } from '../../../../../src/host/desk';
import type { LandResult } from '../../../../../src/host/landing';
import { COMMANDS } from '../../../../../src/shared/commands';
import { CHROMIUM, root, setCdp } from '../deskSettings';
import { hasBrowserRunner, lifeThread, runnerAction, waitFor } from '../../../helpers';


function page(name: string, body: string): string {
  const file = join(root(), name, 'index.html');
  mkdirSync(join(root(), name), { recursive: true });
  writeFileSync(file, `<!doctype html><title>${name}</title><body style="font:22px sans-serif;background:#fff;color:#222"><h1>${body}</h1><p style="color:#b00">1 failed</p><p style="color:#070">3 passed</p></body>`);
  return pathToFileURL(file).href;
}

/** The field an InputError names (the extension's own class, from another bundle than this test's). */
function fieldOf(e: unknown): unknown {
  return typeof e === 'object' && e !== null && 'field' in e ? e.field : undefined;
}

async function visibility(t: ChromeRemoteTransport, url: string): Promise<string> {
  const target = (await t.list()).find((p) => p.url === url);
  assert.ok(target, `${url} is open on the desk`);
  const v = await t.evaluate(target.id, 'document.visibilityState');
  return typeof v === 'string' ? v : String(v);
}

describe('the desk in the real extension host', function () {
  this.timeout(120_000);

  after(async () => {
    const api = await lifeThread();
    await api.desk.desk.stopStarted();
    await setCdp({ endpoint: undefined, chromiumPath: undefined });
  });

  it('Open Desk with no browser configured says how to set lifeThread.cdp.chromiumPath or lifeThread.cdp.endpoint', async () => {
    await setCdp({ endpoint: '', chromiumPath: '' });
    const none = await vscode.commands.executeCommand<OpenDeskResult>(COMMANDS.openDesk);
    assert.equal(none.status, 'none');
    assert.match(none.message ?? '', /the desk has no browser \(lifeThread\.cdp\.endpoint and lifeThread\.cdp\.chromiumPath are empty\)\. Set lifeThread\.cdp\.chromiumPath to a Chromium/);
    // The default endpoint with nothing listening (the discard port here) and no Chromium to start: the same advice, with the reason.
    await setCdp({ endpoint: 'http://127.0.0.1:9', chromiumPath: '' });
    const dead = await vscode.commands.executeCommand<OpenDeskResult>(COMMANDS.openDesk);
    assert.equal(dead.status, 'none', 'no browser reachable and none to start: no desk browser, not a restore');
    assert.match(dead.message ?? '', /the desk has no browser \(nothing answers at http:\/\/127\.0\.0\.1:9 and lifeThread\.cdp\.chromiumPath is empty\)\. Set lifeThread\.cdp\.chromiumPath/);
    const api = await lifeThread();
    assert.match(api.model.snapshot('panel').desk.line, /^No desk browser \(nothing answers at http:\/\/127\.0\.0\.1:9 and lifeThread\.cdp\.chromiumPath is empty\)/);
  });

  it('refuses a page that is not a file or on this machine, an id a cdp:// link cannot carry, and a bad Open Desk argument', async () => {
    const api = await lifeThread();
    const before = (await api.desk.desk.pages()).length;
    await assert.rejects(api.desk.showEvidence({ url: 'https://example.com/report.html', evidenceId: 'job-x' }), (e: unknown) => fieldOf(e) === 'url' && /file:\/\/ pages and pages on this machine/.test(String(e)));
    await assert.rejects(api.desk.showEvidence({ url: pathToFileURL(join(root(), 'r.html')).href, evidenceId: 'a/b' }), (e: unknown) => fieldOf(e) === 'evidenceId');
    assert.equal((await api.desk.desk.pages()).length, before, 'nothing remembered');
    await assert.rejects(api.desk.openDesk({ page: 5 }), (e: unknown) => fieldOf(e) === 'page');
    assert.equal(await vscode.commands.executeCommand(COMMANDS.openDesk, 'not an object'), undefined, 'the command shows the error instead of throwing');
  });

  it('the report a job\'s output names is in front on the desk; a cdp://evidence/… landing brings it back to front', async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    await setCdp({ endpoint: '', chromiumPath: CHROMIUM });
    const api = await lifeThread();
    const reportUrl = page('report', 'Test report: 3 passed, 1 failed');
    assert.equal(await api.desk.showJobReport({ output: '3 passed, 1 failed\n', evidenceId: 'job-none', cwd: root() }), undefined, 'no report named, nothing shown');
    // The job's output names its report relative to the job's cwd (as coverage.py prints it).
    const output = 'TOTAL     208      12    94%\n\nWrote HTML report to report/index.html\n3 passed, 1 failed\n';
    const shown = await api.desk.showJobReport({ output, evidenceId: 'job-report-1', cwd: root(), title: 'Test report' });
    assert.ok(shown, 'the report the output names is shown');
    assert.equal(shown.status, 'prepared', shown.reason);
    assert.equal(shown.result.evidencePage?.url, reportUrl);
    assert.deepEqual(shown.landing, { kind: 'deep_link', uri: 'cdp://evidence/job-report-1' });
    assert.ok(shown.result.started, 'Life Thread started Chromium itself');
    const started = api.desk.desk.started;
    assert.ok(started);
    const t = new ChromeRemoteTransport(started.endpoint);
    assert.equal(await visibility(t, reportUrl), 'visible');
    assert.ok((await api.desk.desk.pages()).some((p) => p.evidenceId === 'job-report-1' && p.url === reportUrl), 'remembered in desk.json');

    // Another page takes the front; the landing (as Open Landing takes it) brings the report back.
    const otherUrl = page('other', 'Another page');
    const other = await t.newPage(otherUrl);
    await t.activate(other.id);
    assert.equal(await visibility(t, reportUrl), 'hidden');
    const landed = await vscode.commands.executeCommand<LandResult>(COMMANDS.openLanding, 'cdp://evidence/job-report-1');
    assert.equal(landed.kind, 'cdp');
    assert.equal(landed.desk, 'ok');
    assert.equal(await visibility(t, reportUrl), 'visible');
    assert.equal(await visibility(t, otherUrl), 'hidden');
    assert.equal(api.deskView.shown.key, 'evidence:job-report-1', 'Open Landing shows the page in the desk view');

    // The same landing inside a Life Thread link, through the URI handler.
    await t.activate(other.id);
    const viaLink = new Promise<LandResult>((resolve) => {
      const sub = api.lander.onDidLand((r) => {
        sub.dispose();
        resolve(r);
      });
    });
    const ref = encodeRef({ kind: 'deep_link', uri: 'cdp://evidence/job-report-1' });
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(`${vscode.env.uriScheme}://lifethread.life-thread/land?ref=${ref}`));
    assert.equal((await viaLink).kind, 'cdp');
    assert.equal(await visibility(t, reportUrl), 'visible');
  });

  it('Open Desk shows the page in front in the desk view, or the remembered page it is given', async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    await setCdp({ endpoint: '', chromiumPath: CHROMIUM });
    const api = await lifeThread();
    const started = api.desk.desk.started;
    assert.ok(started, 'the desk of the previous test is still running');
    const t = new ChromeRemoteTransport(started.endpoint);
    const docsUrl = page('docs', 'Docs');
    await api.desk.desk.remember({ key: 'docs', url: docsUrl, title: 'Docs' });
    const reportUrl = (await api.desk.evidenceUrl('job-report-1')) ?? '';
    // The landing of the previous test showed the report in the desk view too.
    assert.equal(api.deskView.shown.key, 'evidence:job-report-1');
    // Without an argument: the page the desk last brought to front (the report), not the newest (docs).
    const r = await vscode.commands.executeCommand<OpenDeskResult>(COMMANDS.openDesk);
    assert.equal(r.pages, 2);
    assert.equal(r.shown?.evidencePage?.url, reportUrl, JSON.stringify(r));
    assert.ok(api.deskView.isOpen, 'the desk view is open');
    // With a page's key: that page, in front on the desk and in the view.
    const direct = await vscode.commands.executeCommand<OpenDeskResult>(COMMANDS.openDesk, { page: 'docs' });
    assert.equal(direct.status, 'ok', direct.message);
    assert.equal(await visibility(t, docsUrl), 'visible');
    assert.equal(await visibility(t, reportUrl), 'hidden');
    assert.equal(api.deskView.shown.key, 'docs');
    await waitFor(() => (api.deskView.lastDrawn?.url === docsUrl ? true : undefined), 30_000, 'the docs page drawn in the desk view');
    const back = await vscode.commands.executeCommand<OpenDeskResult>(COMMANDS.openDesk, { page: 'evidence:job-report-1' });
    assert.equal(back.status, 'ok', back.message);
    assert.equal(await visibility(t, reportUrl), 'visible');
  });

  it('the panel shows the desk status with the last thumbnail', async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    const api = await lifeThread();
    const desk = api.model.snapshot('panel').desk;
    assert.equal(desk.status, 'ok');
    assert.match(desk.line, /^Ready · Test report in front · 2 pages remembered$/);
    assert.match(desk.thumbnail ?? '', /^data:image\/png;base64,iVBORw0KGgo/);
    assert.equal(api.model.snapshot('sidebar').desk.thumbnail, null, 'the sidebar gets the line only');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand(COMMANDS.openPanel);
    await waitFor(() => (api.panel.isOpen ? true : undefined), 10_000, 'the panel');
    if (hasBrowserRunner()) {
      // What the user sees: the panel's desk line, rendered in the webview, beside the thumbnail.
      const seen = await runnerAction({ action: 'webviewText', text: 'Ready · Test report in front', timeoutMs: 30_000 }, 40_000);
      assert.deepEqual(seen, { ok: true, found: true });
      await runnerAction({ action: 'screenshot', name: 'desk-panel' });
    }
  });
});
