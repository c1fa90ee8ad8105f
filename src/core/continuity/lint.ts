/**
 * The lint that gates approval: every Accepted and Rejected item has a reason and at least one message
 * anchor whose quote stands at its span in the export; no placeholder or secret-like text is left in.
 */
import { validateAnchors, showText, type AnchorToCheck } from '../export';
import { redact } from '../redact';
import type { ExportRecord, MessageAnchor } from '../transcript';
import { PLACEHOLDER, PLACEHOLDER_MSG_ID, type TopicDecisions } from './documents';

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
