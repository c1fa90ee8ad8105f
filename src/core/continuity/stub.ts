/** The decisions stub the harness writes when a partition starts, for the agent to fill. */
import type { MessageAnchor } from '../transcript';
import { carryForward } from './carry';
import { OPS_FILE, PLACEHOLDER, PLACEHOLDER_MSG_ID, type TopicDecisions } from './documents';

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
