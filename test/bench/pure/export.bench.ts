/**
 * Benchmark of the export:
 * - export_validate_5k_ms: build the export (redact, hash chain, JSONL, Markdown) of a 5,000-message
 *   transcript (texts 50–2,000 characters: prose in English and Russian, code blocks, lists), read it
 *   back from its JSONL as a topic is read, verify the whole hash chain and validate 500 anchors
 *   against it (a tenth of them broken in the ways anchors break: moved, edited quote, out of range,
 *   unknown message). Total ms, median of 5 runs after one warm-up run, a full GC before each (the
 *   setup's garbage is not the export's); target 1,000 ms.
 *   baseline: a plain JSON.stringify of the same transcript, median of 5 in the same run — the floor
 *   of writing it out at all.
 * The breakdown (build, parse of the JSONL, validateExport of the chain, anchors) is printed.
 */
import { join } from 'node:path';
import { buildExport, parseExport, validateAnchors, validateExport, type AnchorToCheck, type TranscriptMessage } from '../../../src/core/export';
import { round, writeFigures, type Figure } from '../figures';
import { seededRandom } from '../../unit/helpers/random';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');
const MESSAGES = 5_000;
const ANCHORS = 500;
const RUNS = 5;
const WARMUP = 1;

const rand = seededRandom(20260718);
const int = (n: number): number => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;

const EN = ['partition', 'decision', 'anchor', 'export', 'rejected', 'accepted', 'frame', 'the', 'a', 'ops', 'handover', 'branch', 'commit', 'we', 'should', 'not', 'because', 'layer', 'meaning', 'runbook', 'topic', 'chat', 'window', 'quote', 'span', 'hash', 'message', 'file', 'test', 'agent'];
const RU = ['решение', 'якорь', 'экспорт', 'отклонили', 'приняли', 'рамка', 'ход', 'агент', 'оператор', 'слой', 'смысл', 'лента', 'и', 'не', 'потому', 'что', 'в', 'на', 'цикл', 'окно'];

function sentence(): string {
  const words = rand() < 0.3 ? RU : EN;
  const n = 6 + int(14);
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(pick(words));
  const s = w.join(' ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${pick(['.', '.', '?', '!', ':'])}`;
}

function codeBlock(): string {
  const lines = ['```ts'];
  for (let i = 0, n = 2 + int(8); i < n; i++) lines.push(`  const ${pick(EN)}${i} = await ${pick(EN)}.${pick(EN)}(${int(1000)}); // ${pick(EN)}`);
  lines.push('```');
  return lines.join('\n');
}

function text(): string {
  const target = 50 + Math.floor(rand() ** 2 * 1950);
  let out = '';
  while (out.length < target) {
    const r = rand();
    if (r < 0.1) out += `\n\n${codeBlock()}\n\n`;
    else if (r < 0.2) out += `\n- ${sentence()}`;
    else out += `${out ? ' ' : ''}${sentence()}`;
  }
  return out.slice(0, target);
}

const messages: TranscriptMessage[] = [];
const t0 = Date.parse('2026-07-18T08:00:00Z');
for (let i = 0; i < MESSAGES; i++) messages.push({ id: `m-${i.toString(36)}-${int(1e9).toString(36)}`, role: i % 2 ? 'assistant' : 'user', time: new Date(t0 + i * 20_000).toISOString(), text: text() });
const chars = messages.reduce((n, m) => n + m.text.length, 0);

/** 500 anchors cut from the texts; every tenth broken (moved, quote edited, out of range, unknown). */
function anchorsFor(): AnchorToCheck[] {
  const out: AnchorToCheck[] = [];
  for (let i = 0; i < ANCHORS; i++) {
    const m = messages[int(messages.length)] as TranscriptMessage;
    const len = m.text.length;
    const start = int(Math.max(1, len - 20));
    const end = Math.min(len, start + 10 + int(200));
    let anchor = { msgId: m.id, start, end, quote: m.text.slice(start, end) };
    if (i % 10 === 9) {
      switch (int(4)) {
        case 0:
          anchor = { ...anchor, start: Math.max(0, start - 3), end: Math.max(0, start - 3) + anchor.quote.length };
          break;
        case 1:
          anchor = { ...anchor, quote: `${anchor.quote.slice(0, -1)}#` };
          break;
        case 2:
          anchor = { ...anchor, end: len + 5 };
          break;
        default:
          anchor = { ...anchor, msgId: 'm-unknown' };
      }
    }
    out.push({ anchor, where: `accepted[${i}].anchors[0]` });
  }
  return out;
}
const anchors = anchorsFor();

function gc(): void {
  const g: unknown = Reflect.get(globalThis, 'gc');
  if (typeof g === 'function') g();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const totals: number[] = [];
const builds: number[] = [];
const checks: number[] = [];
const chains: number[] = [];
const parses: number[] = [];
const baselines: number[] = [];
/** CPU time of the same work (user + system), printed beside the wall time: on a busy machine the two part. */
const cpus: number[] = [];
let broken = 0;
let bytes = 0;
for (let run = 0; run < WARMUP + RUNS; run++) {
  const keep = run >= WARMUP;
  gc();
  const b0 = performance.now();
  const plain = JSON.stringify(messages);
  if (keep) baselines.push(performance.now() - b0);
  bytes = plain.length;

  gc();
  const c0 = process.cpuUsage();
  const s = performance.now();
  const built = buildExport('bench-topic', messages, { redact: true });
  const s1 = performance.now();
  const back = parseExport(built.jsonl);
  const s2 = performance.now();
  const chain = validateExport(back.records);
  const s3 = performance.now();
  const v = validateAnchors(back.records, anchors);
  const s4 = performance.now();
  const cpu = process.cpuUsage(c0);
  if (keep) {
    cpus.push((cpu.user + cpu.system) / 1000);
    totals.push(s4 - s);
    builds.push(s1 - s);
    parses.push(s2 - s1);
    chains.push(s3 - s2);
    checks.push(s4 - s3);
  }
  broken = v.broken.length;
  if (!chain.ok) throw new Error(`the chain does not hold: ${chain.problems[0]?.reason ?? ''}`);
  if (back.records.length !== MESSAGES) throw new Error('the export does not parse back');
}

const expectedBroken = anchors.filter((_, i) => i % 10 === 9).length;
if (broken < expectedBroken * 0.9) throw new Error(`only ${broken} of ${expectedBroken} broken anchors were caught`);

const figures: Record<string, Figure> = {
  export_validate_5k_ms: { value: round(median(totals)), unit: 'ms', target: 1000, baseline: round(median(baselines)) },
};
writeFigures(RESULTS, 'export', figures);

console.log(
  `export_validate_5k_ms: ${round(median(totals))} ms (build ${round(median(builds))} ms + parse ${round(median(parses))} ms + chain ${round(median(chains))} ms + ${ANCHORS} anchors ${round(median(checks))} ms; ` +
    `${MESSAGES} messages, ${chars} characters; CPU ${round(median(cpus))} ms) — baseline JSON.stringify ${round(median(baselines))} ms (${bytes} chars); target 1000 ms`,
);
console.log(`  ${broken} of ${ANCHORS} anchors broken (${expectedBroken} made broken; a moved span may still hold an equal quote)`);
