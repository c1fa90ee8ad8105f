/**
 * job_end_to_wake_p95_ms: from a job's end to its wake being claimed and ready to ignite, with a
 * file as the evidence (the pipeline the extension runs: write the evidence, read its tail,
 * summarize, claim the waiting wake). `baseline`: the rejected alternative, a loop that polls every
 * 0.5 s for the job's end, measured on the same jobs in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLink } from '../../../src/core/landing';
import { parseWakeInput, type NewWake } from '../../../src/core/wake/contract';
import { jobStatus, summaryFromLogTail } from '../../../src/core/wake/pulse';
import { WakeStore, readLogTail } from '../../../src/node/wakes';
import { percentile, round, writeFigures } from '../figures';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');
const RUNS = 50;
const holder = { pid: process.pid, window: 'bench' };
const LOG = `${Array.from({ length: 400 }, (_, i) => `  ✔ case ${i} (3ms)`).join('\n')}\n\n  398 passing (2s)\n  2 failing\n`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lt-bench-wake-'));
  const store = new WakeStore({ dir });
  const now = new Date();
  const pipeline: number[] = [];
  const polled: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const jobId = `job-${i}`;
    const parsed = parseWakeInput({ text: `job ${i} ended`, when: 'job.done', job_id: jobId }, { now, tz: 'UTC' }) as NewWake;
    await store.add(parsed, { now, jobStartedAt: now });
    // The event-driven pipeline: the job-end event is handled at once.
    const endedAt = performance.now();
    const evidence = join(dir, 'evidence', `${jobId}.log`);
    await mkdir(join(dir, 'evidence'), { recursive: true });
    await writeFile(evidence, LOG);
    const tail = await readLogTail(evidence);
    const summary = summaryFromLogTail(tail.text, { truncated: tail.truncated });
    const claimed = await store.claimTriggered((r) => r.jobId === jobId, { jobStatus: jobStatus(1), exitCode: 1, summary, landing: { kind: 'deep_link', uri: fileLink(evidence, 400, 404) }, desk: 'none' }, { now: new Date(), holder });
    if (claimed.length !== 1) throw new Error(`expected one claim for ${jobId}, got ${claimed.length}`);
    pipeline.push(performance.now() - endedAt);

    // The rejected alternative: a 0.5 s poll finds the end at its next tick, then does the same work.
    const pollJob = `poll-${i}`;
    const p2 = parseWakeInput({ text: `poll ${i}`, when: 'job.done', job_id: pollJob }, { now, tz: 'UTC' }) as NewWake;
    await store.add(p2, { now, jobStartedAt: now });
    // The poll loop runs already; the job ends at a random point of its 0.5 s period.
    let done = false;
    let ended = 0;
    const detected = new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        if (!done) return;
        clearInterval(tick);
        resolve();
      }, 500);
    });
    setTimeout(() => {
      ended = performance.now();
      done = true;
    }, Math.random() * 500);
    await detected;
    const claimed2 = await store.claimTriggered((r) => r.jobId === pollJob, { jobStatus: 'failed', exitCode: 1 }, { now: new Date(), holder });
    if (claimed2.length !== 1) throw new Error('poll claim failed');
    polled.push(performance.now() - ended);
  }
  rmSync(dir, { recursive: true, force: true });
  const p95 = round(percentile(pipeline, 95));
  const base = round(percentile(polled, 95));
  console.log(`job end → wake enqueued: p50 ${round(percentile(pipeline, 50))} ms, p95 ${p95} ms; 0.5 s poll loop p95 ${base} ms`);
  writeFigures(RESULTS, 'wakePipeline', { job_end_to_wake_p95_ms: { value: p95, unit: 'ms', target: 50, baseline: base } });
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
