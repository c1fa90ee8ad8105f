/**
 * The ladder that re-finds an anchor after its text changed, written once for both kinds of anchor:
 *
 *   exact    — the excerpt stands at the stored range (line endings normalized);
 *   symbol   — (code only) one whitespace-tolerant match inside the symbol's current range (its
 *              exact span when it stands verbatim);
 *   excerpt  — one match anywhere in the text (whitespace-tolerant for code; verbatim for a quote
 *              in a message, whose offsets index an exported transcript);
 *   orphaned — none of the above; the reason says what failed.
 */
import { formatRange } from './links';
import { at, clampRange, isWs, lineEnd, lineOf, normalizeEol, normalizeWhitespace, positionAt, textIn, type LineIndex, type TextIndex, type TextRange } from './text';

export type AnchorStep = 'exact' | 'symbol' | 'excerpt' | 'orphaned';

/** Supplied by the host: the symbol's full range in the current text, or undefined when absent. */
export interface SymbolLocator {
  (symbolPath: string): TextRange | undefined;
}

const COUNT_CAP = 1000;

export interface LocateQuery {
  excerpt: string;
  /** The stored range. */
  range: TextRange;
  /** "Class.member"; "" or absent skips the symbol step. */
  symbol?: string;
  locateSymbol?: SymbolLocator;
}

export interface LocateResult {
  step: AnchorStep;
  range: TextRange;
  reason: string;
}

/** Every occurrence of needle in hay[from, to), overlapping ones too, at most `cap`. */
function occurrences(hay: string, needle: string, from: number, to: number, cap = COUNT_CAP): number[] {
  const out: number[] = [];
  const last = to - needle.length;
  for (let i = hay.indexOf(needle, from); i !== -1 && i <= last && out.length < cap; i = hay.indexOf(needle, i + 1)) out.push(i);
  return out;
}

function countText(hits: number[]): string {
  return hits.length >= COUNT_CAP ? `${COUNT_CAP} or more times` : `${hits.length} times`;
}

function leadingWs(s: string): number {
  let i = 0;
  while (i < s.length && s.charCodeAt(i) !== 10 && isWs(s.charCodeAt(i))) i++;
  return i;
}

function trailingWs(s: string): number {
  let i = s.length;
  while (i > 0 && s.charCodeAt(i - 1) !== 10 && isWs(s.charCodeAt(i - 1))) i--;
  return s.length - i;
}

/**
 * A whitespace-tolerant match [wsStart, wsEnd) mapped back to LF offsets. If the excerpt stands
 * verbatim there, that exact span; else the matched text, widened over whitespace at either end when
 * the excerpt itself began/ended with whitespace (so a re-indented whole-line anchor keeps whole lines).
 */
function mapWsMatch(index: TextIndex, wsStart: number, wsEnd: number, excerpt: string): [number, number] {
  const { lf } = index;
  let s = at(index.wsToLf, wsStart);
  let e = at(index.wsToLf, wsEnd - 1) + 1;
  const lead = leadingWs(excerpt);
  const ls = at(index.lineStarts, lineOf(index, s));
  if (s - lead >= ls && lf.startsWith(excerpt, s - lead)) return [s - lead, s - lead + excerpt.length];
  if (lead > 0) while (s > ls && isWs(lf.charCodeAt(s - 1))) s--;
  if (trailingWs(excerpt) > 0) {
    const le = lineEnd(index, lineOf(index, e));
    while (e < le && isWs(lf.charCodeAt(e))) e++;
  }
  return [s, e];
}

function rangeOf(index: LineIndex, s: number, e: number): TextRange {
  return { start: positionAt(index, s), end: positionAt(index, e) };
}

function sameRange(a: TextRange, b: TextRange): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

function moved(from: TextRange, to: TextRange): string {
  return sameRange(from, to) ? `at ${formatRange(to)}` : `moved from ${formatRange(from)} to ${formatRange(to)}`;
}

function linesOf(index: LineIndex, hits: number[], toLf: (i: number) => number): string {
  const shown = hits.slice(0, 5).map((h) => `L${lineOf(index, toLf(h)) + 1}`);
  return `${shown.join(', ')}${hits.length > 5 ? ', …' : ''}`;
}

/** The ladder on an index: exact → symbol → excerpt → orphaned. */
export function locateExcerpt(index: TextIndex, query: LocateQuery): LocateResult {
  const ex = normalizeEol(query.excerpt);
  const stored = query.range;
  const notes: string[] = [];
  const lines = index.lineStarts.length;

  // 1. exact
  const here = textIn(index, stored);
  if (here === ex) return { step: 'exact', range: stored, reason: `the excerpt stands at the stored range ${formatRange(stored)}` };
  if (here !== undefined) notes.push(`the stored range ${formatRange(stored)} no longer holds the excerpt`);
  else if (stored.end.line >= lines) notes.push(`the file has ${lines} line${lines === 1 ? '' : 's'}, shorter than the stored range ${formatRange(stored)}`);
  else notes.push(`the stored range ${formatRange(stored)} runs past the end of its line(s)`);

  const wsEx = normalizeWhitespace(ex);
  const tolerant = /\S/.test(wsEx);
  if (!tolerant) notes.push('the excerpt is only whitespace, so it is not searched for');

  // 2. symbol
  const symbol = query.symbol ?? '';
  if (symbol !== '' && tolerant) {
    let sr: TextRange | undefined;
    let failed = false;
    if (!query.locateSymbol) notes.push(`no symbol provider to find ${symbol}`);
    else {
      try {
        sr = query.locateSymbol(symbol);
      } catch (err) {
        failed = true;
        notes.push(`looking up symbol ${symbol} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!sr && !failed) notes.push(`symbol ${symbol} not found (renamed or removed?)`);
    }
    if (sr) {
      // Whole lines of the symbol, with the line break after its last line.
      const c = clampRange(index, sr);
      const sl = Math.min(c.start.line, c.end.line);
      const el = Math.max(c.start.line, c.end.line);
      const where = `symbol ${symbol} (${formatRange(c)})`;
      // Uniqueness is judged on the whitespace-tolerant search (a superset of the exact matches):
      // an exact copy must not win over a re-indented original. The exact span is preferred when
      // mapping the one match back (mapWsMatch).
      const wsFrom = at(index.wsLineStarts, sl);
      const wsTo = el + 1 < lines ? at(index.wsLineStarts, el + 1) : index.ws.length;
      const hits = occurrences(index.ws, wsEx, wsFrom, wsTo);
      if (hits.length === 1) {
        const [s, e] = mapWsMatch(index, hits[0] ?? 0, (hits[0] ?? 0) + wsEx.length, ex);
        const r = rangeOf(index, s, e);
        const how = index.lf.slice(s, e) === ex ? 'exactly' : 'ignoring whitespace';
        return { step: 'symbol', range: r, reason: `${notes.join('; ')}; found once inside ${where} ${how}, ${moved(stored, r)}` };
      }
      if (hits.length === 0) notes.push(`the excerpt is not inside ${where}`);
      else notes.push(`the excerpt is found ${countText(hits)} inside ${where} (${linesOf(index, hits, (h) => at(index.wsToLf, h))}), ambiguous`);
    }
  }

  // 3. excerpt
  if (tolerant) {
    const hits = occurrences(index.ws, wsEx, 0, index.ws.length);
    if (hits.length === 1) {
      const [s, e] = mapWsMatch(index, hits[0] ?? 0, (hits[0] ?? 0) + wsEx.length, ex);
      const r = rangeOf(index, s, e);
      const how = index.lf.slice(s, e) === ex ? 'exactly' : 'ignoring whitespace';
      return { step: 'excerpt', range: r, reason: `${notes.join('; ')}; found once in the file ${how}, ${moved(stored, r)}` };
    }
    if (hits.length === 0) notes.push('the excerpt is not found in the file, even ignoring whitespace');
    else notes.push(`the excerpt is found ${countText(hits)} in the file (${linesOf(index, hits, (h) => at(index.wsToLf, h))}), ambiguous`);
  }

  // 4. orphaned
  return { step: 'orphaned', range: clampRange(index, stored), reason: notes.join('; ') };
}

// A quote in a message: offsets into the exported text, matched verbatim (no symbol step).

const MESSAGE_COUNT_CAP = 20;

/** How a message anchor was found (the CodeAnchor ladder's steps that apply to a message). */
export interface MessageAnchorResolution {
  step: 'exact' | 'excerpt' | 'orphaned';
  /** Where the quote stands now; for `orphaned`, the stored span. */
  start: number;
  end: number;
  reason: string;
}

/**
 * A message anchor through the ladder of CodeAnchors: exact at
 * its span → the quote found once elsewhere in the same message (moved; the new span) → orphaned.
 * Used by the lint (validateAnchors) and by lifethread_resolveAnchor.
 */
export function resolveMessageAnchor(text: string, a: { start: number; end: number; quote: string }): MessageAnchorResolution {
  if (text.slice(a.start, a.end) === a.quote && a.quote !== '') return { step: 'exact', start: a.start, end: a.end, reason: `the quote stands at ${a.start}-${a.end}` };
  if (a.quote === '') return { step: 'orphaned', start: a.start, end: a.end, reason: 'the anchor quotes nothing' };
  const hits = occurrences(text, a.quote, 0, text.length, MESSAGE_COUNT_CAP);
  const first = hits[0];
  if (hits.length === 1 && first !== undefined) {
    return { step: 'excerpt', start: first, end: first + a.quote.length, reason: `the quote stands once at ${first}-${first + a.quote.length} (moved)` };
  }
  if (hits.length > 1) return { step: 'orphaned', start: a.start, end: a.end, reason: `the quote stands ${hits.length >= MESSAGE_COUNT_CAP ? `${MESSAGE_COUNT_CAP} or more` : hits.length} times in the message (ambiguous)` };
  return { step: 'orphaned', start: a.start, end: a.end, reason: 'the quote is not in the message' };
}

