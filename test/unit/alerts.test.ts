/**
 * The failure-alert throttle: causes, the pure decision over a simulated week with a fake clock, the
 * state file (missing, corrupt, forget) and the settle step after a run (alert text redacted, recovery
 * note, nothing for a removed row).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  ALERT_FILE,
  AlertThrottle,
  alertText,
  causeOf,
  decideAlert,
  decideSuccess,
  emptyAlertState,
  parseAlertState,
  settleCommandRun,
  type AlertState,
} from '../../src/node/alerts';
import { removeJobArtifacts } from '../../src/node/jobLog';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-alerts-');
const freshDir = dirs.freshDir;

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-05T01:00:00.000Z');

describe('causeOf', () => {
  it('names a short, stable category per failure', () => {
    assert.equal(causeOf({ exitCode: 0, durationMs: 5 }), null);
    assert.equal(causeOf({ exitCode: 3 }), 'exit 3');
    assert.equal(causeOf({ exitCode: null, signal: 'SIGKILL', timedOut: true, error: 'timed out after 2 min' }), 'timeout');
    assert.equal(causeOf({ exitCode: null, signal: 'SIGSEGV' }), 'signal SIGSEGV');
    assert.equal(causeOf({ interrupted: true, error: 'the window running it stopped' }), 'interrupted');
    assert.equal(causeOf({ exitCode: null, error: 'working directory /home/a/proj does not exist' }), 'error: working directory does not exist');
    assert.equal(causeOf({ exitCode: null, error: 'working directory /srv/other does not exist' }), 'error: working directory does not exist');
    assert.equal(causeOf({ exitCode: null, error: 'command contains a NUL byte' }), 'error: command contains a nul byte');
    assert.equal(causeOf({ exitCode: 0, error: "1 process left the job's process group and survived the kill: pid 12 (sleep)" }), 'escaped');
    assert.equal(causeOf({ exitCode: null, error: "could not start bash: spawn 'x' EACCES" }), 'error: could not start bash spawn');
    assert.equal(causeOf({ exitCode: null, error: "the run log could not be written: EROFS: read-only file system, open '/s/logs/x'" }), 'error: the run log could not');
  });
});

describe('alert throttle over a simulated week', () => {
  it('alerts once per cause per week, and notes one recovery', () => {
    let state: AlertState = emptyAlertState();
    const alerts: string[] = [];
    const fail = (id: string, cause: string, at: number): void => {
      const r = decideAlert(state, id, cause, at);
      state = r.state;
      if (r.alert) alerts.push(`${id} ${cause} @${(at - T0) / HOUR}h`);
    };
    // Eight identical failures overnight, one an hour.
    for (let h = 0; h < 8; h++) fail('c-nightly', 'exit 1', T0 + h * HOUR);
    assert.deepEqual(alerts, ['c-nightly exit 1 @0h']);
    // A different cause is its own alert; so is another command with the same cause.
    fail('c-nightly', 'timeout', T0 + 9 * HOUR);
    fail('c-other', 'exit 1', T0 + 9 * HOUR);
    fail('c-nightly', 'timeout', T0 + 10 * HOUR);
    assert.equal(alerts.length, 3);
    // Daily failures for the rest of the week stay quiet...
    for (let d = 1; d < 7; d++) fail('c-nightly', 'exit 1', T0 + d * DAY);
    assert.equal(alerts.length, 3);
    // ...and seven days after the first alert it is raised again.
    fail('c-nightly', 'exit 1', T0 + 7 * DAY);
    assert.deepEqual(alerts.slice(3), ['c-nightly exit 1 @168h']);
    // A success after the failures: one recovery note, not two.
    let r = decideSuccess(state, 'c-nightly');
    state = r.state;
    assert.equal(r.recovered, true);
    r = decideSuccess(state, 'c-nightly');
    state = r.state;
    assert.equal(r.recovered, false);
    // A command that never alerted gets no recovery note.
    assert.equal(decideSuccess(state, 'c-never').recovered, false);
    // Failing again within the week of the last alert stays quiet, and so earns no recovery note.
    fail('c-nightly', 'exit 1', T0 + 8 * DAY);
    assert.equal(alerts.length, 4);
    assert.equal(decideSuccess(state, 'c-nightly').recovered, false);
  });

  it('a clock that jumps backwards does not silence a cause for good', () => {
    let state = emptyAlertState();
    state = decideAlert(state, 'c-x', 'exit 1', T0 + 30 * DAY).state;
    assert.equal(decideAlert(state, 'c-x', 'exit 1', T0).alert, true);
  });
});

describe('AlertThrottle (state file)', () => {
  it('keeps the throttle across instances and forgets a removed command', async () => {
    const dir = freshDir();
    const a = new AlertThrottle(dir);
    assert.deepEqual(await a.shouldAlert({ id: 'c-one', cause: 'exit 2', now: T0 }), { alert: true });
    assert.deepEqual(await new AlertThrottle(dir).shouldAlert({ id: 'c-one', cause: 'exit 2', now: T0 + HOUR }), { alert: false });
    await new AlertThrottle(dir).shouldAlert({ id: 'c-two', cause: 'exit 2', now: T0 });
    await removeJobArtifacts(dir, 'c-one');
    const state = await a.read();
    assert.deepEqual(Object.keys(state.commands), ['c-two']);
    assert.deepEqual(await a.shouldAlert({ id: 'c-one', cause: 'exit 2', now: T0 + 2 * HOUR }), { alert: true });
    assert.deepEqual(fs.readdirSync(dir), [ALERT_FILE], 'no temp files left');
  });

  it('starts fresh from a missing directory, a corrupt file or a wrong shape, without throwing', async () => {
    const dir = freshDir();
    assert.deepEqual(await new AlertThrottle(path.join(dir, 'not', 'yet')).shouldAlert({ id: 'c-a', cause: 'timeout', now: T0 }), { alert: true });
    for (const junk of ['', '{', '\0\0\0', 'null', '[]', '{"version":2,"commands":{}}', '{"version":1,"commands":{"c-a":{"alerted":{"timeout":"soon"}}}}']) {
      fs.writeFileSync(path.join(dir, ALERT_FILE), junk);
      const t = new AlertThrottle(dir);
      assert.deepEqual(await t.shouldAlert({ id: 'c-a', cause: 'timeout', now: T0 }), { alert: true }, JSON.stringify(junk));
      assert.deepEqual(await t.shouldAlert({ id: 'c-a', cause: 'timeout', now: T0 + 1 }), { alert: false });
    }
    assert.deepEqual(parseAlertState('{"version":1,"commands":{"__proto__":{"alerted":{}},"../x":{"alerted":{}}}}'), emptyAlertState());
  });

  it('an unwritable store still answers (alerting rather than staying silent)', async () => {
    const dir = freshDir();
    fs.mkdirSync(path.join(dir, ALERT_FILE)); // a directory where the file should be
    const t = new AlertThrottle(dir);
    assert.deepEqual(await t.shouldAlert({ id: 'c-a', cause: 'exit 1', now: T0 }), { alert: true });
    assert.equal(await t.noteSuccess('c-a', T0), false);
    await t.forget('c-a');
  });
});

describe('settleCommandRun', () => {
  it('alerts once with redacted text, stays quiet, then notes the recovery', async () => {
    const dir = freshDir();
    const row = { id: 'c-deploy', command: 'curl -H "Authorization: Bearer s3cr3t-t0ken-value" https://x/deploy' };
    const fact = { exitCode: 22, durationMs: 120 };
    const log = 'curl: (22) The requested URL returned error: 401\npassword=hunter2 rejected\n[life-thread] exit code 22 after 0.12 s\n';
    const first = await settleCommandRun({ storeDir: dir, row, fact, recorded: true, log, now: T0 });
    assert.ok(first);
    assert.equal(first.kind, 'alert');
    assert.equal(first.cause, 'exit 22');
    assert.ok(!first.text.includes('s3cr3t'), first.text);
    assert.ok(!first.text.includes('hunter2'), first.text);
    assert.match(first.text, /^Command c-deploy failed \(exit 22\): curl -H "Authorization: Bearer \[REDACTED\]"/);
    assert.match(first.text, /password=\[REDACTED\] rejected/);
    assert.equal(await settleCommandRun({ storeDir: dir, row, fact, recorded: true, log, now: T0 + HOUR }), null);
    const ok = await settleCommandRun({ storeDir: dir, row, fact: { exitCode: 0 }, recorded: true, now: T0 + 2 * HOUR });
    assert.equal(ok?.kind, 'recovered');
    assert.equal(await settleCommandRun({ storeDir: dir, row, fact: { exitCode: 0 }, recorded: true, now: T0 + 3 * HOUR }), null);
  });

  it('a result for a removed row shows nothing and forgets the alert keys', async () => {
    const dir = freshDir();
    const row = { id: 'c-gone', command: 'false' };
    await settleCommandRun({ storeDir: dir, row, fact: { exitCode: 1 }, recorded: true, now: T0 });
    assert.ok('c-gone' in (await new AlertThrottle(dir).read()).commands);
    assert.equal(await settleCommandRun({ storeDir: dir, row, fact: { exitCode: 1 }, recorded: false, now: T0 + HOUR }), null);
    assert.deepEqual((await new AlertThrottle(dir).read()).commands, {});
  });

  it('alert text carries the error and the log summary', () => {
    const text = alertText({ id: 'c-t', command: 'npm test' }, { exitCode: 1 }, '> mocha\n\n  10 passing (2s)\n  2 failing\n\n  1) thing\n     Error: boom\n');
    assert.equal(text, 'Command c-t failed (exit 1): npm test\nmocha: 10 passed, 2 failed');
  });
});
