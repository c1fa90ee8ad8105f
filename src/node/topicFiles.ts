/**
 * The files of a topic (design §6), under `<root>/<folder>/topics/<topic>/` (folder
 * `lifeThread.continuity.folder`, default `.life-thread`):
 *
 *   transcript.jsonl       the live transcript, append-only: one TranscriptMessage per line
 *   export.jsonl           the export (source of truth for message anchors), one ExportRecord per line
 *   export.md              the same, readable
 *   topic-decisions.json   TopicDecisions (source of truth)    TopicDecisions.md   rendered
 *   handover-ops.json      HandoverOps (source of truth)       HandoverOps.md      rendered
 *   history/<partition>/   the previous partition's pair, copied there before a new partition is written
 *
 * Every file but the live transcript is written atomically (temp file in the same directory, fsync,
 * rename). Texts are redacted on their way in (appendMessage) and again in the export.
 */
import { writeFileAtomic } from './atomicFile';
import { promises as fsp } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import {
  DECISIONS_FILE,
  DECISIONS_JSON,
  EXPORT_JSONL,
  EXPORT_MD,
  OPS_FILE,
  OPS_JSON,
  PLACEHOLDER,
  TOPIC_RE,
  makeOps,
  parseDecisions,
  parseOps,
  renderDecisionsMarkdown,
  renderOpsMarkdown,
  stubDecisions,
  type HandoverOps,
  type OpsInput,
  type TopicDecisions,
} from '../core/continuity';
import { InputError } from '../core/errors';
import { buildExport, parseExport, transcriptMessageSchema, type BuiltExport, type TranscriptMessage } from '../core/export';
import { redact } from '../core/redact';
import type { ExportRecord } from '../core/transcript';

export const DEFAULT_FOLDER = '.life-thread';
export const TRANSCRIPT_FILE = 'transcript.jsonl';
export const HISTORY_DIR = 'history';

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
  if (!TOPIC_RE.test(topic)) throw new InputError('topic', `${JSON.stringify(topic)} must be letters, digits, dot, dash or underscore, starting with a letter or digit (at most 100)`);
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

/** Appends one message to `transcript.jsonl` (one line, O_APPEND). The text is redacted unless `redact: false`. Throws InputError on a bad message. */
export async function appendMessage(dir: string, msg: TranscriptMessage, opts: { redact?: boolean } = {}): Promise<void> {
  const p = transcriptMessageSchema.safeParse(msg);
  if (!p.success) {
    const issue = p.error.issues[0];
    throw new InputError(issue?.path.length ? `message.${issue.path.join('.')}` : 'message', issue?.message ?? 'is not a message');
  }
  const m = p.data;
  const line = `${JSON.stringify({ id: m.id, role: m.role, time: m.time, text: (opts.redact ?? true) ? redact(m.text) : m.text })}\n`;
  await fsp.mkdir(dir, { recursive: true });
  await fsp.appendFile(join(dir, TRANSCRIPT_FILE), line, { encoding: 'utf8', flag: 'a' });
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
export async function readExport(dir: string): Promise<{ records: ExportRecord[]; errors: string[] } | null> {
  const text = await readText(join(dir, EXPORT_JSONL));
  return text === null ? null : parseExport(text);
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

async function historyPartitions(dir: string): Promise<number[]> {
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
 * Copies the current pair to history/<its partition>/ (the JSON as is, the decisions' Markdown
 * re-rendered so its export link still resolves from there). Returns the partition archived, or null
 * when there is no current pair.
 */
export async function archivePair(dir: string): Promise<number | null> {
  const d = await readDecisions(dir);
  if (!d) return null;
  const to = join(dir, HISTORY_DIR, String(d.partition));
  await fsp.mkdir(to, { recursive: true });
  await writeFileAtomic(join(to, DECISIONS_JSON), `${JSON.stringify(d, null, 2)}\n`);
  await writeFileAtomic(join(to, DECISIONS_FILE), renderDecisionsMarkdown(d, { exportLink: `../../${EXPORT_MD}` }));
  for (const f of [OPS_JSON, OPS_FILE]) {
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
  /** The transcript to export; default the live transcript.jsonl. */
  messages?: readonly TranscriptMessage[];
};

export interface StubResult {
  partition: number;
  decisions: TopicDecisions;
  ops: HandoverOps;
  export: BuiltExport;
  /** The partition copied to history/ (null for the first one, or when an unfilled stub was replaced). */
  archived: number | null;
}

/**
 * What the harness writes on Partition: the export, a TopicDecisions stub (placeholders, the previous
 * Rejected carried forward) and Handover ops, the previous pair archived first. When the current
 * decisions are themselves an unfilled stub (Frame still a placeholder: a Partition that was never
 * approved), it is replaced in place, keeping its partition number and its predecessor.
 */
export async function writeStub(dir: string, topic: string, input: StubInput): Promise<StubResult> {
  validateTopic(topic);
  await fsp.mkdir(dir, { recursive: true });
  const current = await readDecisions(dir);
  let partition: number;
  let previous: TopicDecisions | undefined;
  let archived: number | null = null;
  if (current && current.frame.trimStart().startsWith(PLACEHOLDER)) {
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
  const built = await writeExport(dir, topic, input.messages);
  const decisions = stubDecisions(topic, partition, previous, input.now);
  await writeFileAtomic(join(dir, DECISIONS_JSON), `${JSON.stringify(decisions, null, 2)}\n`);
  await writeFileAtomic(join(dir, DECISIONS_FILE), renderDecisionsMarkdown(decisions, { exportLink: EXPORT_MD }));
  const { messages: _m, ...opsInput } = input;
  const ops = makeOps({ ...opsInput, topic, partition });
  await writeOps(dir, ops);
  return { partition, decisions, ops, export: built, archived };
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
    if (!TOPIC_RE.test(topic)) continue;
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
