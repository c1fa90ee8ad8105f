/**
 * Benchmarks of the wake's summary over the corpus of real tool output (test/fixtures/summaries):
 * - summary_recall: the share of outputs whose tool printed counts and whose pulse states them
 *   right (each count the tool printed, with its number, in the pulse's `summary:` line as sent).
 *   Target 0.95, higher is better.
 * - wake_chars_p95: the p95 length of the pulse for these outputs, rendered as the job-finish
 *   pipeline renders it: a realistic wake text, the job (a task name, status, exit code), the
 *   summary from the log's tail, and a file deep link to the failure's line (the code locus) or to
 *   the evidence log in the store. Target 400.
 */
import { join } from 'node:path';
import { findCodeLocus } from '../../../src/core/codeLocus';
import { fileLink } from '../../../src/core/landing';
import { PULSE_MAX_CHARS } from '../../../src/core/wake/contract';
import { jobStatus, renderPulse, summaryFromLogTail } from '../../../src/core/wake/pulse';
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

/** The evidence log the pipeline writes into the store (global storage on Linux desktop), named `job-` + 8 base-36 characters. */
const EVIDENCE_DIR = '/home/dev/.config/Code/User/globalStorage/lifethread.life-thread/evidence';

function pulseOf(o: CorpusOutput, i: number): string {
  const summary = summaryFromLogTail(o.text);
  const locus = findCodeLocus(o.text, [o.workspace]);
  const lines = o.text.split('\n').length;
  const uri = locus ? fileLink(locus.path, locus.line) : fileLink(`${EVIDENCE_DIR}/job-${(36 ** 7 + i * 7919).toString(36)}.log`, Math.max(1, lines - 5), lines);
  return renderPulse(
    { text: WAKE_TEXT, when: 'job.done', jobId: JOB_ID[o.tool] ?? o.tool },
    { job: { status: jobStatus(o.exitCode), exitCode: o.exitCode }, summary, landing: { kind: 'deep_link', uri }, desk: 'none' },
    { maxChars: PULSE_MAX_CHARS },
  );
}

/** The summary as the pulse carries it (its `summary:` line, unquoted). */
function pulseSummary(pulse: string): string {
  const m = /^ {2}summary: (".*")$/m.exec(pulse);
  return m?.[1] ? (JSON.parse(m[1]) as string) : '';
}

function main(): void {
  const corpus = loadCorpus();
  const withCounts = corpus.filter((o) => Object.keys(o.counts).length > 0);
  const misses: string[] = [];
  const chars: number[] = [];
  corpus.forEach((o, i) => {
    const pulse = pulseOf(o, i);
    chars.push(pulse.length);
    if (Object.keys(o.counts).length > 0 && !hasRightCounts(pulseSummary(pulse), o.counts)) misses.push(`${o.file}: ${pulseSummary(pulse)}`);
  });
  const byLength = corpus.map((o, i) => ({ o, p: pulseOf(o, i) })).sort((a, b) => b.p.length - a.p.length);
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

main();
