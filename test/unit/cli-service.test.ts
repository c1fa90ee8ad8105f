/**
 * `life-thread service install | status | uninstall` as a user types it (src/cli/service.ts), on a
 * machine made of scripts on PATH: a `crontab` that keeps its table in a file of the test and a
 * `systemctl` with no user instance, with a throw-away HOME, so nothing real is touched. Bad input
 * is refused naming the flag, with exit 2 and nothing written; the crontab keeps every other line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { timerNames } from '../../src/core/service/timerUnits';
import { runCli, tempStores, type CliResult } from './helpers/cliHarness';

const stores = tempStores('lt-cli-service-');

interface Machine {
  store: string;
  crontab: string;
  run(args: string[]): Promise<CliResult>;
}

function machine(): Machine {
  const root = stores.freshStore();
  const bin = path.join(root, 'bin');
  const home = path.join(root, 'home');
  fs.mkdirSync(bin);
  fs.mkdirSync(home);
  const crontab = path.join(root, 'crontab.txt');
  fs.writeFileSync(
    path.join(bin, 'crontab'),
    [
      '#!/bin/sh',
      `f='${crontab}'`,
      'case "$1" in',
      '  -l) if [ -f "$f" ]; then cat "$f"; exit 0; fi; echo "no crontab for tester" >&2; exit 1;;',
      '  -r) if [ -f "$f" ]; then rm "$f"; exit 0; fi; echo "no crontab for tester" >&2; exit 1;;',
      '  -) cat > "$f";;',
      '  *) echo "usage" >&2; exit 1;;',
      'esac',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(bin, 'systemctl'), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n', { mode: 0o755 });
  const store = path.join(root, 'store');
  return {
    store,
    crontab,
    run: (args) => runCli(args, { cwd: root, env: { HOME: home, XDG_CONFIG_HOME: undefined, PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` } }),
  };
}

function refused(r: CliResult, field: string, reason: RegExp): void {
  assert.equal(r.code, 2, `${r.args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^life-thread: ${field}: `));
  assert.match(r.stderr, reason);
}

describe('life-thread service', () => {
  it('refuses bad input naming the flag and the reason, with exit 2, writing nothing', async () => {
    const m = machine();
    const theirs = '# mine\n17 3 * * * /bin/true\n';
    fs.writeFileSync(m.crontab, theirs);
    // Each is refused before anything is read or written, so they may run side by side.
    const [kind, noValue, newline, flag, verb, noVerb, json] = await Promise.all([
      m.run(['service', 'install', '--kind', 'anacron', '--store', m.store]),
      m.run(['service', 'install', '--kind', '--store', m.store]),
      m.run(['service', 'install', '--kind', 'cron', '--store', `${m.store}\nx`]),
      m.run(['service', 'install', '--kind', 'cron', '--everyday', '--store', m.store]),
      m.run(['service', 'reinstall', '--store', m.store]),
      m.run(['service', '--store', m.store]),
      m.run(['service', 'install', '--kind', 'anacron', '--store', m.store, '--json']),
    ]);
    refused(kind, 'kind', /must be one of systemd, launchd, cron, got 'anacron'/);
    refused(noValue, 'kind', /needs a value/);
    refused(newline, 'store', /control character/);
    refused(flag, 'everyday', /unknown flag/);
    refused(verb, 'command', /'service' takes install, status, uninstall/);
    refused(noVerb, 'command', /needs a verb/);
    assert.equal(json.code, 2);
    assert.equal((JSON.parse(json.stderr) as { error: { field: string } }).error.field, 'kind');
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), theirs);
    assert.equal(fs.existsSync(m.store), false, 'the store is not even created');
  });

  it('--dry-run prints the line and writes nothing; install twice adds it once; uninstall twice leaves the crontab as it was', async () => {
    const m = machine();
    const theirs = '# mine\nMAILTO=me@example.org\n17 3 * * * /bin/true  \n';
    fs.writeFileSync(m.crontab, theirs);
    const marker = `# life-thread ${timerNames(m.store).hash}`;

    const dry = await m.run(['service', 'install', '--kind', 'cron', '--dry-run', '--store', m.store]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Dry run: nothing is written\./);
    const line = dry.stdout.split('\n').find((l) => l.startsWith('* * * * * '));
    assert.ok(line?.endsWith(` ${marker}`), `the line carries the store's marker: ${line ?? dry.stdout}`);
    assert.match(line ?? '', /dispatch --once --commands-only --store .* >>.*\/logs\/timer\.log 2>&1 /);
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), theirs, 'a dry run writes nothing');
    assert.equal(fs.existsSync(m.store), false);

    // No systemd user instance here: the kind is cron without --kind.
    const first = await m.run(['service', 'install', '--store', m.store]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Installed: the cron timer of this store/);
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), `${theirs}${line}\n`);
    const again = await m.run(['service', 'install', '--kind', 'cron', '--store', m.store]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Already installed, unchanged/);
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), `${theirs}${line}\n`);

    const st = await m.run(['service', 'status', '--store', m.store, '--json']);
    assert.equal(st.code, 0, st.stderr);
    const status = JSON.parse(st.stdout) as Record<string, unknown>;
    assert.deepEqual(
      { kind: status.kind, installed: status.installed, lastPassAt: status.lastPassAt, nextDue: status.nextDue },
      { kind: 'cron', installed: true, lastPassAt: null, nextDue: null },
    );
    assert.equal(status.command, `${m.store}/bin/life-thread dispatch --once --commands-only --store ${m.store}`);

    const gone = await m.run(['service', 'uninstall', '--store', m.store]);
    assert.equal(gone.code, 0, gone.stderr);
    assert.match(gone.stdout, /^Removed the cron timer of this store/);
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), theirs, 'byte for byte');
    const none = await m.run(['service', 'uninstall', '--store', m.store]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'Nothing to remove: no OS timer of this store is installed\n');
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), theirs);
  });

  it('a kind the machine refuses exits 3 naming what it answered, and the installed cron line stays', async () => {
    const m = machine();
    const ok = await m.run(['service', 'install', '--kind', 'cron', '--store', m.store]);
    assert.equal(ok.code, 0, ok.stderr);
    const before = fs.readFileSync(m.crontab, 'utf8');
    const r = await m.run(['service', 'install', '--kind', 'systemd', '--store', m.store]);
    assert.equal(r.code, 3, r.stdout);
    assert.match(r.stderr, /^life-thread: service: systemctl --user daemon-reload failed: Failed to connect to bus/);
    assert.equal(fs.readFileSync(m.crontab, 'utf8'), before);
    const st = JSON.parse((await m.run(['service', 'status', '--store', m.store, '--json'])).stdout) as { kind: string; installed: boolean };
    assert.deepEqual([st.kind, st.installed], ['cron', true]);
  });
});
