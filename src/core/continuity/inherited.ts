/**
 * The anchors a new partition inherits from the previous decisions: the fill prompt gives each with
 * its quote, and a fill may cite one by reference ({ msgId, start, end } without the quote) — the
 * harness adds the quote it already holds. A fill refused by the schema is told, in words, which item
 * and anchor and what to do about it.
 */
import { showText } from '../export';
import type { ExportRecord, MessageAnchor } from '../transcript';
import type { DecisionItem, TopicDecisions } from './documents';

const key = (a: Pick<MessageAnchor, 'msgId' | 'start' | 'end'>): string => `${a.msgId}\u0000${a.start}\u0000${a.end}`;

/** Every anchor of the previous decisions and of the carried items, once each (by message and span). */
export function inheritedAnchors(previous: TopicDecisions | undefined | null, carried: readonly DecisionItem[] = []): MessageAnchor[] {
  const all = [
    ...(previous ? [...previous.rejected, ...previous.accepted].flatMap((i) => i.anchors) : []),
    ...(previous ? previous.new.flatMap((i) => i.anchors ?? []) : []),
    ...(previous ? previous.anchors : []),
    ...carried.flatMap((i) => i.anchors),
  ];
  const seen = new Map<string, MessageAnchor>();
  for (const a of all) if (!seen.has(key(a))) seen.set(key(a), a);
  return [...seen.values()];
}

/** An anchor as the fill prompt shows it: `m-1 12-25 "the quote"`. */
export function anchorWords(a: MessageAnchor): string {
  return `${a.msgId} ${a.start}-${a.end} ${JSON.stringify(a.quote)}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `raw` (the model's decisions) with the quote added to every anchor given by reference to an
 * inherited one: same msgId, start and end, and no quote. Anything else is left as it is for the schema.
 */
export function completeInheritedQuotes(raw: unknown, inherited: readonly MessageAnchor[]): unknown {
  if (!isRecord(raw) || inherited.length === 0) return raw;
  const byKey = new Map(inherited.map((a) => [key(a), a]));
  const anchor = (a: unknown): unknown => {
    if (!isRecord(a) || a.quote !== undefined || typeof a.msgId !== 'string' || typeof a.start !== 'number' || typeof a.end !== 'number') return a;
    const known = byKey.get(key({ msgId: a.msgId, start: a.start, end: a.end }));
    return known ? { ...a, quote: known.quote } : a;
  };
  const anchors = (list: unknown): unknown => (Array.isArray(list) ? list.map(anchor) : list);
  const items = (list: unknown): unknown => (Array.isArray(list) ? list.map((i) => (isRecord(i) && 'anchors' in i ? { ...i, anchors: anchors(i.anchors) } : i)) : list);
  const out: Record<string, unknown> = { ...raw };
  for (const slot of ['rejected', 'accepted', 'new'] as const) if (slot in raw) out[slot] = items(raw[slot]);
  if ('anchors' in raw) out.anchors = anchors(raw.anchors);
  return out;
}

const SLOT_NAMES: Record<string, string> = { rejected: 'Rejected', accepted: 'Accepted', new: 'New' };

/**
 * A fill the schema refused (`field` is the path of the first problem, e.g. `accepted.0.anchors.0.quote`),
 * in words that name the item and the anchor and say what to do; `records` (the topic's exports) give
 * the text that stands at a cited span, so the quote can be copied from the answer.
 */
export function refusalWords(field: string, reason: string, raw: unknown, records: readonly ExportRecord[] = []): string {
  const path = field.split('.');
  const missing = /received undefined/.test(reason);
  const at = (v: unknown, p: readonly string[]): unknown => p.reduce<unknown>((o, k) => (isRecord(o) ? o[k] : Array.isArray(o) ? o[Number(k)] : undefined), v);
  const slot = path[0] ?? '';
  let subject: string;
  let rest: string[];
  if (SLOT_NAMES[slot] !== undefined && path[1] !== undefined && /^\d+$/.test(path[1])) {
    const text = at(raw, [slot, path[1], 'text']);
    subject = `${SLOT_NAMES[slot]} item ${Number(path[1]) + 1}${typeof text === 'string' ? ` (${showText(text, 60)})` : ''}`;
    rest = path.slice(2);
  } else if (slot === 'anchors') {
    subject = 'The Anchors slot';
    rest = path;
  } else {
    return `${field === '' ? 'The decisions' : `"${field}"`} ${missing ? 'is missing' : reason}. Fix it and call fill again.`;
  }
  if (rest[0] === 'anchors' && rest[1] !== undefined && /^\d+$/.test(rest[1])) {
    const base = path.slice(0, path.length - rest.length + 2);
    const a = at(raw, base);
    const span = isRecord(a) && typeof a.msgId === 'string' && typeof a.start === 'number' && typeof a.end === 'number' ? { msgId: a.msgId, start: a.start, end: a.end } : undefined;
    const where = `${subject}, anchor ${Number(rest[1]) + 1}${span ? ` (${span.msgId} ${span.start}-${span.end})` : ''}`;
    const prop = rest[2];
    if (prop === 'quote' && missing) {
      const record = span ? records.find((r) => r.id === span.msgId) : undefined;
      const standing = record && span && span.end <= record.text.length && span.end > span.start ? ` The text there is ${JSON.stringify(record.text.slice(span.start, span.end))}.` : '';
      return `${where} has no quote: give the exact text at characters ${span ? `${span.start}-${span.end} of message ${span.msgId}` : '[start, end) of its message'} (UTF-16, end exclusive), or copy the anchor with its quote as the prompt lists it.${standing} Fix it and call fill again.`;
    }
    if (prop !== undefined) return `${where}: ${prop} ${missing ? 'is missing' : reason}. An anchor is { msgId, start, end, quote }. Fix it and call fill again.`;
    return `${where}: ${reason}. An anchor is { msgId, start, end, quote }. Fix it and call fill again.`;
  }
  const prop = rest.join('.');
  return `${subject}${prop ? `: ${prop}` : ''} ${missing ? 'is missing' : reason}. Fix it and call fill again.`;
}
