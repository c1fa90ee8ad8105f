import { PLACEHOLDER } from '../core/continuity/documents';
import { resumePack } from '../core/continuity/resume';
import { readAllDecisions } from '../node/topicFiles';
import type { Continuity } from './continuity';
import { ownerZone } from './scheduleFeature';

/**
 * The topic's continuity pack for a cold start: its latest approved TopicDecisions (current, else —
 * while a partition is being written — the newest filled ones in history/), decisions first.
 */
export async function coldPack(continuity: Continuity, topic: string): Promise<string | undefined> {
  try {
    const all = await readAllDecisions(continuity.dir(topic));
    const filled = all.find((d) => d.kind !== 'draft' && !d.decisions.frame.trimStart().startsWith(PLACEHOLDER));
    // The pack is shown in the chat as the wake came: its times in the owner's zone (UTC beside), as /resume gives them.
    if (!filled) return undefined;
    const held = await continuity.opsChecked(topic);
    return resumePack(filled.decisions, held.ops ?? undefined, held.check?.staleness, { tz: ownerZone(), now: new Date() });
  } catch {
    return undefined;
  }
}
