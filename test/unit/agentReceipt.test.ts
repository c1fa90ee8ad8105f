/**
 * The receipt of a pulse sent into Agent mode (src/core/wake/receipt.ts): a request to Life Thread's
 * provider that holds the pulse's `wake:` line and the wake tool's call whose answer names the wake
 * verifies it; the pulse without that call (another conversation) leaves it unverified with the reason;
 * only fired Agent-mode rows that are unverified change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NeutralMessage } from '../../src/core/openai';
import { ELSEWHERE_REASON, agentReceipt, markAgentReceipt } from '../../src/core/wake/receipt';
import type { WakeRow } from '../../src/core/wake/row';

const TOOL = 'lifethread_sendToLifeThread';
const pulse = (ids: string): string => `<userRequest>\nthe tests failed\nlife_wake:\n  wake: ${ids}\n  reason: job.done\n</userRequest>`;
const user = (text: string): NeutralMessage => ({ role: 'user', parts: [{ kind: 'text', text }] });
const call = (callId: string, name = TOOL): NeutralMessage => ({ role: 'assistant', parts: [{ kind: 'toolCall', callId, name, input: { text: 'x' } }] });
const answer = (callId: string, text: string): NeutralMessage => ({ role: 'user', parts: [{ kind: 'toolResult', callId, text }] });

describe('agentReceipt', () => {
  it('verifies a wake when the request holds its pulse and the wake tool call whose answer names it', () => {
    const r = agentReceipt([user('sleep'), call('c1'), answer('c1', 'Wake w-abc set: it fires when tests ends.'), user(pulse('w-abc'))], TOOL);
    assert.deepEqual(r, { verified: ['w-abc'], elsewhere: [] });
  });

  it('the pulse without the call that set it is elsewhere; an id inside a longer id, another tool or an unanswered call does not count', () => {
    assert.deepEqual(agentReceipt([user('hello'), user(pulse('w-abc'))], TOOL), { verified: [], elsewhere: ['w-abc'] });
    assert.deepEqual(agentReceipt([call('c1'), answer('c1', 'Wake w-abcd set'), user(pulse('w-abc'))], TOOL), { verified: [], elsewhere: ['w-abc'] });
    assert.deepEqual(agentReceipt([call('c1', 'other_tool'), answer('c1', 'Wake w-abc set'), user(pulse('w-abc'))], TOOL), { verified: [], elsewhere: ['w-abc'] });
    assert.deepEqual(agentReceipt([call('c1'), answer('c2', 'Wake w-abc set'), user(pulse('w-abc'))], TOOL), { verified: [], elsewhere: ['w-abc'] });
  });

  it('a coalesced pulse is judged per wake; a request without a pulse shows nothing; the model\u2019s own words are not a pulse', () => {
    const r = agentReceipt([call('c1'), answer('c1', 'set w-a1'), user(pulse('[w-a1, w-b2]'))], TOOL);
    assert.deepEqual(r, { verified: ['w-a1'], elsewhere: ['w-b2'] });
    assert.deepEqual(agentReceipt([call('c1'), answer('c1', 'set w-a1')], TOOL), { verified: [], elsewhere: [] });
    assert.deepEqual(agentReceipt([{ role: 'assistant', parts: [{ kind: 'text', text: pulse('w-a1') }] }], TOOL), { verified: [], elsewhere: [] });
  });
});

describe('markAgentReceipt', () => {
  const row = (id: string, fact: WakeRow['fact'], status: WakeRow['status'] = 'fired'): WakeRow => ({
    id,
    text: 'wake',
    when: 'timer',
    status,
    nextRunAt: null,
    createdAt: '2026-10-03T07:00:00.000Z',
    firedAt: '2026-10-03T07:01:00.000Z',
    ...(fact ? { fact } : {}),
  });

  it('clears unverified (and an earlier reason) on verified Agent-mode rows; stores the reason on elsewhere ones; leaves the rest', () => {
    const rows = [
      row('w-v', { delivered: true, via: 'agent', unverified: true, reason: ELSEWHERE_REASON }),
      row('w-e', { delivered: true, via: 'agent', unverified: true }),
      row('w-mcp', { delivered: true, via: 'mcp', unverified: true }),
      row('w-done', { delivered: true, via: 'agent' }),
    ];
    const r = markAgentReceipt(rows, { verified: ['w-v', 'w-mcp'], elsewhere: ['w-e', 'w-done'] });
    assert.deepEqual(r.changed, ['w-v', 'w-e']);
    assert.deepEqual(r.rows[0]?.fact, { delivered: true, via: 'agent' });
    assert.deepEqual(r.rows[1]?.fact, { delivered: true, via: 'agent', unverified: true, reason: ELSEWHERE_REASON });
    assert.deepEqual(r.rows[2], rows[2], 'an MCP row is verified by its own route');
    assert.deepEqual(r.rows[3], rows[3], 'a verified row is not made unverified again');
    assert.deepEqual(markAgentReceipt(r.rows, { verified: [], elsewhere: ['w-e'] }).changed, [], 'the reason is stored once');
  });
});
