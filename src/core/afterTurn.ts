/**
 * After-turn requests: an agent turn that asks for something that would cut
 * it short — reload the window, restart the extension host — gets it stored and carried out after the
 * turn ends. One request at a time: a different one is refused while one waits or runs; the same one
 * again confirms the accepted request. Pure transitions; the state file lives in the store.
 */
import { z } from 'zod';

export const afterTurnActions = ['reload_window', 'restart_extension_host'] as const;
export type AfterTurnAction = (typeof afterTurnActions)[number];

export const afterTurnRequestSchema = z
  .object({
    id: z.string(),
    action: z.enum(afterTurnActions),
    requestedAt: z.string(),
    status: z.enum(['pending', 'running', 'done', 'failed']),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    outcome: z.string().optional(),
  })
  .strict();
export type AfterTurnRequest = z.infer<typeof afterTurnRequestSchema>;

export const afterTurnStateSchema = z.object({ current: afterTurnRequestSchema.nullable() }).strict();
export type AfterTurnState = z.infer<typeof afterTurnStateSchema>;

export type RequestAnswer =
  | { kind: 'accepted'; request: AfterTurnRequest }
  | { kind: 'already'; request: AfterTurnRequest }
  | { kind: 'refused'; request: AfterTurnRequest; reason: string };

export function requestAfterTurn(state: AfterTurnState, action: AfterTurnAction, now: Date, id: string): { state: AfterTurnState; answer: RequestAnswer } {
  const cur = state.current;
  if (cur && (cur.status === 'pending' || cur.status === 'running')) {
    if (cur.action === action) return { state, answer: { kind: 'already', request: cur } };
    return { state, answer: { kind: 'refused', request: cur, reason: `${cur.action} requested at ${cur.requestedAt} is still ${cur.status}; ask again after it has run` } };
  }
  const request: AfterTurnRequest = { id, action, requestedAt: now.toISOString(), status: 'pending' };
  return { state: { current: request }, answer: { kind: 'accepted', request } };
}

export function startRequest(state: AfterTurnState, now: Date): AfterTurnState {
  const cur = state.current;
  if (!cur || cur.status !== 'pending') return state;
  return { current: { ...cur, status: 'running', startedAt: now.toISOString() } };
}

/** Called at activation: a request that was running when the host went away has done its work. */
export function settleOnStart(state: AfterTurnState, now: Date): AfterTurnState {
  const cur = state.current;
  if (!cur || cur.status !== 'running') return state;
  const what = cur.action === 'reload_window' ? 'the window reloaded' : 'the extension host restarted';
  return { current: { ...cur, status: 'done', finishedAt: now.toISOString(), outcome: `${what}; Life Thread started again at ${now.toISOString()}` } };
}

export function failRequest(state: AfterTurnState, now: Date, reason: string): AfterTurnState {
  const cur = state.current;
  if (!cur) return state;
  return { current: { ...cur, status: 'failed', finishedAt: now.toISOString(), outcome: reason } };
}

export function describeRequest(r: AfterTurnRequest): string {
  return `${r.action} (id ${r.id}) requested ${r.requestedAt}: ${r.status}${r.outcome ? ` — ${r.outcome}` : ''}`;
}
