import type { WakeWhen } from '../core/wake/contract';
import { describeWake, HELD_WORDS, type WakeRow } from '../core/wake/row';

/** One delivery as Doctor lists it. */
export interface WakeMetric {
  ids: string[];
  reason: WakeWhen;
  wakeChars: number;
  timeToLocusMs?: number;
  /** From the job's end to the @life handler holding the pulse. */
  timeToPulseMs?: number;
  /** That time step by step (ms each, in order): where a slow wake's time went. */
  steps?: { step: string; ms: number }[];
  at: string;
  via: 'life' | 'agent' | 'notification' | 'unreachable';
}

/** The wakes the sidebar lists: waiting, held (and why) and being delivered. */
export function wakeRowViews(rows: readonly WakeRow[], now: Date, zone: string, paused: boolean) {
  return rows
    .filter((r) => r.status === 'pending' || r.status === 'held' || r.status === 'delivering')
    .map((r) => ({
      id: r.id,
      kind: 'wake' as const,
      title: r.text ?? JSON.stringify(r.payload ?? null),
      // A held wake's reason is its fact line; its "when" says only that its moment has come.
      when: r.status === 'held' ? 'ready, held' : describeWake(r, now, zone),
      status: r.status,
      lastFact: r.status === 'held' ? `held: ${HELD_WORDS[r.heldReason ?? 'unreachable']}` : r.status === 'pending' && paused ? 'wakes are paused: it waits until they are resumed' : '',
      factTone: r.status === 'held' ? ('running' as const) : ('none' as const),
      hasLog: false,
    }));
}

/** Doctor's wake section: pause, cap, the folders this window serves, the table's counts, the held wakes and the last deliveries. */
export function wakeDoctorLines(rows: readonly WakeRow[], s: { paused: boolean; maxPerHour: number; folders: readonly string[]; metrics: readonly WakeMetric[] }): string {
  const count = (st: WakeRow['status']): number => rows.filter((r) => r.status === st).length;
  const lines = [
    `- Wakes: ${s.paused ? '**paused** (Resume Wakes releases them)' : 'active'}; cap ${s.maxPerHour} per hour; this window delivers wakes of ${s.folders.length ? s.folders.join(', ') : 'no workspace'} and wakes set outside a workspace`,
    `- In wakes.json: ${count('pending')} pending, ${count('held')} held, ${count('delivering')} delivering, ${count('fired')} fired, ${count('missed')} missed, ${count('cancelled')} cancelled`,
  ];
  for (const r of rows.filter((x) => x.status === 'held')) lines.push(`  - \`${r.id}\` held: ${HELD_WORDS[r.heldReason ?? 'unreachable']}`);
  if (!s.metrics.length) lines.push('- No wake has been delivered in this window yet.');
  for (const m of s.metrics.slice(0, 10)) {
    lines.push(`- \`${m.ids.join(', ')}\` ${m.reason} at ${m.at}: ${m.via}, wake_chars ${m.wakeChars}${m.timeToLocusMs !== undefined ? `, time-to-report-locus ${m.timeToLocusMs} ms` : ''}${m.timeToPulseMs !== undefined ? `, job end → pulse ${m.timeToPulseMs} ms` : ''}`);
  }
  return lines.join('\n');
}
