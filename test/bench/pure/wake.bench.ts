/**
 * Benchmark of the life-thread wake's cost on a huge log (the wake is a few hundred
 * characters, never the log):
 * - wake_pulse_100mb_ms: median time to read a 100 MB log's tail + summarise + render the pulse,
 *   over 25 runs. Baseline: the time just to stream the whole log once, which any full-log wake
 *   would pay at least.
 * The pulse's length is capped by renderPulse, so it is a test (test/unit/wakeLogTail.test.ts, with
 * bounded memory), not a figure; wake_chars_p95 over real output is in ./summary.bench.ts.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { PULSE_MAX_CHARS } from '../../../src/core/wake/contract';
import { jobStatus } from '../../../src/core/wake/jobStatus';
import { renderPulse, summaryFromLogTail, type PulseWake } from '../../../src/core/wake/pulse';
import { readLogTail } from '../../../src/node/wakes';
import { percentile, round, writeFigures, type Figure } from '../figures';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');
const LOG_BYTES = 100 * 1024 * 1024;
const RUNS = 25;

const WAKE: PulseWake = {
  text: 'The full test suite finished. Open the report, find the failing tests and fix them before continuing with the refactor.',
  when: 'job.done',
  jobId: 'npm test',
};

/** Writes ~100 MB of mocha-like output, ending with its summary; returns the bytes written. */
async function writeLog(file: string): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  let n = 0;
  const suites = ['store', 'dispatch', 'time', 'landing', 'desk', 'wake'];
  while (bytes < LOG_BYTES) {
    let chunk = `\n  ${suites[n % suites.length] ?? 'suite'}\n`;
    for (let i = 0; i < 200; i++, n++) {
      chunk += n % 9973 === 0 ? `    ${n % 50}) fails on case ${n}\n` : `    ✔ handles case ${n} with a realistic title of moderate length (${n % 97}ms)\n`;
    }
    const buf = Buffer.from(chunk);
    bytes += buf.length;
    if (!out.write(buf)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  const summary = `\n\n  ${n - Math.floor(n / 9973) - 1} passing (6m)\n  ${Math.floor(n / 9973) + 1} failing\n\n  1) store\n       writes:\n     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal\n`;
  const tail = Buffer.from(summary);
  bytes += tail.length;
  out.write(tail);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return bytes;
}

/** Streams the whole log once and counts its characters (what a full-log wake would carry). */
async function fullLogChars(file: string): Promise<{ chars: number; ms: number }> {
  const t0 = performance.now();
  const decoder = new StringDecoder('utf8');
  let chars = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) chars += decoder.write(chunk as Buffer).length;
  chars += decoder.end().length;
  return { chars, ms: performance.now() - t0 };
}

async function pulseOnce(file: string): Promise<string> {
  const tail = await readLogTail(file);
  const summary = summaryFromLogTail(tail.text, { truncated: tail.truncated });
  return renderPulse(WAKE, { job: { status: jobStatus(1), exitCode: 1 }, summary, landing: { kind: 'deep_link', uri: `file://${file}` }, desk: 'none' }, { maxChars: PULSE_MAX_CHARS });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lt-bench-wake-'));
  const file = join(dir, 'job.log');
  try {
    const bytes = await writeLog(file);
    const full = await fullLogChars(file);
    const pulse = await pulseOnce(file);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await pulseOnce(file);
      times.push(performance.now() - t0);
    }
    const fullReads: number[] = [full.ms];
    for (let i = 0; i < 2; i++) fullReads.push((await fullLogChars(file)).ms);
    console.log(`log: ${bytes} bytes, ${full.chars} characters; pulse ${pulse.length} characters:\n${pulse}`);
    const figures: Record<string, Figure> = {
      wake_pulse_100mb_ms: { value: round(percentile(times, 50)), unit: 'ms', target: 50, baseline: round(percentile(fullReads, 50)) },
    };
    console.log(JSON.stringify(figures, null, 2));
    writeFigures(RESULTS, 'wake', figures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
