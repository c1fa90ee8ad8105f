/**
 * The `when` box's preview: the instant stored is the one the box showed — unless the words,
 * read again when Enter is pressed, now mean another instant (the box stayed open: "in 1 minute" shown
 * at 10:04 and accepted at 10:06 would be stored in the past). Then the box shows the new instant and
 * the next Enter accepts it. Words for a fixed time ("tomorrow at 9") read the same and pass at once.
 */
import { InputError } from '../errors';
import type { RowKind } from './limits';
import { wallTimeWords } from './describe';
import { parseWhen, type ParsedWhen } from './when';

/**
 * How far the words, read again at Enter, may drift from the instant shown and still count as it: the
 * seconds a person takes between reading the preview and pressing Enter (and an extension host that is
 * busy for a few seconds before it sees the Enter). Beyond it the words mean another instant than the
 * one on screen.
 */
export const PREVIEW_TOLERANCE_MS = 10_000;

/** What the box shows and would store: the words, the instant they were read at, and what they meant then. */
export interface Preview {
  value: string;
  readAt: Date;
  parsed: ParsedWhen;
}

/** The box's words as a parse input: `cron …` is a cron, anything else `when` words. */
export function whenInput(value: string): { when?: string; cron?: string } {
  const v = value.trim();
  return v.toLowerCase().startsWith('cron ') ? { cron: v.slice(5).trim() } : { when: v };
}

export function readPreview(value: string, tz: string, kind: RowKind, now: Date): Preview {
  return { value, readAt: now, parsed: parseWhen({ ...whenInput(value), tz, kind, now }) };
}

export type EnterOutcome =
  /** Store what was shown: resolve the words with `readAt` as now. */
  | { kind: 'accept'; preview: Preview }
  /** The words mean another instant now: show `preview` with `prompt`; the next Enter decides again. */
  | { kind: 'refresh'; preview: Preview; prompt: string }
  /** The words cannot be read now (e.g. "at 10:05" has passed while the box was open). */
  | { kind: 'invalid'; reason: string };

/**
 * Enter in the `when` box. `shown` is the preview on screen (undefined, or for other words, when the
 * text changed without a preview: it is read now and accepted, since what it shows is what is stored).
 */
export function onEnter(shown: Preview | undefined, value: string, tz: string, kind: RowKind, now: Date): EnterOutcome {
  let fresh: Preview;
  try {
    fresh = readPreview(value, tz, kind, now);
  } catch (err) {
    if (err instanceof InputError) return { kind: 'invalid', reason: err.reason };
    throw err;
  }
  if (shown === undefined || shown.value !== value) return { kind: 'accept', preview: fresh };
  const was = shown.parsed.nextRunAt.getTime();
  const is = fresh.parsed.nextRunAt.getTime();
  if (was > now.getTime() && Math.abs(is - was) <= PREVIEW_TOLERANCE_MS) return { kind: 'accept', preview: shown };
  return { kind: 'refresh', preview: fresh, prompt: refreshedPrompt(fresh.parsed, was, tz) };
}

/** "Now Once, Thu 3 Dec 10:05:30 UTC, in under a minute (it showed 10:04:12 UTC) — press Enter again to accept." */
export function refreshedPrompt(parsed: ParsedWhen, shownMs: number, tz: string): string {
  return `Now ${parsed.description} (it showed ${wallTimeWords(shownMs, parsed.nextRunAt.getTime(), tz)}) \u2014 press Enter again to accept.`;
}
