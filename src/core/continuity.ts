/**
 * The continuity pair of Partition (design §6, seed 002): TopicDecisions (layer A — what this line of
 * work decided, long-lived) and Handover ops (layer B — the state of the desk, short-lived), linked
 * both ways, with decisions anchored into the export (layer C, src/core/export.ts).
 *
 * Rules kept here:
 * - Every Accepted and Rejected item has a reason and at least one message anchor whose quote stands
 *   at its span in the export (`lintDecisions`).
 * - Rejected items carry forward to the next partition (`carriedFrom` = the partition that first
 *   rejected them) until superseded. An item is superseded when the next partition
 *     (a) accepts an item with the same normalized text (the rejection was reversed), or
 *     (b) has any item (Accepted, Rejected or New) whose `supersedes` names it by normalized text.
 *   A Rejected item restated in the next partition is kept once, in its new wording.
 *   Normalized text: Unicode NFKC, lower case, whitespace collapsed, trimmed, trailing `.;:!` dropped.
 * - Ops never carry Frame/Rejected/Accepted (their schema is strict).
 * - A placeholder is a string that begins with `TODO` (the stub's marker), or an anchor whose msgId
 *   is `TODO`; lint refuses any left in.
 * - The resume text is "A then B": decisions first, ops only as a link and one line of state.
 */
import { z } from 'zod';
import { validateAnchors, showText, type AnchorToCheck } from './export';
import { messageLink } from './landing';
import { redact } from './redact';
import { instantWords, type ShowTime } from './time/describe';
import { messageAnchorSchema, type ExportRecord, type MessageAnchor } from './transcript';

export const DECISIONS_FILE = 'TopicDecisions.md';
export const DECISIONS_JSON = 'topic-decisions.json';
export const OPS_FILE = 'HandoverOps.md';
export const OPS_JSON = 'handover-ops.json';
export const EXPORT_MD = 'export.md';
export const EXPORT_JSONL = 'export.jsonl';

export const TOPIC_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const topicNameSchema = z.string().regex(TOPIC_RE, 'must be letters, digits, dot, dash or underscore, starting with a letter or digit (at most 100)');

/** The stub's placeholder marker. */
export const PLACEHOLDER = 'TODO';
export const PLACEHOLDER_MSG_ID = 'TODO';

const text = z.string().max(4000);
const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date-time');
const partition = z.number().int().min(1).max(1_000_000);

export const decisionItemSchema = z
  .object({
    text,
    reason: text,
    anchors: z.array(messageAnchorSchema).max(50),
    /** The partition in which this Rejected item was first rejected, when carried forward. */
    carriedFrom: partition.optional(),
    /** The normalized text of an earlier Rejected item this one replaces. */
    supersedes: text.optional(),
  })
  .strict();
export type DecisionItem = z.infer<typeof decisionItemSchema>;

export const newItemSchema = z
  .object({ text, anchors: z.array(messageAnchorSchema).max(50).optional(), supersedes: text.optional() })
  .strict();
export type NewItem = z.infer<typeof newItemSchema>;

export const topicDecisionsSchema = z
  .object({
    schemaVersion: z.literal(1),
    topic: topicNameSchema,
    partition,
    createdAt: isoTime,
    frame: z.string().max(8000),
    rejected: z.array(decisionItemSchema).max(500),
    accepted: z.array(decisionItemSchema).max(500),
    new: z.array(newItemSchema).max(500),
    next: z.array(text).max(100),
    anchors: z.array(messageAnchorSchema).max(200),
    opsLink: z.string().min(1).max(400),
    previous: partition.optional(),
  })
  .strict();
export type TopicDecisions = z.infer<typeof topicDecisionsSchema>;

const pathList = z.array(z.string().max(4096)).max(10_000);

export const repoStateSchema = z
  .object({
    root: z.string().min(1).max(4096),
    /** '' when HEAD is detached. */
    branch: z.string().max(400),
    /** '' in a repository without commits. */
    head: z.string().regex(/^([0-9a-f]{7,64})?$/, 'must be a hex SHA'),
    /** Paths relative to root, sorted. */
    dirty: pathList,
  })
  .strict();
export type RepoState = z.infer<typeof repoStateSchema>;

export const handoverOpsSchema = z
  .object({
    schemaVersion: z.literal(1),
    topic: topicNameSchema,
    partition,
    createdAt: isoTime,
    expiresAt: isoTime,
    decisionsLink: z.string().min(1).max(400),
    repo: repoStateSchema.nullable(),
    openEditors: pathList,
    runningTasks: z.array(z.string().max(400)).max(200),
    openItems: z.array(text).max(200),
    firstMoves: z.array(text).max(50),
  })
  .strict();
export type HandoverOps = z.infer<typeof handoverOpsSchema>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; field: string; reason: string };

function parseWith<T>(schema: z.ZodType<T>, value: unknown): ParseResult<T> {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  return { ok: false, field: issue?.path.map(String).join('.') || 'value', reason: issue?.message ?? 'invalid' };
}

export function parseDecisions(value: unknown): ParseResult<TopicDecisions> {
  return parseWith(topicDecisionsSchema, value);
}

export function parseOps(value: unknown): ParseResult<HandoverOps> {
  return parseWith(handoverOpsSchema, value);
}

// ---------------------------------------------------------------------------------------------
// Normalized text, carry-forward

/** The form items are compared in: NFKC, lower case, whitespace collapsed, trimmed, trailing `.;:!` dropped. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.;:!]+$/, '');
}

export interface Superseded {
  item: DecisionItem;
  /** How: the slot and text of the item in `next` that superseded it. */
  by: { slot: 'accepted' | 'rejected' | 'new'; text: string; how: 'accepted' | 'supersedes' };
}

/** The previous Rejected items that `next` supersedes, and how. */
export function supersededItems(previous: TopicDecisions, next: TopicDecisions): Superseded[] {
  const accepted = new Map<string, string>();
  for (const a of next.accepted) accepted.set(normalizeText(a.text), a.text);
  const named = new Map<string, { slot: 'accepted' | 'rejected' | 'new'; text: string }>();
  const add = (slot: 'accepted' | 'rejected' | 'new', items: readonly { text: string; supersedes?: string }[]): void => {
    for (const i of items) if (i.supersedes !== undefined && normalizeText(i.supersedes) !== '') named.set(normalizeText(i.supersedes), { slot, text: i.text });
  };
  add('accepted', next.accepted);
  add('rejected', next.rejected);
  add('new', next.new);
  const out: Superseded[] = [];
  for (const item of previous.rejected) {
    const key = normalizeText(item.text);
    const acc = accepted.get(key);
    const by = named.get(key);
    if (by) out.push({ item, by: { ...by, how: 'supersedes' } });
    else if (acc !== undefined) out.push({ item, by: { slot: 'accepted', text: acc, how: 'accepted' } });
  }
  return out;
}

/**
 * `next` with the previous partition's Rejected items carried forward: each one not superseded and
 * not restated in `next` is appended, marked `carriedFrom` (kept from an earlier carry, else the
 * previous partition). `next.previous` is set to the previous partition.
 */
export function carryForward(previous: TopicDecisions, next: TopicDecisions): TopicDecisions {
  const gone = new Set(supersededItems(previous, next).map((s) => normalizeText(s.item.text)));
  const present = new Set(next.rejected.map((r) => normalizeText(r.text)));
  const rejected = [...next.rejected];
  for (const item of previous.rejected) {
    const key = normalizeText(item.text);
    if (key === '' || gone.has(key) || present.has(key) || item.text.trimStart().startsWith(PLACEHOLDER)) continue;
    present.add(key);
    rejected.push({ ...item, anchors: item.anchors.map((a) => ({ ...a })), carriedFrom: item.carriedFrom ?? previous.partition });
  }
  return { ...next, rejected, previous: previous.partition };
}

// ---------------------------------------------------------------------------------------------
// The stub

function placeholderAnchor(what: string): MessageAnchor {
  return { msgId: PLACEHOLDER_MSG_ID, start: 0, end: 0, quote: `${PLACEHOLDER}: ${what}` };
}

/**
 * The stub the harness writes on Partition: every slot holds a placeholder (`TODO: …`, anchors with
 * msgId `TODO`) for the agent to fill, and the previous partition's Rejected items are carried
 * forward. `opsLink` is the ops file beside it.
 */
export function stubDecisions(topic: string, partitionNo: number, previous: TopicDecisions | undefined, now: Date): TopicDecisions {
  const stub: TopicDecisions = {
    schemaVersion: 1,
    topic,
    partition: partitionNo,
    createdAt: now.toISOString(),
    frame: `${PLACEHOLDER}: what this line of work is about — the object and the question, in a sentence or two`,
    rejected: [
      {
        text: `${PLACEHOLDER}: what was rejected (an anti-decision)`,
        reason: `${PLACEHOLDER}: why it was rejected`,
        anchors: [placeholderAnchor('quote the message span where it was rejected')],
      },
    ],
    accepted: [
      {
        text: `${PLACEHOLDER}: what was accepted (a decision or an invariant)`,
        reason: `${PLACEHOLDER}: why it was accepted`,
        anchors: [placeholderAnchor('quote the message span where it was accepted')],
      },
    ],
    new: [{ text: `${PLACEHOLDER}: what new information entered the picture` }],
    next: [`${PLACEHOLDER}: where the cycle goes next (the goal of the next turn)`],
    anchors: [],
    opsLink: OPS_FILE,
  };
  if (!previous) return stub;
  const carried = carryForward(previous, { ...stub, rejected: [] });
  return { ...carried, rejected: [...stub.rejected, ...carried.rejected] };
}

// ---------------------------------------------------------------------------------------------
// Lint

export type DecisionSlot = 'frame' | 'rejected' | 'accepted' | 'new' | 'next' | 'anchors' | 'opsLink';

export interface LintProblem {
  slot: DecisionSlot;
  index?: number;
  reason: string;
}

export interface LintResult {
  ok: boolean;
  problems: LintProblem[];
}

function isPlaceholder(s: string): boolean {
  return s.trimStart().startsWith(PLACEHOLDER);
}

function looksSecret(s: string): boolean {
  return redact(s) !== s;
}

/**
 * What keeps the decisions from being approved: an empty Frame or Next, an Accepted/Rejected item
 * without text, reason or anchor, a placeholder left in, an anchor that does not stand in the export,
 * text that looks like a secret. Problems name the slot and the item's index.
 */
export function lintDecisions(d: TopicDecisions, records: readonly ExportRecord[]): LintResult {
  const problems: LintProblem[] = [];
  const toCheck: (AnchorToCheck & { slot: DecisionSlot; index?: number })[] = [];
  const add = (slot: DecisionSlot, reason: string, index?: number): void => {
    problems.push(index === undefined ? { slot, reason } : { slot, index, reason });
  };
  const strings = (slot: DecisionSlot, label: string, s: string, index?: number): void => {
    if (isPlaceholder(s)) add(slot, `${label} is still a placeholder (${showText(s, 60)}); fill it in or remove the item`, index);
    if (looksSecret(s)) add(slot, `${label} looks like a secret (a key, token or password); remove it — this file is written into the workspace`, index);
  };
  /** label '' = the top-level Anchors slot (each anchor is its own index). */
  const anchorsOf = (slot: DecisionSlot, label: string, anchors: readonly MessageAnchor[], itemIndex?: number): void => {
    anchors.forEach((a, j) => {
      const where = label === '' ? `anchors[${j}]` : `${label}.anchors[${j}]`;
      const index = label === '' ? j : itemIndex;
      if (a.msgId === PLACEHOLDER_MSG_ID || isPlaceholder(a.quote)) {
        add(slot, `${where} is still a placeholder; quote a span of the export`, index);
        return;
      }
      if (looksSecret(a.quote)) add(slot, `${where}: the quote looks like a secret; cite another span`, index);
      toCheck.push({ anchor: a, where, slot, ...(index === undefined ? {} : { index }) });
    });
  };

  if (d.frame.trim() === '') add('frame', 'Frame is empty: say what this line of work is about');
  else strings('frame', 'Frame', d.frame);

  for (const slot of ['rejected', 'accepted'] as const) {
    const name = slot === 'rejected' ? 'Rejected' : 'Accepted';
    d[slot].forEach((item, i) => {
      const label = `${slot}[${i}]`;
      if (item.text.trim() === '') add(slot, `${name} item ${i + 1} has no text`, i);
      else strings(slot, `${name} item ${i + 1}`, item.text, i);
      if (item.reason.trim() === '') add(slot, `${name} item ${i + 1} has no reason`, i);
      else strings(slot, `the reason of ${name} item ${i + 1}`, item.reason, i);
      if (item.anchors.length === 0) add(slot, `${name} item ${i + 1} has no anchor: cite at least one message span that supports it`, i);
      anchorsOf(slot, label, item.anchors, i);
    });
  }

  d.new.forEach((item, i) => {
    if (item.text.trim() === '') add('new', `New item ${i + 1} has no text`, i);
    else strings('new', `New item ${i + 1}`, item.text, i);
    anchorsOf('new', `new[${i}]`, item.anchors ?? [], i);
  });

  if (d.next.every((n) => n.trim() === '')) add('next', 'Next is empty: say where the cycle goes next');
  d.next.forEach((n, i) => {
    if (n.trim() === '') {
      if (d.next.length > 1) add('next', `Next item ${i + 1} is empty`, i);
    } else strings('next', `Next item ${i + 1}`, n, i);
  });

  anchorsOf('anchors', '', d.anchors);

  if (d.opsLink.trim() === '') add('opsLink', 'the link to Handover ops is empty');

  const v = validateAnchors(
    records,
    toCheck.map(({ anchor, where }) => ({ anchor, where })),
  );
  const byWhere = new Map(toCheck.map((t) => [t.where, t]));
  for (const b of v.broken) {
    const t = byWhere.get(b.where);
    add(t?.slot ?? 'anchors', `${b.where}: ${b.reason}`, t?.index);
  }
  return { ok: problems.length === 0, problems };
}

// ---------------------------------------------------------------------------------------------
// Diff

export interface SlotDiff<T> {
  added: T[];
  removed: T[];
  /** Present in both (by normalized text); the next partition's version. */
  kept: T[];
  /** The kept items whose wording, reason or anchors differ from before (the next partition's version). */
  changed: T[];
}

export interface DecisionsDiff {
  frame: { before?: string; after: string; changed: boolean };
  rejected: SlotDiff<DecisionItem>;
  accepted: SlotDiff<DecisionItem>;
  new: SlotDiff<NewItem>;
  next: SlotDiff<string>;
  anchors: SlotDiff<MessageAnchor>;
}

function diffBy<T>(before: readonly T[], after: readonly T[], key: (t: T) => string): SlotDiff<T> {
  const beforeByKey = new Map<string, T>();
  for (const t of before) if (!beforeByKey.has(key(t))) beforeByKey.set(key(t), t);
  const afterKeys = new Set(after.map(key));
  const kept = after.filter((t) => beforeByKey.has(key(t)));
  return {
    added: after.filter((t) => !beforeByKey.has(key(t))),
    removed: before.filter((t) => !afterKeys.has(key(t))),
    kept,
    changed: kept.filter((t) => JSON.stringify(t) !== JSON.stringify(beforeByKey.get(key(t)))),
  };
}

const anchorKey = (a: MessageAnchor): string => `${a.msgId}\u0000${a.start}\u0000${a.end}`;

/** Per slot, what was added, removed and kept between two partitions' decisions (by normalized text; anchors by span). */
export function diffDecisions(previous: TopicDecisions | undefined, next: TopicDecisions): DecisionsDiff {
  const p = previous;
  const byText = (t: { text: string }): string => normalizeText(t.text);
  return {
    frame: p ? { before: p.frame, after: next.frame, changed: normalizeText(p.frame) !== normalizeText(next.frame) } : { after: next.frame, changed: true },
    rejected: diffBy(p?.rejected ?? [], next.rejected, byText),
    accepted: diffBy(p?.accepted ?? [], next.accepted, byText),
    new: diffBy(p?.new ?? [], next.new, byText),
    next: diffBy(p?.next ?? [], next.next, normalizeText),
    anchors: diffBy(p?.anchors ?? [], next.anchors, anchorKey),
  };
}

// ---------------------------------------------------------------------------------------------
// Markdown

/** Backslash-escapes Markdown inline syntax and folds line breaks (for one-line texts). */
function inline(s: string): string {
  return s.replace(/[\\`*_[\]<>#|~!]/g, (c) => `\\${c}`).replace(/\s*(?:\r\n?|\n)\s*/g, ' ');
}

/** A paragraph: Markdown escaped, line breaks kept as hard breaks. */
function block(s: string): string {
  return s
    .split(/\r\n?|\n/)
    .map((l) => inline(l))
    .join('  \n');
}

function linkTarget(url: string): string {
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/ /g, '%20');
}

/** The `intercom://message/<topic>/<msgId>#<start>-<end>` link of an anchor. */
export function anchorLink(topic: string, a: MessageAnchor): string {
  return messageLink(topic, a.msgId, a.start, a.end);
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function renderAnchor(topic: string, a: MessageAnchor, exportLink?: string): string {
  const link = `[${inline(a.msgId)} ${a.start}–${a.end}](${linkTarget(anchorLink(topic, a))})`;
  const inExport = exportLink ? ` ([in the export](${linkTarget(`${exportLink}#${encodeURIComponent(a.msgId)}`)}))` : '';
  return `${link}${inExport}: “${inline(cut(a.quote, 300))}”`;
}

function renderItems(topic: string, items: readonly DecisionItem[], exportLink: string | undefined, none: string): string {
  if (items.length === 0) return `_${none}_\n`;
  return items
    .map((it, i) => {
      const lines = [`${i + 1}. **${inline(it.text)}**`];
      lines.push(`   - Reason: ${inline(it.reason) || '_none given_'}`);
      if (it.carriedFrom !== undefined) lines.push(`   - Carried forward from partition ${it.carriedFrom}`);
      if (it.supersedes !== undefined) lines.push(`   - Supersedes: ${inline(it.supersedes)}`);
      for (const a of it.anchors) lines.push(`   - ${renderAnchor(topic, a, exportLink)}`);
      return lines.join('\n');
    })
    .join('\n')
    .concat('\n');
}

/** TopicDecisions as readable Markdown; anchors as intercom:// links with their quotes; links to the ops file and the export. */
export function renderDecisionsMarkdown(d: TopicDecisions, opts: { exportLink?: string } = {}): string {
  const { exportLink } = opts;
  const out: string[] = [];
  out.push(`# TopicDecisions — ${inline(d.topic)} · partition ${d.partition}\n`);
  const meta = [`Written ${d.createdAt}.`];
  if (d.previous !== undefined) meta.push(`Follows partition ${d.previous} (\`history/${d.previous}/\`).`);
  meta.push(`Handover ops (short-lived, read when executing): [${inline(d.opsLink)}](${linkTarget(d.opsLink)}).`);
  if (exportLink) meta.push(`Transcript: [${inline(exportLink)}](${linkTarget(exportLink)}).`);
  meta.push('Source of truth: `topic-decisions.json`.');
  out.push(`\n${meta.join(' ')}\n`);
  out.push(`\n## Frame\n\n${d.frame.trim() ? block(d.frame) : '_empty_'}\n`);
  out.push(`\n## Rejected\n\n${renderItems(d.topic, d.rejected, exportLink, 'nothing rejected')}`);
  out.push(`\n## Accepted\n\n${renderItems(d.topic, d.accepted, exportLink, 'nothing accepted')}`);
  out.push('\n## New\n\n');
  if (d.new.length === 0) out.push('_nothing new_\n');
  for (const n of d.new) {
    out.push(`- ${inline(n.text)}\n`);
    if (n.supersedes !== undefined) out.push(`  - Supersedes: ${inline(n.supersedes)}\n`);
    for (const a of n.anchors ?? []) out.push(`  - ${renderAnchor(d.topic, a, exportLink)}\n`);
  }
  out.push('\n## Next\n\n');
  if (d.next.length === 0) out.push('_empty_\n');
  d.next.forEach((n, i) => out.push(`${i + 1}. ${inline(n)}\n`));
  out.push('\n## Anchors\n\n');
  if (d.anchors.length === 0) out.push('_no other notable spans_\n');
  for (const a of d.anchors) out.push(`- ${renderAnchor(d.topic, a, exportLink)}\n`);
  return out.join('');
}

function list(items: readonly string[], none: string, code = false): string {
  if (items.length === 0) return `_${none}_\n`;
  return items.map((i) => `- ${code ? `\`${i.replace(/`/g, "'")}\`` : inline(i)}\n`).join('');
}

/** Handover ops as readable Markdown: the link back to TopicDecisions first, the expiry, the state (stale/fresh) when checked. */
export function renderOpsMarkdown(ops: HandoverOps, opts: { stale?: string[] } = {}): string {
  const out: string[] = [];
  out.push(`# Handover ops — ${inline(ops.topic)} · partition ${ops.partition}\n`);
  out.push(`\nRead the decisions first: [${inline(ops.decisionsLink)}](${linkTarget(ops.decisionsLink)}). These ops are the state of the desk, not its meaning.\n`);
  out.push(`\nWritten ${ops.createdAt}; **expires ${ops.expiresAt}** — after that, re-check before trusting anything below.\n`);
  if (opts.stale !== undefined) {
    if (opts.stale.length === 0) out.push('\nState: **fresh** when last checked.\n');
    else out.push(`\nState: **stale** —\n\n${opts.stale.map((s) => `- ${inline(s)}\n`).join('')}`);
  }
  out.push('\n## Repository\n\n');
  if (!ops.repo) out.push('_not in a git repository_\n');
  else {
    out.push(`- Root: \`${ops.repo.root.replace(/`/g, "'")}\`\n`);
    out.push(`- Branch: ${ops.repo.branch ? `\`${ops.repo.branch.replace(/`/g, "'")}\`` : '_detached HEAD_'}\n`);
    out.push(`- HEAD: ${ops.repo.head ? `\`${ops.repo.head}\`` : '_no commits_'}\n`);
    out.push(`- Dirty files (${ops.repo.dirty.length}):\n`);
    out.push(ops.repo.dirty.length === 0 ? '  _none_\n' : ops.repo.dirty.map((p) => `  - \`${p.replace(/`/g, "'")}\`\n`).join(''));
  }
  out.push(`\n## Open editors\n\n${list(ops.openEditors, 'none', true)}`);
  out.push(`\n## Running tasks\n\n${list(ops.runningTasks, 'none')}`);
  out.push(`\n## Open items\n\n${list(ops.openItems, 'none')}`);
  out.push(`\n## First moves\n\n${list(ops.firstMoves, 'none')}`);
  return out.join('');
}

// ---------------------------------------------------------------------------------------------
// Ops and resume

export interface OpsInput {
  topic: string;
  partition: number;
  now: Date;
  /** Time to live (lifeThread.continuity.opsTtlHours; default 12). */
  ttlHours?: number;
  repo: RepoState | null;
  openEditors?: string[];
  runningTasks?: string[];
  openItems?: string[];
  firstMoves?: string[];
  decisionsLink?: string;
}

/** Handover ops with createdAt = now and expiresAt = now + ttl. */
export function makeOps(input: OpsInput): HandoverOps {
  const ttl = input.ttlHours ?? 12;
  return {
    schemaVersion: 1,
    topic: input.topic,
    partition: input.partition,
    createdAt: input.now.toISOString(),
    expiresAt: new Date(input.now.getTime() + ttl * 3_600_000).toISOString(),
    decisionsLink: input.decisionsLink ?? DECISIONS_FILE,
    repo: input.repo ? { ...input.repo, dirty: [...input.repo.dirty].sort() } : null,
    openEditors: input.openEditors ?? [],
    runningTasks: input.runningTasks ?? [],
    openItems: input.openItems ?? [],
    firstMoves: input.firstMoves ?? [],
  };
}

export interface OpsStaleness {
  stale: boolean;
  changes: string[];
}

function resumeItems(topic: string, items: readonly DecisionItem[]): string {
  if (items.length === 0) return '- (none)\n';
  return items
    .map((it) => {
      const links = it.anchors.filter((a) => a.msgId !== PLACEHOLDER_MSG_ID).map((a) => anchorLink(topic, a));
      const carried = it.carriedFrom !== undefined ? ` [carried from partition ${it.carriedFrom}]` : '';
      return `- ${it.text.trim()} — because ${it.reason.trim() || '(no reason given)'}${carried}${links.length ? ` (${links.join(', ')})` : ''}\n`;
    })
    .join('');
}

/**
 * The text a resumed chat starts with, "A then B": TopicDecisions first (frame, rejected with
 * reasons, accepted with reasons, new, next), then the ops only as a link and one line of state.
 */
export function resumePack(d: TopicDecisions, ops?: HandoverOps, staleness?: OpsStaleness, time?: ShowTime): string {
  // For a person (`time` given: `@life /resume`) instants in the owner's zone; ISO as in the files otherwise.
  const when = (iso: string) => (time ? instantWords(iso, time) : iso);
  const out: string[] = [];
  out.push(`Resuming topic ${d.topic}, partition ${d.partition}${d.previous !== undefined ? ` (after partition ${d.previous})` : ''}. Decisions first (${DECISIONS_FILE}, written ${when(d.createdAt)}):\n`);
  out.push(`\nFrame: ${d.frame.trim()}\n`);
  out.push(`\nRejected — do not propose these again unless something new supersedes them:\n${resumeItems(d.topic, d.rejected)}`);
  out.push(`\nAccepted — decisions and invariants to keep:\n${resumeItems(d.topic, d.accepted)}`);
  out.push('\nNew information:\n');
  out.push(d.new.length ? d.new.map((n) => `- ${n.text.trim()}\n`).join('') : '- (none)\n');
  out.push('\nNext:\n');
  out.push(d.next.length ? d.next.map((n, i) => `${i + 1}. ${n.trim()}\n`).join('') : '- (none)\n');
  if (d.anchors.length) out.push(`\nOther notable spans: ${d.anchors.map((a) => `${anchorLink(d.topic, a)} ${showText(a.quote, 60)}`).join('; ')}\n`);
  let state: string;
  if (!ops) state = 'no ops were written';
  else if (staleness?.stale) state = `stale — ${staleness.changes.join('; ')}`;
  else if (staleness) state = `fresh (checked; expires ${when(ops.expiresAt)})`;
  else state = `not re-checked yet (expires ${when(ops.expiresAt)})`;
  out.push(`\nHandover ops (read only when this turn executes): ${d.opsLink} — ${state}.\n`);
  return out.join('');
}
