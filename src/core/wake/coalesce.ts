/**
 * Coalescing (design §3): triggers of one thread (a topic) that arrive within 250 ms become one wake
 * with one pulse: the weightiest reason, the worst job, the latest landing. Pure.
 */
import type { LandingRef } from '../landing';
import { COALESCE_WINDOW_MS, type DeskState, type JobStatus, type WakeWhen } from './contract';
import type { PulseEvent, PulseJob } from './pulse';

// ---------------------------------------------------------------------------------------------
// Coalescing

/** One event that fires wakes of a thread (a job end, a repository change, the user's return, a timer). */
export interface WakeTrigger {
  reason: WakeWhen;
  /** When it happened (epoch ms). */
  at: number;
  threadId?: string;
  /** The wakes it fired. */
  wakeIds?: readonly string[];
  job?: PulseJob;
  summary?: string;
  detail?: string;
  landing?: LandingRef;
  desk?: DeskState;
}

/** Several triggers of one thread that arrived together: one wake, one pulse. */
export interface CoalescedWake extends PulseEvent {
  reason: WakeWhen;
  threadId?: string;
  /** The first and last trigger's time. */
  at: number;
  lastAt: number;
  wakeIds: string[];
  /** Every job in the group; `job` is the worst of them. */
  jobs: PulseJob[];
  count: number;
}

const STATUS_RANK: Record<JobStatus, number> = { failed: 3, lost: 2, unknown: 1, succeeded: 0 };
const REASON_RANK: Record<WakeWhen, number> = { 'job.done': 3, 'scm.changed': 2, 'presence.online': 1, timer: 0 };

/**
 * Groups job, scm and presence triggers of the same thread that arrive within `windowMs` of the
 * group's first one into one wake: the reason is the weightiest (job.done > scm.changed >
 * presence.online), the job the worst (failed > lost > unknown > succeeded; the later one on a tie)
 * with its summary, the landing and desk the latest given. Timers are never merged. The result is
 * ordered by time.
 */
export function coalesce(events: readonly WakeTrigger[], windowMs = COALESCE_WINDOW_MS): CoalescedWake[] {
  const sorted = events.map((e, i) => ({ e, i })).sort((x, y) => x.e.at - y.e.at || x.i - y.i);
  const out: CoalescedWake[] = [];
  const open = new Map<string, { group: CoalescedWake; summaryRank: number }>();
  for (const { e } of sorted) {
    const key = e.threadId ?? '';
    const current = e.reason === 'timer' ? undefined : open.get(key);
    if (current && e.at - current.group.at <= windowMs) {
      merge(current, e);
      continue;
    }
    const group: CoalescedWake = {
      reason: e.reason,
      ...(e.threadId !== undefined ? { threadId: e.threadId } : {}),
      at: e.at,
      lastAt: e.at,
      wakeIds: [...(e.wakeIds ?? [])],
      jobs: e.job ? [e.job] : [],
      ...(e.job ? { job: e.job } : {}),
      ...(e.summary !== undefined ? { summary: e.summary } : {}),
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      ...(e.landing ? { landing: e.landing } : {}),
      ...(e.desk ? { desk: e.desk } : {}),
      count: 1,
    };
    out.push(group);
    if (e.reason !== 'timer') open.set(key, { group, summaryRank: e.job ? STATUS_RANK[e.job.status] : -1 });
  }
  return out;
}

function merge(slot: { group: CoalescedWake; summaryRank: number }, e: WakeTrigger): void {
  const g = slot.group;
  g.count++;
  g.lastAt = Math.max(g.lastAt, e.at);
  for (const id of e.wakeIds ?? []) if (!g.wakeIds.includes(id)) g.wakeIds.push(id);
  const reasons = new Set<WakeWhen>([g.reason, ...(g.also ?? []), e.reason]);
  const ordered = [...reasons].sort((a, b) => REASON_RANK[b] - REASON_RANK[a]);
  g.reason = ordered[0] ?? g.reason;
  g.also = ordered.slice(1);
  if (e.job) {
    g.jobs.push(e.job);
    const rank = STATUS_RANK[e.job.status];
    if (!g.job || rank >= STATUS_RANK[g.job.status]) g.job = e.job;
    if (rank >= slot.summaryRank && e.summary !== undefined) {
      g.summary = e.summary;
      slot.summaryRank = rank;
    }
  } else if (e.summary !== undefined && slot.summaryRank < 0) g.summary = e.summary;
  if (e.detail !== undefined) g.detail = e.detail;
  if (e.landing) g.landing = e.landing;
  if (e.desk) g.desk = e.desk;
}
