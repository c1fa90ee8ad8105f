/**
 * The OS timer with the real cron daemon (README "Keep time while VS Code is closed"), without
 * touching the machine's own tables: a throw-away user (`useradd`) whose crontab the test reads and
 * restores with `crontab -u`, Debian's cron daemon (started here when it is not running, and stopped
 * again), all removed afterwards even when a test fails. Needs root; `npm run test:timer` runs it
 * (scripts/test-timer.mjs installs cron when it is missing). About 3 minutes: cron passes once a minute.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandRowSchema } from '../../src/core/schema';
import { cronLine } from '../../src/core/service/timerUnits';
import { CLI_BUNDLE_FILES } from '../../src/node/shim';
import { repoRoot } from '../unit/helpers/cliHarness';

const SEC = 1000;
const CRON = '/usr/sbin/cron';
const user = `lt-timer-${randomBytes(4).toString('hex')}`;
let base = '';
let home = '';
let cli = '';
let startedCron: number | undefined;
let userMade = false;

function sh(cmd: string, args: string[], input?: string): SpawnSyncReturns<string> {
  // From the test's folder, which the user can enter (rows record their working directory).
  return spawnSync(cmd, args, { encoding: 'utf8', input, timeout: 30 * SEC, cwd: base || '/' });
}

function must(cmd: string, args: string[], input?: string): string {
  const r = sh(cmd, args, input);
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} → ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The throw-away user's crontab as `crontab -u` shows it, or null when there is none. */
function crontabOf(): string | null {
  const r = sh('crontab', ['-u', user, '-l']);
  if (r.status === 0) return r.stdout;
  assert.match(r.stderr, /no crontab for/, r.stderr);
  return null;
}

/** Runs the CLI as the throw-away user, with cron's kind of environment plus `path`. */
function asUser(args: string[], pathVar = `${path.dirname(process.execPath)}:/usr/bin:/bin`): SpawnSyncReturns<string> {
  return sh('runuser', ['-u', user, '--', 'env', '-i', `HOME=${home}`, `USER=${user}`, `LOGNAME=${user}`, `PATH=${pathVar}`, 'TZ=UTC', process.execPath, cli, ...args]);
}

function asUserOk(args: string[], pathVar?: string): string {
  const t0 = Date.now();
  const r = asUser(args, pathVar);
  assert.equal(r.status, 0, `${args.join(' ')} → ${r.status}\n${r.stdout}\n${r.stderr}`);
  // Every verb this test calls answers something; an empty answer with exit 0 is a defect to see whole.
  assert.notEqual(r.stdout, '', `${args.join(' ')} → exit 0 with nothing on stdout after ${Date.now() - t0} ms; stderr: ${JSON.stringify(r.stderr)}`);
  return r.stdout;
}

/** A folder the user owns. */
function userDir(name: string): string {
  const d = path.join(base, name);
  fs.mkdirSync(d, { recursive: true });
  must('chown', [`${user}:${user}`, d]);
  return d;
}

async function until<T>(what: string, ms: number, probe: () => T | undefined): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms / SEC} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2 * SEC));
  }
}

function cronRunning(): boolean {
  return sh('pgrep', ['-x', 'cron']).status === 0;
}

before(() => {
  assert.equal(process.getuid?.(), 0, 'the real-cron test needs root (useradd, crontab -u); run it with npm run test:timer as root');
  assert.ok(fs.existsSync(CRON) && sh('sh', ['-c', 'command -v crontab']).status === 0, `cron is not installed (${CRON}): npm run test:timer installs it`);
  base = fs.mkdtempSync('/tmp/lt-timer-');
  fs.chmodSync(base, 0o755);
  home = path.join(base, 'home');
  must('useradd', ['--create-home', '--home-dir', home, '--shell', '/bin/sh', '--user-group', user]);
  userMade = true;
  // The CLI as a copy the user can read: the checkout may sit under a folder only root can enter.
  const dist = path.join(base, 'dist');
  fs.mkdirSync(dist);
  for (const f of CLI_BUNDLE_FILES) fs.copyFileSync(path.join(repoRoot(), 'dist', f), path.join(dist, f));
  fs.chmodSync(dist, 0o755);
  for (const f of CLI_BUNDLE_FILES) fs.chmodSync(path.join(dist, f), 0o644);
  cli = path.join(dist, 'cli.js');
  if (!cronRunning()) {
    must(CRON, []);
    startedCron = Number(fs.readFileSync('/run/crond.pid', 'utf8').trim());
    assert.ok(startedCron > 0, 'cron wrote its pid');
  }
});

after(async () => {
  if (userMade) {
    sh('crontab', ['-u', user, '-r']);
    // A pass cron started may still be ending; the user goes once it has.
    for (let i = 0; i < 15 && sh('userdel', ['--remove', user]).status !== 0; i++) await new Promise((r) => setTimeout(r, 2 * SEC));
  }
  if (startedCron !== undefined) {
    try {
      process.kill(startedCron, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe('the OS timer on the real cron daemon', () => {
  it('a user with no crontab has none again after install and uninstall', () => {
    const store = userDir('store-empty');
    assert.equal(crontabOf(), null);
    asUserOk(['service', 'install', '--kind', 'cron', '--store', store]);
    assert.equal(crontabOf(), `${cronLine(store)}\n`);
    asUserOk(['service', 'uninstall', '--store', store]);
    assert.equal(crontabOf(), null);
  });

  it('install --kind cron; a command due in 70 s runs once with its recorded PATH; status shows the last pass; uninstall restores the crontab', async () => {
    const store = userDir('store');
    const out = userDir('out');
    const seen = path.join(out, 'seen');
    const tools = path.join(base, 'tools');
    fs.mkdirSync(tools);
    fs.writeFileSync(path.join(tools, 'lt-marker'), `#!/bin/sh\nprintf '%s\\n' "$PATH" >> '${seen}'\n`, { mode: 0o755 });
    fs.chmodSync(tools, 0o755);

    const theirs = '# the user’s own line, kept as it is\n17 3 * * * /bin/true  \n';
    must('crontab', ['-u', user, '-'], theirs);
    const before = crontabOf();
    assert.equal(before, theirs);

    const installed = asUserOk(['service', 'install', '--kind', 'cron', '--store', store]);
    assert.match(installed, /^Installed: the cron timer of this store/);
    assert.equal(crontabOf(), `${theirs}${cronLine(store)}\n`);

    // Added from a shell whose PATH has the tool; cron's own PATH (/usr/bin:/bin) has not.
    const addedPath = `${tools}:${path.dirname(process.execPath)}:/usr/bin:/bin`;
    const row = commandRowSchema.parse(JSON.parse(asUserOk(['schedule', 'add-command', '--command', 'lt-marker', '--when', 'in 70 seconds', '--store', store, '--json'], addedPath)));
    assert.equal(row.envPath, addedPath);

    const listed = (): ReturnType<typeof commandRowSchema.parse> | undefined => {
      const rows = (JSON.parse(asUserOk(['schedule', 'list', '--store', store, '--json'])) as unknown[]).map((r) => commandRowSchema.parse(r));
      const r = rows.find((x) => x.id === row.id);
      return r?.fact?.exitCode !== undefined ? r : undefined;
    };
    const done = await until('the timer to run the command and write its fact', 200 * SEC, listed);
    assert.equal(done.fact?.exitCode, 0, JSON.stringify(done));
    assert.ok(Date.parse(done.firedAt ?? '') >= Date.parse(row.nextRunAt ?? ''), 'not before its time');

    // The next pass must not run it again.
    const firedAt = Date.parse(done.firedAt ?? '');
    const status = await until('a later timer pass', 90 * SEC, () => {
      const s = JSON.parse(asUserOk(['service', 'status', '--store', store, '--json'])) as { kind: string; installed: boolean; lastPassAt: string | null; entries: string[]; runtime: { path: string } | null };
      return s.lastPassAt !== null && Date.parse(s.lastPassAt) > firedAt + 30 * SEC ? s : undefined;
    });
    assert.deepEqual([status.kind, status.installed, status.entries], ['cron', true, [cronLine(store)]]);
    assert.ok(Date.now() - Date.parse(status.lastPassAt ?? '') < 120 * SEC, 'status shows a recent pass');
    assert.ok(status.runtime?.path, 'status names the runtime');
    assert.deepEqual(fs.readFileSync(seen, 'utf8').split('\n').filter(Boolean), [addedPath], 'ran once, with the recorded PATH');

    const text = asUserOk(['service', 'status', '--store', store]);
    assert.match(text, /^Commands: OS timer \(cron\) · last pass \d+ s ago$/m);
    const doctor = asUserOk(['doctor', '--store', store]);
    assert.match(doctor, /^Commands: OS timer \(cron\) · last pass/m);
    assert.match(doctor, /^Reminders: need a VS Code window · Dispatcher: STALLED: no pass recorded yet/m);
    const log = fs.readFileSync(path.join(store, 'logs', 'timer.log'), 'utf8');
    assert.match(log, new RegExp(`^Command ${row.id} \`lt-marker\`: exit 0`, 'm'));
    assert.match(log, /^Timer pass at .*: 1 command run/m);
    assert.equal(fs.existsSync(`/var/mail/${user}`), false, 'cron mailed nothing');

    asUserOk(['service', 'uninstall', '--store', store]);
    assert.equal(crontabOf(), before, 'the crontab is as it was, byte for byte');
  });
});
