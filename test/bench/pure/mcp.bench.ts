/**
 * Benchmarks of Life Thread for agents outside the chat view:
 * - mcp_call_p95_ms: `lifethread_remind` add in words through a warm `life-thread mcp` (the SDK's own
 *   client over stdio), on a store of 1,000 reminders. Baseline, in the same run and on the same
 *   store: the same add through the CLI's JSON mode (`remind add … --json`), counting its process
 *   start — what an agent pays without the server. Target: 50 ms and at most 2 × that baseline.
 * - wait_late_p99_ms: from a wake's due time to `life-thread wait <id>` printing its pulse (the
 *   waiting process claims and delivers the wake itself). Target 250 ms.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ownerOf } from '../../../src/core/claim';
import { parseWakeInput } from '../../../src/core/wake/contract';
import { cliHolder } from '../../../src/node/liveness';
import { ScheduleStore } from '../../../src/node/schedule';
import { WakeStore } from '../../../src/node/wakes';
import { percentile, round, writeFigures, type Figure } from '../figures';

/** The checkout: the folder above this file with package.json and the CLI's sources. */
function repoRoot(): string {
  for (let d = __dirname; d !== dirname(d); d = dirname(d)) if (existsSync(join(d, 'package.json')) && existsSync(join(d, 'src', 'cli', 'main.ts'))) return d;
  throw new Error(`no checkout above ${__dirname}`);
}
const ROOT = repoRoot();
const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(ROOT, 'test-results');
const CLI = join(ROOT, 'dist', 'cli.js');
const ROWS = 1000;
const CALLS = 60;
const CLI_RUNS = 20;
const WAITS = 30;
const WAIT_BATCH = 2;
/** Time for the waiter's process to start before the wake is due: lateness is the wait's, not the process start's. */
const LEAD_MS = 3000;
const env = { ...process.env, TZ: 'UTC', LIFE_THREAD_STORE: '' };

function cliAdd(store: string, i: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, 'remind', 'add', '--text', `baseline ${i}`, '--when', 'in 20 minutes', '--tz', 'Europe/Berlin', '--json', '--store', store], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`cli add exited ${code}: ${err}`))));
  });
}

async function mcpCall(figures: Record<string, Figure>): Promise<void> {
  const store = mkdtempSync(join(tmpdir(), 'lt-bench-mcp-'));
  try {
    const schedule = new ScheduleStore({ dir: store });
    const now = new Date();
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      id: `r-bench${String(i).padStart(5, '0')}`,
      text: `reminder ${i} with a realistic prompt of a few words`,
      schedule: { kind: 'once' as const, at: new Date(now.getTime() + (i + 1) * 3600_000).toISOString() },
      tz: 'Europe/Berlin',
      status: 'pending' as const,
      nextRunAt: new Date(now.getTime() + (i + 1) * 3600_000).toISOString(),
      createdAt: now.toISOString(),
    }));
    await schedule.reminders.update(() => ({ rows, result: undefined }));

    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--store', store, '--tz', 'Europe/Berlin'], env: env as Record<string, string>, stderr: 'inherit' });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    const add = async (i: number): Promise<number> => {
      const t0 = performance.now();
      const r = (await client.callTool({ name: 'lifethread_remind', arguments: { action: 'add', text: `mcp ${i}`, when: 'in 20 minutes' } })) as CallToolResult;
      const ms = performance.now() - t0;
      if (r.isError) throw new Error(`remind add failed: ${JSON.stringify(r.content)}`);
      return ms;
    };
    for (let i = 0; i < 5; i++) await add(-i - 1);
    const mcp: number[] = [];
    const cli: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      mcp.push(await add(i));
      // The baseline runs interleaved, on the same store, so both see the same load and table size.
      if (i % Math.ceil(CALLS / CLI_RUNS) === 0) cli.push(await cliAdd(store, i));
    }
    await client.close();
    const p95 = percentile(mcp, 95);
    const base = percentile(cli, 95);
    figures.mcp_call_p95_ms = { value: round(p95), unit: 'ms', target: round(Math.min(50, 2 * base)), baseline: round(base) };
    console.log(
      `mcp call: ${CALLS} remind adds through a warm server on ${ROWS}+ rows: p50 ${round(percentile(mcp, 50))} ms, p95 ${round(p95)} ms; ` +
        `CLI --json (process start included) p50 ${round(percentile(cli, 50))} ms, p95 ${round(base)} ms over ${cli.length} runs`,
    );
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}

/** One `wait` on a wake due at `due`: resolves with how late after `due` its pulse was printed. */
function waitLate(store: string, id: string, due: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'wait', id, '--store', store, '--timeout', '30'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let late: number | undefined;
    let err = '';
    child.stdout.on('data', () => {
      late ??= Date.now() - due;
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && late !== undefined ? resolve(late) : reject(new Error(`wait exited ${code}: ${err}`))));
  });
}

async function waitLateness(figures: Record<string, Figure>): Promise<void> {
  const store = mkdtempSync(join(tmpdir(), 'lt-bench-wait-'));
  try {
    const wakes = new WakeStore({ dir: store });
    const owner = ownerOf(cliHolder(), { kind: 'cli', cwd: store });
    const lates: number[] = [];
    for (let b = 0; b < WAITS / WAIT_BATCH; b++) {
      const runs: Promise<number>[] = [];
      for (let k = 0; k < WAIT_BATCH; k++) {
        const now = new Date();
        const parsed = parseWakeInput({ text: `bench ${b}.${k}`, delay_seconds: 2 }, { now, tz: 'UTC' });
        if (parsed.kind !== 'wake' || parsed.nextRunAt === null) throw new Error('not a timer wake');
        const due = new Date(now.getTime() + LEAD_MS + k * 100);
        const row = await wakes.add({ ...parsed, nextRunAt: due }, { now, owner });
        runs.push(waitLate(store, row.id, due.getTime()));
      }
      lates.push(...(await Promise.all(runs)));
    }
    const p99 = percentile(lates, 99);
    figures.wait_late_p99_ms = { value: round(p99), unit: 'ms', target: 250 };
    console.log(`wait lateness: ${lates.length} wakes, ${WAIT_BATCH} waiting at once: p50 ${round(percentile(lates, 50))} ms, p99 ${round(p99)} ms, max ${round(Math.max(...lates))} ms`);
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const figures: Record<string, Figure> = {};
  await mcpCall(figures);
  await waitLateness(figures);
  writeFigures(RESULTS, 'mcp', figures);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
