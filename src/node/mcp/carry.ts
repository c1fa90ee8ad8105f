/**
 * Pulses that ride on a tool answer of an MCP session: the answer is the one route where the pulse is
 * known to reach the model, so it verifies. Carried: wakes of this session (or of an ended session
 * of the same client and folder, marked `earlier_session`) held for want of a receiver, and wakes of
 * this session pushed as channel events, log messages or resource updates (recorded `unverified`).
 */
import { renderPulse, type PulseEvent } from '../../core/wake/pulse';
import { unverifiedMcp } from '../../core/wake/receipt';
import type { ClaimedWake, WakeRow } from '../../core/wake/row';
import { pulseEventOutside } from '../pulseOutside';
import { DEFAULT_LIMITS } from '../schedule';
import { adoptable, ownRow, type Session } from './session';

/** How long an answer waits for the courier to finish holding an ended session's wake it claimed (it holds at once). */
const COURIER_HOLD_WAIT_MS = 3000;

/** The pulse of a wake as this session gives it: `earlier_session` when an ended session set it. */
export function sessionPulse(s: Session, row: WakeRow, event: PulseEvent = pulseEventOutside(row)): string {
  return renderPulse(row, { ...event, ...(ownRow(s, row) ? {} : adoptable(s, row) || row.fact?.earlierSession ? { earlierSession: true } : {}) });
}

/** Records claims as delivered through a tool answer: verified; those an ended session set say so. */
export async function deliveredInAnswer(s: Session, claims: readonly ClaimedWake[]): Promise<void> {
  const earlier = claims.filter((c) => adoptable(s, c.row)).map((c) => c.id);
  const own = claims.filter((c) => !adoptable(s, c.row)).map((c) => c.id);
  await s.wakes.delivered(own, { delivered: true, via: 'mcp' });
  await s.wakes.delivered(earlier, { delivered: true, via: 'mcp', earlierSession: true });
}

/**
 * An ended session's timers that fell due, claimed for this answer. This session's courier may claim
 * them at the same moment (it waits for a `life-thread wait` first and then holds them for the next
 * answer): what it has in hand is waited for, so that it is held, and so carried, by this answer.
 */
async function takeEarlierDue(s: Session, now: Date): Promise<ClaimedWake[]> {
  const dueEarlier = (r: WakeRow): boolean => r.status === 'pending' && r.when === 'timer' && r.nextRunAt !== null && Date.parse(r.nextRunAt) <= now.getTime() && adoptable(s, r);
  const inHand = (r: WakeRow): boolean => r.status === 'delivering' && r.claim?.pid === s.holder.pid && r.claim.start === s.holder.start && adoptable(s, r);
  const end = Date.now() + COURIER_HOLD_WAIT_MS;
  for (;;) {
    const rows = await s.wakes.list();
    if (rows.some(inHand) && Date.now() < end) {
      await new Promise((res) => setTimeout(res, 50));
      continue;
    }
    if (!rows.some(dueEarlier)) return [];
    const { claimed } = await s.wakes.claimDue({ now, holder: s.holder }, { eligible: dueEarlier, maxLatenessMs: DEFAULT_LIMITS.reminder });
    if (claimed.length > 0 || Date.now() >= end) return claimed;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The pulses this tool answer carries (empty when none), recorded as delivered or verified. */
export async function carryPulses(s: Session): Promise<string> {
  const heldHere = (r: WakeRow): boolean => r.status === 'held' && r.heldReason === 'unreachable' && (ownRow(s, r) || adoptable(s, r));
  const now = new Date();
  const due = await takeEarlierDue(s, now);
  const rows = await s.wakes.list();
  const pushed = rows.filter((r) => ownRow(s, r) && unverifiedMcp(r));
  const held = rows.some(heldHere) ? await s.wakes.claimHeld({ now, holder: s.holder }, { eligible: heldHere }) : [];
  const claims = [...due, ...held];
  if (claims.length === 0 && pushed.length === 0) return '';
  const pulses = [...claims.map((c) => sessionPulse(s, c.row)), ...pushed.map((r) => sessionPulse(s, r))];
  await deliveredInAnswer(s, claims);
  await s.wakes.verified(pushed.map((r) => r.id));
  return `\n\nWakes that fired (a pushed one may have reached you already; this answer carries each in full):\n\n${pulses.join('\n\n')}`;
}
