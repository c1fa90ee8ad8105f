/**
 * After-turn requests (reload the window / restart the extension host after the turn): one at a time,
 * the same one again confirms it, a different one is refused while one waits or runs, and a request
 * that was running when the host went away is settled as done at the next activation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  afterTurnRequestSchema,
  afterTurnStateSchema,
  describeRequest,
  failRequest,
  requestAfterTurn,
  settleOnStart,
  startRequest,
  type AfterTurnRequest,
  type AfterTurnState,
} from '../../src/core/afterTurn';

const T0 = new Date('2026-10-02T09:00:00.000Z');
const T1 = new Date('2026-10-02T09:00:05.000Z');
const T2 = new Date('2026-10-02T09:00:09.500Z');
const T3 = new Date('2026-10-02T09:03:00.000Z');
const EMPTY: AfterTurnState = { current: null };

function pending(action: AfterTurnRequest['action'] = 'reload_window'): AfterTurnState {
  return { current: { id: 'at-1', action, requestedAt: T0.toISOString(), status: 'pending' } };
}

function running(action: AfterTurnRequest['action'] = 'reload_window'): AfterTurnState {
  return startRequest(pending(action), T1);
}

describe('requestAfterTurn', () => {
  it('with nothing stored: accepted, pending, stamped with the time and id', () => {
    const { state, answer } = requestAfterTurn(EMPTY, 'restart_extension_host', T0, 'at-1');
    const expected: AfterTurnRequest = { id: 'at-1', action: 'restart_extension_host', requestedAt: '2026-10-02T09:00:00.000Z', status: 'pending' };
    assert.deepEqual(answer, { kind: 'accepted', request: expected });
    assert.deepEqual(state, { current: expected });
    assert.ok(afterTurnStateSchema.safeParse(state).success, 'the stored state satisfies its schema');
  });

  it('the same action again while pending: already, the state unchanged (same object), the first request kept', () => {
    const before = pending('reload_window');
    const { state, answer } = requestAfterTurn(before, 'reload_window', T1, 'at-2');
    assert.equal(state, before);
    assert.equal(answer.kind, 'already');
    assert.equal(answer.request.id, 'at-1');
    assert.equal(answer.request.requestedAt, T0.toISOString());
  });

  it('the same action again while running: already', () => {
    const before = running('restart_extension_host');
    const { state, answer } = requestAfterTurn(before, 'restart_extension_host', T2, 'at-2');
    assert.equal(state, before);
    assert.deepEqual(answer, { kind: 'already', request: before.current });
  });

  for (const [label, make] of [
    ['pending', pending],
    ['running', running],
  ] as const) {
    it(`a different action while ${label}: refused with a reason naming the waiting request and its status`, () => {
      const before = make('reload_window');
      const { state, answer } = requestAfterTurn(before, 'restart_extension_host', T2, 'at-2');
      assert.equal(state, before);
      assert.equal(answer.kind, 'refused');
      if (answer.kind !== 'refused') return;
      assert.equal(answer.request.id, 'at-1');
      assert.match(answer.reason, /reload_window/);
      assert.ok(answer.reason.includes(T0.toISOString()), answer.reason);
      assert.ok(answer.reason.includes(`still ${label}`), answer.reason);
      assert.match(answer.reason, /ask again after it has run/);
    });
  }

  it('after done, a new request (same or different action) is accepted and replaces it', () => {
    const done = settleOnStart(running('reload_window'), T3);
    assert.equal(done.current?.status, 'done');
    const same = requestAfterTurn(done, 'reload_window', T3, 'at-2');
    assert.equal(same.answer.kind, 'accepted');
    assert.deepEqual(same.state, { current: { id: 'at-2', action: 'reload_window', requestedAt: T3.toISOString(), status: 'pending' } });
    const other = requestAfterTurn(done, 'restart_extension_host', T3, 'at-3');
    assert.equal(other.answer.kind, 'accepted');
    assert.equal(other.state.current?.action, 'restart_extension_host');
    assert.equal(other.state.current?.startedAt, undefined, 'nothing of the old request is carried over');
  });

  it('after failed, a new request is accepted', () => {
    const failed = failRequest(running(), T2, 'no window to reload');
    const { answer } = requestAfterTurn(failed, 'restart_extension_host', T3, 'at-2');
    assert.equal(answer.kind, 'accepted');
  });
});

describe('startRequest', () => {
  it('pending → running with startedAt', () => {
    const s = startRequest(pending(), T1);
    assert.deepEqual(s.current, { id: 'at-1', action: 'reload_window', requestedAt: T0.toISOString(), status: 'running', startedAt: T1.toISOString() });
    assert.ok(afterTurnStateSchema.safeParse(s).success);
  });

  it('leaves an empty state, a running, a done and a failed request alone', () => {
    assert.equal(startRequest(EMPTY, T1), EMPTY);
    const r = running();
    assert.equal(startRequest(r, T2), r);
    const d = settleOnStart(r, T2);
    assert.equal(startRequest(d, T3), d);
    const f = failRequest(r, T2, 'x');
    assert.equal(startRequest(f, T3), f);
  });
});

describe('settleOnStart', () => {
  it('running reload_window → done, finishedAt and an outcome saying the window reloaded and when Life Thread started', () => {
    const s = settleOnStart(running('reload_window'), T3);
    const c = s.current;
    assert.ok(c);
    assert.equal(c.status, 'done');
    assert.equal(c.finishedAt, T3.toISOString());
    assert.equal(c.startedAt, T1.toISOString());
    assert.equal(c.outcome, `the window reloaded; Life Thread started again at ${T3.toISOString()}`);
    assert.ok(afterTurnRequestSchema.safeParse(c).success);
  });

  it('running restart_extension_host → done, the outcome says the extension host restarted', () => {
    const c = settleOnStart(running('restart_extension_host'), T3).current;
    assert.equal(c?.status, 'done');
    assert.match(c?.outcome ?? '', /^the extension host restarted; /);
  });

  it('leaves empty, pending, done and failed alone (same object)', () => {
    for (const s of [EMPTY, pending(), settleOnStart(running(), T2), failRequest(running(), T2, 'why')]) {
      assert.equal(settleOnStart(s, T3), s);
    }
  });
});

describe('failRequest', () => {
  it('running → failed with finishedAt and the reason as outcome', () => {
    const s = failRequest(running(), T2, 'workbench.action.reloadWindow is not available');
    assert.deepEqual(s.current, {
      id: 'at-1',
      action: 'reload_window',
      requestedAt: T0.toISOString(),
      status: 'failed',
      startedAt: T1.toISOString(),
      finishedAt: T2.toISOString(),
      outcome: 'workbench.action.reloadWindow is not available',
    });
    assert.ok(afterTurnStateSchema.safeParse(s).success);
  });

  it('pending → failed; empty stays empty', () => {
    assert.equal(failRequest(pending(), T2, 'turn cancelled').current?.status, 'failed');
    assert.equal(failRequest(EMPTY, T2, 'x'), EMPTY);
  });
});

describe('describeRequest', () => {
  it('names action, id, time, status and the outcome when there is one', () => {
    const p = pending().current;
    assert.ok(p);
    assert.equal(describeRequest(p), `reload_window (id at-1) requested ${T0.toISOString()}: pending`);
    const d = settleOnStart(running(), T3).current;
    assert.ok(d);
    assert.equal(describeRequest(d), `reload_window (id at-1) requested ${T0.toISOString()}: done — the window reloaded; Life Thread started again at ${T3.toISOString()}`);
  });
});

describe('schemas', () => {
  it('the request schema rejects unknown keys, naming them', () => {
    const r = afterTurnRequestSchema.safeParse({ id: 'at-1', action: 'reload_window', requestedAt: T0.toISOString(), status: 'pending', retries: 2 });
    assert.equal(r.success, false);
    assert.ok(!r.success && r.error.issues.some((i) => i.code === 'unrecognized_keys' && i.keys.includes('retries')));
  });

  it('the state schema rejects unknown keys at the top level and inside current', () => {
    assert.equal(afterTurnStateSchema.safeParse({ current: null, history: [] }).success, false);
    assert.equal(afterTurnStateSchema.safeParse({ current: { ...pending().current, extra: true } }).success, false);
    assert.equal(afterTurnStateSchema.safeParse({ current: null }).success, true);
  });

  it('rejects an unknown action or status', () => {
    assert.equal(afterTurnRequestSchema.safeParse({ id: 'a', action: 'quit_vscode', requestedAt: T0.toISOString(), status: 'pending' }).success, false);
    assert.equal(afterTurnRequestSchema.safeParse({ id: 'a', action: 'reload_window', requestedAt: T0.toISOString(), status: 'queued' }).success, false);
  });
});
