/**
 * Benchmarks of the wake's summary over the corpus of real tool output (test/fixtures/summaries):
 * - summary_recall: the share of outputs whose tool printed counts and whose pulse states them
 *   right (each count the tool printed, with its number, in the pulse's `summary:` line as sent).
 *   Target 0.95, higher is better.
 * - wake_chars_p95: the p95 length of the pulse for these outputs, as the window sends it when a
 *   task a wake waits on ends (src/host/jobOutcome.ts, src/host/ignition.ts): the output read with
 *   readOutput, the evidence written with writeEvidence into the workspace's
 *   `.life-thread/evidence/<wake id>.log` (its summary line is the landing's line); a failed output
 *   that names a file of its workspace lands on a CodeAnchor there with the evidence beside it, any
 *   other on the evidence. Rendered with its `wake:` line, the window's cap and the workspace folder
 *   the output was recorded in (paths inside it relative). The wake texts are fixed at 40–160
 *   characters, spread over the corpus. Target 400.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { hashExcerpt, type CodeAnchor } from '../../../src/core/anchor/code';
import { fileLink } from '../../../src/core/anchor/links';
import { pathRulesOf } from '../../../src/core/folderUri';
import type { LandingRef } from '../../../src/core/landing';
import { PULSE_MAX_CHARS } from '../../../src/core/wake/contract';
import { jobStatus } from '../../../src/core/wake/jobStatus';
import { readOutput, renderPulse } from '../../../src/core/wake/pulse';
import { workspaceEvidenceDir, writeEvidence } from '../../../src/node/evidence';
import { newId } from '../../../src/node/ids';
import { hasRightCounts, loadCorpus, type CorpusOutput } from '../../unit/helpers/summaryCorpus';
import { percentile, round, writeFigures, type Figure } from '../figures';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');

/** What an agent writes when it goes to sleep on a job: what to do when it wakes; cut to 40–160 characters. */
const WAKE_WORDS =
  'The test run has finished. Read the failures, fix them, then carry on with step 3 of the checkout refactor: move the discount rules into their own module and keep the old entry point working.';
const WAKE_MIN = 40;
const WAKE_MAX = 160;

/** The i-th wake text: lengths spread evenly over 40–160 characters, cut at a word. */
function wakeText(i: number, n: number): string {
  const len = WAKE_MIN + Math.round(((WAKE_MAX - WAKE_MIN) * ((i * 37) % n)) / Math.max(1, n - 1));
  const cut = WAKE_WORDS.slice(0, len + 1);
  const at = cut.lastIndexOf(' ');
  return (at >= WAKE_MIN ? cut.slice(0, at) : cut.slice(0, len)).trim();
}

/** A code landing's symbol as the document-symbol provider names it (the corpus's files are not here to ask): a typical length. */
const SYMBOL = 'PriceCalculator.average';

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

/** The pulse the window sends when the task of `o` ends and a wake waits on it (src/host/wakeTriggers.ts jobEnded). */
async function pulseOf(o: CorpusOutput, text: string, scratch: string): Promise<string> {
  const jobId = JOB_ID[o.tool] ?? o.tool;
  const wakeId = newId('w');
  const output = readOutput(o.text, { truncated: false });
  const ev = await writeEvidence(scratch, wakeId, { source: 'task', jobId, exitCode: o.exitCode, endedAt: Date.now() }, output.text, output.summaryLine);
  const evidenceDir = workspaceEvidenceDir(o.workspace, '.life-thread');
  const evidence = fileLink(join(evidenceDir, ev.path.slice(scratch.length + 1)), ev.focusLine);
  const status = jobStatus(o.exitCode);
  const landing: LandingRef =
    status === 'failed' && o.locus
      ? { kind: 'code_anchor', anchor: anchorAt(join(o.workspace, o.locus.path), o.locus.line), evidence }
      : { kind: 'deep_link', uri: evidence };
  return renderPulse(
    { text, when: 'job.done', jobId },
    { wakeIds: [wakeId], job: { status, exitCode: o.exitCode }, summary: output.summary, landing, ...(landing.kind === 'code_anchor' ? { landingStep: 'exact' as const } : {}), desk: 'none' },
    { maxChars: PULSE_MAX_CHARS, folders: [{ name: basename(o.workspace), path: o.workspace }], rules: pathRulesOf('linux') },
  );
}

/** A CodeAnchor on one line of a file the corpus names (only its path, symbol and lines reach the pulse). */
function anchorAt(path: string, line: number): CodeAnchor {
  const excerpt = 'x';
  return { path, symbol: SYMBOL, range: { start: { line: line - 1, character: 0 }, end: { line: line - 1, character: 1 } }, excerpt, excerptHash: hashExcerpt(excerpt) };
}

/** The summary as the pulse carries it (its `summary:` line, unquoted). */
function pulseSummary(pulse: string): string {
  const m = /^ {2}summary: (".*")$/m.exec(pulse);
  return m?.[1] ? (JSON.parse(m[1]) as string) : '';
}

/** The mean characters of each part of the pulses: the wake text (with the blank line after it) and each line of the block by its key. */
function charsByPart(pulses: readonly string[]): string {
  const sums = new Map<string, number>();
  for (const p of pulses) {
    const at = p.indexOf('life_wake:');
    sums.set('text', (sums.get('text') ?? 0) + at);
    for (const line of p.slice(at).split('\n')) {
      const key = /^ {2}([a-z_]+):/.exec(line)?.[1] ?? line;
      sums.set(key, (sums.get(key) ?? 0) + line.length + 1);
    }
  }
  return [...sums].map(([k, n]) => `${k} ${round(n / pulses.length, 0)}`).join(', ');
}

async function main(): Promise<void> {
  const corpus = loadCorpus();
  const withCounts = corpus.filter((o) => Object.keys(o.counts).length > 0);
  const misses: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'lt-bench-summary-'));
  const pulses: { o: CorpusOutput; p: string }[] = [];
  try {
    for (const [i, o] of corpus.entries()) pulses.push({ o, p: await pulseOf(o, wakeText(i, corpus.length), scratch) });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const chars = pulses.map((x) => x.p.length);
  for (const { o, p } of pulses) if (Object.keys(o.counts).length > 0 && !hasRightCounts(pulseSummary(p), o.counts)) misses.push(`${o.file}: ${pulseSummary(p)}`);
  const byLength = [...pulses].sort((a, b) => b.p.length - a.p.length);
  const longest = byLength[0];
  if (longest) console.log(`longest pulse (${longest.p.length} characters, ${longest.o.file}):\n${longest.p}\n`);
  console.log(`where the characters go (mean per pulse): ${charsByPart(pulses.map((x) => x.p))}`);
  console.log(`p95 of the life_wake block alone (no wake text): ${percentile(pulses.map((x) => x.p.length - x.p.indexOf('life_wake:')), 95)}`);
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
