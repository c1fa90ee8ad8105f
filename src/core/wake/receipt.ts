/**
 * A receipt seen after the fact: a pulse recorded `unverified` (an MCP channel push, a log message or a
 * resource update, which the client may drop) is verified once a tool answer carried it into the
 * session (src/node/mcp/carry.ts); one submitted into Agent mode once Life Thread's own provider sees
 * it beside the call that set the wake (src/host/agentTurns.ts). Pure; applied under the table's lock
 * by src/node/wakes.ts.
 */
import type { NeutralMessage } from '../openai';
import { pulseWakeIds } from './pulse';
import type { WakeRow } from './row';

/** Whether the row's pulse went out through MCP where no receipt could be seen. */
export function unverifiedMcp(row: WakeRow): boolean {
  return row.status === 'fired' && row.fact?.via === 'mcp' && row.fact.unverified === true;
}

/** The fired MCP rows among `ids` lose `unverified`: a tool answer held their pulse. */
export function markVerified(rows: readonly WakeRow[], ids: readonly string[]): { rows: WakeRow[]; verified: string[] } {
  const want = new Set(ids);
  const verified: string[] = [];
  const out = rows.map((r) => {
    if (!want.has(r.id) || !unverifiedMcp(r) || !r.fact) return r;
    verified.push(r.id);
    const { unverified: _u, ...fact } = r.fact;
    return { ...r, fact };
  });
  return { rows: verified.length > 0 ? out : [...rows], verified };
}

/**
 * What a model request to Life Thread's own provider shows of pulses sent into Agent mode: a wake is
 * `verified` when the request holds its pulse's `wake:` line and a call of the wake tool whose answer
 * names it (the conversation that set it); `elsewhere` when it holds the pulse without that call (the
 * pulse went into another conversation, the one on screen at the time).
 */
export function agentReceipt(messages: readonly NeutralMessage[], wakeTool: string): { verified: string[]; elsewhere: string[] } {
  const pulsed = new Set<string>();
  const calls = new Set<string>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.kind === 'text' && m.role !== 'assistant') for (const id of pulseWakeIds(p.text)) pulsed.add(id);
      if (p.kind === 'toolCall' && p.name === wakeTool) calls.add(p.callId);
    }
  }
  if (pulsed.size === 0) return { verified: [], elsewhere: [] };
  const answers: string[] = [];
  for (const m of messages) for (const p of m.parts) if (p.kind === 'toolResult' && calls.has(p.callId)) answers.push(p.text);
  const setHere = (id: string): boolean => answers.some((t) => namesId(t, id));
  const ids = [...pulsed];
  return { verified: ids.filter(setHere), elsewhere: ids.filter((id) => !setHere(id)) };
}

/** Whether `text` names the wake id as a whole word (w-ab does not match inside w-abc). */
function namesId(text: string, id: string): boolean {
  for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
    if (!/[A-Za-z0-9_-]/.test(text[at - 1] ?? ' ') && !/[A-Za-z0-9_-]/.test(text[at + id.length] ?? ' ')) return true;
  }
  return false;
}

/** Why a pulse sent into Agent mode stays unverified once a request showed it without the call that set it. */
export const ELSEWHERE_REASON = 'the pulse reached an Agent-mode conversation that does not hold the tool call that set this wake (another conversation was on screen)';

/**
 * Fired Agent-mode rows that are still unverified: `verified` ones lose `unverified` (and a reason an
 * earlier request left); `elsewhere` ones keep it and get ELSEWHERE_REASON, unless already verified.
 */
export function markAgentReceipt(rows: readonly WakeRow[], seen: { verified: readonly string[]; elsewhere: readonly string[] }): { rows: WakeRow[]; changed: string[] } {
  const verified = new Set(seen.verified);
  const elsewhere = new Set(seen.elsewhere);
  const changed: string[] = [];
  const out = rows.map((r) => {
    if (r.status !== 'fired' || r.fact?.via !== 'agent' || r.fact.unverified !== true) return r;
    if (verified.has(r.id)) {
      changed.push(r.id);
      const { unverified: _u, reason: _r, ...fact } = r.fact;
      return { ...r, fact };
    }
    if (!elsewhere.has(r.id) || r.fact.reason === ELSEWHERE_REASON) return r;
    changed.push(r.id);
    return { ...r, fact: { ...r.fact, reason: ELSEWHERE_REASON } };
  });
  return { rows: changed.length > 0 ? out : [...rows], changed };
}
