/**
 * The feed: what reminders, wakes and failing commands said, kept in the store as
 * `feed.json` so it survives reloads and every window of the machine shows the same — the last 200
 * items, none older than 30 days. Pure.
 */
import { z } from 'zod';
import { isoInstant } from './schema';

export const FEED_MAX_ITEMS = 200;
export const FEED_MAX_AGE_MS = 30 * 24 * 3600_000;
export const FEED_BODY_MAX = 8000;

export const feedRowSchema = z
  .object({
    /** `<row id>@<fired at>`: one item per firing; a later push with the same id replaces it. */
    id: z.string().min(1).max(200),
    at: isoInstant,
    kind: z.enum(['reminder', 'wake', 'command', 'note']),
    /** The reminder, wake or command row it is about. */
    ref: z.string().max(60).optional(),
    title: z.string().max(300),
    body: z.string().max(FEED_BODY_MAX),
    tone: z.enum(['info', 'ok', 'error']),
  })
  .strict();
export type FeedRow = z.infer<typeof feedRowSchema>;

/** The feed with `item` first (replacing an item of the same id), trimmed to 200 items and 30 days. */
export function pushFeed(rows: readonly FeedRow[], item: FeedRow, now: Date): FeedRow[] {
  const cutoff = now.getTime() - FEED_MAX_AGE_MS;
  return [item, ...rows.filter((r) => r.id !== item.id)].filter((r) => Date.parse(r.at) >= cutoff).slice(0, FEED_MAX_ITEMS);
}

/** A text cut to `max` characters with the cut marked, for answers and feed bodies. */
export function clipMarked(text: string, max: number): string {
  if (text.length <= max) return text;
  // The mark's own length depends on the number it states; the count has at most as many digits as the length.
  const markLen = `\n… (cut: ${text.length} more characters)`.length;
  const kept = Math.max(0, max - markLen);
  return `${text.slice(0, kept)}\n… (cut: ${text.length - kept} more characters)`;
}
