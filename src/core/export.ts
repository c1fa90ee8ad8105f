/**
 * The export of a topic's transcript: one record per message with the id `@life`
 * minted, a content hash and the previous record's hash (a chain, see `messageHash`), written as
 *
 *   export.jsonl — the source of truth: one ExportRecord per line, in order. Message anchors
 *                  `{ msgId, start, end, quote }` are UTF-16 offsets into a record's `text`,
 *                  end-exclusive;
 *   export.md    — the same, readable: a title, then per message an `<a id="<msgId>"></a>` line, a
 *                  heading with the role and time, and the text verbatim inside a backtick fence
 *                  longer than any run of backticks in the text (so nothing in it can close the
 *                  fence, and Markdown shows it literally; line endings may be normalised by a
 *                  viewer — offsets are only ever taken from the JSONL).
 *
 * By default the text is passed through `redact` before it is hashed: the files live in the
 * workspace, and a key said in the chat must not land there. Redaction is deterministic, so the same
 * transcript always exports to the same records, and anchors are cut from the export, not from the
 * chat.
 *
 * `validateExport` checks the chain, `validateAnchors` checks cited spans: message anchors are the
 * CodeAnchor family: the message text is the "file", the quote the excerpt, and a quote
 * that no longer stands at its span is looked for elsewhere in the message (moved) like the excerpt
 * step of the ladder.
 */
import { resolveMessageAnchor } from './anchor/ladder';
import { z } from 'zod';
import { InputError } from './errors';
import { redact as redactSecrets } from './redact';
import { exportRecordSchema, messageHash, parseExportJsonl, type ExportRecord, type MessageAnchor } from './transcript';

/** A message of the live transcript, as `@life` records it. */
export const transcriptMessageSchema = z
  .object({
    id: z.string().min(1).max(100),
    role: z.enum(['user', 'assistant']),
    time: z.string().min(1).max(64),
    text: z.string(),
  })
  .strict();
export type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;

export interface BuiltExport {
  records: ExportRecord[];
  jsonl: string;
  markdown: string;
}

export interface ExportOptions {
  /** Pass each text through `redact` before hashing (default true). */
  redact?: boolean;
  /** Title of the Markdown; default `Transcript — <topic>`. */
  title?: string;
}

/** The records of a transcript: validated, (redacted,) hashed and chained. Throws InputError on a bad message or a repeated id. */
export function buildRecords(messages: readonly TranscriptMessage[], opts: ExportOptions = {}): ExportRecord[] {
  const doRedact = opts.redact ?? true;
  const seen = new Set<string>();
  const records: ExportRecord[] = [];
  let prevHash = '';
  messages.forEach((m, i) => {
    const p = transcriptMessageSchema.safeParse(m);
    if (!p.success) {
      const issue = p.error.issues[0];
      throw new InputError(`messages[${i}]${issue?.path.length ? `.${issue.path.join('.')}` : ''}`, issue?.message ?? 'is not a message');
    }
    if (seen.has(m.id)) throw new InputError(`messages[${i}].id`, `message id ${m.id} appears twice`);
    seen.add(m.id);
    const text = doRedact ? redactSecrets(m.text) : m.text;
    const base = { id: m.id, role: m.role, time: m.time, text, prevHash };
    const hash = messageHash(base);
    records.push({ id: m.id, role: m.role, time: m.time, text, hash, prevHash });
    prevHash = hash;
  });
  return records;
}

/** One JSON object per line, each line ending with `\n`. Key order is fixed (id, role, time, text, hash, prevHash). */
export function toJsonl(records: readonly ExportRecord[]): string {
  const lines: string[] = new Array<string>(records.length);
  records.forEach((r, i) => {
    lines[i] = JSON.stringify({ id: r.id, role: r.role, time: r.time, text: r.text, hash: r.hash, prevHash: r.prevHash });
  });
  return records.length ? `${lines.join('\n')}\n` : '';
}

function escapeHtmlAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Backslash-escapes the characters Markdown reads as inline syntax (for titles, headings, link texts). */
export function escapeMarkdownInline(s: string): string {
  return s.replace(/[\\`*_[\]<>#|~!]/g, (c) => `\\${c}`).replace(/\r\n?|\n/g, ' ');
}

/** A backtick fence longer than the longest run of backticks in `text` (at least 3). */
export function fenceFor(text: string): string {
  let longest = 0;
  if (text.includes('`')) for (const run of text.match(/`+/g) ?? []) if (run.length > longest) longest = run.length;
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The readable export: title, then per message an anchor line, a heading (role · time · id) and the text in a fence. */
export function renderExportMarkdown(topic: string, records: readonly ExportRecord[], title?: string): string {
  const parts: string[] = [];
  parts.push(`# ${escapeMarkdownInline(title ?? `Transcript — ${topic}`)}\n\n`);
  parts.push(
    `${records.length} message${records.length === 1 ? '' : 's'}. The source of truth is \`export.jsonl\` beside this file: ` +
      'message anchors are UTF-16 offsets into a record\'s `text` (end-exclusive), and each record carries a hash chained to the one before. ' +
      'Below, each text stands verbatim inside a fence.\n',
  );
  const last = records[records.length - 1];
  if (last) parts.push(`\nLast hash: \`${last.hash}\`\n`);
  for (const r of records) {
    const fence = fenceFor(r.text);
    // Pieces, not one template per message: the texts are not copied again before the final join.
    parts.push(`\n<a id="${escapeHtmlAttr(r.id)}"></a>\n\n### ${r.role} · ${escapeMarkdownInline(r.time)} · \`${r.id.replace(/`/g, "'")}\`\n\n${fence}text\n`, r.text, r.text.endsWith('\n') || r.text === '' ? '' : '\n', `${fence}\n`);
  }
  return parts.join('');
}

/** The export of a topic: records, their JSONL and the readable Markdown. */
export function buildExport(topic: string, messages: readonly TranscriptMessage[], opts: ExportOptions = {}): BuiltExport {
  const records = buildRecords(messages, opts);
  return { records, jsonl: toJsonl(records), markdown: renderExportMarkdown(topic, records, opts.title) };
}

/** What export.md says about the end of its JSONL: the message count and the last hash (the chain's head, kept apart from the JSONL so a cut or re-hashed tail shows). */
export interface ExportTail {
  messages: number;
  /** '' for an export of no messages. */
  lastHash: string;
}

/** Reads the count and the `Last hash` from the header of an export.md written by `renderExportMarkdown`; null when it has none. */
export function parseExportTail(markdown: string): ExportTail | null {
  // Only the header, before the first message: a text inside a fence cannot pose as it.
  const head = markdown.slice(0, Math.max(0, markdown.indexOf('\n<a id=')) || markdown.length);
  const count = /^(\d+) messages?\. The source of truth is/m.exec(head);
  if (!count) return null;
  const messages = Number(count[1]);
  const last = /^Last hash: `([0-9a-f]{64})`$/m.exec(head);
  if (messages > 0 && !last) return null;
  return { messages, lastHash: last?.[1] ?? '' };
}

/** Reads an export back: the records that parse, and one error per bad line (`line N: …`). */
export function parseExport(jsonl: string): { records: ExportRecord[]; errors: string[] } {
  return parseExportJsonl(jsonl);
}

// ---------------------------------------------------------------------------------------------
// Validation

export type ExportProblemKind = 'hash' | 'prev_hash' | 'duplicate_id' | 'schema';

export interface ExportProblem {
  kind: ExportProblemKind;
  /** 0-based position of the record. */
  index: number;
  msgId: string;
  reason: string;
}

export interface ExportValidation {
  ok: boolean;
  /** The first message whose hash or prevHash does not match (where the chain breaks), if any. */
  firstBroken?: string;
  problems: ExportProblem[];
}

const HASH_RE = /^[0-9a-f]{64}$/;
const PREV_RE = /^([0-9a-f]{64})?$/;

function short(hash: string): string {
  return hash === '' ? '(empty)' : hash.slice(0, 12);
}

/** Checks the chain (each hash recomputed, each prevHash the hash before it, the first one empty) and that ids are unique. */
export function validateExport(records: readonly ExportRecord[]): ExportValidation {
  const problems: ExportProblem[] = [];
  const seen = new Map<string, number>();
  let firstBroken: string | undefined;
  records.forEach((r, i) => {
    // The full schema only for a record whose hashes are not even shaped right (zod per record costs more than the hash).
    const shape = HASH_RE.test(r.hash) && PREV_RE.test(r.prevHash) ? undefined : exportRecordSchema.safeParse(r);
    if (shape && !shape.success) {
      const issue = shape.error.issues[0];
      problems.push({ kind: 'schema', index: i, msgId: String(r.id), reason: `record ${i + 1}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}` });
    }
    const before = seen.get(r.id);
    if (before !== undefined) problems.push({ kind: 'duplicate_id', index: i, msgId: r.id, reason: `message id ${r.id} appears twice (records ${before + 1} and ${i + 1})` });
    else seen.set(r.id, i);
    const expectedPrev = i === 0 ? '' : (records[i - 1]?.hash ?? '');
    if (r.prevHash !== expectedPrev) {
      firstBroken ??= r.id;
      const prevId = i === 0 ? undefined : records[i - 1]?.id;
      problems.push({
        kind: 'prev_hash',
        index: i,
        msgId: r.id,
        reason:
          prevId === undefined
            ? `message ${r.id} (record 1) has prevHash ${short(r.prevHash)}; the first record's must be empty`
            : `message ${r.id} (record ${i + 1}): prevHash ${short(r.prevHash)} is not the hash ${short(expectedPrev)} of message ${prevId} before it (a record was inserted, removed, reordered or re-hashed)`,
      });
    }
    const actual = messageHash(r);
    if (actual !== r.hash) {
      firstBroken ??= r.id;
      problems.push({ kind: 'hash', index: i, msgId: r.id, reason: `message ${r.id} (record ${i + 1}) was edited: its content hashes to ${short(actual)}, the record says ${short(r.hash)}` });
    }
  });
  return firstBroken === undefined ? { ok: problems.length === 0, problems } : { ok: false, firstBroken, problems };
}

export interface AnchorToCheck {
  anchor: MessageAnchor;
  /** Where the anchor is cited, for the report (e.g. `accepted[2].anchors[0]`). */
  where: string;
}

export type BrokenAnchorKind = 'unknown_message' | 'out_of_range' | 'empty' | 'quote_differs' | 'edited_message';

export interface BrokenAnchor {
  where: string;
  msgId: string;
  kind: BrokenAnchorKind;
  reason: string;
  /** For `quote_differs` when the quote stands exactly once elsewhere in the message: its span there. */
  movedTo?: { start: number; end: number };
}

export interface AnchorValidation {
  ok: boolean;
  broken: BrokenAnchor[];
}

const SHOW = 80;

/** A string for a reason: JSON-quoted, cut to SHOW characters. */
export function showText(s: string, max = SHOW): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

/**
 * Checks that each quote stands verbatim at [start, end) of its message's text (UTF-16,
 * end-exclusive), in an export whose record is unedited (its hash recomputes). One reason per anchor,
 * in this order: unknown message, edited message, span out of range, empty span, quote differs.
 */
export function validateAnchors(records: readonly ExportRecord[], anchors: readonly AnchorToCheck[]): AnchorValidation {
  const byId = new Map<string, ExportRecord>();
  for (const r of records) if (!byId.has(r.id)) byId.set(r.id, r);
  const intact = new Map<string, boolean>();
  const broken: BrokenAnchor[] = [];
  for (const { anchor: a, where } of anchors) {
    const r = byId.get(a.msgId);
    if (!r) {
      broken.push({ where, msgId: a.msgId, kind: 'unknown_message', reason: `no message ${a.msgId} in the export` });
      continue;
    }
    let ok = intact.get(r.id);
    if (ok === undefined) {
      ok = messageHash(r) === r.hash;
      intact.set(r.id, ok);
    }
    if (!ok) {
      broken.push({ where, msgId: a.msgId, kind: 'edited_message', reason: `message ${a.msgId} was edited after the export (its hash does not match its text), so its spans cannot be trusted` });
      continue;
    }
    const len = r.text.length;
    if (!Number.isInteger(a.start) || !Number.isInteger(a.end) || a.start < 0 || a.end < a.start || a.end > len) {
      broken.push({ where, msgId: a.msgId, kind: 'out_of_range', reason: `span ${a.start}-${a.end} is out of range: message ${a.msgId} has ${len} characters (offsets are UTF-16, end-exclusive, start ≤ end)` });
      continue;
    }
    if (a.end === a.start) {
      broken.push({ where, msgId: a.msgId, kind: 'empty', reason: `span ${a.start}-${a.end} is empty: an anchor must cite at least one character` });
      continue;
    }
    const there = r.text.slice(a.start, a.end);
    if (there === a.quote) continue;
    const b: BrokenAnchor = { where, msgId: a.msgId, kind: 'quote_differs', reason: `quote differs: span ${a.start}-${a.end} of message ${a.msgId} holds ${showText(there)}, the anchor quotes ${showText(a.quote)}` };
    if (a.quote !== '') {
      const res = resolveMessageAnchor(r.text, a);
      if (res.step === 'excerpt') b.movedTo = { start: res.start, end: res.end };
      b.reason += `; ${res.reason}`;
    }
    broken.push(b);
  }
  return { ok: broken.length === 0, broken };
}
