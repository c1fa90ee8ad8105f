import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ReminderRow } from '../../../../../src/core/schema';
import { COMMANDS } from '../../../../../src/shared/commands';
import { lifeThread, waitFor } from '../../../helpers';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function invoke(name: string, input: object): Promise<string> {
  return textOf(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));
}

function lastJson<T>(answer: string): T {
  const start = answer.search(/\n[[{]/);
  assert.ok(start >= 0, `no JSON in the answer: ${answer}`);
  return JSON.parse(answer.slice(start + 1)) as T;
}

describe('durable schedule in the real extension host', () => {
  it('two reminders added through lifethread_remind fire at their times, once each', async () => {
    const api = await lifeThread();
    const t0 = Date.now();
    const at1 = new Date(t0 + 3000).toISOString();
    const at2 = new Date(t0 + 5000).toISOString();
    const a1 = await invoke('lifethread_remind', { action: 'add', text: 'first: check the build', when: at1 });
    const a2 = await invoke('lifethread_remind', { action: 'add', text: 'second: read the report', when: at2 });
    // The UTC instant in brackets; it names its own date when that differs from the local one (near midnight).
    assert.match(a1, /Reminder r-\w+ added: Once, .*\((\w{3} \d{1,2} \w{3} )?\d\d:\d\d(:\d\d)?Z\)/);
    assert.match(a1, /Dispatcher healthy/);
    const r1 = lastJson<ReminderRow>(a1);
    const r2 = lastJson<ReminderRow>(a2);
    assert.equal(r1.nextRunAt, at1);
    const fired = async (id: string) => (await api.schedule.store.get(id))?.fact?.delivered === true ? await api.schedule.store.get(id) : undefined;
    const f1 = await waitFor(() => fired(r1.id), 15_000, 'first reminder delivered', 100);
    const f2 = await waitFor(() => fired(r2.id), 15_000, 'second reminder delivered', 100);
    assert.equal(f1?.status, 'fired');
    assert.equal(f2?.status, 'fired');
    const late1 = Date.parse(f1?.firedAt ?? '') - Date.parse(at1);
    const late2 = Date.parse(f2?.firedAt ?? '') - Date.parse(at2);
    assert.ok(late1 >= 0 && late1 < 1500, `first fired ${late1} ms after its time`);
    assert.ok(late2 >= 0 && late2 < 1500, `second fired ${late2} ms after its time`);
    const feed = api.model.feed.filter((f) => f.title.includes(r1.id) || f.title.includes(r2.id));
    assert.equal(feed.length, 2, 'each reminder reaches the feed exactly once');
    const list = await invoke('lifethread_remind', { action: 'list' });
    assert.match(list, new RegExp(`${r1.id}.*delivered`));
  });

  it('bad tool input fails with the field and the reason, and stores nothing', async () => {
    const api = await lifeThread();
    const before = (await api.schedule.store.listReminders()).rows.length;
    await assert.rejects(invoke('lifethread_remind', { action: 'add', text: 'x', when: 'in 20 minutes', tz: 'Europe/Berlinn' }), /tz: /);
    await assert.rejects(invoke('lifethread_remind', { action: 'add', text: 'x', when: '30m' }), /when: .*ambiguous/);
    await assert.rejects(invoke('lifethread_remind', { action: 'add', text: 'x', when: '2020-01-01T00:00:00Z' }), /when: .*past/);
    await assert.rejects(invoke('lifethread_remind', { action: 'add', text: 'x', cron: '*/5 * * * *' }), /cron: .*10 minutes/);
    await assert.rejects(invoke('lifethread_schedule', { action: 'add_command', command: 'true', when: 'in 5 minutes', timeout_minutes: 61 }), /timeout_minutes: /);
    await assert.rejects(invoke('lifethread_schedule', { action: 'add_command', command: 'true', when: 'in 5 minutes', timeout_minutes: '5' }), /timeout_minutes: /);
    await assert.rejects(invoke('lifethread_remind', { action: 'remove', id: 'r-doesnotexist' }), /id: no reminder/);
    await assert.rejects(invoke('lifethread_remind', { action: 'add', text: 'x', when: 'in 20 minutes', colour: 'red' }), /colour: /);
    assert.equal((await api.schedule.store.listReminders()).rows.length, before);
  });

  it('schedule: add a command row, move it (id and text kept), run_now, remove', async () => {
    const added = lastJson<{ id: string; command: string; timeoutMinutes: number }>(await invoke('lifethread_schedule', { action: 'add_command', command: 'echo scheduled', when: 'in 2 hours', timeout_minutes: 5 }));
    assert.match(added.id, /^c-/);
    assert.equal(added.timeoutMinutes, 5);
    const moved = await invoke('lifethread_schedule', { action: 'move', id: added.id, when: 'in 3 hours' });
    const movedRow = lastJson<{ id: string; command: string }>(moved);
    assert.equal(movedRow.id, added.id);
    assert.equal(movedRow.command, 'echo scheduled');
    const list = await invoke('lifethread_schedule', { action: 'list' });
    assert.ok(list.includes(added.id));
    const removed = await invoke('lifethread_schedule', { action: 'remove', id: added.id });
    assert.match(removed, new RegExp(`Removed ${added.id}`));
  });

  it('a reminder added by the CLI (through the terminal shim) fires in the extension without a reload', async () => {
    const api = await lifeThread();
    const shim = join(api.storeDir, 'bin', 'life-thread');
    assert.ok(existsSync(shim), 'the life-thread shim is written into the store');
    const at = new Date(Date.now() + 2500).toISOString();
    const out = spawnSync(shim, ['remind', 'add', '--text', 'from the CLI', '--when', at, '--json', '--store', api.storeDir], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const row = JSON.parse(out.stdout) as ReminderRow;
    const fired = await waitFor(async () => ((await api.schedule.store.get(row.id))?.fact?.delivered ? true : undefined), 15_000, 'CLI reminder delivered by the extension', 100);
    assert.equal(fired, true);
    const got = await api.schedule.store.get(row.id);
    assert.equal(got?.fact?.via, 'notification');
  });

  it('terminals get LIFE_THREAD_STORE, LIFE_THREAD_TZ and the shim on PATH', async () => {
    const api = await lifeThread();
    const ext = vscode.extensions.getExtension('lifethread.life-thread');
    assert.ok(ext);
    const terminal = vscode.window.createTerminal({ name: 'lt-env', hideFromUser: true });
    const integration = await waitFor(() => terminal.shellIntegration, 10_000, 'shell integration');
    const execution = integration.executeCommand('echo "STORE=$LIFE_THREAD_STORE TZ=$LIFE_THREAD_TZ"; command -v life-thread');
    const stream = execution.read();
    let output = '';
    for await (const chunk of stream) output += chunk;
    terminal.dispose();
    assert.ok(output.includes(`STORE=${api.storeDir}`), output);
    assert.ok(output.includes('TZ=Europe/Berlin'), output);
    assert.ok(output.includes(join(api.storeDir, 'bin', 'life-thread')), output);
  });

  it('Doctor reports the dispatcher, the store path, schema versions and next runs', async () => {
    const api = await lifeThread();
    await invoke('lifethread_remind', { action: 'add', text: 'doctor sees me', when: 'in 3 hours' });
    const report = await api.doctor.report();
    assert.match(report, /Dispatcher: \*\*Dispatcher healthy/);
    assert.ok(report.includes(api.storeDir));
    assert.match(report, /`reminders\.json`: schema version 2/);
    assert.match(report, /doctor sees me/);
  });

  it('List Schedule and the sidebar rows show the reminder with its next run', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand(COMMANDS.addReminder, { text: 'from the palette', when: 'in 90 minutes' });
    await api.schedule.refresh();
    const view = api.model.snapshot('sidebar');
    const row = view.reminders.find((r) => r.title === 'from the palette');
    assert.ok(row, 'row in the sidebar state');
    assert.match(row.when, /^Once, .* in 1 h 30 min$/);
    assert.equal(view.health.state, 'healthy');
  });
});

describe('command rows as jobs in the real extension host', () => {
  it('a failing command row runs, keeps its fact and log, and alerts once per cause', async () => {
    const api = await lifeThread();
    const at = new Date(Date.now() + 2000).toISOString();
    const added = lastJson<{ id: string }>(await invoke('lifethread_schedule', { action: 'add_command', command: 'echo "hello from $LIFE_THREAD_JOB"; echo "Authorization: Bearer abcdef123456789"; exit 3', when: at }));
    const ends: string[] = [];
    const sub = api.jobs.onDidEndJob((e) => ends.push(`${e.id}:${e.status}:${String(e.exitCode)}`));
    const done = async () => {
      const row = await api.schedule.store.get(added.id);
      return row?.fact?.exitCode === 3 && !row.claim ? row : undefined;
    };
    const row = await waitFor(done, 20_000, 'command fact exit 3', 100);
    assert.equal(row.status, 'fired');
    await waitFor(() => (api.jobs.alertsShown.some((a) => a.includes(added.id)) ? true : undefined), 5000, 'the failure alert');
    const log = await invoke('lifethread_schedule', { action: 'log', id: added.id });
    assert.ok(log.includes(`hello from ${added.id}`), log);
    assert.ok(!log.includes('abcdef123456789'), 'the bearer token is redacted in the log');
    assert.ok(ends.includes(`${added.id}:failed:3`), `job.done published: ${ends.join(', ')}`);

    // The same failure again: recorded, but no second alert within the week.
    await invoke('lifethread_schedule', { action: 'run_now', id: added.id });
    await waitFor(async () => (ends.filter((e) => e.startsWith(added.id)).length >= 2 ? true : undefined), 20_000, 'second run');
    assert.equal(api.jobs.alertsShown.filter((a) => a.includes(added.id)).length, 1, 'alerted once for the same cause');
    sub.dispose();

    // List Schedule shows a quick pick; closing it resolves the command.
    const listing = vscode.commands.executeCommand<unknown[]>(COMMANDS.listSchedule);
    await new Promise((r) => setTimeout(r, 800));
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    const listed = await listing;
    assert.ok(Array.isArray(listed) && listed.length > 0, 'List Schedule returns the rows it showed');
    const uri = vscode.Uri.file(join(api.storeDir, 'logs', `${added.id}.log`));
    await vscode.window.showTextDocument(uri);
    assert.ok(vscode.window.activeTextEditor?.document.getText().includes('exit code 3'), 'the log names the exit code');
    await invoke('lifethread_schedule', { action: 'remove', id: added.id });
    assert.equal(existsSync(uri.fsPath), false, 'removing the row removes its log');
  });
});
