/**
 * What the OS timer of a store is made of (src/core/service/timerUnits.ts): the launchd plist's keys,
 * the systemd units' settings, the crontab line as sh runs it (quoting, cron's `%`), and crontab edits
 * that keep every other line byte for byte. systemd-analyze checks the units for real in test/timer/.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { shimPath } from '../../src/core/mcpConfig';
import { compareVersions, parseShimHeader, shimText, type ShimHeader } from '../../src/core/shimText';
import { timerCommandsLine, timerRemindersLine } from '../../src/core/service/timerHealth';
import { checkStorePath, cronLine, crontabWith, crontabWithout, describePlan, findCronLine, launchdPlist, systemdUnits, timerArgv, timerNames } from '../../src/core/service/timerUnits';

const STORE = '/home/ana/.config/Code/User/globalStorage/lifethread.life-thread';
const ODD = "/tmp/a dir/50% it's \"$HOME\"/store";

/** The plist's top-level dict as key → value (string, integer, boolean or string array); enough for the keys launchd reads. */
function plistDict(xml: string): Map<string, unknown> {
  const unxml = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const body = /<plist version="1\.0">\s*<dict>([\s\S]*)<\/dict>\s*<\/plist>/.exec(xml)?.[1];
  assert.ok(body, 'a plist with one top-level dict');
  const out = new Map<string, unknown>();
  const re = /<key>([^<]*)<\/key>\s*(<string>([^<]*)<\/string>|<integer>(-?\d+)<\/integer>|<(true|false)\/>|<array>([\s\S]*?)<\/array>)/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const key = unxml(m[1] ?? '');
    if (m[3] !== undefined) out.set(key, unxml(m[3]));
    else if (m[4] !== undefined) out.set(key, Number(m[4]));
    else if (m[5] !== undefined) out.set(key, m[5] === 'true');
    else out.set(key, [...(m[6] ?? '').matchAll(/<string>([^<]*)<\/string>/g)].map((x) => unxml(x[1] ?? '')));
  }
  return out;
}

/** What sh passes to the program, splitting `line` as cron hands it over (after cron's `\%` → `%`). */
function shWords(command: string): string[] {
  return execFileSync('sh', ['-c', `printf '%s\\0' ${command}`]).toString('utf8').split('\0').slice(0, -1);
}

describe('OS timer units', () => {
  it('names every store apart, stably, and refuses a path no unit can carry', () => {
    const a = timerNames(STORE);
    assert.match(a.hash, /^[0-9a-f]{12}$/);
    assert.deepEqual(timerNames(`${STORE}/`), a, 'a trailing slash is the same store');
    assert.notEqual(timerNames(`${STORE}-2`).hash, a.hash);
    assert.equal(a.unit, `life-thread-${a.hash}`);
    assert.equal(a.label, `lifethread.life-thread.${a.hash}`);
    assert.equal(a.marker, `# life-thread ${a.hash}`);
    assert.throws(() => checkStorePath('/tmp/a\nb'), /store: holds a control character/);
    assert.throws(() => checkStorePath('relative/store'), /store: must be an absolute path/);
  });

  it('launchd: Label, ProgramArguments, StartInterval 60, RunAtLoad and both streams to the store log', () => {
    for (const store of [STORE, ODD]) {
      const d = plistDict(launchdPlist(store));
      assert.equal(d.get('Label'), timerNames(store).label);
      assert.deepEqual(d.get('ProgramArguments'), [shimPath(store), 'dispatch', '--once', '--commands-only', '--store', store]);
      assert.equal(d.get('StartInterval'), 60);
      assert.equal(d.get('RunAtLoad'), true);
      assert.equal(d.get('StandardOutPath'), `${store}/logs/timer.log`);
      assert.equal(d.get('StandardErrorPath'), `${store}/logs/timer.log`);
      assert.deepEqual([...d.keys()].sort(), ['Label', 'ProcessType', 'ProgramArguments', 'RunAtLoad', 'StandardErrorPath', 'StandardOutPath', 'StartInterval']);
    }
  });

  it('systemd: a oneshot service on the shim and a per-minute timer with Persistent=true; % and $ escaped', () => {
    const { service, timer } = systemdUnits(ODD);
    assert.match(timer, /^OnCalendar=\*-\*-\* \*:\*:00$/m);
    assert.match(timer, /^Persistent=true$/m);
    assert.match(timer, new RegExp(`^Unit=${timerNames(ODD).unit}\\.service$`, 'm'));
    assert.match(timer, /^WantedBy=timers\.target$/m);
    assert.match(service, /^Type=oneshot$/m);
    // `%` starts a specifier and `$` a variable in ExecStart=: both doubled; quotes escaped inside "…".
    assert.ok(service.includes('ExecStart=/bin/sh "/tmp/a dir/50%% it\'s \\"$$HOME\\"/store/bin/life-thread" "dispatch" "--once" "--commands-only" "--store" "/tmp/a dir/50%% it\'s \\"$$HOME\\"/store"'), service);
    assert.ok(service.includes('StandardOutput=append:/tmp/a dir/50%% it\'s "$HOME"/store/logs/timer.log'), service);
    assert.ok(service.includes(`ConditionFileIsExecutable=/tmp/a dir/50%% it's "$HOME"/store/bin/life-thread`), service);
  });

  it('cron: one line, every minute, its output to the store log in the line itself, ending with the store marker', () => {
    for (const store of [STORE, ODD]) {
      const line = cronLine(store);
      const marker = timerNames(store).marker;
      assert.ok(line.startsWith('* * * * * '), line);
      assert.ok(line.endsWith(` ${marker}`), line);
      assert.ok(!/(^|[^\\])%/.test(line), `every % is escaped for cron: ${line}`);
      // cron hands sh the command with `\%` turned back into `%`.
      const command = line.slice('* * * * * '.length).replace(/\\%/g, '%');
      const guard = /^\[ -x (.*?) \] && exec (.*) >>(.*) 2>&1 # life-thread [0-9a-f]{12}$/.exec(command);
      assert.ok(guard, command);
      assert.deepEqual(shWords(guard[1] ?? ''), [shimPath(store)]);
      assert.deepEqual(shWords(guard[2] ?? ''), timerArgv(store));
      assert.deepEqual(shWords(guard[3] ?? ''), [`${store}/logs/timer.log`]);
    }
  });

  it('crontab edits keep every other line as it was; the line is added once and removed exactly', () => {
    const mine = cronLine(STORE);
    const marker = timerNames(STORE).marker;
    const other = cronLine(`${STORE}-other`);
    const theirs = `# m h dom mon dow command\nMAILTO=me@example.org\n17 3 * * * /usr/local/bin/backup --all  \n\n${other}\n`;
    const added = crontabWith(theirs, mine, marker);
    assert.equal(added, `${theirs}${mine}\n`);
    assert.equal(crontabWith(added, mine, marker), added, 'idempotent');
    assert.equal(findCronLine(added, marker), mine);
    assert.equal(crontabWithout(added, marker), theirs, 'byte for byte, the other store’s line included');
    assert.equal(findCronLine(theirs, marker), undefined);
    // No crontab before: none after.
    assert.equal(crontabWith(null, mine, marker), `${mine}\n`);
    assert.equal(crontabWithout(`${mine}\n`, marker), null);
    // A changed line (another shim path) replaces the old one in place of appending a second.
    const moved = `${mine.replace('dispatch', 'dispatch ')}`;
    assert.equal(crontabWith(added, moved, marker), `${theirs}${moved}\n`);
  });

  it('the plan shows exactly what is written and run', () => {
    const text = describePlan({ kind: 'cron', storeDir: STORE, command: 'c', files: [], cronLine: cronLine(STORE), steps: [] });
    assert.ok(text.includes(cronLine(STORE)));
    assert.match(text, /every other line stays as it is/);
    const units = systemdUnits(STORE);
    const sd = describePlan({ kind: 'systemd', storeDir: STORE, command: 'c', files: [{ path: '/h/.config/systemd/user/x.service', text: units.service }], steps: [['systemctl', '--user', 'daemon-reload']] });
    assert.ok(sd.includes(`Write /h/.config/systemd/user/x.service:\n${units.service.trimEnd()}\n`));
    assert.ok(sd.includes('Then run:\n  systemctl --user daemon-reload'));
  });

  it('health while the timer is installed: commands on the timer, reminders need a window', () => {
    const now = new Date('2026-10-03T10:00:00Z');
    assert.equal(timerCommandsLine({ kind: 'cron', lastPassAt: new Date('2026-10-03T09:59:40Z') }, now), 'Commands: OS timer (cron) · last pass 20 s ago');
    assert.match(timerCommandsLine({ kind: 'systemd', lastPassAt: new Date('2026-10-03T09:50:00Z') }, now), /^Commands: OS timer \(systemd\) STALLED · no pass for 10 min/);
    assert.match(timerCommandsLine({ kind: 'launchd', lastPassAt: null }, now), /no pass yet/);
    assert.equal(timerRemindersLine('Dispatcher healthy · last pass 3 s ago'), 'Reminders: need a VS Code window · Dispatcher healthy · last pass 3 s ago');
  });
});

describe('the store shim', () => {
  const header: ShimHeader = { version: '0.2.0', build: 'abcdef012345', bundle: 'cli-0.2.0-abcdef012345', runtime: { kind: 'vscode', path: '/opt/VS Code/code', version: '22.17.0' }, writtenAt: '2026-10-03T10:00:00.000Z' };

  it('runs the bundle in the store with its runtime; VS Code’s runtime as Node; the header reads back', () => {
    const text = shimText(`${ODD}/bin`, header);
    assert.ok(text.startsWith('#!/bin/sh\n'));
    assert.deepEqual(parseShimHeader(text), header);
    assert.match(text, /^ELECTRON_RUN_AS_NODE=1\nexport ELECTRON_RUN_AS_NODE$/m);
    const exec = text.split('\n').find((l) => l.startsWith('exec '));
    assert.ok(exec);
    assert.deepEqual(shWords(exec.slice(5).replace('"$@"', '')), ['/opt/VS Code/code', `${ODD}/bin/cli-0.2.0-abcdef012345/cli.js`]);
    const node = shimText('/s/bin', { ...header, runtime: { kind: 'node', path: '/usr/bin/node', version: '20.20.2' } });
    assert.ok(!node.includes('ELECTRON_RUN_AS_NODE'));
    assert.equal(parseShimHeader('#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec node cli.js "$@"\n'), undefined, 'an older shim has no header');
    assert.equal(parseShimHeader(text.replace('"version":"0.2.0"', '"version":"x"')), undefined);
  });

  it('orders versions numerically, a pre-release before its release', () => {
    assert.ok(compareVersions('0.10.0', '0.9.9') > 0);
    assert.ok(compareVersions('1.0.0-beta.1', '1.0.0') < 0);
    assert.equal(compareVersions('0.1.0', '0.1.0'), 0);
    assert.ok(compareVersions('0.1.0', '0.2.0') < 0);
  });
});
