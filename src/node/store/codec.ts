/**
 * A table file's bytes: the writer's layout, one row per line (`{"schemaVersion":2,"rows":[` ⏎ row,⏎
 * … row ⏎ `]}`, still one JSON value that people can read and edit), and the reading of any layout —
 * the writer's line by line, any other (hand-edited) as one JSON value. Bytes that are not UTF-8, not
 * JSON or of the wrong shape make the file corrupt: reported, never rewritten.
 */
import { createHash } from 'node:crypto';
import { SCHEMA_VERSION } from '../../core/schema';
import { corruptError, errText, newerError, StoreError } from './errors';

export const HEADER_RE = /^\{"schemaVersion":(\d{1,9}),"rows":\[\n/;
export const FOOTER = ']}\n';
export const HEADER_BYTES = Buffer.from(`{"schemaVersion":${SCHEMA_VERSION},"rows":[\n`);
export const SEPARATOR = Buffer.from(',\n');
export const NEWLINE = Buffer.from('\n');
export const EMPTY = Buffer.alloc(0);
export const FOOTER_BYTES = Buffer.from(FOOTER);
/** Refuses bytes that are not UTF-8 instead of replacing them: a table holding them is corrupt. */
export const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * One row per line, from lines that are already UTF-8: the parts to copy into the file's bytes, and
 * where each line stands.
 */
export function encodeTableBytes(lines: readonly Buffer[]): { parts: Buffer[]; spans: Int32Array } {
  const parts: Buffer[] = [HEADER_BYTES];
  const spans = new Int32Array(2 * lines.length);
  let at = HEADER_BYTES.length;
  lines.forEach((l, i) => {
    if (i > 0) {
      parts.push(SEPARATOR);
      at += SEPARATOR.length;
    }
    parts.push(l);
    spans[2 * i] = at;
    spans[2 * i + 1] = at + l.length;
    at += l.length;
  });
  if (lines.length > 0) parts.push(NEWLINE);
  parts.push(FOOTER_BYTES);
  return { parts, spans };
}

/**
 * The version of a table file and either its row lines (the writer's layout: each line one row's
 * JSON, not parsed here) or, for any other layout, its parsed rows.
 */
export function decodeTable(bytes: Buffer, file: string): { schemaVersion: number; raw?: unknown[]; spans?: Int32Array } {
  if (bytes.length === 0) throw corruptError(file, 'is empty');
  const laid = decodeLines(bytes);
  if (laid) {
    if (laid.schemaVersion > SCHEMA_VERSION) throw newerError(file, laid.schemaVersion);
    return laid;
  }
  return { ...parseText(decodeText(bytes, file), bytes.length, file) };
}

/** The whole file as text; bytes that are not UTF-8 (a flipped byte, another program's torn write) make it corrupt. */
function decodeText(bytes: Buffer, file: string): string {
  try {
    return stripBom(UTF8.decode(bytes));
  } catch (e) {
    throw corruptError(file, 'is not valid UTF-8', e);
  }
}

/** The rows of a file in the writer's layout whose lines turned out not to be JSON one by one. */
export function parseAll(bytes: Buffer, file: string): unknown[] {
  return parseText(decodeText(bytes, file), bytes.length, file).raw;
}

function parseText(text: string, size: number, file: string): { schemaVersion: number; raw: unknown[] } {
  const shape = (field: string, why: string): StoreError =>
    new StoreError('shape', file, `${file}: ${field} ${why}; it is left untouched and the table is read-only until a person repairs it`);
  if (/^\0+$/.test(text)) throw corruptError(file, `is filled with NUL bytes (${size} bytes; typical of a crash during a non-atomic write)`);
  if (text.trim() === '') throw corruptError(file, 'holds only whitespace');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw corruptError(file, `is not valid JSON (${errText(e)})`, e);
  }
  if (!isRecord(value)) throw shape('the top level', 'must be an object { "schemaVersion": N, "rows": [...] }');
  if (!Object.hasOwn(value, 'schemaVersion')) throw shape('schemaVersion', 'is missing');
  const v = value.schemaVersion;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw shape('schemaVersion', `must be a non-negative integer, found ${JSON.stringify(v)}`);
  if (v > SCHEMA_VERSION) throw newerError(file, v);
  if (!Object.hasOwn(value, 'rows')) throw shape('rows', 'is missing');
  const rows = value.rows;
  if (!Array.isArray(rows)) throw shape('rows', `must be an array, found ${rows === null ? 'null' : typeof rows}`);
  const extra = Object.keys(value).find((k) => k !== 'schemaVersion' && k !== 'rows');
  if (extra !== undefined) throw shape(JSON.stringify(extra), 'is not a known top-level key (only "schemaVersion" and "rows")');
  return { schemaVersion: v, raw: rows };
}

/**
 * The writer's layout, or undefined when the file has another (hand-edited) one: the byte offsets of
 * each row's line (without its trailing comma). Lines are neither decoded nor parsed here; a line that
 * is not valid UTF-8 or JSON is found when it is parsed.
 */
function decodeLines(bytes: Buffer): { schemaVersion: number; spans: Int32Array } | undefined {
  const head = HEADER_RE.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!head) return undefined;
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 32 || bytes[end - 1] === 10 || bytes[end - 1] === 13 || bytes[end - 1] === 9)) end--;
  if (bytes[end - 1] !== 125 /* } */ || bytes[end - 2] !== 93 /* ] */ || bytes[end - 3] !== 10) return undefined;
  const bodyEnd = end - 3;
  const spans: number[] = [];
  let pos = head[0].length;
  while (pos < bodyEnd) {
    let nl = bytes.indexOf(10, pos);
    if (nl < 0 || nl > bodyEnd) nl = bodyEnd;
    let lineEnd = nl;
    if (nl !== bodyEnd) {
      if (bytes[lineEnd - 1] !== 44 /* , */) return undefined;
      lineEnd--;
    }
    if (bytes[pos] !== 123 /* { */ || bytes[lineEnd - 1] !== 125 /* } */) return undefined;
    spans.push(pos, lineEnd);
    pos = nl + 1;
  }
  return { schemaVersion: Number(head[1]), spans: Int32Array.from(spans) };
}

export function digest(data: string | Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

export function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
