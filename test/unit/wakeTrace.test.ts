/**
 * The wake's trace (src/core/wake/trace.ts): each step's own time from the job's end, in order, and
 * the one line the output channel shows.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeTrace, mark, newTrace, traceSteps } from '../../src/core/wake/trace';

describe('wake trace', () => {
  it('each step counts from the previous one, the first from the job end', () => {
    const t = newTrace(1000);
    mark(t, 'output', 1040);
    mark(t, 'claim', 1060);
    mark(t, 'received', 1500);
    assert.deepEqual(traceSteps(t), [
      { step: 'output', ms: 40 },
      { step: 'claim', ms: 20 },
      { step: 'received', ms: 440 },
    ]);
    assert.equal(describeTrace(t), 'output 40, claim 20, received 440 ms; 500 ms in all');
  });

  it('steps that ended together or out of order never count negative; no trace, no marks', () => {
    const t = newTrace(1000);
    mark(t, 'desk', 1030);
    mark(t, 'evidence', 1010);
    assert.deepEqual(traceSteps(t), [
      { step: 'desk', ms: 30 },
      { step: 'evidence', ms: 0 },
    ]);
    mark(undefined, 'x', 5);
    assert.equal(describeTrace(newTrace(0)), '0 ms in all');
  });
});
