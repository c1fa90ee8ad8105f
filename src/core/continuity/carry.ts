/**
 * Carry-forward: Rejected items carry to the next partition (`carriedFrom` = the partition that first
 * rejected them) until superseded. An item is superseded when the next partition
 *   (a) accepts an item with the same normalized text (the rejection was reversed), or
 *   (b) has any item (Accepted, Rejected or New) whose `supersedes` names it by normalized text.
 * A Rejected item restated in the next partition is kept once, in its new wording.
 */
import { PLACEHOLDER, type DecisionItem, type TopicDecisions } from './documents';

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
