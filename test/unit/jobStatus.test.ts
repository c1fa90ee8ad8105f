/**
 * One function decides a job's status (src/core/wake/jobStatus.ts): each case, and a timed-out
 * command read the same way by its wake's fact, the pulse, the sidebar's fact line and the alert.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { factLine } from '../../src/core/rowView';
import type { CommandRow } from '../../src/core/schema';
import { parseWakeInput } from '../../src/core/wake/contract';
import { jobStatus, jobStatusWords } from '../../src/core/wake/jobStatus';
import { pulseEventOfRow, renderPulse } from '../../src/core/wake/pulse';
import { alertText, causeOf } from '../../src/node/alerts';
import { factOf } from '../../src/node/jobs';
import { exitCodeOf, TIMED_OUT_EXIT, triggerJobWakes } from '../../src/node/terminalJob';
import { WakeStore } from '../../src/node/wakes';
import { pulseJson } from '../../src/cli/agentVerbs';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-jobstatus-');
const holder = { pid: process.pid, window: 'win-jobstatus' };

describe('jobStatus: one decision', () => {
  it('exit 0 succeeded; a non-zero exit failed', () => {
    assert.equal(jobStatus({ exitCode: 0 }), 'succeeded');
    for (const exitCode of [1, 2, 124, 127, 137, -1]) assert.equal(jobStatus({ exitCode }), 'failed', String(exitCode));
  });

  it('our timeout: failed, though the process has no exit code of its own', () => {
    assert.equal(jobStatus({ exitCode: null, timedOut: true }), 'failed');
    assert.equal(jobStatus({ timedOut: true }), 'failed');
    // The killed process may still report a code; the timeout decides.
    assert.equal(jobStatus({ exitCode: 0, timedOut: true }), 'failed');
  });

  it('no exit code (a signal we did not send, a command that could not start): unknown', () => {
    assert.equal(jobStatus({ exitCode: null }), 'unknown');
    assert.equal(jobStatus({}), 'unknown');
    assert.equal(jobStatus({ exitCode: Number.NaN }), 'unknown');
    const killed = { exitCode: null, signal: 'SIGKILL' };
    assert.equal(jobStatus(killed), 'unknown');
  });

  it('stopped because our dispatcher died mid-run: unknown, whatever code the process died with', () => {
    assert.equal(jobStatus({ interrupted: true }), 'unknown');
    assert.equal(jobStatus({ interrupted: true, exitCode: 143 }), 'unknown');
    assert.equal(jobStatus({ interrupted: true, exitCode: 0 }), 'unknown');
  });

  it('its watcher went away: lost, over everything else', () => {
    assert.equal(jobStatus({ lost: true }), 'lost');
    assert.equal(jobStatus({ lost: true, exitCode: 0 }), 'lost');
    assert.equal(jobStatus({ lost: true, timedOut: true }), 'lost');
    assert.equal(jobStatus(0, true), 'lost');
  });

  it('the runner’s own facts: a timeout, a signal and an abort as factOf records them', () => {
    const base = { log: '', durationMs: 10 };
    assert.equal(jobStatus(factOf({ ...base, exitCode: null, signal: 'SIGTERM', timedOut: true }, 2)), 'failed');
    assert.equal(jobStatus(factOf({ ...base, exitCode: null, signal: 'SIGSEGV', timedOut: false }, 2)), 'unknown');
    assert.equal(jobStatus(factOf({ ...base, exitCode: null, signal: 'SIGTERM', timedOut: false, aborted: true }, 2)), 'unknown');
    assert.equal(jobStatus(factOf({ ...base, exitCode: 3, signal: null, timedOut: false }, 2)), 'failed');
    assert.equal(jobStatus(factOf({ ...base, exitCode: 0, signal: null, timedOut: false }, 2)), 'succeeded');
  });

  it('words for people', () => {
    assert.deepEqual(
      (['succeeded', 'failed', 'unknown', 'lost'] as const).map(jobStatusWords),
      ['succeeded', 'failed', 'ended with status unknown', 'was lost (its watcher went away)'],
    );
  });
});

describe('a timed-out command: the fact, the sidebar, the alert and the pulse agree', () => {
  const fact = factOf({ exitCode: null, signal: 'SIGTERM', timedOut: true, durationMs: 120_000, log: 'begun\n' }, 2);
  const row: CommandRow = {
    id: 'c-slowtests1',
    command: 'npm test',
    cwd: '/home/dev/project',
    timeoutMinutes: 2,
    schedule: { kind: 'once', at: '2026-10-02T07:00:00.000Z' },
    tz: 'UTC',
    status: 'fired',
    nextRunAt: null,
    createdAt: '2026-10-01T08:00:00.000Z',
    firedAt: '2026-10-02T07:00:00.000Z',
    fact,
  };

  it('failed everywhere; the pulse says exit_code null and timed_out; run exits 124', async () => {
    assert.equal(jobStatus(fact), 'failed');

    const side = factLine(row, new Date('2026-10-02T08:00:00.000Z'));
    assert.equal(side.tone, 'error');
    assert.match(side.text, /^timed out after 2 min/);

    assert.equal(causeOf(fact), 'timeout');
    assert.match(alertText(row, fact, null), /^Command c-slowtests1 failed \(timeout\): npm test\n/);

    assert.equal(exitCodeOf(fact), TIMED_OUT_EXIT);

    // The wake waiting on it (here through the path `life-thread run` takes) records the same status.
    const dir = dirs.freshDir();
    const store = new WakeStore({ dir });
    const now = new Date('2026-10-02T07:02:00.000Z');
    const parsed = parseWakeInput({ text: 'look at the slow tests', when: 'job.done', job_id: 'j-slowtests' }, { now, tz: 'UTC' });
    assert.equal(parsed.kind, 'wake');
    if (parsed.kind !== 'wake') return;
    await store.add(parsed, { now });
    const [wake] = await triggerJobWakes(store, 'j-slowtests', { fact, exitCode: exitCodeOf(fact), logFile: `${dir}/logs/none.log` }, holder, now);
    assert.ok(wake);
    assert.deepEqual([wake.fact?.jobStatus, wake.fact?.exitCode, wake.fact?.timedOut], ['failed', null, true]);
    const pulse = renderPulse(wake, pulseEventOfRow(wake));
    assert.match(pulse, /\n {2}job: \{ id: "j-slowtests", status: failed, exit_code: null, timed_out: true \}\n/);
    assert.deepEqual((pulseJson(wake).life_wake as { job: unknown }).job, { id: 'j-slowtests', status: 'failed', exit_code: null, timed_out: true });
  });

  it('a job that did not time out has no timed_out key', () => {
    const pulse = renderPulse({ text: 'x', when: 'job.done', jobId: 'tests' }, { job: { status: 'failed', exitCode: 1 } });
    assert.match(pulse, /job: \{ id: "tests", status: failed, exit_code: 1 \}/);
    assert.doesNotMatch(pulse, /timed_out/);
  });
});
