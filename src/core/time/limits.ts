/**
 * What time input is accepted: how often each kind of row may recur.
 */
export type RowKind = 'reminder' | 'command';

export const MIN_INTERVAL_SECONDS: Record<RowKind, number> = { reminder: 600, command: 60 };

export function limitWords(kind: RowKind): string {
  const who = kind === 'reminder' ? 'text reminders' : 'commands';
  const s = MIN_INTERVAL_SECONDS[kind];
  return `${who} may recur at most every ${s === 60 ? 'minute' : s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`}`;
}
