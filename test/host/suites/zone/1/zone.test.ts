/**
 * The owner's zone in the real extension host (a remote one: code-server sets `remoteName`): the setting,
 * else the zone a view of the UI reported, else the host's; owner.json carries it to the terminals' CLI;
 * a corrupt owner.json is said and replaced only saying so; folder URIs as this host reports them.
 * The runner starts the suite with lifeThread.timeZone = Europe/Berlin; the host's own zone is the server's.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { LifeThreadApi } from '../../../../../src/host/extension';
import { lifeThread, waitFor } from '../../../helpers';

const LA = 'America/Los_Angeles';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function remind(text: string): Promise<string> {
  return textOf(await vscode.lm.invokeTool('lifethread_remind', { input: { action: 'add', text, when: 'tomorrow at 9' }, toolInvocationToken: undefined }));
}

function ownerJson(storeDir: string): unknown {
  return JSON.parse(readFileSync(join(storeDir, 'owner.json'), 'utf8')) as unknown;
}

/** Runs a line in a new terminal, as a user would, and returns what it printed. */
async function inTerminal(line: string): Promise<string> {
  const terminal = vscode.window.createTerminal({ name: `lt-zone-${Date.now()}`, hideFromUser: true });
  try {
    const integration = await waitFor(() => terminal.shellIntegration, 15_000, 'shell integration');
    let output = '';
    for await (const chunk of integration.executeCommand(line).read()) output += chunk;
    return output;
  } finally {
    terminal.dispose();
  }
}

async function setZone(value: string | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('lifeThread').update('timeZone', value, vscode.ConfigurationTarget.Global);
}

/** Whether the keeper told the user `text` in this window (notifications themselves are checked in test/e2e/zone.test.ts). */
function said(api: LifeThreadApi, text: string): boolean {
  return api.zones.said.some((m) => m.includes(text));
}

describe("the owner's zone in a remote extension host", () => {
  it('this host reports its workspace folders as file: URIs (README "Remote, containers and Codespaces")', async () => {
    const uris = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    console.log(`workspace folder URIs in this extension host (remoteName ${vscode.env.remoteName ?? '(none)'}): ${JSON.stringify(uris)}`);
    assert.ok(vscode.env.remoteName, 'code-server runs a remote extension host');
    assert.ok(uris.length > 0 && uris.every((u) => u.startsWith('file:///')), JSON.stringify(uris));
  });

  it('with the setting: the zone is the setting, owner.json says so, and a UI report does not change it', async () => {
    const api = await lifeThread();
    await waitFor(() => api.zones.zone.source === 'setting' || undefined, 10_000, 'the setting');
    assert.deepEqual(ownerJson(api.storeDir), { timeZone: 'Europe/Berlin', source: 'setting', updatedAt: (ownerJson(api.storeDir) as { updatedAt: string }).updatedAt });
    await api.webviewRequest({ type: 'request', id: 1, method: 'reportZone', params: { timeZone: LA } });
    assert.equal(api.zones.zone.timeZone, 'Europe/Berlin');
    assert.equal((ownerJson(api.storeDir) as { source: string }).source, 'setting');
    assert.match(await remind('zone: setting'), /\(zone Europe\/Berlin, source: setting \(lifeThread\.timeZone\); next run /);
  });

  it('the setting cleared: the UI zone this window reported becomes the owner\u2019s, in owner.json, the views and the terminals\u2019 CLI', async () => {
    const api = await lifeThread();
    await setZone(undefined);
    await waitFor(() => api.zones.zone.source === 'ui' || undefined, 10_000, 'the UI zone');
    assert.equal(api.zones.zone.timeZone, LA);
    assert.deepEqual((({ timeZone, source }) => ({ timeZone, source }))(ownerJson(api.storeDir) as { timeZone: string; source: string }), { timeZone: LA, source: 'ui' });
    assert.ok(said(api, `times are now read in zone ${LA}, source: ui`), 'the change of zone is said');
    const answer = await remind('zone: ui');
    assert.match(answer, /\(zone America\/Los_Angeles, source: ui \(the zone the VS Code UI reported\); next run /);
    await api.schedule.refresh();
    const view = api.model.snapshot('sidebar');
    assert.equal(view.tz, LA);
    assert.equal(view.tzSource, 'ui');
    // Terminals get no LIFE_THREAD_TZ now: the CLI reads owner.json.
    const out = await inTerminal('echo "TZVAR=[$LIFE_THREAD_TZ]"; life-thread remind add --text "from the terminal" --when "tomorrow at 9"');
    assert.ok(out.includes('TZVAR=[]'), out);
    assert.match(out.replace(/\s+/g, ' '), /zone America\/Los_Angeles, source: ui \(the zone the VS Code UI reported, kept in the store by a VS Code window\), as no --tz was given/);
  });

  it('a corrupt owner.json is said, left as it is, and replaced at the next UI report — saying so', async () => {
    const api = await lifeThread();
    writeFileSync(join(api.storeDir, 'owner.json'), '{"timeZone": ');
    await waitFor(() => api.zones.zone.source === 'host' || undefined, 10_000, 'the corrupt file passed over');
    assert.match(await api.doctor.report(), /`owner\.json` in the store: \*\*cannot be used\*\* — owner\.json is not JSON/);
    assert.ok(said(api, 'Life Thread: owner.json is not JSON — not used; times are read in'), 'the corrupt file is said');
    assert.equal(readFileSync(join(api.storeDir, 'owner.json'), 'utf8'), '{"timeZone": ');
    await api.webviewRequest({ type: 'request', id: 2, method: 'reportZone', params: { timeZone: LA } });
    assert.equal((ownerJson(api.storeDir) as { timeZone: string }).timeZone, LA);
    assert.ok(said(api, 'owner.json in the store could not be used (owner.json is not JSON); it was replaced with the owner'), 'the replacement is said');
  });

  it('Doctor lists the rows whose zone differs from the owner\u2019s', async () => {
    const api = await lifeThread();
    const report = await api.doctor.report();
    assert.match(report, /## Owner's time zone/);
    assert.match(report, /Rows in another zone than the owner's/);
    const rows = report.slice(report.indexOf("Rows in another zone than the owner's"));
    assert.match(rows, /`r-\w+` in Europe\/Berlin — zone: setting\n/);
    assert.doesNotMatch(rows.slice(0, rows.indexOf('\n## ')), /— zone: ui|from the terminal/);
  });

  it('the setting set again: terminals get LIFE_THREAD_TZ and the CLI names the setting', async () => {
    const api = await lifeThread();
    await setZone('Asia/Kolkata');
    await waitFor(() => api.zones.zone.timeZone === 'Asia/Kolkata' || undefined, 10_000, 'the setting');
    assert.equal((ownerJson(api.storeDir) as { source: string }).source, 'setting');
    const out = await inTerminal('echo "TZVAR=[$LIFE_THREAD_TZ]"; life-thread remind list');
    assert.ok(out.includes('TZVAR=[Asia/Kolkata]'), out);
    assert.match(out.replace(/\s+/g, ' '), /times in zone Asia\/Kolkata, source: setting \(lifeThread\.timeZone, passed in LIFE_THREAD_TZ\)/);
    await setZone('Europe/Berlin');
  });
});
