/**
 * A tool's confirmation shows the instant its words mean ("in 2 minutes" → 14:25:38); the user may
 * allow it minutes later. The call then stores the instant that was shown, not the words read again:
 * the words are read at the instant the confirmation read them. If that instant has passed by then,
 * nothing is stored and the answer gives what the words mean now, so the next call shows a fresh
 * confirmation. The sidebar's `when` box does the same with its preview (./preview.ts).
 */
import { InputError } from '../errors';
import type { RowKind } from './limits';
import { parseWhen, type ParsedWhen } from './when';

/** A confirmation nobody answered for this long is forgotten; the call then reads its words when it runs. */
const KEEP_MS = 6 * 3600_000;
const KEEP_MAX = 200;

/** Keys equal for equal inputs whatever the order of their fields. */
function keyOf(tool: string, input: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return `${tool}\u0000${JSON.stringify(canonical(input)) ?? ''}`;
}

/** The instants the confirmations read their words at, by tool and input, until the call runs. */
export class ShownTimes {
  private readonly shown = new Map<string, number[]>();

  remember(tool: string, input: unknown, readAt: Date): void {
    this.forget(readAt);
    const key = keyOf(tool, input);
    this.shown.set(key, [...(this.shown.get(key) ?? []), readAt.getTime()]);
  }

  /** The instant the oldest open confirmation of this call read its words at (it is used up), if any. */
  take(tool: string, input: unknown, now: Date): Date | undefined {
    this.forget(now);
    const key = keyOf(tool, input);
    const queue = this.shown.get(key);
    const first = queue?.shift();
    if (queue && queue.length === 0) this.shown.delete(key);
    return first === undefined ? undefined : new Date(first);
  }

  private forget(now: Date): void {
    for (const [key, queue] of this.shown) {
      const kept = queue.filter((t) => now.getTime() - t <= KEEP_MS);
      if (kept.length) this.shown.set(key, kept);
      else this.shown.delete(key);
    }
    while (this.shown.size > KEEP_MAX) {
      const oldest = this.shown.keys().next().value;
      if (oldest === undefined) break;
      this.shown.delete(oldest);
    }
  }
}

export type ShownRead =
  /** Store this: the words read at `readAt` (the instant the confirmation showed, or now when none was shown). */
  | { kind: 'store'; readAt: Date; parsed: ParsedWhen }
  /** The instant shown has passed: store nothing; `fresh` is what the words mean now (or why they cannot be read now). */
  | { kind: 'passed'; shown: ParsedWhen; fresh: ParsedWhen | { reason: string } };

/**
 * How a call stores its `when`/`cron`: as shown by its confirmation (read at `shownAt`) while that instant
 * is still ahead, else not at all. Words that cannot be read throw InputError as parseWhen does.
 */
export function readAsShown(input: { when?: string | undefined; cron?: string | undefined; tz: string; kind: RowKind }, shownAt: Date | undefined, now: Date): ShownRead {
  const read = (at: Date): ParsedWhen => parseWhen({ ...(input.when !== undefined ? { when: input.when } : {}), ...(input.cron !== undefined ? { cron: input.cron } : {}), tz: input.tz, kind: input.kind, now: at });
  if (shownAt === undefined || shownAt.getTime() >= now.getTime()) return { kind: 'store', readAt: now, parsed: read(now) };
  let shown: ParsedWhen;
  try {
    shown = read(shownAt);
  } catch {
    // The confirmation showed why the words could not be read; now they are read as they stand.
    return { kind: 'store', readAt: now, parsed: read(now) };
  }
  if (shown.nextRunAt.getTime() > now.getTime()) return { kind: 'store', readAt: shownAt, parsed: shown };
  try {
    return { kind: 'passed', shown, fresh: read(now) };
  } catch (err) {
    if (err instanceof InputError) return { kind: 'passed', shown, fresh: { reason: err.reason } };
    throw err;
  }
}
