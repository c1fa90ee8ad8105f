/**
 * What time input is accepted: how often each kind of row may recur, and the supported range of
 * instants (±100 years from now), so that no input reaches date arithmetic that would overflow.
 */
import { InputError } from '../errors';

export type RowKind = 'reminder' | 'command';

export const MIN_INTERVAL_SECONDS: Record<RowKind, number> = { reminder: 600, command: 60 };

/** ±100 years (of 366 days, so a century always fits) from now: the instants and intervals we accept. */
export const SUPPORTED_SPAN_MS = 100 * 366 * 24 * 3600_000;

export function limitWords(kind: RowKind): string {
  const who = kind === 'reminder' ? 'text reminders' : 'commands';
  const s = MIN_INTERVAL_SECONDS[kind];
  return `${who} may recur at most every ${s === 60 ? 'minute' : s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`}`;
}

/** True when `ms` is a finite instant within the supported span of `nowMs`. */
export function withinSupportedSpan(ms: number, nowMs: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms - nowMs) <= SUPPORTED_SPAN_MS;
}

/** A clock given by the caller (`--now`) must lie within ±100 years of the machine's clock. */
export function checkClock(now: Date, systemNow: Date, field = 'now'): Date {
  if (!withinSupportedSpan(now.getTime(), systemNow.getTime())) {
    throw new InputError(field, `'${Number.isFinite(now.getTime()) ? now.toISOString() : String(now)}' is more than 100 years from the system clock (${systemNow.toISOString()})`);
  }
  return now;
}
