/**
 * Benchmarks of the wake's summary over the corpus of real tool output (test/fixtures/summaries):
 * - summary_recall: the share of outputs whose tool printed counts and whose pulse states them
 *   right (each count the tool printed, with its number, in the pulse's `summary:` line as sent).
 *   Target 0.95, higher is better.
 * - wake_chars_p95: the p95 length of the pulse for these outputs, rendered by the code the host
 *   runs when a task a wake waits on ends: the output read with readOutput, the evidence written
 *   with writeEvidence (its summary line is the landing's line), the pulse rendered with its
 *   `wake:` line and the window's cap. A realistic wake text. The evidence lands in a store at the
 *   path the store has on Linux desktop (the extension's global storage). Target 400.
 *   Failed outputs that name a file of the workspace would land on a CodeAnchor instead (shorter
 *   than the evidence link); the corpus's workspaces are not on this machine, so every pulse here
 *   carries the evidence link, the longer of the two.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLink } from '../../../src/core/anchor/links';
import { PULSE_MAX_CHARS } from '../../../src/core/wake/contract';
import { jobStatus } from '../../../src/core/wake/jobStatus';
import { readOutput, renderPulse } from '../../../src/core/wake/pulse';
import { writeEvidence } from '../../../src/node/evidence';
import { newId, randomBase36 } from '../../../src/node/ids';
import { hasRightCounts, loadCorpus, type CorpusOutput } from '../../unit/helpers/summaryCorpus';
import { percentile, round, writeFigures, type Figure } from '../figures';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');

/** What an agent writes when it goes to sleep on a job: what to do when it wakes. */
const WAKE_TEXT = 'The test run has finished. Read the failures, fix them, then carry on with step 3 of the checkout refactor.';

/** The task names VS Code shows for these jobs (auto-detected npm, tsc and eslint tasks; a terminal). */
const JOB_ID: Record<string, string> = {
  mocha: 'npm: test',
  'node:test': 'npm: test',
  jest: 'npm: test',
  vitest: 'npm: test',
  playwright: 'npm: e2e',
  pytest: 'pytest',
  'go test': 'go: test',
  'cargo test': 'cargo: test',
  cargo: 'cargo: test',
  tsc: 'tsc: build - tsconfig.json',
  eslint: 'eslint: lint whole folder',
  node: 'terminal:bash',
  plain: 'tests',
};

/** The store on Linux desktop: the extension's global storage (README "Where things live"). */
const STORE_DIR = '/home/dev/.config/Code/User/globalStorage/lifethread.life-thread';

/** The pulse the host sends when the task of `o` ends and a wake waits on it (see WakeFeature.jobEnded). */
async function pulseOf(o: CorpusOutput, scratch: string): Promise<string> {
  const jobId = JOB_ID[o.tool] ?? o.tool;
  const output = readOutput(o.text, { truncated: false });
  const ev = await writeEvidence(scratch, `job-${randomBase36(8)}`, { source: 'task', jobId, exitCode: o.exitCode, endedAt: Date.now() }, output.text, output.summaryLine);
  const path = STORE_DIR + ev.path.slice(scratch.length);
  const uri = fileLink(path, ev.focusLine);
  return renderPulse(
    { text: WAKE_TEXT, when: 'job.done', jobId },
    { wakeIds: [newId('w')], job: { status: jobStatus(o.exitCode), exitCode: o.exitCode }, summary: output.summary, landing: { kind: 'deep_link', uri }, desk: 'none' },
    { maxChars: PULSE_MAX_CHARS },
  );
}

/** The summary as the pulse carries it (its `summary:` line, unquoted). */
function pulseSummary(pulse: string): string {
  const m = /^ {2}summary: (".*")$/m.exec(pulse);
  return m?.[1] ? (JSON.parse(m[1]) as string) : '';
}

async function main(): Promise<void> {
  const corpus = loadCorpus();
  const withCounts = corpus.filter((o) => Object.keys(o.counts).length > 0);
  const misses: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'lt-bench-summary-'));
  const pulses: { o: CorpusOutput; p: string }[] = [];
  try {
    for (const o of corpus) pulses.push({ o, p: await pulseOf(o, scratch) });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const chars = pulses.map((x) => x.p.length);
  for (const { o, p } of pulses) if (Object.keys(o.counts).length > 0 && !hasRightCounts(pulseSummary(p), o.counts)) misses.push(`${o.file}: ${pulseSummary(p)}`);
  const byLength = [...pulses].sort((a, b) => b.p.length - a.p.length);
  const longest = byLength[0];
  if (longest) console.log(`longest pulse (${longest.p.length} characters, ${longest.o.file}):\n${longest.p}\n`);
  console.log(`longest five: ${byLength.slice(0, 5).map((x) => `${x.o.file} ${x.p.length}`).join(', ')}`);
  if (misses.length) console.log(`summaries missing a count:\n  ${misses.join('\n  ')}\n`);
  const figures: Record<string, Figure> = {
    summary_recall: { value: round((withCounts.length - misses.length) / withCounts.length, 3), unit: 'ratio', target: 0.95, better: 'higher' },
    wake_chars_p95: { value: percentile(chars, 95), unit: 'chars', target: 400 },
  };
  console.log(`${corpus.length} outputs, ${withCounts.length} with counts`);
  console.log(JSON.stringify(figures, null, 2));
  writeFigures(RESULTS, 'summary', figures);
}

void main();
