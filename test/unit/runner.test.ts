/**
 * The command job runner against real processes: a SIGTERM-ignoring tree,
 * 100 MB of output (ASCII and multi-byte), a grandchild holding stdout, setsid escapees, NUL byte,
 * missing cwd, exit codes, abort; and fireCommandRow over a real ScheduleStore (log written beside the
 * table, nothing left behind for a removed row, timeout counted from the claim).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ClaimedRun } from '../../src/core/dispatch';
import type { CommandRow } from '../../src/core/schema';
import { readLog, removeJobArtifacts, writeLogIfRowExists } from '../../src/node/jobLog';
import { fireCommandRow } from '../../src/node/jobs';
import { runJob, type JobResult } from '../../src/node/runner';
import { ScheduleStore } from '../../src/node/schedule';

let root = '';
let seq = 0;
const cleanup: (() => void)[] = [];
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lt-runner-'));
});
after(() => {
  for (const c of cleanup) c();
  fs.rmSync(root, { recursive: true, force: true });
});

function freshDir(): string {
  const d = path.join(root, `t${++seq}`);
  fs.mkdirSync(d);
  return d;
}

/** Alive and not a zombie (a zombie waits for its reaper; it runs nothing). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    try {
      process.kill(pid, 0);
      return !fs.existsSync('/proc');
    } catch {
      return false;
    }
  }
}

function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const n of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z') out.push(Number(n));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function killLater(pid: number, group = false): void {
  cleanup.push(() => {
    try {
      process.kill(group ? -pid : pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
}

function pidsIn(log: string, label: string): number[] {
  return [...log.matchAll(new RegExp(`${label} (\\d+)`, 'g'))].map((m) => Number(m[1]));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function cutCount(log: string): { cut: number; marker: string } {
  const m = /\n… \[cut (\d+) characters\] …\n/.exec(log);
  assert.ok(m, 'the cut is marked');
  return { cut: Number(m[1]), marker: m[0] };
}

async function bigOutput(command: string, expectedChars: number): Promise<{ result: JobResult; rssGrowth: number; ms: number }> {
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const t0 = performance.now();
  const result = await runJob({ command, cwd: root, timeoutMs: 20_000 });
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  assert.equal(result.exitCode, 0, result.error);
  assert.ok(result.log.length <= 32_000, `log ${result.log.length} chars`);
  assert.ok(result.log.length >= 31_998, `the log is filled to the cap, got ${result.log.length}`);
  const { cut, marker } = cutCount(result.log);
  assert.equal(result.log.length - marker.length + cut, expectedChars, 'kept + cut = everything the job wrote');
  assert.ok(!result.log.includes('\uFFFD'), 'no replacement characters');
  assert.ok(!LONE_SURROGATE.test(result.log), 'no broken surrogate pairs');
  return { result, rssGrowth: peak - rss0, ms };
}

describe('runJob', () => {
  it('reports the exit code and captures stdout and stderr in arrival order', async () => {
    const r = await runJob({ command: 'echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three; exit 3', cwd: root, timeoutMs: 3000 });
    assert.equal(r.exitCode, 3);
    assert.equal(r.signal, null);
    assert.equal(r.timedOut, false);
    assert.equal(r.error, undefined);
    assert.equal(r.log, 'one\ntwo\nthree\n');
  });

  it('runs in cwd with the given environment', async () => {
    const dir = freshDir();
    const r = await runJob({ command: 'pwd; echo "$LT_PROBE"', cwd: dir, env: { ...process.env, LT_PROBE: 'probe-42' }, timeoutMs: 3000 });
    assert.equal(r.exitCode, 0);
    assert.equal(r.log, `${fs.realpathSync(dir)}\nprobe-42\n`);
  });

  it('kills a whole tree that ignores SIGTERM when the timeout passes', async () => {
    let leader = 0;
    const r = await runJob({
      command: [
        'trap "" TERM',
        'sleep 30 & echo "pid $!"',
        `bash -c 'trap "" TERM; sleep 30 & echo "pid $!"; sleep 30' & echo "pid $!"`,
        'echo "pid $$"',
        'wait',
      ].join('\n'),
      cwd: root,
      timeoutMs: 800,
      killGraceMs: 400,
      onStart: (pid) => {
        leader = pid;
        killLater(pid, true);
      },
    });
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.equal(r.signal, 'SIGKILL');
    assert.equal(r.escaped, undefined);
    const pids = pidsIn(r.log, 'pid');
    assert.equal(pids.length, 4, r.log);
    assert.ok(pids.includes(leader));
    for (const pid of pids) assert.equal(alive(pid), false, `pid ${pid} is gone`);
    assert.deepEqual(groupMembers(leader), []);
    assert.ok(r.durationMs >= 1200 && r.durationMs < 4000, `took ${r.durationMs} ms`);
  });

  it('ends a run whose leader dies on SIGTERM without waiting for the grace period', async () => {
    const r = await runJob({ command: 'sleep 30', cwd: root, timeoutMs: 300, killGraceMs: 5000 });
    assert.equal(r.timedOut, true);
    assert.equal(r.signal, 'SIGTERM');
    assert.ok(r.durationMs < 2000, `took ${r.durationMs} ms`);
  });

  it('keeps 100 MB of ASCII output at the cap with bounded memory', async () => {
    const { rssGrowth, ms } = await bigOutput(`head -c 100000000 /dev/zero | tr '\\0' a`, 100_000_000);
    console.log(`# 100 MB ASCII: ${Math.round(ms)} ms, peak RSS growth ${(rssGrowth / 1048576).toFixed(1)} MB`);
    assert.ok(rssGrowth < 64 * 1048576, `RSS grew ${rssGrowth} bytes`);
  });

  it('keeps 100 MB of multi-byte output whole at chunk boundaries and at the cut', async () => {
    // 'é😀ab\n' is 9 bytes and 6 UTF-16 units; 11,111,111 lines are 99,999,999 bytes.
    const { rssGrowth, ms, result } = await bigOutput(`yes 'é😀ab' | head -c 99999999`, 11_111_111 * 6);
    console.log(`# 100 MB multi-byte: ${Math.round(ms)} ms, peak RSS growth ${(rssGrowth / 1048576).toFixed(1)} MB`);
    assert.ok(rssGrowth < 64 * 1048576, `RSS grew ${rssGrowth} bytes`);
    assert.ok(result.log.startsWith('é😀ab\né😀ab\n'));
    assert.ok(result.log.endsWith('é😀ab\né😀ab\n'));
  });

  it('ends when a grandchild keeps stdout open after the command exits', async () => {
    let leader = 0;
    const t0 = performance.now();
    const r = await runJob({
      command: '(sleep 30 &) ; echo done',
      cwd: root,
      timeoutMs: 20_000,
      drainMs: 300,
      onStart: (pid) => {
        leader = pid;
        killLater(pid, true);
      },
    });
    const ms = performance.now() - t0;
    assert.equal(r.exitCode, 0);
    assert.equal(r.timedOut, false);
    assert.equal(r.log, 'done\n');
    assert.ok(ms < 3000, `took ${Math.round(ms)} ms`);
    assert.ok(groupMembers(leader).length > 0, 'the grandchild is still there: a finished run is not killed');
  });

  it('reports a setsid escapee that survives the kill', async () => {
    const r = await runJob({ command: 'setsid sleep 30 & echo "esc $!"; sleep 30', cwd: root, timeoutMs: 600, killGraceMs: 300 });
    const [esc] = pidsIn(r.log, 'esc');
    assert.ok(esc, r.log);
    killLater(esc);
    assert.equal(r.timedOut, true);
    assert.deepEqual(r.escaped, [esc]);
    assert.match(r.error ?? '', new RegExp(`1 process left the job's process group and survived the kill: pid ${esc} \\(sleep\\)`));
    assert.equal(alive(esc), true);
  });

  it("finds an escapee whose parent is already gone by the job's environment marker", async () => {
    const value = `c-mark${process.pid}x${Date.now()}`;
    const r = await runJob({
      command: '(setsid sleep 30 &); sleep 30',
      cwd: root,
      env: { ...process.env, LT_TEST_MARK: value },
      marker: { name: 'LT_TEST_MARK', value },
      timeoutMs: 600,
      killGraceMs: 300,
    });
    for (const pid of r.escaped ?? []) killLater(pid);
    assert.equal(r.timedOut, true);
    assert.equal(r.escaped?.length, 1, r.error);
    assert.match(r.error ?? '', /\(sleep\)/);
  });

  it('turns a NUL byte in the command into an error result', async () => {
    const r = await runJob({ command: 'echo a\0b', cwd: root, timeoutMs: 1000 });
    assert.equal(r.error, 'command contains a NUL byte');
    assert.equal(r.exitCode, null);
    assert.equal(r.timedOut, false);
  });

  it('names a missing working directory', async () => {
    const missing = path.join(root, 'no', 'such', 'dir');
    const r = await runJob({ command: 'true', cwd: missing, timeoutMs: 1000 });
    assert.equal(r.error, `working directory ${missing} does not exist`);
    assert.equal(r.exitCode, null);
  });

  it('names a shell that cannot be started', async () => {
    const r = await runJob({ command: 'true', cwd: root, shell: path.join(root, 'no-such-shell'), timeoutMs: 1000 });
    assert.match(r.error ?? '', /could not start .*no-such-shell/);
  });

  it('kills the group when the abort signal fires', async () => {
    const ac = new AbortController();
    let leader = 0;
    const p = runJob({
      command: 'trap "" TERM; sleep 30 & wait',
      cwd: root,
      timeoutMs: 20_000,
      killGraceMs: 200,
      signal: ac.signal,
      onStart: (pid) => {
        leader = pid;
        killLater(pid, true);
      },
    });
    setTimeout(() => ac.abort('the window closed'), 200);
    const r = await p;
    assert.equal(r.aborted, true);
    assert.equal(r.timedOut, false);
    assert.equal(r.signal, 'SIGKILL');
    assert.match(r.error ?? '', /stopped before it ended \(the window closed\)/);
    assert.deepEqual(groupMembers(leader), []);
  });

  it('costs little over a bare spawn for a short command', async () => {
    const n = 15;
    const bare = async (): Promise<void> =>
      new Promise((resolve) => {
        const c = spawn('bash', ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] });
        c.on('close', () => resolve());
      });
    await bare();
    let t0 = performance.now();
    for (let i = 0; i < n; i++) await bare();
    const bareMs = (performance.now() - t0) / n;
    t0 = performance.now();
    for (let i = 0; i < n; i++) await runJob({ command: 'true', cwd: root, timeoutMs: 3000 });
    const jobMs = (performance.now() - t0) / n;
    console.log(`# short command: runJob ${jobMs.toFixed(1)} ms, bare spawn ${bareMs.toFixed(1)} ms, overhead ${(jobMs - bareMs).toFixed(1)} ms`);
    assert.ok(jobMs - bareMs < Math.max(50, bareMs), `overhead ${jobMs - bareMs} ms`);
  });
});

describe('fireCommandRow', () => {
  const now = new Date();
  const holder = { pid: process.pid, window: 'test' };

  async function claimed(store: ScheduleStore, command: string, cwd: string, timeoutMinutes = 1): Promise<{ row: CommandRow; run: ClaimedRun }> {
    const added = await store.addCommand({ command, cwd, envPath: undefined, when: 'in 1 minute', tz: 'UTC', now, timeoutMinutes });
    const pass = await store.pass({ now: new Date(now.getTime() + 61_000), holder });
    const run = pass.commands.claimed.find((c) => c.id === added.row.id);
    assert.ok(run, 'claimed');
    const row = await store.verifyClaim(run);
    assert.ok(row && 'command' in row);
    return { row, run };
  }

  it('runs the row with LIFE_THREAD_JOB and LIFE_THREAD_STORE and writes logs/<id>.log', async () => {
    const dir = freshDir();
    const work = freshDir();
    const store = new ScheduleStore({ dir });
    const { row, run } = await claimed(store, 'echo "job=$LIFE_THREAD_JOB store=$LIFE_THREAD_STORE"; echo "password=hunter2"; exit 4', work);
    const fact = await fireCommandRow(row, run, { storeDir: dir, store });
    assert.equal(fact.exitCode, 4);
    assert.equal(fact.timedOut, undefined);
    assert.equal(fact.error, undefined);
    assert.ok((fact.durationMs ?? -1) >= 0);
    assert.equal(await store.recordFact(run.id, run.token, fact), true);
    const log = await readLog(dir, row.id);
    assert.ok(log !== null);
    assert.match(log, new RegExp(`^job=${row.id} store=${path.resolve(dir)}\npassword=\\[REDACTED\\]\n\\[life-thread\\] exit code 4 after [\\d.]+ s\n$`));
    assert.deepEqual(fs.readdirSync(path.join(dir, 'logs')), [`${row.id}.log`], 'no temp files left');
  });

  it('keeps a large log redacted, within 32,000 characters with one marker and the trailer', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const cmd = 'echo "token=first-secret"; for i in $(seq 1 40000); do echo "pwd=x$i line $i"; done; echo "Authorization: Bearer last-secret-value"; exit 1';
    const { row, run } = await claimed(store, cmd, root);
    const fact = await fireCommandRow(row, run, { storeDir: dir, store });
    assert.equal(fact.exitCode, 1);
    const log = (await readLog(dir, row.id)) ?? '';
    assert.ok(log.length <= 32_000 && log.length > 31_000, `${log.length}`);
    assert.equal(log.match(/… \[cut \d+ characters\] …/g)?.length, 1);
    assert.ok(log.startsWith('token=[REDACTED]\npwd=[REDACTED] line 1\n'));
    assert.ok(!/pwd=x\d|first-secret|last-secret/.test(log));
    assert.match(log, /Authorization: Bearer \[REDACTED\]\n\[life-thread\] exit code 1 after [\d.]+ s\n$/);
  });

  it('a run whose whole timeout passed between claim and start (a stopped dispatcher) is not started: timedOut, the reason, no spawn', async () => {
    const dir = freshDir();
    const work = freshDir();
    const store = new ScheduleStore({ dir });
    const { row, run } = await claimed(store, 'echo ran >> ran.txt', work, 1);
    // A frozen holder: SIGSTOP after the claim, CONT minutes later. Before, the command still
    // started with 0 ms left, and its fact said exit 0 and "timed out after 2 min; the process group was killed".
    const late: ClaimedRun = { ...run, firedAt: new Date(Date.now() - 61_000).toISOString() };
    const fact = await fireCommandRow(row, late, { storeDir: dir, store });
    assert.equal(fs.existsSync(path.join(work, 'ran.txt')), false, 'the command did not run');
    assert.equal(fact.timedOut, true);
    assert.equal(fact.exitCode, null);
    assert.equal(fact.durationMs, 0);
    assert.match(fact.error ?? '', /^not started: its 1 min timeout, counted from the claim at .*, had passed/);
    assert.doesNotMatch(fact.error ?? '', /killed/);
    assert.match((await readLog(dir, row.id)) ?? '', /^\[life-thread\] timed out after 0\.00 s: not started/);
  });

  it('counts the timeout from the claim, not from the spawn', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const { row, run } = await claimed(store, 'sleep 30', root, 1);
    const early: ClaimedRun = { ...run, firedAt: new Date(Date.now() - 59_500).toISOString() };
    const t0 = performance.now();
    const fact = await fireCommandRow(row, early, { storeDir: dir, store, killGraceMs: 300 });
    assert.ok(performance.now() - t0 < 3000);
    assert.equal(fact.timedOut, true);
    assert.equal(fact.exitCode, null);
    assert.equal(fact.signal, 'SIGTERM');
    assert.match(fact.error ?? '', /timed out after 1 min/);
  });

  it('leaves no log behind for a row removed while it ran', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const { row, run } = await claimed(store, 'sleep 0.3; echo late', root);
    const firing = fireCommandRow(row, run, {
      storeDir: dir,
      store,
      onStart: () => {
        void store.remove(row.id).then(() => removeJobArtifacts(dir, row.id));
      },
    });
    const fact = await firing;
    assert.equal(fact.exitCode, 0);
    assert.equal(await store.recordFact(run.id, run.token, fact), false);
    assert.equal(await readLog(dir, row.id), null);
    assert.equal(fs.existsSync(path.join(dir, 'logs', `${row.id}.log`)), false);
  });

  it('removing a row after its log was written removes the log too', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const { row, run } = await claimed(store, 'echo hi', root);
    assert.equal(await writeLogIfRowExists(store, row.id, run.token, 'hi\n'), true);
    assert.equal(await readLog(dir, row.id), 'hi\n');
    await store.remove(row.id);
    await removeJobArtifacts(dir, row.id);
    assert.equal(await readLog(dir, row.id), null);
    assert.equal(await writeLogIfRowExists(store, row.id, run.token, 'late\n'), false);
    assert.equal(await readLog(dir, row.id), null);
  });

  it('with a stillExists check instead of the store, a vanished row leaves no log', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const { row, run } = await claimed(store, 'echo hi', root);
    let exists = true;
    const fact = await fireCommandRow(row, run, {
      storeDir: dir,
      stillExists: async () => {
        const r = exists;
        exists = false; // removed between the log write and the check after it
        return r;
      },
    });
    assert.equal(fact.exitCode, 0);
    assert.equal(await readLog(dir, row.id), null);
  });

  it('turns a missing cwd into a fact whose error names it, with a log saying so', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const missing = path.join(root, 'gone');
    const { row, run } = await claimed(store, 'true', missing);
    const fact = await fireCommandRow(row, run, { storeDir: dir, store });
    assert.equal(fact.exitCode, null);
    assert.equal(fact.error, `working directory ${missing} does not exist`);
    assert.match((await readLog(dir, row.id)) ?? '', /did not run.*does not exist/);
  });
});
