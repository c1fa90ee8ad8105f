/**
 * CodeAnchors and their re-resolution when code moved (design §4), the text-only part: the host
 * reads the file and supplies the symbol lookup (vscode.executeDocumentSymbolProvider); this module
 * says where the excerpt stands now and which step of the ladder found it:
 *
 *   exact    — the excerpt stands at the stored range (line endings normalized);
 *   symbol   — one whitespace-tolerant match inside the symbol's current range (its exact span
 *              when it stands verbatim);
 *   excerpt  — one whitespace-tolerant match anywhere in the file;
 *   orphaned — none of the above; the reason says what failed.
 *
 * Message anchors (design §6, `{msgId, start, end, quote}` into an export) are the same family: the
 * message text is the "file", `positionAt` turns the offsets into a range, and `locateExcerpt` runs
 * the same ladder without a symbol.
 *
 * Positions follow VS Code: 0-based lines and UTF-16 characters, end exclusive; `\r\n`, `\n` and a
 * lone `\r` each end a line. For speed, `prepareText` indexes a file once (line starts, an
 * LF-normalized copy, a whitespace-collapsed copy with an offset map back) and `resolveAnchorIn`
 * resolves any number of anchors against it.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InputError } from './errors';

export const EXCERPT_MAX = 4000;

const position = z.object({ line: z.number().int().nonnegative(), character: z.number().int().nonnegative() }).strict();

export const rangeSchema = z
  .object({ start: position, end: position })
  .strict()
  .refine((r) => r.start.line < r.end.line || (r.start.line === r.end.line && r.start.character <= r.end.character), {
    message: 'range end must not come before its start',
  });
export type TextRange = z.infer<typeof rangeSchema>;
export type TextPosition = TextRange['start'];

/** POSIX (`/…`), Windows drive (`C:\…`, `C:/…`) or UNC (`\\server\…`) absolute paths. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

export const codeAnchorSchema = z
  .object({
    path: z.string().min(1).max(4096).refine(isAbsolutePath, { message: 'path must be absolute' }),
    symbol: z.string().max(400),
    range: rangeSchema,
    excerpt: z.string().min(1).max(EXCERPT_MAX),
    excerptHash: z.string().regex(/^[0-9a-f]{64}$/, 'excerptHash must be a sha256 hex digest'),
    commit: z.string().regex(/^[0-9a-f]{7,64}$/, 'commit must be a hex SHA').optional(),
  })
  .strict();
export type CodeAnchor = z.infer<typeof codeAnchorSchema>;

export type AnchorStep = 'exact' | 'symbol' | 'excerpt' | 'orphaned';

export interface AnchorResolution {
  step: AnchorStep;
  /** Where the excerpt stands now; for `orphaned`, the stored range clamped to the file. */
  range: TextRange;
  /** The anchor as given (not modified). */
  original: CodeAnchor;
  /** The anchor with the new range and the same excerpt; for `orphaned`, the original unchanged. */
  healed: CodeAnchor;
  reason: string;
}

/** Supplied by the host: the symbol's full range in the current text, or undefined when absent. */
export interface SymbolLocator {
  (symbolPath: string): TextRange | undefined;
}

// ---------------------------------------------------------------------------------------------
// Normalization and hashing

/** `\r\n` and lone `\r` → `\n`. */
export function normalizeEol(s: string): string {
  return s.indexOf('\r') === -1 ? s : s.replace(/\r\n?/g, '\n');
}

/** The excerpt as hashed: LF line endings, trailing whitespace of each line removed. */
export function canonicalExcerpt(excerpt: string): string {
  return normalizeEol(excerpt).replace(/[^\S\n]+$/gm, '');
}

export function hashExcerpt(excerpt: string): string {
  return createHash('sha256').update(canonicalExcerpt(excerpt), 'utf8').digest('hex');
}

/** Whitespace as JavaScript's `\s` knows it, except the line feed (lines are kept). */
function isWs(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13 && c !== 10) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Whitespace-tolerant form: per line, leading/trailing whitespace dropped and runs collapsed to one space. */
export function normalizeWhitespace(s: string): string {
  return normalizeEol(s)
    .split('\n')
    .map((line) => line.replace(/[^\S\n]+/g, ' ').trim())
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// The text index

export interface TextIndex {
  /** The text with line endings normalized to `\n` (same lines and characters as the original). */
  readonly lf: string;
  /** lf offset of each line's first character. */
  readonly lineStarts: Int32Array;
  /** Whitespace-tolerant form of the whole text (see normalizeWhitespace), lines kept. */
  readonly ws: string;
  /** For each ws offset, the lf offset of the character it came from (a collapsed run → its first character; `\n` → the line's `\n`). */
  readonly wsToLf: Int32Array;
  /** ws offset of each line's start. */
  readonly wsLineStarts: Int32Array;
}

function at(a: Int32Array, i: number): number {
  return a[i] ?? 0;
}

/** The part of the index that positions need: the LF text and its line starts. */
export type LineIndex = Pick<TextIndex, 'lf' | 'lineStarts'>;

function lineIndex(text: string): LineIndex {
  const lf = normalizeEol(text);
  const starts: number[] = [0];
  for (let i = lf.indexOf('\n'); i !== -1; i = lf.indexOf('\n', i + 1)) starts.push(i + 1);
  return { lf, lineStarts: Int32Array.from(starts) };
}

export function prepareText(text: string): TextIndex {
  const { lf, lineStarts } = lineIndex(text);
  // Two native passes build the whitespace-tolerant text (the same rule as normalizeWhitespace) ...
  const ws = lf.replace(/[^\S\n]+/g, ' ').replace(/^ | $/gm, '');
  // ... and one walk maps it back: a kept character to itself, a collapsed run to its first
  // character; characters skipped on the way are whitespace dropped at a line's edges.
  const wsToLf = new Int32Array(ws.length + 1);
  const wsLineStarts = new Int32Array(lineStarts.length);
  let i = 0;
  let line = 0;
  for (let j = 0; j < ws.length; j++) {
    const c = ws.charCodeAt(j);
    if (c === 32) {
      wsToLf[j] = i;
      while (i < lf.length && isWs(lf.charCodeAt(i))) i++;
    } else {
      while (i < lf.length && lf.charCodeAt(i) !== c) i++;
      wsToLf[j] = i++;
      if (c === 10) wsLineStarts[++line] = j + 1;
    }
  }
  wsToLf[ws.length] = lf.length;
  return { lf, lineStarts, ws, wsToLf, wsLineStarts };
}

function lineEnd(index: LineIndex, line: number): number {
  return line + 1 < index.lineStarts.length ? at(index.lineStarts, line + 1) - 1 : index.lf.length;
}

function lineOf(index: LineIndex, offset: number): number {
  const s = index.lineStarts;
  let lo = 0;
  let hi = s.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (at(s, mid) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The position of an offset into the LF-normalized text (clamped to the text). */
export function positionAt(index: LineIndex, offset: number): TextPosition {
  const o = Math.max(0, Math.min(offset, index.lf.length));
  const line = lineOf(index, o);
  return { line, character: o - at(index.lineStarts, line) };
}

/** The LF offset of a position, or undefined when the position lies outside the text. */
export function offsetAt(index: LineIndex, pos: TextPosition): number | undefined {
  if (pos.line >= index.lineStarts.length) return undefined;
  const ls = at(index.lineStarts, pos.line);
  if (ls + pos.character > lineEnd(index, pos.line)) return undefined;
  return ls + pos.character;
}

/** The range clamped to the text: lines past the end go to the end, characters past a line's end to that end. */
export function clampRange(index: LineIndex, range: TextRange): TextRange {
  const clamp = (p: TextPosition): TextPosition => {
    const last = index.lineStarts.length - 1;
    if (p.line > last) return { line: last, character: lineEnd(index, last) - at(index.lineStarts, last) };
    return { line: p.line, character: Math.min(p.character, lineEnd(index, p.line) - at(index.lineStarts, p.line)) };
  };
  return { start: clamp(range.start), end: clamp(range.end) };
}

/** The text in a range (LF line endings), or undefined when the range lies outside the text. */
export function textIn(index: LineIndex, range: TextRange): string | undefined {
  const s = offsetAt(index, range.start);
  const e = offsetAt(index, range.end);
  return s === undefined || e === undefined || e < s ? undefined : index.lf.slice(s, e);
}

// ---------------------------------------------------------------------------------------------
// Deep-link line fragments

/** "L12-L14" (1-based, inclusive) for `file:///…#L12-L14`; one line → "L12". An end at character 0 of a later line ends on the line before. */
export function formatRange(range: TextRange): string {
  const first = range.start.line + 1;
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  return last > first ? `L${first}-L${last}` : `L${first}`;
}

// ---------------------------------------------------------------------------------------------
// Making anchors

/** An anchor on `range` of `text`; the excerpt is the text in the range with LF line endings. Throws InputError. */
export function makeAnchor(text: string, path: string, range: TextRange, symbol = '', commit?: string): CodeAnchor {
  return makeAnchorIn(lineIndex(text), path, range, symbol, commit);
}

/** makeAnchor on an index already built (many anchors in one file). */
export function makeAnchorIn(index: LineIndex, path: string, range: TextRange, symbol = '', commit?: string): CodeAnchor {
  const r = rangeSchema.safeParse(range);
  if (!r.success) throw new InputError('range', r.error.issues.map((i) => i.message).join('; '));
  const excerpt = textIn(index, r.data);
  if (excerpt === undefined) throw new InputError('range', `${formatRange(r.data)} lies outside the text`);
  if (excerpt.length === 0) throw new InputError('range', 'the range is empty');
  if (excerpt.length > EXCERPT_MAX) throw new InputError('range', `the excerpt has ${excerpt.length} characters; at most ${EXCERPT_MAX}`);
  const anchor: CodeAnchor = { path, symbol, range: r.data, excerpt, excerptHash: hashExcerpt(excerpt) };
  if (commit !== undefined) anchor.commit = commit;
  const checked = codeAnchorSchema.safeParse(anchor);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new InputError(String(issue?.path[0] ?? 'anchor'), issue?.message ?? 'invalid anchor');
  }
  return checked.data;
}

// ---------------------------------------------------------------------------------------------
// Resolution

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

export function resolveAnchorIn(index: TextIndex, anchor: CodeAnchor, locateSymbol?: SymbolLocator): AnchorResolution {
  const found = locateExcerpt(index, { excerpt: anchor.excerpt, range: anchor.range, symbol: anchor.symbol, locateSymbol });
  const healed: CodeAnchor = found.step === 'orphaned' ? { ...anchor } : { ...anchor, range: found.range };
  return { step: found.step, range: found.range, original: anchor, healed, reason: found.reason };
}

/** A text a resolver can index: a document's identity, its version, and its text (read only when needed). */
export interface VersionedText {
  key: string;
  version: number;
  getText(): string;
}

/**
 * The index of each document's current version, kept so that resolving many anchors in one file
 * (a landing, the tool, a topic's anchors) indexes it once per version, not once per anchor. Holds
 * the last `max` documents.
 */
export class AnchorIndexCache {
  private readonly entries = new Map<string, { version: number; index: TextIndex }>();
  constructor(private readonly max = 16) {}

  indexOf(doc: VersionedText): TextIndex {
    const hit = this.entries.get(doc.key);
    if (hit && hit.version === doc.version) {
      // Most recently used last.
      this.entries.delete(doc.key);
      this.entries.set(doc.key, hit);
      return hit.index;
    }
    const index = prepareText(doc.getText());
    this.entries.delete(doc.key);
    this.entries.set(doc.key, { version: doc.version, index });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return index;
  }

  /** A document closed: its next opening starts versions from 1 again, so its entry must go. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Resolves `anchor` in `doc` through the ladder, on the document's cached index. */
  resolve(doc: VersionedText, anchor: CodeAnchor, locateSymbol?: SymbolLocator): AnchorResolution {
    return resolveAnchorIn(this.indexOf(doc), anchor, locateSymbol);
  }
}
