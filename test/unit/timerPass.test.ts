/**
 * The OS timer's pass, `life-thread dispatch --once --commands-only` (README "Keep time while VS Code
 * is closed"), run as cron runs it: a bare PATH, output appended to a log. Command rows run with the
 * PATH recorded when they were added; reminders stay pending for the next window, which catches them
 * up within their limit, and a desktop notifier is told once per waiting reminder; a timer pass and a
 * window's pass that claim one row in the same second run it once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { commandRowSchema, reminderRowSchema, type CommandRow, type ReminderRow } from '../../src/core/schema';
import { dispatchOnce } from '../../src/node/fire';
import { pulseHealthLine } from '../../src/node/health';
import { holderFor } from '../../src/node/liveness';
import { NOTICE_FILE } from '../../src/node/reminderNotice';
import { ScheduleStore } from '../../src/node/schedule';
import { PULSE_FILE, TIMER_PULSE_FILE } from '../../src/node/store/pulse';
import { trimTimerLog } from '../../src/node/timerLog';
import { CLI, runCli, tempStores, type CliResult } from './helpers/cliHarness';

const stores = tempStores('lt-timerpass-');
/** What cron gives a job: no PATH of the user's shell. */
const BARE_PATH = '/usr/bin:/bin';
const MIN = 60_000;

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, { cwd: stores.root(), env: { PATH: BARE_PATH, ...env } });
}

async function okJson(args: string[], env: Record<string, string | undefined> = {}): Promise<unknown> {
  const r = await cli([...args, '--json'], env);
  assert.equal(r.code, 0, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as unknown;
}

/** A folder holding one executable script. */
function binWith(name: string, script: string): string {
  const dir = stores.freshStore();
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return dir;
}

/** An instant `ms` before now, for --now: a row added then with 'in 1 minute' is due now. */
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

function commands(store: string): CommandRow[] {
  const t = JSON.parse(fs.readFileSync(path.join(store, 'schedule-commands.json'), 'utf8')) as { rows: unknown[] };
  return t.rows.map((r) => commandRowSchema.parse(r));
}

function reminders(store: string): ReminderRow[] {
  const t = JSON.parse(fs.readFileSync(path.join(store, 'reminders.json'), 'utf8')) as { rows: unknown[] };
  return t.rows.map((r) => reminderRowSchema.parse(r));
}

describe('the OS timer’s pass (dispatch --once --commands-only)', { concurrency: 2 }, () => {
  it('a command row runs with the PATH it was added with; without the timer, the pass’s own PATH applies', async () => {
    const store = stores.freshStore();
    const out = path.join(stores.freshStore(), 'seen');
    const tools = binWith('lt-marker', `printf '%s\\n' "$PATH" >> '${out}'`);
    const addedPath = `${tools}:${BARE_PATH}`;
    const row = commandRowSchema.parse(await okJson(['schedule', 'add-command', '--store', store, '--command', 'lt-marker', '--when', 'in 1 minute', '--now', ago(2 * MIN)], { PATH: addedPath }));
    assert.equal(row.envPath, addedPath, 'the CLI records its PATH on the row');

    const pass = await cli(['dispatch', '--once', '--commands-only', '--store', store]);
    assert.equal(pass.code, 0, pass.stderr);
    assert.match(pass.stdout, new RegExp(`^Command ${row.id} \`lt-marker\`: exit 0`, 'm'));
    assert.match(pass.stdout, /^Timer pass at .*: 1 command run, 0 missed/m);
    assert.deepEqual(fs.readFileSync(out, 'utf8').split('\n').filter(Boolean), [addedPath]);
    assert.equal(commands(store).find((r) => r.id === row.id)?.fact?.exitCode, 0);

    // A plain pass (a person's own `dispatch --once`) runs with its own environment, as a window does.
    const other = commandRowSchema.parse(await okJson(['schedule', 'add-command', '--store', store, '--command', 'lt-marker', '--when', 'in 1 minute', '--now', ago(2 * MIN)], { PATH: addedPath }));
    const plain = await cli(['dispatch', '--once', '--store', store]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(commands(store).find((r) => r.id === other.id)?.fact?.exitCode, 127, 'lt-marker is not on the bare PATH');
  });

  it('a pass with nothing to do writes nothing to the log; it touches timer.tick, never the windows’ reminders.tick', async () => {
    const store = stores.freshStore();
    await okJson(['schedule', 'add-command', '--store', store, '--command', 'true', '--when', 'in 2 hours']);
    const pass = await cli(['dispatch', '--once', '--commands-only', '--store', store]);
    assert.equal(pass.code, 0, pass.stderr);
    assert.equal(pass.stdout, '');
    assert.equal(pass.stderr, '');
    assert.ok(fs.existsSync(path.join(store, TIMER_PULSE_FILE)));
    assert.equal(fs.existsSync(path.join(store, PULSE_FILE)), false, 'a window’s health is not faked by the timer');
    // With no reminder waiting it takes no lock and writes no state: a quiet pass writes timer.tick only.
    assert.equal(fs.existsSync(path.join(store, NOTICE_FILE)), false);
    assert.equal(fs.existsSync(path.join(store, '.locks', 'timer-notified')), false);
    const status = (await okJson(['service', 'status', '--store', store])) as { lastPassAt: string | null; nextDue: { id: string } | null; installed: boolean };
    assert.ok(status.lastPassAt !== null && Date.now() - Date.parse(status.lastPassAt) < MIN, 'status shows the timer’s last pass');
    assert.equal(status.nextDue?.id, commands(store)[0]?.id);
    // What the tools answer from outside a window (the MCP server): commands on the timer, reminders need a window.
    assert.match(await pulseHealthLine(store, new Date()), /^Commands: OS timer · last pass \d+ s ago; Reminders: need a VS Code window · No dispatcher has run on this store yet: reminders fire while a VS Code window/);
  });

  it('a due reminder stays pending under the timer; the notifier is told once; the next window catches it up within its limit', async () => {
    const store = stores.freshStore();
    const said = path.join(stores.freshStore(), 'said');
    const notifier = binWith('notify-send', `printf '%s|' "$@" >> '${said}'; echo >> '${said}'`);
    const r = reminderRowSchema.parse(await okJson(['remind', 'add', '--store', store, '--text', 'read the nightly report', '--when', 'in 1 minute', '--now', ago(3 * MIN)]));
    const env = { PATH: `${notifier}:${BARE_PATH}` };
    for (let i = 0; i < 3; i++) {
      const pass = await cli(['dispatch', '--once', '--commands-only', '--store', store], env);
      assert.equal(pass.code, 0, pass.stderr);
      if (i === 0) assert.match(pass.stdout, new RegExp(`Said with ${notifier}/notify-send that ${r.id} waits for a VS Code window`));
      else assert.equal(pass.stdout, '', 'said once: later passes are quiet');
    }
    const lines = fs.readFileSync(said, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0] ?? '', /^--app-name=Life Thread\|Life Thread\|A reminder waits for VS Code \(due .*\): “read the nightly report”/);
    const after = reminders(store).find((x) => x.id === r.id);
    assert.deepEqual([after?.status, after?.firedAt, after?.fact, after?.claim], ['pending', undefined, undefined, undefined], 'the row is untouched');
    assert.ok(fs.existsSync(path.join(store, NOTICE_FILE)));

    // The next window: the same pass every window runs, which delivers it late but within 12 h.
    const delivered: string[] = [];
    const window = await dispatchOnce(new ScheduleStore({ dir: store }), {
      reminder: (row) => {
        delivered.push(row.id);
        return Promise.resolve({ delivered: true, via: 'life' });
      },
      command: () => Promise.reject(new Error('no command is due')),
    }, { now: new Date(), holder: holderFor('window-1'), folders: [] });
    assert.deepEqual(delivered, [r.id]);
    const late = window.fired[0]?.lateMs ?? -1;
    assert.ok(late >= 2 * MIN && late < 12 * 60 * MIN, `caught up ${late} ms late`);
    assert.equal(reminders(store).find((x) => x.id === r.id)?.status, 'fired');

    // Once taken, its notice is forgotten: the state file keeps only reminders still waiting.
    await cli(['dispatch', '--once', '--commands-only', '--store', store], env);
    assert.deepEqual((JSON.parse(fs.readFileSync(path.join(store, NOTICE_FILE), 'utf8')) as { said: object }).said, {});
  });

  it('with no notifier on PATH the reminder still waits, and the pass says nothing', async () => {
    const store = stores.freshStore();
    await okJson(['remind', 'add', '--store', store, '--text', 'x', '--when', 'in 1 minute', '--now', ago(2 * MIN)]);
    const pass = await cli(['dispatch', '--once', '--commands-only', '--store', store], { PATH: stores.freshStore() });
    assert.equal(pass.code, 0, pass.stderr);
    assert.equal(pass.stdout, '');
    assert.equal(reminders(store)[0]?.status, 'pending');
  });

  it('a timer pass and a window’s pass claiming the same rows in the same second run each once', async () => {
    const store = stores.freshStore();
    const out = path.join(stores.freshStore(), 'runs');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const row = commandRowSchema.parse(await okJson(['schedule', 'add-command', '--store', store, '--command', `echo $LIFE_THREAD_JOB >> '${out}'`, '--when', 'in 1 minute', '--now', ago(2 * MIN)]));
      ids.push(row.id);
    }
    const run = (args: string[]): Promise<number | null> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args, '--store', store], { env: { PATH: BARE_PATH, TZ: 'UTC' }, stdio: 'ignore' });
        child.on('close', (code) => resolve(code));
      });
    // Both start at once: the timer's pass and the pass a window (or a second dispatch) runs.
    const codes = await Promise.all([run(['dispatch', '--once', '--commands-only']), run(['dispatch', '--once']), run(['dispatch', '--once', '--commands-only'])]);
    assert.deepEqual(codes, [0, 0, 0]);
    assert.deepEqual(fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).sort(), [...ids].sort());
    for (const r of commands(store)) assert.equal(r.fact?.exitCode, 0);
  });

  it('the timer’s log is cut to its tail, in place, once it passes its limit', async () => {
    const store = stores.freshStore();
    fs.mkdirSync(path.join(store, 'logs'));
    const file = path.join(store, 'logs', 'timer.log');
    const line = (i: number): string => `Timer pass ${String(i).padStart(6, '0')}: 1 command run\n`;
    fs.writeFileSync(file, Array.from({ length: 3000 }, (_, i) => line(i)).join(''));
    const fd = fs.openSync(file, 'a');
    assert.equal(await trimTimerLog(store, 64 * 1024, 8 * 1024), true);
    // The shell that started the pass holds the log open for appending: its next line lands at the new end.
    fs.writeSync(fd, 'after the cut\n');
    fs.closeSync(fd);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.length < 9 * 1024, `${text.length}`);
    assert.match(text, /^\[life-thread\] the log passed 65536 bytes; older lines were removed\nTimer pass \d{6}: 1 command run\n/);
    assert.ok(text.endsWith(`${line(2999)}after the cut\n`));
    assert.equal(await trimTimerLog(store, 64 * 1024, 8 * 1024), false, 'a short log is left alone');
  });
});
