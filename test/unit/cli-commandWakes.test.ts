/**
 * A `job.done` wake on a command row (`c-…`) end to end with the built CLI (src/node/commandWakes.ts):
 * `dispatch --once` that runs the row triggers it in the same pass and `wait` prints it; a row
 * removed first fires it as lost; a run that ended before the wake was set does not count; a fact
 * whose runner died before the trigger is re-derived by `wait`.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseWakeInput } from '../../src/core/wake/contract';
import type { CommandRow } from '../../src/core/schema';
import { ScheduleStore } from '../../src/node/schedule';
import { WakeStore } from '../../src/node/wakes';
import { runCli, tempStores, type CliResult } from './helpers/cliHarness';

const stores = tempStores('lt-cli-cwake-');

function cli(args: string[], cwd = stores.root()): Promise<CliResult> {
  return runCli(args, { cwd });
}

async function ok(args: string[], cwd?: string): Promise<string> {
  const r = await cli(args, cwd);
  assert.equal(r.code, 0, `${args.join(' ')} → ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

async function idOf(args: string[]): Promise<string> {
  return (JSON.parse(await ok([...args, '--json'])) as { id: string }).id;
}

interface PulseJson {
  text: string;
  life_wake: { wake: string; reason: string; job: { id: string; status: string; exit_code: number | null } | null; summary: string | null; redelivered?: boolean };
}

async function waitJson(store: string, wake: string, timeoutS = 15): Promise<PulseJson> {
  const out = await ok(['wait', wake, '--store', store, '--json', '--timeout', String(timeoutS)]);
  return JSON.parse(out) as PulseJson;
}

/** A command row that prints a test count and fails, with a job.done wake set on it. */
async function rowWithWake(store: string, command = 'echo "12 passed, 1 failed"; exit 1'): Promise<{ row: string; wake: string }> {
  const row = await idOf(['schedule', 'add-command', '--store', store, '--command', command, '--when', 'in 1 hour']);
  const wake = await idOf(['wake', 'add', '--store', store, '--text', 'look at the nightly run', '--on', 'job.done', '--job-id', row]);
  return { row, wake };
}

describe('job.done wakes on command rows', { concurrency: 2 }, () => {
  it('dispatch --once runs the row: wait prints failed, exit code 1 and the summary', async () => {
    const store = stores.freshStore();
    const { row, wake } = await rowWithWake(store);
    await ok(['schedule', 'run-now', row, '--store', store]);
    await ok(['dispatch', '--once', '--store', store]);
    const p = await waitJson(store, wake);
    assert.equal(p.text, 'look at the nightly run');
    assert.deepEqual(p.life_wake.job, { id: row, status: 'failed', exit_code: 1 });
    assert.equal(p.life_wake.summary, '12 passed, 1 failed');
    assert.equal(p.life_wake.redelivered, undefined);
    const fired = await new WakeStore({ dir: store }).get(wake);
    assert.equal(fired?.status, 'fired');
    assert.equal(fired?.fact?.via, 'wait');
  });

  it('the same when dispatch --once runs from another working directory', async () => {
    const store = stores.freshStore();
    const elsewhere = fs.mkdtempSync(path.join(stores.root(), 'elsewhere-'));
    const { row, wake } = await rowWithWake(store, 'echo "all 4 tests passed"');
    await ok(['schedule', 'run-now', row, '--store', store]);
    await ok(['dispatch', '--once', '--store', store], elsewhere);
    const p = await waitJson(store, wake);
    assert.deepEqual(p.life_wake.job, { id: row, status: 'succeeded', exit_code: 0 });
    assert.equal(p.life_wake.summary, 'all 4 tests passed');
  });

  it('a row removed before it ran: the wake fires as lost with the reason', async () => {
    const store = stores.freshStore();
    const { row, wake } = await rowWithWake(store);
    await ok(['schedule', 'remove', row, '--store', store]);
    assert.equal((await new WakeStore({ dir: store }).get(wake))?.status, 'held');
    const p = await waitJson(store, wake);
    assert.deepEqual(p.life_wake.job, { id: row, status: 'lost', exit_code: null });
    assert.match(p.life_wake.summary ?? '', new RegExp(`${row} was removed before a run of it ended`));
  });

  it('a run that ended before the wake was set does not trigger it; the next run does', async () => {
    const store = stores.freshStore();
    const row = await idOf(['schedule', 'add-command', '--store', store, '--command', 'echo "first run"; exit 3', '--when', 'in 1 hour']);
    await ok(['schedule', 'run-now', row, '--store', store]);
    await ok(['dispatch', '--once', '--store', store]);
    const wake = await idOf(['wake', 'add', '--store', store, '--text', 'the next run', '--on', 'job.done', '--job-id', row]);
    const early = await cli(['wait', wake, '--store', store, '--json', '--timeout', '1.5']);
    assert.equal(early.code, 4, `${early.stdout}\n${early.stderr}`);
    assert.equal(early.stdout, '');
    assert.equal((await new WakeStore({ dir: store }).get(wake))?.status, 'pending');
    // Nothing ran after the wake was set: a second pass that runs nothing leaves it waiting too.
    await ok(['dispatch', '--once', '--store', store]);
    assert.equal((await new WakeStore({ dir: store }).get(wake))?.status, 'pending');
    await ok(['schedule', 'run-now', row, '--store', store]);
    await ok(['dispatch', '--once', '--store', store]);
    assert.deepEqual((await waitJson(store, wake)).life_wake.job, { id: row, status: 'failed', exit_code: 3 });
  });

  it('a fact whose runner died before triggering the wake: wait re-derives the trigger from it', async () => {
    const store = stores.freshStore();
    const row = await idOf(['schedule', 'add-command', '--store', store, '--command', 'exit 2', '--when', 'in 1 hour']);
    // Set two minutes ago, while the run was in flight; the run ended a minute later and no trigger was written.
    const created = Date.now() - 120_000;
    const wake = await idOf(['wake', 'add', '--store', store, '--text', 'the run in flight', '--on', 'job.done', '--job-id', row, '--now', new Date(created).toISOString()]);
    const firedAt = new Date(created - 10_000).toISOString();
    const schedule = new ScheduleStore({ dir: store });
    await schedule.commands.update((rows) => ({
      rows: rows.map((r): CommandRow => (r.id === row ? { ...r, status: 'fired', nextRunAt: null, firedAt, fact: { lateMs: 0, exitCode: 2, durationMs: 70_000 } } : r)),
      result: undefined,
    }));
    const p = await waitJson(store, wake);
    assert.deepEqual(p.life_wake.job, { id: row, status: 'failed', exit_code: 2 });
  });

  it('a waiter that died after its claim: the next wait prints the pulse marked redelivered, and the row says so', async () => {
    const store = stores.freshStore();
    const wakes = new WakeStore({ dir: store });
    const parsed = parseWakeInput({ text: 'printed once already?', when: 'timer', delay_seconds: 1 }, { now: new Date(), tz: 'UTC' });
    assert.equal(parsed.kind, 'wake');
    if (parsed.kind !== 'wake') return;
    const row = await wakes.add(parsed, { now: new Date(), owner: { kind: 'cli' } });
    const { selfIdentity } = await import('../../src/node/lock');
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const me = selfIdentity();
    const claimed = await wakes.claimDue({ now: new Date(Date.now() + 5000), holder: { pid: gone, window: 'cli', host: me.host, ...(me.boot ? { boot: me.boot } : {}) } }, { eligible: () => true });
    assert.deepEqual(claimed.claimed.map((c) => c.id), [row.id]);

    const p = await waitJson(store, row.id);
    assert.equal(p.life_wake.redelivered, true);
    const after = await wakes.get(row.id);
    assert.equal(after?.status, 'fired');
    assert.equal(after?.fact?.redelivered, true);
    assert.equal(after?.fact?.via, 'wait');
    // The text pulse says it too (a fired row is printed as it was delivered).
    const text = await ok(['wait', row.id, '--store', store, '--timeout', '5']);
    assert.match(text, /\n {2}redelivered: true$/m);
  });
});

describe('wait --timeout that printed', () => {
  it('records the delivery after its timeout passed (the lock held meanwhile) and exits 0', async () => {
    const { wait } = await import('../../src/cli/agentVerbs');
    const { runVerb } = await import('../../src/cli/context');
    const { parseArgs } = await import('../../src/cli/args');
    const { acquireLock } = await import('../../src/node/lock');
    const store = stores.freshStore();
    const wakes = new WakeStore({ dir: store });
    const parsed = parseWakeInput({ text: 'due now', when: 'timer', delay_seconds: 1 }, { now: new Date(Date.now() - 2000), tz: 'UTC' });
    if (parsed.kind !== 'wake') throw new Error('not a wake');
    const row = await wakes.add(parsed, { now: new Date(Date.now() - 2000), owner: { kind: 'cli' } });
    const argv = ['wait', row.id, '--store', store, '--json', '--timeout', '0.5'];
    let out = '';
    let printedAt = 0;
    let held: Promise<unknown> | undefined;
    const started = Date.now();
    const code = await runVerb(wait, {
      args: parseArgs(argv),
      rest: [row.id],
      json: true,
      env: { ...process.env, LIFE_THREAD_LOCK_WAIT_MS: '100' },
      cwd: stores.root(),
      io: {
        stdout: (t) => {
          out += t;
          printedAt = Date.now();
          // The lock is free right after the claim: taken here (synchronously), it keeps the record waiting past the timeout.
          held = acquireLock(path.join(store, '.locks', 'wakes.json'), { waitMs: 1000 }).then(async (lock) => {
            await new Promise((r) => setTimeout(r, 1500));
            await lock.release();
          });
        },
        stderr: () => undefined,
      },
    });
    await held;
    assert.equal(code, 0, out);
    assert.ok(printedAt > 0 && Date.now() - started >= 1500, 'the record waited for the lock past the 0.5 s timeout');
    assert.equal((JSON.parse(out) as PulseJson).life_wake.wake, row.id);
    const after = await wakes.get(row.id);
    assert.equal(after?.status, 'fired');
    assert.equal(after?.fact?.via, 'wait');
    assert.equal(after?.fact?.redelivered, undefined);
  });
});
