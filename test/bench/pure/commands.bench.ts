/**
 * Benchmarks of command jobs:
 * - command_overhead_p95_ms: 100 short commands (`true`) fired one after another through the real
 *   path — a command row in a real ScheduleStore, claimed by a pass, then fireClaimed() with a Firer
 *   that runs fireCommandRow(): verify the claim, spawn bash in its own group, exit, write the log under
 *   the table lock, record the fact. Baseline: a bare spawn('bash', ['-c', 'true']) until 'exit',
 *   interleaved with the measured runs in the same process so both see the same machine load.
 * - command_flood_peak_rss_mb / command_flood_s: runJob() on a command that prints 100 MB; the
 *   runner's RSS growth must stay bounded (the log is capped to head + tail, not buffered).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClaimedRun } from '../../../src/core/dispatch';
import type { CommandRow } from '../../../src/core/schema';
import { FactWriter, fireClaimed, type Firer } from '../../../src/node/fire';
import { fireCommandRow } from '../../../src/node/jobs';
import { runJob } from '../../../src/node/runner';
import { ScheduleStore } from '../../../src/node/schedule';
import { percentile, round, writeFigures, type Figure } from '../figures';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');
const holder = { pid: process.pid, window: 'bench' };
const limits = { reminder: 12 * 3600_000, command: 3600_000 };
const RUNS = 100;
const WARMUP = 5;
const MB = 1024 * 1024;

function gc(): void {
  const g: unknown = Reflect.get(globalThis, 'gc');
  if (typeof g === 'function') g();
}

function bareSpawn(): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('bash', ['-c', 'true'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - t0));
  });
}

async function overhead(figures: Record<string, Figure>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lt-bench-cmd-'));
  const cwd = mkdtempSync(join(tmpdir(), 'lt-bench-cwd-'));
  try {
    const store = new ScheduleStore({ dir });
    const created = new Date();
    const row: CommandRow = {
      id: 'c-benchtrue',
      command: 'true',
      cwd,
      timeoutMinutes: 2,
      schedule: { kind: 'once', at: created.toISOString() },
      tz: 'UTC',
      status: 'pending',
      nextRunAt: created.toISOString(),
      createdAt: created.toISOString(),
    };
    await store.commands.update(() => ({ rows: [row], result: undefined }));
    const firer: Firer = {
      reminder: () => Promise.reject(new Error('no reminders in this benchmark')),
      command: (r, run) => fireCommandRow(r, run, { storeDir: dir, store }),
    };

    const facts = new FactWriter(store);
    /** Makes the row due, claims it with a pass (not timed), and returns the claimed run. */
    const claim = async (): Promise<ClaimedRun> => {
      await store.runNow(row.id, new Date());
      const out = await store.pass({ now: new Date(), holder, limits });
      const run = out.commands.claimed[0];
      if (!run) throw new Error('the pass claimed no command row');
      return run;
    };
    /** spawn → exit → log written → fact recorded. */
    const fire = async (): Promise<number> => {
      const run = await claim();
      const t0 = performance.now();
      const fired = await fireClaimed(store, firer, run, facts);
      const ms = performance.now() - t0;
      if (!fired.recorded || fired.fact?.exitCode !== 0) throw new Error(`the run did not record exit 0: ${JSON.stringify(fired)}`);
      return ms;
    };

    for (let i = 0; i < WARMUP; i++) {
      await bareSpawn();
      await fire();
    }
    const full: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternate which goes first so neither always runs right after the other's cleanup.
      if (i % 2 === 0) {
        bare.push(await bareSpawn());
        full.push(await fire());
      } else {
        full.push(await fire());
        bare.push(await bareSpawn());
      }
    }
    const p95 = percentile(full, 95);
    const base = percentile(bare, 95);
    // Target: 3 × the bare-spawn p95 measured in this same run (an absolute value in ms, so it moves
    // with the machine instead of being a fixed number).
    figures.command_overhead_p95_ms = { value: round(p95), unit: 'ms', target: round(3 * base), baseline: round(base) };
    console.log(
      `command overhead: ${RUNS} runs of \`true\`; full path p50 ${round(percentile(full, 50))} ms, p95 ${round(p95)} ms, max ${round(Math.max(...full))} ms; ` +
        `bare spawn p50 ${round(percentile(bare, 50))} ms, p95 ${round(base)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function flood(figures: Record<string, Figure>): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'lt-bench-flood-'));
  try {
    gc();
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = (): void => {
      peak = Math.max(peak, process.memoryUsage().rss);
    };
    const timer = setInterval(sample, 20);
    const t0 = performance.now();
    const result = await runJob({ command: "head -c 100000000 /dev/zero | tr '\\0' a", cwd, timeoutMs: 5 * 60_000 });
    const seconds = (performance.now() - t0) / 1000;
    sample();
    clearInterval(timer);
    if (result.exitCode !== 0) throw new Error(`the flood command failed: ${JSON.stringify({ ...result, log: result.log.slice(0, 200) })}`);
    const growth = (peak - before) / MB;
    // MB here is MiB (2^20 bytes).
    figures.command_flood_peak_rss_mb = { value: round(growth, 1), unit: 'MB', target: 64 };
    figures.command_flood_s = { value: round(seconds), unit: 's' };
    console.log(`command flood: 100 MB of output in ${round(seconds)} s; runner RSS ${round(before / MB, 1)} MB before, peak +${round(growth, 1)} MB; log kept ${result.log.length} chars`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const figures: Record<string, Figure> = {};
  await overhead(figures);
  await flood(figures);
  writeFigures(RESULTS, 'commands', figures);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
