/**
 * Benchmark of CodeAnchor re-resolution:
 * - anchor_resolve_20k_p95_ms: a 20,000-line synthetic TypeScript file, 1,000 anchors of 1–6 lines
 *   at random places; the file is then edited (40 lines inserted near the top, some regions
 *   re-indented, one class moved to the end), and every anchor is resolved through the host's path:
 *   the document's per-version AnchorIndexCache and a symbol locator (the document symbol provider's
 *   answer). p95 of the second and later anchors of the version; baseline: indexing the file again
 *   for every anchor (the path before), on a sample. anchor_resolve_20k_first_ms: the first anchor.
 * - anchor_resolve_20k_nosym_p95_ms: the same without a symbol locator (every moved anchor takes the
 *   whole-file excerpt search).
 * - anchor_prepare_20k_ms: one prepareText of the edited file.
 * Every anchor that is not orphaned is checked against where its lines really went: symbol and
 * excerpt matches must all be right; exact matches of generic lines left standing at the stored range
 * are counted apart.
 */
import { join } from 'node:path';
import { makeAnchorIn, AnchorIndexCache, resolveAnchorIn, type CodeAnchor } from '../../../src/core/anchor/code';
import { normalizeWhitespace, prepareText, textIn, type TextRange } from '../../../src/core/anchor/text';
import { type AnchorStep, type SymbolLocator } from '../../../src/core/anchor/ladder';
import { percentile, round, writeFigures, type Figure } from '../figures';
import { seededRandom } from '../../unit/helpers/random';

const RESULTS = process.env.LIFE_THREAD_RESULTS ?? join(process.cwd(), 'test-results');
const PATH = '/bench/src/generated.ts';
const LINES = 20_000;
const ANCHORS = 1_000;

const rand = seededRandom(20261001);
const int = (n: number): number => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;

const WORDS = ['order', 'cart', 'item', 'price', 'total', 'user', 'session', 'token', 'cache', 'queue', 'retry', 'limit', 'window', 'offset', 'cursor', 'page', 'batch', 'event', 'topic', 'handler', 'buffer', 'chunk', 'digest', 'record', 'ledger', 'account', 'invoice', 'tax', 'rate', 'score', 'weight', 'node', 'edge', 'graph', 'path', 'route', 'span', 'trace', 'metric', 'sample'];
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const ident = (): string => `${pick(WORDS)}${cap(pick(WORDS))}`;

interface Line {
  text: string;
  /** "Class.method", "Class" or "" — the innermost symbol the line belongs to. */
  sym: string;
  /** Its line number in the file as generated. */
  orig: number;
}

function statement(indent: string): string[] {
  const v = ident();
  const n = int(10_000);
  switch (int(9)) {
    case 0:
      return [`${indent}const ${v} = this.${ident()}(${ident()}, ${n});`];
    case 1:
      return [`${indent}if (${v} > ${n}) {`, `${indent}  ${ident()} += ${v} * ${int(97) + 2};`, `${indent}}`];
    case 2:
      return [`${indent}for (const ${v} of this.${ident()}.values()) {`, `${indent}  if (!${v}.${pick(WORDS)}) continue;`, `${indent}  ${ident()}.push(${v}.${pick(WORDS)} ?? ${n});`, `${indent}}`];
    case 3:
      return [`${indent}// ${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)}: keep ${n} ${pick(WORDS)}s`];
    case 4:
      return [`${indent}this.${ident()}.set('${pick(WORDS)}-${n}', ${v});`];
    case 5:
      return [`${indent}const ${v} = await ${ident()}.${pick(WORDS)}({ ${pick(WORDS)}: ${n}, ${pick(WORDS)}: '${ident()}' });`];
    case 6:
      return [`${indent}try {`, `${indent}  ${v} = JSON.parse(${ident()}) as ${cap(ident())};`, `${indent}} catch {`, `${indent}  return undefined;`, `${indent}}`];
    case 7:
      return [''];
    default:
      return [`${indent}let ${v} = ${ident()}.length - ${n} + ${int(50)};`];
  }
}

function generate(): Line[] {
  const out: { text: string; sym: string }[] = [];
  out.push({ text: `/* Generated for the anchor benchmark. */`, sym: '' });
  out.push({ text: `import { ${cap(ident())}, ${cap(ident())} } from './${pick(WORDS)}';`, sym: '' });
  out.push({ text: '', sym: '' });
  for (let c = 0; out.length < LINES; c++) {
    const cls = `${cap(ident())}${c}`;
    out.push({ text: `export class ${cls} {`, sym: cls });
    out.push({ text: `  private readonly ${ident()} = new Map<string, number>();`, sym: cls });
    out.push({ text: '', sym: cls });
    const methods = 4 + int(8);
    for (let m = 0; m < methods; m++) {
      const name = `${pick(WORDS)}${cap(pick(WORDS))}${m}`;
      const sym = `${cls}.${name}`;
      out.push({ text: `  ${int(3) === 0 ? 'async ' : ''}${name}(${pick(WORDS)}: ${cap(ident())}, ${pick(WORDS)} = ${int(1000)}): ${cap(ident())} {`, sym });
      const stmts = 3 + int(10);
      for (let s = 0; s < stmts; s++) for (const text of statement('    ')) out.push({ text, sym });
      out.push({ text: `    return ${ident()};`, sym });
      out.push({ text: '  }', sym });
      out.push({ text: '', sym: cls });
    }
    out.push({ text: '}', sym: cls });
    out.push({ text: '', sym: '' });
  }
  return out.slice(0, LINES).map((l, orig) => ({ ...l, orig }));
}

function makeAnchors(file: Line[]): CodeAnchor[] {
  const text = file.map((l) => l.text).join('\n');
  const index = prepareText(text);
  const anchors: CodeAnchor[] = [];
  while (anchors.length < ANCHORS) {
    const start = int(file.length - 6);
    const count = 1 + int(6);
    const first = file[start];
    const last = file[start + count - 1];
    if (!first || !last || first.text.trim() === '') continue;
    let range: TextRange;
    if (rand() < 0.7) range = { start: { line: start, character: 0 }, end: { line: start + count, character: 0 } };
    else {
      const col = first.text.length - first.text.trimStart().length;
      range = { start: { line: start, character: col }, end: { line: start + count - 1, character: last.text.length } };
    }
    anchors.push(makeAnchorIn(index, PATH, range, first.sym));
  }
  return anchors;
}

/** The edits: 40 lines near the top, some regions re-indented, one class moved to the end. */
function edit(file: Line[]): Line[] {
  const out = [...file];
  const inserted: Line[] = Array.from({ length: 40 }, (_, i) => ({ text: `export const SETTING_${i} = ${int(100_000)}; // ${pick(WORDS)}`, sym: '', orig: -1 }));
  out.splice(3, 0, ...inserted);
  for (let r = 0; r < 12; r++) {
    const from = 50 + int(out.length - 200);
    const len = 30 + int(80);
    for (let i = from; i < from + len; i++) {
      const l = out[i];
      if (l && l.text.trim() !== '') out[i] = { ...l, text: r % 3 === 0 ? `\t${l.text.replace(/ {2}/g, '\t')}` : `  ${l.text}` };
    }
  }
  // Move the class that starts nearest the middle to the end of the file.
  let s = Math.floor(out.length / 2);
  while (s < out.length && !(out[s]?.text ?? '').startsWith('export class ')) s++;
  let e = s + 1;
  while (e < out.length && !(out[e]?.text ?? '').startsWith('export class ')) e++;
  const block = out.splice(s, e - s);
  out.push(...block);
  return out;
}

/** What the document symbol provider would answer for the edited file: each symbol's line span. */
function symbolTable(file: Line[]): SymbolLocator {
  const spans = new Map<string, TextRange>();
  file.forEach((l, i) => {
    if (!l.sym) return;
    const names = l.sym.includes('.') ? [l.sym, l.sym.split('.')[0] ?? ''] : [l.sym];
    for (const name of names) {
      const r = spans.get(name);
      if (!r) spans.set(name, { start: { line: i, character: 0 }, end: { line: i, character: l.text.length } });
      else r.end = { line: i, character: l.text.length };
    }
  });
  return (symbolPath) => spans.get(symbolPath);
}

interface Pass {
  times: number[];
  steps: Record<AnchorStep, number>;
  ambiguous: number;
  /** Exact matches at the stored range whose real lines moved elsewhere. */
  staleExact: number;
  /** Symbol or excerpt matches that are not where the anchored lines went: must be none. */
  wrong: number;
}

/**
 * Every anchor through the path the host runs (src/host/landing.ts `resolveAnchor`): the per-version
 * AnchorIndexCache of the document. The first anchor of the version indexes the file (timed apart).
 */
function run(text: string, anchors: CodeAnchor[], newLineOf: Map<number, number>, locator: SymbolLocator | undefined): Pass & { firstMs: number } {
  const cache = new AnchorIndexCache();
  const doc = { key: `file://${PATH}`, version: 7, getText: () => text };
  const t0 = performance.now();
  const firstAnchor = anchors[0];
  if (firstAnchor) cache.resolve(doc, firstAnchor, locator);
  const firstMs = performance.now() - t0;
  const index = cache.indexOf(doc);
  for (const a of anchors.slice(1, 100)) cache.resolve(doc, a, locator); // warm-up, untimed
  const pass: Pass & { firstMs: number } = { times: [], steps: { exact: 0, symbol: 0, excerpt: 0, orphaned: 0 }, ambiguous: 0, staleExact: 0, wrong: 0, firstMs };
  for (const a of anchors.slice(1)) {
    const t0 = performance.now();
    const r = cache.resolve(doc, a, locator);
    pass.times.push(performance.now() - t0);
    pass.steps[r.step]++;
    if (r.step === 'orphaned') {
      if (/ambiguous/.test(r.reason)) pass.ambiguous++;
      continue;
    }
    const want = newLineOf.get(a.range.start.line);
    const got = textIn(index, r.range);
    if (want !== r.range.start.line || got === undefined || normalizeWhitespace(got) !== normalizeWhitespace(a.excerpt)) {
      // A generic excerpt ("}", "try {") that the edit left standing at the stored range is taken
      // by the exact step, as the ladder says; text alone cannot tell it from the real one.
      if (r.step === 'exact') pass.staleExact++;
      else pass.wrong++;
    }
  }
  return pass;
}

function describe(label: string, p: Pass): string {
  const s = p.steps;
  return `${label}: exact ${s.exact}, symbol ${s.symbol}, excerpt ${s.excerpt}, orphaned ${s.orphaned} (ambiguous ${p.ambiguous}); exact at a stale place ${p.staleExact}; wrong ${p.wrong}; p50 ${round(percentile(p.times, 50), 3)} ms, p95 ${round(percentile(p.times, 95), 3)} ms, max ${round(Math.max(...p.times), 3)} ms`;
}

function main(): void {
  const figures: Record<string, Figure> = {};
  const file = generate();
  const anchors = makeAnchors(file);
  const edited = edit(file);
  const text = edited.map((l) => l.text).join('\n');
  const newLineOf = new Map<number, number>();
  edited.forEach((l, i) => {
    if (l.orig >= 0) newLineOf.set(l.orig, i);
  });

  const prep: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    prepareText(text);
    prep.push(performance.now() - t0);
  }
  const withSym = run(text, anchors, newLineOf, symbolTable(edited));
  const noSym = run(text, anchors, newLineOf, undefined);

  // The path the host took before: the whole file indexed again for every anchor (sampled).
  const naive: number[] = [];
  const locator = symbolTable(edited);
  for (const a of anchors.slice(0, 40)) {
    const t0 = performance.now();
    resolveAnchorIn(prepareText(text), a, locator);
    naive.push(performance.now() - t0);
  }

  console.log(`file: ${edited.length} lines, ${text.length} chars; ${anchors.length} anchors; prepareText ${round(percentile(prep, 50))} ms (median of 5, first ${round(prep[0] ?? NaN)} ms)`);
  console.log(describe('with symbols', withSym));
  console.log(describe('without symbols', noSym));
  console.log(`first anchor of the version (indexing included): ${round(withSym.firstMs)} ms; re-indexing per anchor (40 sampled): p95 ${round(percentile(naive, 95))} ms`);
  if (withSym.wrong > 0 || noSym.wrong > 0) throw new Error(`${withSym.wrong + noSym.wrong} anchors resolved to the wrong place`);

  figures.anchor_resolve_20k_p95_ms = { value: round(percentile(withSym.times, 95), 3), unit: 'ms', target: 5, baseline: round(percentile(naive, 95), 3) };
  figures.anchor_resolve_20k_nosym_p95_ms = { value: round(percentile(noSym.times, 95), 3), unit: 'ms', target: 5 };
  figures.anchor_prepare_20k_ms = { value: round(percentile(prep, 50)), unit: 'ms' };
  figures.anchor_resolve_20k_first_ms = { value: round(withSym.firstMs), unit: 'ms' };
  writeFigures(RESULTS, 'anchors', figures);
}

main();
