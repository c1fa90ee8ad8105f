/**
 * Installing, finding and removing the OS timer of a store (src/node/service/osTimer.ts) on a fake
 * machine (test/unit/helpers/fakeTimerSystem.ts): idempotent installs, an uninstall that removes
 * exactly what was installed, a kind replacing another, and the machine's refusals said clearly.
 * test/timer/ does the same with the real cron daemon.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { cronLine, launchdPlist, systemdUnits, timerNames } from '../../src/core/service/timerUnits';
import { detectKind, findInstalled, installTimer, planTimer, timerStatus, TimerError, uninstallTimer } from '../../src/node/service/osTimer';
import { fakeMachine } from './helpers/fakeTimerSystem';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-ostimer-');

function setUp(opts: Parameters<typeof fakeMachine>[1] = {}): { store: string; m: ReturnType<typeof fakeMachine> } {
  const root = dirs.freshDir();
  const home = path.join(root, 'home');
  const store = path.join(root, 'store');
  fs.mkdirSync(home);
  fs.mkdirSync(store);
  return { store, m: fakeMachine(home, opts) };
}

describe('OS timer on a machine', () => {
  it('cron: installs one line, again changes nothing, uninstall leaves the crontab as it was', async () => {
    const theirs = '# my jobs\nMAILTO=me@example.org\n17 3 * * * /usr/local/bin/backup\n';
    const { store, m } = setUp({ cron: true, crontab: theirs });
    assert.equal(await detectKind(m), 'cron');
    const plan = planTimer(store, 'cron', m);
    assert.equal(plan.cronLine, cronLine(store));
    const first = await installTimer(plan, m);
    assert.equal(first.changed, true);
    assert.equal(m.crontab, `${theirs}${cronLine(store)}\n`);
    assert.ok(fs.statSync(path.join(store, 'logs')).isDirectory(), 'the log folder exists before the first pass appends to it');
    const writes = () => m.calls.filter((c) => c[0] === 'crontab' && c[1] === '-').length;
    const before = writes();
    const again = await installTimer(planTimer(store, 'cron', m), m);
    assert.equal(again.changed, false);
    assert.equal(writes(), before, 'an unchanged crontab is not rewritten');
    const st = await timerStatus(store, m);
    assert.deepEqual({ kind: st.kind, installed: st.installed, entries: st.entries }, { kind: 'cron', installed: true, entries: [cronLine(store)] });
    const removed = await uninstallTimer(store, m);
    assert.deepEqual(removed, [{ kind: 'cron', entries: [cronLine(store)] }]);
    assert.equal(m.crontab, theirs, 'byte for byte');
    assert.deepEqual(await uninstallTimer(store, m), [], 'nothing left to remove');
  });

  it('cron: a user without a crontab has none again after uninstall; another store’s line is kept', async () => {
    const { store, m } = setUp({ cron: true, crontab: null });
    const other = `${store}-other`;
    await installTimer(planTimer(store, 'cron', m), m);
    await installTimer(planTimer(other, 'cron', m), m);
    assert.equal(m.crontab, `${cronLine(store)}\n${cronLine(other)}\n`);
    await uninstallTimer(store, m);
    assert.equal(m.crontab, `${cronLine(other)}\n`);
    await uninstallTimer(other, m);
    assert.equal(m.crontab, null, 'crontab -r, not an empty crontab');
  });

  it('systemd: writes the two units, reloads and enables the timer once; uninstall disables and removes them', async () => {
    const { store, m } = setUp({ systemd: true });
    assert.equal(await detectKind(m), 'systemd');
    const unit = timerNames(store).unit;
    const plan = planTimer(store, 'systemd', m);
    const dir = path.join(m.home, '.config', 'systemd', 'user');
    assert.deepEqual(
      plan.files.map((f) => f.path),
      [path.join(dir, `${unit}.service`), path.join(dir, `${unit}.timer`)],
    );
    assert.equal((await installTimer(plan, m)).changed, true);
    const units = systemdUnits(store);
    assert.equal(fs.readFileSync(path.join(dir, `${unit}.service`), 'utf8'), units.service);
    assert.equal(fs.readFileSync(path.join(dir, `${unit}.timer`), 'utf8'), units.timer);
    assert.ok(m.enabled.has(`${unit}.timer`));
    const calls = m.calls.length;
    assert.equal((await installTimer(planTimer(store, 'systemd', m), m)).changed, false);
    assert.deepEqual(
      m.calls.slice(calls).filter((c) => c[2] === 'daemon-reload' || c[2] === 'enable'),
      [],
      'nothing reloaded or enabled again',
    );
    assert.deepEqual((await uninstallTimer(store, m)).map((r) => r.kind), ['systemd']);
    assert.equal(fs.existsSync(path.join(dir, `${unit}.service`)), false);
    assert.equal(fs.existsSync(path.join(dir, `${unit}.timer`)), false);
    assert.equal(m.enabled.has(`${unit}.timer`), false);
  });

  it('launchd on macOS: writes the plist and bootstraps it once; uninstall boots it out and removes it', async () => {
    const { store, m } = setUp({ platform: 'darwin' });
    assert.equal(await detectKind(m), 'launchd');
    const plan = planTimer(store, 'launchd', m);
    const plist = path.join(m.home, 'Library', 'LaunchAgents', `${timerNames(store).label}.plist`);
    assert.equal(plan.files[0]?.path, plist);
    assert.equal((await installTimer(plan, m)).changed, true);
    assert.equal(fs.readFileSync(plist, 'utf8'), launchdPlist(store));
    assert.deepEqual(m.calls.at(-1), ['launchctl', 'bootstrap', 'gui/1234', plist]);
    assert.equal((await installTimer(planTimer(store, 'launchd', m), m)).changed, false);
    assert.equal(m.calls.filter((c) => c[1] === 'bootstrap').length, 1);
    await uninstallTimer(store, m);
    assert.equal(fs.existsSync(plist), false);
    assert.equal(m.loaded.size, 0);
  });

  it('a new kind replaces the store’s timer of another kind: never two timers for one store', async () => {
    const { store, m } = setUp({ systemd: true, cron: true, crontab: '5 * * * * true\n' });
    await installTimer(planTimer(store, 'cron', m), m);
    const r = await installTimer(planTimer(store, 'systemd', m), m);
    assert.deepEqual(r.replaced.map((x) => x.kind), ['cron']);
    assert.equal(m.crontab, '5 * * * * true\n');
    assert.deepEqual((await findInstalled(store, m)).map((x) => x.kind), ['systemd']);
  });

  it('a machine with no timer, and a crontab that cannot be written, are said clearly; nothing is half done', async () => {
    const none = setUp({ cron: false });
    await assert.rejects(detectKind(none.m), (e: unknown) => e instanceof TimerError && /no systemd user instance .* and no crontab \(install cron/.test(e.message));
    const st = await timerStatus(none.store, none.m);
    assert.equal(st.kind, null);
    assert.match(st.unavailable ?? '', /no OS timer/);
    const broken = setUp({ cron: true, crontab: '1 2 * * * true\n' });
    broken.m.failCrontabWrite = '/var/spool/cron/crontabs: Permission denied';
    await assert.rejects(installTimer(planTimer(broken.store, 'cron', broken.m), broken.m), (e: unknown) => e instanceof TimerError && /crontab - failed: .*Permission denied/.test(e.message));
    assert.equal(broken.m.crontab, '1 2 * * * true\n');
  });

  it('a crontab that cannot be read is an error, never "not installed": uninstall and status say why and remove nothing', async () => {
    const { store, m } = setUp({ systemd: false, cron: true, crontab: '1 2 * * * true\n' });
    await installTimer(planTimer(store, 'cron', m), m);
    const withOurs = m.crontab;
    m.failCrontabRead = 'You (tester) are not allowed to use this program (crontab)';
    await assert.rejects(findInstalled(store, m), (e: unknown) => e instanceof TimerError && /crontab -l failed: You \(tester\) are not allowed/.test(e.message));
    await assert.rejects(uninstallTimer(store, m), (e: unknown) => e instanceof TimerError && /crontab -l failed/.test(e.message));
    assert.equal(m.crontab, withOurs, 'the crontab is untouched');
  });

  it('an install the machine refuses leaves nothing half installed, and a failed switch keeps the timer that ran', async () => {
    const theirs = '# mine\n17 3 * * * /bin/true\n';
    const { store, m } = setUp({ systemd: false, cron: true, crontab: theirs });
    await installTimer(planTimer(store, 'cron', m), m);
    const withOurs = m.crontab;
    const plan = planTimer(store, 'systemd', m);
    await assert.rejects(installTimer(plan, m), (e: unknown) => e instanceof TimerError && /systemctl --user daemon-reload failed: Failed to connect to bus/.test(e.message));
    for (const f of plan.files) assert.equal(fs.existsSync(f.path), false, `${f.path} is not left behind`);
    assert.equal(m.crontab, withOurs, 'the cron line that ran is kept');
    assert.deepEqual((await findInstalled(store, m)).map((x) => x.kind), ['cron']);
    const st = await timerStatus(store, m);
    assert.deepEqual([st.kind, st.installed], ['cron', true]);

    const mac = setUp({ platform: 'darwin' });
    const first = planTimer(mac.store, 'launchd', mac.m);
    await installTimer(first, mac.m);
    const plist = first.files[0]?.path ?? '';
    const old = `${fs.readFileSync(plist, 'utf8')}<!-- an older build's agent -->\n`;
    fs.writeFileSync(plist, old);
    mac.m.failBootstrap = 'Bootstrap failed: 5: Input/output error';
    await assert.rejects(installTimer(planTimer(mac.store, 'launchd', mac.m), mac.m), (e: unknown) => e instanceof TimerError && /launchctl bootstrap .* failed: Bootstrap failed/.test(e.message));
    assert.equal(fs.readFileSync(plist, 'utf8'), old, 'the agent file is put back as it was');
    const fresh = setUp({ platform: 'darwin' });
    fresh.m.failBootstrap = 'Bootstrap failed: 5: Input/output error';
    const freshPlan = planTimer(fresh.store, 'launchd', fresh.m);
    await assert.rejects(installTimer(freshPlan, fresh.m), TimerError);
    assert.equal(fs.existsSync(freshPlan.files[0]?.path ?? ''), false, 'no agent file is left behind');
    assert.deepEqual(await findInstalled(fresh.store, fresh.m), []);
  });
});
