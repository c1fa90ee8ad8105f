/**
 * Bounded partitions: partition N's export covers the messages of the live transcript
 * since partition N−1's export, and the prompt that fills its TopicDecisions is the previous decisions
 * plus that span — never the whole topic again.
 *
 * Harness turns — `/partition …` and `/resume …` requests to @life and the answer that follows each —
 * stay in the export (it is the record), but they are not "something new to hand over" and are left
 * out of the prompt: their content is the pair itself.
 */
import type { TranscriptMessage } from './export';
import { PLACEHOLDER, type DecisionItem, type TopicDecisions } from './continuity/documents';
import type { ExportRecord } from './transcript';
import { anchorWords } from './continuity/inherited';

/** The part of a request text that makes it a harness turn. */
const HARNESS_REQUEST = /^\/(partition|resume)(\s|$)/;

/**
 * The messages of `transcript` after the last one that `previousIds` (the previous partition's
 * export) holds. When none of them is in the transcript (it was replaced), the messages not among
 * them.
 */
export function newSpan(transcript: readonly TranscriptMessage[], previousIds: ReadonlySet<string>): TranscriptMessage[] {
  if (previousIds.size === 0) return [...transcript];
  let last = -1;
  transcript.forEach((m, i) => {
    if (previousIds.has(m.id)) last = i;
  });
  if (last >= 0) return transcript.slice(last + 1);
  return transcript.filter((m) => !previousIds.has(m.id));
}

/** For each message: is it a harness turn (a `/partition` or `/resume` request, or the answer right after one)? */
export function harnessTurns(messages: readonly Pick<TranscriptMessage, 'role' | 'text'>[]): boolean[] {
  const out: boolean[] = [];
  let afterHarnessRequest = false;
  for (const m of messages) {
    if (m.role === 'user') {
      afterHarnessRequest = HARNESS_REQUEST.test(m.text.trimStart());
      out.push(afterHarnessRequest);
    } else {
      out.push(afterHarnessRequest);
      afterHarnessRequest = false;
    }
  }
  return out;
}

/** The messages that are conversation, not harness turns. */
export function conversation<T extends Pick<TranscriptMessage, 'role' | 'text'>>(messages: readonly T[]): T[] {
  const harness = harnessTurns(messages);
  return messages.filter((_, i) => !harness[i]);
}

/** Longest text of one message shown to the model; the export keeps it whole. */
export const PROMPT_MESSAGE_MAX = 1500;

function item(i: DecisionItem): string {
  const carried = i.carriedFrom !== undefined ? ` [carried from partition ${i.carriedFrom}]` : '';
  const anchors = i.anchors.map(anchorWords).join(', ');
  return `- ${i.text.trim()} — because ${i.reason.trim()}${carried}${anchors ? ` (anchors: ${anchors})` : ''}`;
}

function isPlaceholder(s: string): boolean {
  return s.trimStart().startsWith(PLACEHOLDER);
}

/**
 * The text of the previous partition's decisions given to the model: frame, rejected and accepted with
 * reasons and their anchors (which stay valid: anchors resolve in any export of the topic), new, next.
 */
export function previousDecisionsText(d: TopicDecisions): string {
  const lines = [`Previous TopicDecisions (partition ${d.partition}):`, `Frame: ${d.frame.trim()}`, 'Rejected:'];
  const rejected = d.rejected.filter((r) => !isPlaceholder(r.text));
  lines.push(...(rejected.length ? rejected.map(item) : ['- (none)']));
  lines.push('Accepted:');
  lines.push(...(d.accepted.length ? d.accepted.map(item) : ['- (none)']));
  if (d.new.length) lines.push('New:', ...d.new.map((n) => `- ${n.text.trim()}`));
  lines.push('Next:', ...(d.next.length ? d.next.map((n, i) => `${i + 1}. ${n.trim()}`) : ['- (none)']));
  return lines.join('\n');
}

export interface FillPromptInput {
  topic: string;
  partition: number;
  /** The export of this partition: the new span. */
  records: readonly ExportRecord[];
  /** The previous partition's approved decisions, if any. */
  previous?: TopicDecisions;
  /** Rejected items the stub carried forward. */
  carried: readonly DecisionItem[];
}

/**
 * What the model gets to fill TopicDecisions: the instructions, the previous decisions and the new
 * span (harness turns left out; each text cut at PROMPT_MESSAGE_MAX). Nothing older than the span.
 */
export function fillPrompt(input: FillPromptInput): string {
  const { topic, partition } = input;
  const span = conversation(input.records);
  const lines = [
    `Partition of topic "${topic}" (partition ${partition}). The harness wrote the export and the Handover ops; fill TopicDecisions now by calling lifethread_partition with action "fill", topic "${topic}" and decisions { frame, rejected: [{text, reason, anchors}], accepted: [{text, reason, anchors}], new: [{text}], next: [..], anchors: [] }.`,
    'Every Accepted and Rejected item needs a reason and at least one message anchor { msgId, start, end, quote } where quote is the exact text at [start, end) of that message (UTF-16 offsets, end-exclusive). Frame and Next must not be empty. No secrets. The user approves the decisions; you never do.',
  ];
  if (input.previous) {
    lines.push(
      'Keep what still holds from the previous decisions (their anchors stay valid), drop what the new messages supersede.',
      'Their anchors are listed as msgId start-end "quote": copy one as { msgId, start, end, quote }, or give { msgId, start, end } alone and the harness adds its quote.',
      '',
      previousDecisionsText(input.previous),
    );
  }
  if (input.carried.length) lines.push('', `Rejected items carried forward (keep them unless superseded): ${input.carried.map((c) => `"${c.text}" (${c.reason}${c.anchors.length ? `; anchors: ${c.anchors.map(anchorWords).join(', ')}` : ''})`).join('; ')}`);
  lines.push('', `The new messages since ${input.previous ? `partition ${input.previous.partition}` : 'the topic began'} (message id, role, text):`);
  for (const r of span) lines.push(`[${r.id}] ${r.role}: ${r.text.length > PROMPT_MESSAGE_MAX ? `${r.text.slice(0, PROMPT_MESSAGE_MAX)}…` : r.text}`);
  return lines.join('\n');
}
