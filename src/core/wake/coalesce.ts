/**
 * Coalescing: triggers of one thread (a topic) that arrive within 250 ms become one wake
 * with one pulse: the weightiest reason, the worst job, the latest landing. Pure.
 */
import type { LandingRef } from '../landing';
import { COALESCE_WINDOW_MS, type DeskState, type JobStatus, type WakeWhen } from './contract';
import type { AlsoWake, PulseEvent, PulseJob, PulseWake } from './pulse';

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
  /** The wake whose trigger gave the group its job (the worst), else the first: the pulse leads with it. */
  lead?: string;
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
      ...(e.wakeIds?.[0] !== undefined ? { lead: e.wakeIds[0] } : {}),
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
    if (!g.job || rank >= STATUS_RANK[g.job.status]) {
      g.job = e.job;
      if (e.wakeIds?.[0] !== undefined) g.lead = e.wakeIds[0];
    }
    if (rank >= slot.summaryRank && e.summary !== undefined) {
      g.summary = e.summary;
      slot.summaryRank = rank;
    }
  } else if (e.summary !== undefined && slot.summaryRank < 0) g.summary = e.summary;
  if (e.detail !== undefined) g.detail = e.detail;
  if (e.landing) g.landing = e.landing;
  if (e.desk) g.desk = e.desk;
}

// ---------------------------------------------------------------------------------------------
// The pulse of a group

/** One wake of a coalesced group: its row (for its text) and the event it was triggered with. */
export interface GroupMember {
  id: string;
  row: PulseWake;
  event: PulseEvent;
}

/**
 * The pulse of a coalesced group: led by the wake that gave the group its job (so the text, `job:` and
 * summary belong together), else the first; every other wake rides along in `wake:` and on an
 * `also_wake:` line with its own text and job (./pulse.ts renders them). `members` come back in the
 * pulse's order, so that the first is the row to render.
 */
export function groupPulse<M extends GroupMember>(group: CoalescedWake, members: readonly M[]): { members: M[]; event: PulseEvent } {
  const lead = members.find((m) => m.id === group.lead) ?? members[0];
  const ordered = lead ? [lead, ...members.filter((m) => m !== lead)] : [];
  const alsoWakes: AlsoWake[] = ordered.slice(1).map((m) => ({ id: m.id, text: wakeText(m.row), ...(m.event.job ? { job: { ...m.event.job, id: m.event.job.id ?? m.row.jobId } } : {}) }));
  const { at: _a, lastAt: _l, jobs: _j, count: _c, lead: _d, threadId: _t, ...event } = group;
  return { members: ordered, event: { ...event, wakeIds: ordered.map((m) => m.id), ...(alsoWakes.length > 0 ? { alsoWakes } : {}) } };
}

/** A wake's own words: its text, or its payload as compact JSON (as the pulse's first line has it). */
function wakeText(row: PulseWake): string {
  return row.text !== undefined ? row.text : row.payload !== undefined ? JSON.stringify(row.payload) : '';
}

/** A wake waiting to go out: when its trigger happened and the thread it belongs to. */
export interface BufferedWake extends GroupMember {
  at: number;
  threadId: string;
}

/** Buffered wakes as pulses: coalesced per thread (timers never merged), each in groupPulse's order. */
export function pulsesOf<M extends BufferedWake>(items: readonly M[], windowMs = COALESCE_WINDOW_MS): { members: M[]; event: PulseEvent }[] {
  const byId = new Map(items.map((m) => [m.id, m]));
  const triggers: WakeTrigger[] = items.map((m) => ({
    reason: m.event.reason ?? m.row.when,
    at: m.at,
    threadId: m.threadId,
    wakeIds: [m.id],
    ...(m.event.job ? { job: m.event.job } : {}),
    ...(m.event.summary !== undefined ? { summary: m.event.summary } : {}),
    ...(m.event.detail !== undefined ? { detail: m.event.detail } : {}),
    ...(m.event.landing ? { landing: m.event.landing } : {}),
    ...(m.event.desk ? { desk: m.event.desk } : {}),
  }));
  return coalesce(triggers, windowMs).flatMap((group) => {
    const members = group.wakeIds.map((id) => byId.get(id)).filter((m): m is M => m !== undefined);
    return members.length > 0 ? [groupPulse(group, members)] : [];
  });
}
