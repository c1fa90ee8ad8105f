/**
 * What the panel shows of a topic: TopicDecisions beside Handover ops, the review of
 * a draft (diff and lint), the export check and the history — and the one-paragraph summary of a
 * draft that the approval dialog and `@life /partition approve` show. Built from the records read by
 * src/node/topicFiles.ts; the webview only renders it.
 */
import type { DecisionsView, OpsView, TopicView } from '../shared/protocol';
import type { DecisionItem, HandoverOps, TopicDecisions } from './continuity/documents';
import { normalizeText } from './continuity/carry';
import type { LintResult } from './continuity/lint';
import { diffDecisions } from './continuity/diff';
import type { OpsStaleness } from './continuity/ops';
import type { TopicVerification } from './topicVerify';
import { isFilled } from './topicVerify';
import type { MessageAnchor } from './transcript';
import { describeInstant, instantWords, type ShowTime } from './time/describe';

export function decisionsView(topic: string, d: TopicDecisions, time: ShowTime): DecisionsView {
  const anchor = (a: MessageAnchor) => ({ topic, msgId: a.msgId, start: a.start, end: a.end, quote: a.quote });
  const item = (i: DecisionItem) => ({ text: i.text, reason: i.reason, carried: i.carriedFrom !== undefined, anchors: i.anchors.map(anchor) });
  return {
    partition: d.partition,
    createdAt: d.createdAt,
    written: instantWords(d.createdAt, time),
    frame: d.frame,
    rejected: d.rejected.map(item),
    accepted: d.accepted.map(item),
    new: d.new.map((n) => n.text),
    next: d.next,
    anchors: d.anchors.map(anchor),
  };
}

export function opsView(ops: HandoverOps, check: { staleness: OpsStaleness; at: Date } | undefined, time: ShowTime): OpsView {
  return {
    partition: ops.partition,
    createdAt: ops.createdAt,
    expiresAt: ops.expiresAt,
    expires: instantWords(ops.expiresAt, time),
    root: ops.repo?.root ?? '',
    branch: ops.repo?.branch ?? '',
    head: ops.repo?.head ?? '',
    dirty: ops.repo?.dirty ?? [],
    runningTasks: ops.runningTasks,
    openItems: ops.openItems,
    firstMoves: ops.firstMoves,
    stale: check ? check.staleness.stale : null,
    changes: check ? check.staleness.changes : [],
    checkedAt: check ? check.at.toISOString() : null,
    checked: check ? describeInstant(check.at, time.tz, time.now) : null,
  };
}

/** Lint problems as one line each: `slot[index]: reason`. */
export function lintLines(lint: LintResult): string[] {
  return lint.problems.map((p) => `${p.slot}${p.index !== undefined ? `[${p.index}]` : ''}: ${p.reason}`);
}

/** The diff the review shows: per slot, what was added and removed against the previous partition. */
export function diffLines(previous: TopicDecisions | undefined, d: TopicDecisions): string[] {
  const diff = diffDecisions(previous, d);
  const lines: string[] = [];
  if (previous && diff.frame.changed) lines.push(`~ frame: ${d.frame}`);
  // Being carried forward is not a change of the item.
  const bare = ({ carriedFrom: _c, ...rest }: DecisionItem) => JSON.stringify({ ...rest, text: normalizeText(rest.text) });
  for (const slot of ['accepted', 'rejected'] as const) {
    const before = new Set((previous?.[slot] ?? []).map(bare));
    for (const i of diff[slot].added) lines.push(`+ ${slot}: ${i.text}`);
    for (const i of diff[slot].removed) lines.push(`− ${slot}: ${i.text}`);
    for (const i of diff[slot].changed) if (!before.has(bare(i))) lines.push(`~ ${slot}: ${i.text}`);
  }
  for (const i of diff.new.added) lines.push(`+ new: ${i.text}`);
  for (const n of diff.next.added) lines.push(`+ next: ${n}`);
  for (const n of diff.next.removed) lines.push(`− next: ${n}`);
  return lines;
}

export interface TopicViewInput {
  topic: string;
  topics: readonly string[];
  /** topic-decisions.json (approved, or a stub). */
  current: TopicDecisions | null;
  /** The draft waiting for approval, with its lint. */
  draft: { decisions: TopicDecisions; lint: LintResult } | null;
  /** The latest approved decisions before the current partition (history), for the diff and while a stub is open. */
  previous: TopicDecisions | null;
  ops: HandoverOps | null;
  check?: { staleness: OpsStaleness; at: Date };
  time: ShowTime;
  verification: TopicVerification;
  history: readonly { partition: number; createdAt: string; frame: string; messages: number }[];
  newMessages: number;
}

export function topicView(input: TopicViewInput): TopicView {
  const { topic, current, draft, previous } = input;
  const stub = current !== null && !isFilled(current);
  const state: TopicView['state'] = draft ? 'review' : current === null ? 'none' : stub ? 'stub' : 'approved';
  const inForce = current && !stub ? current : previous;
  const note =
    state === 'none'
      ? `No partition of ${topic} yet: @life /partition ${topic} writes the pair.`
      : state === 'stub'
        ? `Partition ${current?.partition ?? ''} started: waiting for the agent to fill TopicDecisions.`
        : state === 'review'
          ? `Partition ${draft?.decisions.partition ?? ''} waits for your approval.`
          : undefined;
  return {
    topic,
    topics: [...input.topics],
    partition: current?.partition ?? null,
    state,
    decisions: inForce ? decisionsView(topic, inForce, input.time) : null,
    review: draft
      ? { partition: draft.decisions.partition, decisions: decisionsView(topic, draft.decisions, input.time), diff: diffLines(previous ?? undefined, draft.decisions), problems: lintLines(draft.lint) }
      : null,
    ops: input.ops ? opsView(input.ops, input.check, input.time) : null,
    verify: { ok: input.verification.ok, line: input.verification.line, problems: input.verification.firstProblem ? [input.verification.firstProblem] : [], notFilled: input.verification.notFilled },
    history: input.history.map((h) => ({ ...h, written: h.createdAt ? instantWords(h.createdAt, input.time) : '' })),
    newMessages: input.newMessages,
    ...(note ? { note } : {}),
  };
}

/** The summary of a draft the approval dialog shows: topic, partition, counts, the lint's verdict. */
export function draftSummary(topic: string, d: TopicDecisions, lint: LintResult): { title: string; detail: string } {
  const carried = d.rejected.filter((r) => r.carriedFrom !== undefined).length;
  const counts = [
    `${d.accepted.length} accepted`,
    `${d.rejected.length} rejected${carried ? ` (${carried} carried forward)` : ''}`,
    `${d.new.length} new`,
    `${d.next.length} next`,
  ].join(', ');
  const verdict = lint.ok ? 'the lint passes' : `the lint refuses it: ${lintLines(lint).join('; ')}`;
  return {
    title: `Approve partition ${d.partition} of topic ${topic}?`,
    detail: `${counts}; ${verdict}.\n\nFrame: ${d.frame}\n\nApproving makes these TopicDecisions final, re-checks the Handover ops and opens a new chat that starts from them (the current chat stays in the chat history).`,
  };
}
