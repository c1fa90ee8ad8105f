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
import { adoptable, ownRow, type Session } from './session';

/** The pulse of a wake as this session gives it: `earlier_session` when an ended session set it. */
export function sessionPulse(s: Session, row: WakeRow, event: PulseEvent = pulseEventOutside(row)): string {
  return renderPulse(row, { ...event, ...(ownRow(s, row) ? {} : adoptable(s, row) || row.fact?.earlierSession ? { earlierSession: true } : {}) });
}

/** Records claims as delivered through a tool answer: verified; those an ended session set say so. */
export async function deliveredInAnswer(s: Session, claims: readonly ClaimedWake[]): Promise<void> {
  const earlier = claims.filter((c) => !ownRow(s, c.row)).map((c) => c.id);
  const own = claims.filter((c) => ownRow(s, c.row)).map((c) => c.id);
  await s.wakes.delivered(own, { delivered: true, via: 'mcp' });
  await s.wakes.delivered(earlier, { delivered: true, via: 'mcp', earlierSession: true });
}

/** The pulses this tool answer carries (empty when none), recorded as delivered or verified. */
export async function carryPulses(s: Session): Promise<string> {
  const heldHere = (r: WakeRow): boolean => r.status === 'held' && r.heldReason === 'unreachable' && (ownRow(s, r) || adoptable(s, r));
  const rows = await s.wakes.list();
  const pushed = rows.filter((r) => ownRow(s, r) && unverifiedMcp(r));
  const claims = rows.some(heldHere) ? await s.wakes.claimHeld({ now: new Date(), holder: s.holder }, { eligible: heldHere }) : [];
  if (claims.length === 0 && pushed.length === 0) return '';
  const pulses = [...claims.map((c) => sessionPulse(s, c.row)), ...pushed.map((r) => sessionPulse(s, r))];
  await deliveredInAnswer(s, claims);
  await s.wakes.verified(pushed.map((r) => r.id));
  return `\n\nWakes that fired (a pushed one may have reached you already; this answer carries each in full):\n\n${pulses.join('\n\n')}`;
}
