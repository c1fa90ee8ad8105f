/**
 * An agent's turn from its model requests (src/node/agentBusy.ts), on a fake clock: busy from the
 * first request through responses that call a tool, until one that calls none; ended once, then; a
 * turn that goes quiet for the silence ends by itself; streamed parts keep it going.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGENT_SILENCE_MS, AgentBusy } from '../../src/node/agentBusy';
import { FakeTime } from './helpers/fakeTime';

const settle = (): Promise<void> => Promise.resolve();

function harness(): { time: FakeTime; busy: AgentBusy; ends: number[] } {
  const time = new FakeTime();
  const ends: number[] = [];
  const busy = new AgentBusy(() => ends.push(time.now), AGENT_SILENCE_MS, time);
  return { time, busy, ends };
}

describe('AgentBusy', () => {
  it('a turn with a tool call: busy from the first request, through the tool, until the response without one', async () => {
    const { time, busy, ends } = harness();
    assert.equal(busy.busy, false);
    const first = busy.request();
    assert.equal(busy.busy, true);
    first.end(true);
    assert.equal(busy.busy, true, 'the agent runs the tool and asks again');
    assert.deepEqual(ends, []);
    await time.runUntil(time.now + 30_000, settle);
    const second = busy.request();
    second.activity();
    second.end(false);
    assert.equal(busy.busy, false);
    assert.deepEqual(ends, [time.now], 'ended once, at the final answer');
    second.end(false);
    assert.equal(ends.length, 1, 'a second end of the same request changes nothing');
  });

  it('two minutes without a request or a word end the turn; a streamed part puts that off', async () => {
    const { time, busy, ends } = harness();
    const start = time.now;
    const r = busy.request();
    await time.runUntil(start + AGENT_SILENCE_MS - 1000, settle);
    r.activity();
    await time.runUntil(start + AGENT_SILENCE_MS + 1000, settle);
    assert.equal(busy.busy, true, 'the part streamed 1 s before the silence counted');
    await time.runUntil(start + 2 * AGENT_SILENCE_MS, settle);
    assert.equal(busy.busy, false);
    assert.deepEqual(ends, [start + 2 * AGENT_SILENCE_MS - 1000]);
    r.end(false);
    assert.equal(busy.busy, false, 'a response ending after the silence does not make it busy');
  });

  it('a tool that runs longer than the silence: the turn counts as ended, and the next request starts a new one', async () => {
    const { time, busy, ends } = harness();
    busy.request().end(true);
    await time.runUntil(time.now + AGENT_SILENCE_MS, settle);
    assert.equal(busy.busy, false);
    assert.equal(ends.length, 1);
    busy.request();
    assert.equal(busy.busy, true);
  });

  it('two requests at once: the turn ends only when neither runs', () => {
    const { busy, ends } = harness();
    const a = busy.request();
    const b = busy.request();
    a.end(false);
    assert.equal(busy.busy, true);
    b.end(false);
    assert.equal(busy.busy, false);
    assert.equal(ends.length, 1);
  });
});
