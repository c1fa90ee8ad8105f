/**
 * What the `life-thread` CLI costs a terminal, measured
 * on real `node dist/cli.js …` child processes (build first):
 * - cli_help_cpu_ratio: CPU time (user + system) of `--help` over that of `node -e 0` (target 1.5).
 * - cli_add_cpu_ratio: `remind add` into a store of 100 reminders over `node -e 0` (target 2).
 * - cli_add_10k_cpu_ratio: the same at 10,000 reminders (target 3).
 * - cli_add_50k_peak_rss_mb: the peak RSS of `remind add` at 50,000 reminders (target 128 MB).
 * Each child's CPU and peak RSS come from its own process.resourceUsage() at exit, written by a tiny
 * preload to an extra pipe; the baseline `node -e 0` runs with the same preload, interleaved with the
 * measured runs so both see the same machine load. Ratios are of medians over RUNS runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ReminderRow } from '../../../src/core/schema';
import { ScheduleStore } from '../../../src/node/schedule';
import { percentile, round, writeFigures, type Figure } from '../figures';

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(ROOT, 'test-results');
const CLI = join(ROOT, 'dist', 'cli.js');
const RUNS = 9;

interface Usage {
  cpuMs: number;
  rssMb: number;
}

const work = mkdtempSync(join(tmpdir(), 'lt-bench-cli-'));
const preload = join(work, 'usage.cjs');
writeFileSync(
  preload,
  "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeSync(3, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, rssMb: u.maxRSS / 1024 }) + '\\n'); });\n",
);

/** Runs `node <args>` with the preload; its usage, or an error naming the exit code and stderr. */
function child(args: string[], expectCode = 0): Usage {
  const r = spawnSync(process.execPath, ['-r', preload, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, LIFE_THREAD_JOB: '', LIFE_THREAD_TZ: 'UTC' },
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== expectCode) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr)}`);
  return JSON.parse(String(r.output[3])) as Usage;
}

/** A store of `n` reminders, written once by the store itself (so its digest is as a writer leaves it). */
async function storeOf(n: number): Promise<string> {
  const dir = join(work, `store-${n}`);
  const store = new ScheduleStore({ dir });
  const created = new Date().toISOString();
  const rows: ReminderRow[] = Array.from({ length: n }, (_, i) => ({
    id: `r-bench${String(i).padStart(8, '0')}`,
    text: `bench reminder ${i}: water the plants and check the build`,
    schedule: { kind: 'once', at: '2099-01-01T09:00:00.000Z' },
    tz: 'UTC',
    status: 'pending',
    nextRunAt: '2099-01-01T09:00:00.000Z',
    createdAt: created,
  }));
  await store.reminders.update(() => ({ rows, result: undefined }));
  return dir;
}

interface Sample {
  base: number[];
  cpu: number[];
  rss: number[];
}

function measure(args: string[]): Sample {
  const s: Sample = { base: [], cpu: [], rss: [] };
  child(args); // warm the file cache
  for (let i = 0; i < RUNS; i++) {
    s.base.push(child(['-e', '0']).cpuMs);
    const u = child(args);
    s.cpu.push(u.cpuMs);
    s.rss.push(u.rssMb);
  }
  return s;
}

function ratio(name: string, s: Sample, target: number, figures: Record<string, Figure>): void {
  const base = percentile(s.base, 50);
  const cpu = percentile(s.cpu, 50);
  figures[name] = { value: round(cpu / base), unit: 'x', target, baseline: 1 };
  console.log(`${name}: ${round(cpu / base)}x (median ${round(cpu, 1)} ms CPU; baseline node -e 0: ${round(base, 1)} ms) target ≤ ${target}x`);
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run node scripts/build.mjs first`);
  const figures: Record<string, Figure> = {};
  const help = measure([CLI, '--help']);
  // The ratios' baseline (1x), in ms: information, no target.
  figures.cli_baseline_cpu_ms = { value: round(percentile(help.base, 50), 1), unit: 'ms' };
  ratio('cli_help_cpu_ratio', help, 1.5, figures);
  const add = (dir: string): string[] => [CLI, 'remind', 'add', '--store', dir, '--text', 'stretch', '--when', 'in 20 minutes'];
  ratio('cli_add_cpu_ratio', measure(add(await storeOf(100))), 2, figures);
  ratio('cli_add_10k_cpu_ratio', measure(add(await storeOf(10_000))), 3, figures);
  const big = measure(add(await storeOf(50_000)));
  const peak = Math.max(...big.rss);
  const baseRss = child(['-e', '0']).rssMb;
  figures.cli_add_50k_peak_rss_mb = { value: round(peak, 1), unit: 'MB', target: 128, baseline: round(baseRss, 1) };
  console.log(`cli_add_50k_peak_rss_mb: ${round(peak, 1)} MB (baseline node -e 0: ${round(baseRss, 1)} MB; CPU ${round(percentile(big.cpu, 50) / percentile(big.base, 50))}x) target ≤ 128 MB`);
  writeFigures(RESULTS, 'cli', figures);
  for (const f of Object.values(figures)) if (f.target !== undefined && f.value > f.target) process.exitCode = 1;
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
