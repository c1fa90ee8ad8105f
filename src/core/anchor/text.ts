/**
 * Text as anchors see it: positions follow VS Code (0-based lines and UTF-16 characters, end
 * exclusive; `\r\n`, `\n` and a lone `\r` each end a line). For speed, `prepareText` indexes a text
 * once (line starts, an LF-normalized copy, a whitespace-collapsed copy with an offset map back) and
 * every anchor into it is resolved on that index (src/core/anchor/ladder.ts).
 */
import { z } from 'zod';

const position = z.object({ line: z.number().int().nonnegative(), character: z.number().int().nonnegative() }).strict();

export const rangeSchema = z
  .object({ start: position, end: position })
  .strict()
  .refine((r) => r.start.line < r.end.line || (r.start.line === r.end.line && r.start.character <= r.end.character), {
    message: 'range end must not come before its start',
  });
export type TextRange = z.infer<typeof rangeSchema>;
export type TextPosition = TextRange['start'];

/** `\r\n` and lone `\r` → `\n`. */
export function normalizeEol(s: string): string {
  return s.indexOf('\r') === -1 ? s : s.replace(/\r\n?/g, '\n');
}

/** Whitespace as JavaScript's `\s` knows it, except the line feed (lines are kept). */
export function isWs(c: number): boolean {
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

export function at(a: Int32Array, i: number): number {
  return a[i] ?? 0;
}

/** The part of the index that positions need: the LF text and its line starts. */
export type LineIndex = Pick<TextIndex, 'lf' | 'lineStarts'>;

export function lineIndex(text: string): LineIndex {
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

export function lineEnd(index: LineIndex, line: number): number {
  return line + 1 < index.lineStarts.length ? at(index.lineStarts, line + 1) - 1 : index.lf.length;
}

export function lineOf(index: LineIndex, offset: number): number {
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
