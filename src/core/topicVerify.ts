/**
 * Checking a topic as it is read: every export's hash chain (the
 * current one and those kept in history/), and the anchors of the latest filled TopicDecisions (the
 * draft under review, else the current decisions, else the latest in history) against the exports.
 *
 * An unfilled stub's placeholders are "not filled yet", never broken anchors. Only a broken chain or
 * an anchor that does not stand makes the topic fail, and the report names the first message.
 * Message ids are minted once per topic, so an anchor resolves in whichever export holds its message.
 */
import { PLACEHOLDER, PLACEHOLDER_MSG_ID, type TopicDecisions } from './continuity/documents';
import { validateAnchors, validateExport, type AnchorToCheck, type BrokenAnchor, type ExportProblem, type ExportTail } from './export';
import type { ExportRecord, MessageAnchor } from './transcript';

/** One export of the topic as read from disk. */
export interface ExportOnDisk {
  /** `export.jsonl` or `history/<n>/export.jsonl`. */
  file: string;
  /** The partition it belongs to, when known. */
  partition?: number;
  records: ExportRecord[];
  /** Lines that did not parse (`line N: …`). */
  errors: string[];
  /** The count and last hash export.md was written with, when it is there: the chain alone cannot show a cut or re-hashed end. */
  tail?: ExportTail;
}

export interface DecisionsOnDisk {
  file: string;
  decisions: TopicDecisions;
  /** 'draft': waiting for approval; 'current': approved (or the stub); 'history': an earlier partition. */
  kind: 'draft' | 'current' | 'history';
}

export interface ChainReport {
  file: string;
  messages: number;
  ok: boolean;
  /** The first message where the chain breaks (or the first line that does not parse). */
  firstBroken?: string;
  problems: string[];
}

export interface TopicVerification {
  /** False only for a broken chain or an anchor that does not stand. */
  ok: boolean;
  chains: ChainReport[];
  /** The decisions whose anchors were checked, when there are filled ones. */
  checked?: { file: string; partition: number; kind: DecisionsOnDisk['kind']; anchors: number };
  broken: BrokenAnchor[];
  /** Placeholders of an unfilled stub or draft: "not filled yet", not failures. */
  notFilled: string[];
  /** The first failure, naming the message: `message m-… : …`. */
  firstProblem?: string;
  /** One line for the panel and the CLI. */
  line: string;
}

function isPlaceholderText(s: string): boolean {
  return s.trimStart().startsWith(PLACEHOLDER);
}

/** A decisions file is filled once its Frame is no longer the stub's placeholder. */
export function isFilled(d: TopicDecisions): boolean {
  return d.frame.trim() !== '' && !isPlaceholderText(d.frame);
}

function isPlaceholderAnchor(a: MessageAnchor): boolean {
  return a.msgId === PLACEHOLDER_MSG_ID || isPlaceholderText(a.quote);
}

/** Every anchor of the decisions with where it is cited. */
export function anchorsOf(d: TopicDecisions): AnchorToCheck[] {
  const out: AnchorToCheck[] = [];
  for (const slot of ['rejected', 'accepted'] as const) d[slot].forEach((it, i) => it.anchors.forEach((anchor, j) => out.push({ anchor, where: `${slot}[${i}].anchors[${j}]` })));
  d.new.forEach((it, i) => (it.anchors ?? []).forEach((anchor, j) => out.push({ anchor, where: `new[${i}].anchors[${j}]` })));
  d.anchors.forEach((anchor, j) => out.push({ anchor, where: `anchors[${j}]` }));
  return out;
}

/** The end of the chain against the head export.md recorded: messages removed from the end, added after it, or the last ones re-hashed. */
function tailProblem(e: ExportOnDisk): { reason: string; msgId?: string } | undefined {
  const t = e.tail;
  if (!t) return undefined;
  const n = e.records.length;
  const last = e.records[n - 1];
  const md = e.file.replace(/export\.jsonl$/, 'export.md');
  if (n < t.messages)
    return { reason: `${md} was written with ${t.messages} messages, ${e.file} holds ${n}${last ? `, ending at message ${last.id}` : ''}: ${t.messages - n} message${t.messages - n === 1 ? ' was' : 's were'} removed from its end` };
  if (n > t.messages) {
    const added = e.records[t.messages];
    return { reason: `message ${added?.id ?? '?'} (record ${t.messages + 1}) was added after the export: ${md} was written with ${t.messages} messages`, ...(added ? { msgId: added.id } : {}) };
  }
  if (last && last.hash !== t.lastHash)
    return { reason: `message ${last.id} (record ${n}) hashes to ${last.hash.slice(0, 12)}, but ${md} recorded the last hash ${t.lastHash.slice(0, 12) || '(none)'}: the end of the export was edited and re-hashed`, msgId: last.id };
  return undefined;
}

function chainOf(e: ExportOnDisk): ChainReport {
  const v = validateExport(e.records);
  const tail = tailProblem(e);
  const problems = [...e.errors.map((x) => `${e.file} ${x}`), ...v.problems.map((p: ExportProblem) => p.reason), ...(tail ? [tail.reason] : [])];
  // A line that does not parse comes before the gap it leaves in the chain.
  const firstBroken = e.errors[0] ?? v.firstBroken ?? tail?.msgId;
  return { file: e.file, messages: e.records.length, ok: problems.length === 0, ...(firstBroken !== undefined ? { firstBroken } : {}), problems };
}

/** The latest filled decisions among the candidates, in the order draft → current → history (newest first). */
export function latestFilled(candidates: readonly DecisionsOnDisk[]): DecisionsOnDisk | undefined {
  const rank = (c: DecisionsOnDisk) => (c.kind === 'draft' ? 0 : c.kind === 'current' ? 1 : 2);
  return [...candidates].filter((c) => isFilled(c.decisions)).sort((a, b) => rank(a) - rank(b) || b.decisions.partition - a.decisions.partition)[0];
}

/**
 * Verifies a topic: the chain of every export, then the anchors of the latest filled decisions
 * against all exports' records. Decisions that are not filled yet are reported as such.
 */
export function verifyTopic(input: { exports: readonly ExportOnDisk[]; decisions: readonly DecisionsOnDisk[] }): TopicVerification {
  const chains = input.exports.map(chainOf);
  const notFilled: string[] = [];
  // The stub of a partition whose filled draft waits for approval is not "not filled": the agent wrote them, the user has not approved yet.
  const drafted = new Set(input.decisions.filter((c) => c.kind === 'draft' && isFilled(c.decisions)).map((c) => c.decisions.partition));
  for (const c of input.decisions) {
    if (c.kind === 'current' && drafted.has(c.decisions.partition)) continue;
    if (c.kind !== 'history' && !isFilled(c.decisions)) notFilled.push(`${c.file} (partition ${c.decisions.partition}) is not filled yet: the agent has not written its decisions`);
  }
  const target = latestFilled(input.decisions);
  let broken: BrokenAnchor[] = [];
  let checked: TopicVerification['checked'];
  if (target) {
    const all: ExportRecord[] = [];
    const seen = new Set<string>();
    // The caller lists the newest export first, so an id found twice resolves in the latest one.
    for (const e of input.exports)
      for (const r of e.records) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        all.push(r);
      }
    const anchors = anchorsOf(target.decisions);
    const real = anchors.filter((a) => !isPlaceholderAnchor(a.anchor));
    const placeholders = anchors.length - real.length;
    if (placeholders > 0) notFilled.push(`${target.file}: ${placeholders} anchor${placeholders === 1 ? ' is' : 's are'} still placeholders (not filled yet)`);
    broken = validateAnchors(all, real).broken;
    checked = { file: target.file, partition: target.decisions.partition, kind: target.kind, anchors: real.length };
  }
  const badChain = chains.find((c) => !c.ok);
  const firstAnchor = broken[0];
  const firstProblem = badChain
    ? `${badChain.file}: ${badChain.firstBroken !== undefined && !badChain.firstBroken.startsWith('line ') ? `message ${badChain.firstBroken}` : (badChain.firstBroken ?? 'chain')} — ${badChain.problems[0] ?? 'the chain does not hold'}`
    : firstAnchor
      ? `message ${firstAnchor.msgId} (${checked?.file ?? ''} ${firstAnchor.where}): ${firstAnchor.reason}`
      : undefined;
  const ok = firstProblem === undefined;
  const messages = chains.reduce((n, c) => n + c.messages, 0);
  const line = ok
    ? `export verified: ${chains.length === 0 ? 'no export yet' : `${messages} message${messages === 1 ? '' : 's'} in ${chains.length} export${chains.length === 1 ? '' : 's'}, chain intact`}${checked ? `; ${checked.anchors} anchor${checked.anchors === 1 ? '' : 's'} of partition ${checked.partition} stand` : ''}${notFilled.length ? '; decisions not filled yet' : ''}`
    : `export broken — ${firstProblem}`;
  return { ok, chains, ...(checked ? { checked } : {}), broken, notFilled, ...(firstProblem !== undefined ? { firstProblem } : {}), line };
}
