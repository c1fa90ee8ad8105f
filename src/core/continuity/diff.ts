/** What changed between two partitions' decisions, slot by slot (the panel shows it). */
import type { MessageAnchor } from '../transcript';
import { normalizeText } from './carry';
import type { DecisionItem, NewItem, TopicDecisions } from './documents';

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
