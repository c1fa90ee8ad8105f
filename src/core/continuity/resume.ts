/** The text a resumed chat starts with: "A then B", decisions first, ops only as a link and one line of state. */
import { showText } from '../export';
import { instantWords, type ShowTime } from '../time/describe';
import { DECISIONS_FILE, PLACEHOLDER_MSG_ID, type DecisionItem, type HandoverOps, type TopicDecisions } from './documents';
import { anchorLink } from './markdown';
import type { OpsStaleness } from './ops';

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
  // The ops file is the topic's latest: while a partition is being written it belongs to that partition, not to these decisions.
  const whose = ops && ops.partition !== d.partition ? ` (written for partition ${ops.partition})` : '';
  out.push(`\nHandover ops (read only when this turn executes): ${d.opsLink}${whose} — ${state}.\n`);
  return out.join('');
}
