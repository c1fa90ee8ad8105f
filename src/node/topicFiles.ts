/**
 * The files of a topic, under `<root>/<folder>/topics/<topic>/` (folder
 * `lifeThread.continuity.folder`, default `.life-thread`):
 *
 *   transcript.jsonl       the live transcript, append-only: one TranscriptMessage per line
 *   export.jsonl           the export (source of truth for message anchors), one ExportRecord per line
 *   export.md              the same, readable
 *   topic-decisions.json   TopicDecisions (source of truth)    TopicDecisions.md   rendered
 *   topic-decisions.draft.json  the agent's decisions waiting for the user's approval
 *   handover-ops.json      HandoverOps (source of truth)       HandoverOps.md      rendered
 *   history/<partition>/   an earlier partition's pair and its export, moved there before the next
 *                          partition is written
 *
 * Partition N's export holds the messages since partition N−1's export (newSpan), so exports are
 * bounded; message ids are unique per topic, so an anchor resolves in whichever export holds it.
 *
 * Every file but the live transcript is written atomically (temp file in the same directory, fsync,
 * rename). Texts are redacted on their way in (appendMessage) and again in the export.
 */
import { writeFileAtomic } from './atomicFile';
import { isTopicId } from '../core/ids';
import { promises as fsp } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { DECISIONS_FILE, DECISIONS_JSON, EXPORT_JSONL, EXPORT_MD, OPS_FILE, OPS_JSON, PLACEHOLDER, parseDecisions, parseOps, type HandoverOps, type TopicDecisions } from '../core/continuity/documents';
import { stubDecisions } from '../core/continuity/stub';
import { renderDecisionsMarkdown, renderOpsMarkdown } from '../core/continuity/markdown';
import { makeOps, type OpsInput } from '../core/continuity/ops';
import { InputError } from '../core/errors';
import { buildExport, parseExport, parseExportTail, transcriptMessageSchema, type BuiltExport, type ExportTail, type TranscriptMessage } from '../core/export';
import { redact } from '../core/redact';
import { conversation, newSpan } from '../core/topicSpan';
import type { DecisionsOnDisk, ExportOnDisk } from '../core/topicVerify';
import type { ExportRecord } from '../core/transcript';

export const DEFAULT_FOLDER = '.life-thread';
export const TRANSCRIPT_FILE = 'transcript.jsonl';
export const HISTORY_DIR = 'history';
export const DRAFT_JSON = 'topic-decisions.draft.json';

/** A topic file that exists but cannot be read as what it should be. */
export class TopicFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'TopicFileError';
  }
}

/** The topic name, or InputError('topic'). */
export function validateTopic(topic: string): string {
  if (!isTopicId(topic)) throw new InputError('topic', `${JSON.stringify(topic)} must be letters, digits, dot, dash or underscore, starting with a letter or digit (at most 100)`);
  return topic;
}

/** The folder setting: a relative path that stays inside the workspace folder. */
export function validateFolder(folder: string): string {
  const f = folder.trim();
  if (f === '' || isAbsolute(f) || /^[A-Za-z]:/.test(f)) throw new InputError('folder', `${JSON.stringify(folder)} must be a relative path inside the workspace folder`);
  const n = normalize(f);
  if (n === '..' || n.startsWith(`..${sep}`) || n.split(/[\\/]/).includes('..')) throw new InputError('folder', `${JSON.stringify(folder)} must not leave the workspace folder`);
  return n;
}

/** `<root>/<folder>/topics`. */
export function topicsRoot(root: string, folder = DEFAULT_FOLDER): string {
  return join(root, validateFolder(folder), 'topics');
}

/** `<root>/<folder>/topics/<topic>`. */
export function topicDir(root: string, topic: string, folder = DEFAULT_FOLDER): string {
  return join(topicsRoot(root, folder), validateTopic(topic));
}

function isMissing(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'ENOENT';
}


export { writeFileAtomic };

async function readText(file: string): Promise<string | null> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    if (isMissing(e)) return null;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// The live transcript

function transcriptLine(msg: TranscriptMessage, doRedact: boolean, field: string): string {
  const p = transcriptMessageSchema.safeParse(msg);
  if (!p.success) {
    const issue = p.error.issues[0];
    throw new InputError(issue?.path.length ? `${field}.${issue.path.join('.')}` : field, issue?.message ?? 'is not a message');
  }
  const m = p.data;
  return `${JSON.stringify({ id: m.id, role: m.role, time: m.time, text: doRedact ? redact(m.text) : m.text })}\n`;
}

/** Appends messages to `transcript.jsonl` in one write (O_APPEND; redacted unless `redact: false`; InputError on a bad message), so a request and its answer stay next to each other. Nothing is written when one is bad. */
export async function appendMessages(dir: string, msgs: readonly TranscriptMessage[], opts: { redact?: boolean } = {}): Promise<void> {
  const lines = msgs.map((m, i) => transcriptLine(m, opts.redact ?? true, msgs.length === 1 ? 'message' : `messages[${i}]`)).join('');
  if (lines === '') return;
  await fsp.mkdir(dir, { recursive: true });
  await fsp.appendFile(join(dir, TRANSCRIPT_FILE), lines, { encoding: 'utf8', flag: 'a' });
}

/** The live transcript: messages in order (a repeated id keeps its first message) and one error per bad line. No file: empty. */
export async function readTranscript(dir: string): Promise<{ messages: TranscriptMessage[]; errors: string[] }> {
  const text = await readText(join(dir, TRANSCRIPT_FILE));
  const messages: TranscriptMessage[] = [];
  const errors: string[] = [];
  if (text === null) return { messages, errors };
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      errors.push(`line ${i + 1}: not JSON (a write cut short?)`);
      return;
    }
    const r = transcriptMessageSchema.safeParse(value);
    if (!r.success) {
      errors.push(`line ${i + 1}: ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    if (seen.has(r.data.id)) {
      errors.push(`line ${i + 1}: message id ${r.data.id} repeated; the first one is kept`);
      return;
    }
    seen.add(r.data.id);
    messages.push(r.data);
  });
  return { messages, errors };
}

// ---------------------------------------------------------------------------------------------
// The export

/** Builds the export from `messages` (default: the live transcript) and writes export.jsonl and export.md. */
export async function writeExport(dir: string, topic: string, messages?: readonly TranscriptMessage[]): Promise<BuiltExport> {
  validateTopic(topic);
  const msgs = messages ?? (await readTranscript(dir)).messages;
  const built = buildExport(topic, msgs);
  await writeFileAtomic(join(dir, EXPORT_JSONL), built.jsonl);
  await writeFileAtomic(join(dir, EXPORT_MD), built.markdown);
  return built;
}

/** export.jsonl parsed; null when there is none. */
export async function readExport(dir: string): Promise<{ records: ExportRecord[]; errors: string[]; tail?: ExportTail } | null> {
  const text = await readText(join(dir, EXPORT_JSONL));
  if (text === null) return null;
  const md = await readText(join(dir, EXPORT_MD));
  const tail = md === null ? null : parseExportTail(md);
  return { ...parseExport(text), ...(tail ? { tail } : {}) };
}

/** Every export of the topic, newest first: export.jsonl, then history/<n>/export.jsonl from the highest n. */
export async function readExports(dir: string): Promise<ExportOnDisk[]> {
  const out: ExportOnDisk[] = [];
  const current = await readExport(dir);
  const cur = await currentPartition(dir);
  if (current) out.push({ file: EXPORT_JSONL, ...(cur !== null ? { partition: cur } : {}), ...current });
  for (const n of (await historyPartitions(dir)).sort((a, b) => b - a)) {
    const h = await readExport(join(dir, HISTORY_DIR, String(n)));
    if (h) out.push({ file: `${HISTORY_DIR}/${n}/${EXPORT_JSONL}`, partition: n, ...h });
  }
  return out;
}

/** The records of all the topic's exports (newest first; an id found twice keeps the newest). */
export async function readAllRecords(dir: string): Promise<ExportRecord[]> {
  const seen = new Set<string>();
  const all: ExportRecord[] = [];
  for (const e of await readExports(dir)) {
    for (const r of e.records) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      all.push(r);
    }
  }
  return all;
}

// ---------------------------------------------------------------------------------------------
// The pair

async function readJson<T>(file: string, parse: (v: unknown) => { ok: true; value: T } | { ok: false; field: string; reason: string }): Promise<T | null> {
  const text = await readText(file);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TopicFileError(file, 'is not JSON');
  }
  if (typeof value === 'object' && value !== null && typeof (value as { schemaVersion?: unknown }).schemaVersion === 'number' && (value as { schemaVersion: number }).schemaVersion > 1)
    throw new TopicFileError(file, `has schemaVersion ${(value as { schemaVersion: number }).schemaVersion}, newer than this version of Life Thread reads (1)`);
  const r = parse(value);
  if (!r.ok) throw new TopicFileError(file, `${r.field}: ${r.reason}`);
  return r.value;
}

/** topic-decisions.json; null when there is none; TopicFileError when it is not valid. */
export function readDecisions(dir: string): Promise<TopicDecisions | null> {
  return readJson(join(dir, DECISIONS_JSON), parseDecisions);
}

/** handover-ops.json; null when there is none; TopicFileError when it is not valid. */
export function readOps(dir: string): Promise<HandoverOps | null> {
  return readJson(join(dir, OPS_JSON), parseOps);
}

/** A partition's decisions kept in history/<n>/; null when there are none. */
export function readHistoryDecisions(dir: string, partition: number): Promise<TopicDecisions | null> {
  return readJson(join(dir, HISTORY_DIR, String(partition), DECISIONS_JSON), parseDecisions);
}

/** The draft waiting for approval; null when there is none; TopicFileError when it is not valid. */
export function readDraft(dir: string): Promise<TopicDecisions | null> {
  return readJson(join(dir, DRAFT_JSON), parseDecisions);
}

/** Writes the agent's decisions as the draft (atomically). Throws InputError when they are not valid. */
export async function writeDraft(dir: string, d: TopicDecisions): Promise<void> {
  const p = parseDecisions(d);
  if (!p.ok) throw new InputError(`decisions.${p.field}`, p.reason);
  await writeFileAtomic(join(dir, DRAFT_JSON), `${JSON.stringify(p.value, null, 2)}\n`);
}

export async function removeDraft(dir: string): Promise<void> {
  await fsp.rm(join(dir, DRAFT_JSON), { force: true });
}

export async function historyPartitions(dir: string): Promise<number[]> {
  try {
    const names = await fsp.readdir(join(dir, HISTORY_DIR));
    return names.filter((n) => /^[1-9]\d{0,6}$/.test(n)).map(Number);
  } catch (e) {
    if (isMissing(e)) return [];
    throw e;
  }
}

async function currentPartition(dir: string): Promise<number | null> {
  const text = await readText(join(dir, DECISIONS_JSON));
  if (text === null) return null;
  try {
    const p = (JSON.parse(text) as { partition?: unknown }).partition;
    return typeof p === 'number' && Number.isInteger(p) && p >= 1 ? p : null;
  } catch {
    return null;
  }
}

/** One more than the highest partition written (the current pair or history); 1 for a new topic. */
export async function nextPartition(dir: string): Promise<number> {
  const all = [...(await historyPartitions(dir))];
  const cur = await currentPartition(dir);
  if (cur !== null) all.push(cur);
  return all.length === 0 ? 1 : Math.max(...all) + 1;
}

/**
 * Copies the current pair and its export to history/<its partition>/ (the JSON as is, the decisions'
 * Markdown re-rendered so its export link resolves from there). Returns the partition archived, or
 * null when there is no current pair.
 */
export async function archivePair(dir: string): Promise<number | null> {
  const d = await readDecisions(dir);
  if (!d) return null;
  const to = join(dir, HISTORY_DIR, String(d.partition));
  await fsp.mkdir(to, { recursive: true });
  await writeFileAtomic(join(to, DECISIONS_JSON), `${JSON.stringify(d, null, 2)}\n`);
  await writeFileAtomic(join(to, DECISIONS_FILE), renderDecisionsMarkdown(d, { exportLink: EXPORT_MD }));
  for (const f of [OPS_JSON, OPS_FILE, EXPORT_JSONL, EXPORT_MD]) {
    const text = await readText(join(dir, f));
    if (text !== null) await writeFileAtomic(join(to, f), text);
  }
  return d.partition;
}

/**
 * Writes TopicDecisions (JSON and Markdown). A higher partition than the current one archives the
 * current pair first; a lower one is refused. Throws InputError when `d` is not valid.
 */
export async function writeDecisions(dir: string, d: TopicDecisions): Promise<{ archived: number | null }> {
  const p = parseDecisions(d);
  if (!p.ok) throw new InputError(`decisions.${p.field}`, p.reason);
  const cur = await currentPartition(dir);
  if (cur !== null && p.value.partition < cur) throw new InputError('decisions.partition', `${p.value.partition} is older than the current partition ${cur}`);
  const archived = cur !== null && p.value.partition > cur ? await archivePair(dir) : null;
  await writeFileAtomic(join(dir, DECISIONS_JSON), `${JSON.stringify(p.value, null, 2)}\n`);
  await writeFileAtomic(join(dir, DECISIONS_FILE), renderDecisionsMarkdown(p.value, { exportLink: EXPORT_MD }));
  return { archived };
}

/** Writes Handover ops (JSON and Markdown; `stale` as checkOps said, for the Markdown's state line). Throws InputError when `ops` is not valid. */
export async function writeOps(dir: string, ops: HandoverOps, opts: { stale?: string[] } = {}): Promise<void> {
  const p = parseOps(ops);
  if (!p.ok) throw new InputError(`ops.${p.field}`, p.reason);
  await writeFileAtomic(join(dir, OPS_JSON), `${JSON.stringify(p.value, null, 2)}\n`);
  await writeFileAtomic(join(dir, OPS_FILE), renderOpsMarkdown(p.value, opts));
}

export type StubInput = Omit<OpsInput, 'topic' | 'partition' | 'decisionsLink'> & {
  /** The messages to export; default the pending span (pendingSpan). */
  messages?: readonly TranscriptMessage[];
};

export interface StubResult {
  partition: number;
  decisions: TopicDecisions;
  ops: HandoverOps;
  export: BuiltExport;
  /** The partition copied to history/ (null for the first one, or when an unfilled stub was replaced). */
  archived: number | null;
  /** The approved decisions of the partition before, if any. */
  previous: TopicDecisions | undefined;
}

/** Whether decisions are still the stub's (Frame a placeholder: a Partition that was never filled). */
function isStub(d: TopicDecisions): boolean {
  return d.frame.trimStart().startsWith(PLACEHOLDER);
}

export interface PendingSpan {
  /** The partition a Partition now would write. */
  partition: number;
  /** The messages since the previous partition's export. */
  messages: TranscriptMessage[];
  /** How many of them are conversation (not /partition or /resume turns). */
  conversation: number;
  /** The previous approved partition, if any. */
  previousPartition: number | null;
}

/**
 * What a Partition now would export: the live transcript's messages since the export of the
 * previous approved partition (the current export when the current decisions are approved; the one
 * in history/ when the current decisions are an unfilled stub, which a new Partition replaces).
 */
export async function pendingSpan(dir: string): Promise<PendingSpan> {
  const current = await readDecisions(dir);
  const transcript = (await readTranscript(dir)).messages;
  let previousPartition: number | null = null;
  let previousExport: { records: ExportRecord[] } | null = null;
  let partition: number;
  if (current && isStub(current)) {
    partition = current.partition;
    previousPartition = current.previous ?? null;
    previousExport = previousPartition === null ? null : await readExport(join(dir, HISTORY_DIR, String(previousPartition)));
  } else {
    partition = await nextPartition(dir);
    previousPartition = current?.partition ?? null;
    previousExport = current ? await readExport(dir) : null;
  }
  const messages = newSpan(transcript, new Set((previousExport?.records ?? []).map((r) => r.id)));
  return { partition, messages, conversation: conversation(messages).length, previousPartition };
}

/**
 * What the harness writes on Partition: the export of the new span, a TopicDecisions stub
 * (placeholders, the previous Rejected carried forward) and Handover ops, the previous pair and its
 * export archived first. When the current decisions are themselves an unfilled stub, it is replaced
 * in place, keeping its partition number and its predecessor.
 */
export async function writeStub(dir: string, topic: string, input: StubInput): Promise<StubResult> {
  validateTopic(topic);
  await fsp.mkdir(dir, { recursive: true });
  const messages = input.messages ?? (await pendingSpan(dir)).messages;
  const current = await readDecisions(dir);
  let partition: number;
  let previous: TopicDecisions | undefined;
  let archived: number | null = null;
  if (current && isStub(current)) {
    partition = current.partition;
    if (current.previous !== undefined) {
      // The predecessor from history/; if that copy is gone, at least the Rejected items the stub carried.
      previous = (await readHistoryDecisions(dir, current.previous)) ?? { ...current, partition: current.previous, rejected: current.rejected.filter((r) => r.carriedFrom !== undefined) };
    }
  } else {
    partition = await nextPartition(dir);
    previous = current ?? undefined;
    archived = await archivePair(dir);
  }
  await removeDraft(dir);
  const built = await writeExport(dir, topic, messages);
  const decisions = stubDecisions(topic, partition, previous, input.now);
  await writeFileAtomic(join(dir, DECISIONS_JSON), `${JSON.stringify(decisions, null, 2)}\n`);
  await writeFileAtomic(join(dir, DECISIONS_FILE), renderDecisionsMarkdown(decisions, { exportLink: EXPORT_MD }));
  const { messages: _m, ...opsInput } = input;
  const ops = makeOps({ ...opsInput, topic, partition });
  await writeOps(dir, ops);
  return { partition, decisions, ops, export: built, archived, previous };
}

/** All decisions of the topic as read for a check: the draft, the current, and each partition in history/. */
export async function readAllDecisions(dir: string): Promise<DecisionsOnDisk[]> {
  const out: DecisionsOnDisk[] = [];
  const draft = await readDraft(dir);
  if (draft) out.push({ file: DRAFT_JSON, decisions: draft, kind: 'draft' });
  const current = await readDecisions(dir);
  if (current) out.push({ file: DECISIONS_JSON, decisions: current, kind: 'current' });
  for (const n of (await historyPartitions(dir)).sort((a, b) => b - a)) {
    const h = await readHistoryDecisions(dir, n);
    if (h) out.push({ file: `${HISTORY_DIR}/${n}/${DECISIONS_JSON}`, decisions: h, kind: 'history' });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Listing

export interface TopicEntry {
  topic: string;
  dir: string;
  /** The current partition (null: no decisions yet, or unreadable). */
  partition: number | null;
  hasTranscript: boolean;
  hasExport: boolean;
  hasOps: boolean;
  /** The latest modification among the topic's files (ISO), null when it has none. */
  updatedAt: string | null;
}

/** The topics under `<root>/<folder>/topics`, sorted by name; directories whose names are not valid topics are skipped. */
export async function listTopics(root: string, folder = DEFAULT_FOLDER): Promise<TopicEntry[]> {
  const base = topicsRoot(root, folder);
  let names: string[];
  try {
    names = await fsp.readdir(base);
  } catch (e) {
    if (isMissing(e)) return [];
    throw e;
  }
  const out: TopicEntry[] = [];
  for (const topic of names.sort()) {
    if (!isTopicId(topic)) continue;
    const dir = join(base, topic);
    const st = await fsp.stat(dir).catch(() => null);
    if (!st?.isDirectory()) continue;
    let latest = 0;
    const has = async (f: string): Promise<boolean> => {
      const s = await fsp.stat(join(dir, f)).catch(() => null);
      if (!s) return false;
      latest = Math.max(latest, s.mtimeMs);
      return true;
    };
    const hasTranscript = await has(TRANSCRIPT_FILE);
    const hasExport = await has(EXPORT_JSONL);
    const hasOps = await has(OPS_JSON);
    await has(DECISIONS_JSON);
    out.push({ topic, dir, partition: await currentPartition(dir), hasTranscript, hasExport, hasOps, updatedAt: latest ? new Date(latest).toISOString() : null });
  }
  return out;
}
