/**
 * `life-thread run` inside a sandbox with its own PID namespace (`unshare --pid --fork --mount-proc`,
 * as Codex's sandbox runs commands) and `life-thread wait` outside it, started while the job runs: the
 * waiter cannot see the run's pid, so it must not fire the wake as lost; the wake fires when the job
 * ends, with the job's own exit code (README "How the lock works"). A run that waiter cannot see is
 * judged by the heartbeat it renews on its wake: once that is stale the wake fires as lost.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { HEARTBEAT_STALE_MS, ownerOf } from '../../src/core/claim';
import { parseWakeInput } from '../../src/core/wake/contract';
import { holderFor } from '../../src/node/liveness';
import { selfIdentity } from '../../src/node/lock';
import { WakeStore } from '../../src/node/wakes';
import { baseEnv, CLI, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-cli-pidns-');
const SANDBOX = ['--pid', '--fork', '--mount-proc'];

function sandboxUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'PID namespaces are a Linux feature';
  const probe = spawnSync('unshare', [...SANDBOX, 'true'], { encoding: 'utf8' });
  if (probe.error) return `unshare cannot be run here (${probe.error.message})`;
  if (probe.status !== 0) return `unshare ${SANDBOX.join(' ')} is not permitted here (exit ${String(probe.status)}: ${probe.stderr.trim()})`;
  return undefined;
}

interface PulseJson {
  life_wake: { wake: string; job: { id: string; status: string; exit_code: number | null } | null; summary: string | null };
}

describe('a run in its own PID namespace, waited on from outside', () => {
  it('the wake fires when the job ends, with its exit code, not as lost while it runs', { skip: sandboxUnavailable(), timeout: 120_000 }, async () => {
    const store = stores.freshStore();
    const started = Date.now();
    const run = spawn('unshare', [...SANDBOX, process.execPath, CLI, 'run', '--json', '--store', store, '--wake', 'the sandboxed job ended', '--', 'sh', '-c', 'sleep 6; exit 3'], {
      cwd: store,
      env: baseEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    run.stderr.setEncoding('utf8');
    const ids = new Promise<{ jobId: string; wakeId: string }>((resolve, reject) => {
      run.stderr.on('data', (c: string) => {
        stderr += c;
        const line = stderr.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line) as { jobId: string; wakeId: string });
      });
      run.on('close', () => reject(new Error(`run ended before it named its wake: ${stderr}`)));
    });
    const runEnd = new Promise<{ code: number | null; at: number }>((resolve) => run.on('close', (code) => resolve({ code, at: Date.now() })));
    try {
      const { jobId, wakeId } = await ids;
      const row = await new WakeStore({ dir: store }).get(wakeId);
      assert.ok(row?.owner?.pidns !== undefined && row.owner.pidns !== selfIdentity().pidns, `the run's owner names another namespace: ${JSON.stringify(row?.owner)}`);
      assert.ok(row.watchedAt !== undefined, 'the run records a heartbeat on its wake');

      // Mid-job: the command sleeps 6 s from about now.
      await new Promise((r) => setTimeout(r, 1500));
      const waitStarted = Date.now();
      const waited = await runCli(['wait', wakeId, '--store', store, '--json', '--timeout', '90'], { cwd: store });
      const waitEnded = Date.now();
      const ran = await runEnd;

      assert.equal(waited.code, 0, `wait → ${String(waited.code)}\nstdout: ${waited.stdout}\nstderr: ${waited.stderr}`);
      const pulse = JSON.parse(waited.stdout) as PulseJson;
      assert.deepEqual(pulse.life_wake.job, { id: jobId, status: 'failed', exit_code: 3 });
      assert.equal(ran.code, 3, `run exits with the job's code; stderr: ${stderr}`);
      assert.ok(waitEnded - started >= 6000, `wait returned ${waitEnded - started} ms after the run started, before its 6 s job could end`);
      assert.ok(waitEnded - waitStarted >= 1000, `wait returned ${waitEnded - waitStarted} ms after it started, mid-job`);
    } finally {
      if (run.exitCode === null && run.signalCode === null) run.kill('SIGKILL');
      await runEnd;
    }
  });
});

describe('a run in another PID namespace that stopped renewing its heartbeat', () => {
  const noNamespace = selfIdentity().pidns === undefined ? 'this system shows no /proc/self/ns/pid' : undefined;

  async function sandboxedRunWake(store: string, silentMs: number): Promise<{ wakeId: string; jobId: string }> {
    const jobId = `j-ns${silentMs}`;
    const parsed = parseWakeInput({ text: 'the sandboxed job ended', when: 'job.done', job_id: jobId }, { now: new Date(), tz: 'UTC' });
    if (parsed.kind !== 'wake') throw new Error('not a wake');
    const beat = new Date(Date.now() - silentMs);
    const owner = ownerOf({ ...holderFor('cli'), pidns: 'pid:[4026530001]' }, { kind: 'cli', cwd: store });
    const row = await new WakeStore({ dir: store }).add(parsed, { now: beat, owner, jobStartedAt: beat, watchedAt: beat });
    return { wakeId: row.id, jobId };
  }

  it('fires as lost once the heartbeat is stale, and not while it is fresh', { skip: noNamespace, timeout: 60_000 }, async () => {
    const store = stores.freshStore();
    const fresh = await sandboxedRunWake(store, 1000);
    const stale = await sandboxedRunWake(store, HEARTBEAT_STALE_MS + 10_000);

    const waitedFresh = await runCli(['wait', fresh.wakeId, '--store', store, '--json', '--timeout', '2'], { cwd: store });
    assert.equal(waitedFresh.code, 4, `a fresh heartbeat keeps the wake waiting: ${waitedFresh.stdout} ${waitedFresh.stderr}`);
    assert.equal((await new WakeStore({ dir: store }).get(fresh.wakeId))?.status, 'pending');

    const waitedStale = await runCli(['wait', stale.wakeId, '--store', store, '--json', '--timeout', '30'], { cwd: store });
    assert.equal(waitedStale.code, 0, `wait → ${String(waitedStale.code)}\nstdout: ${waitedStale.stdout}\nstderr: ${waitedStale.stderr}`);
    const pulse = JSON.parse(waitedStale.stdout) as PulseJson;
    assert.deepEqual(pulse.life_wake.job, { id: stale.jobId, status: 'lost', exit_code: null });
    assert.match(pulse.life_wake.summary ?? '', /sent no heartbeat/);
  });
});
