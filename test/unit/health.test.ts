// The dispatcher's health (src/core/health.ts): one decision and one wording for the status bar, the
// tools, `life-thread mcp` and `life-thread doctor`.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { dispatcherHealth, passIsAlive } from '../../src/core/health';

const now = new Date('2026-10-03T10:00:00Z');
const ago = (s: number): Date => new Date(now.getTime() - s * 1000);

describe('dispatcher health', () => {
  it('is healthy within 120 s of a pass, stalled after', () => {
    assert.equal(passIsAlive(ago(120), now), true);
    assert.equal(passIsAlive(ago(121), now), false);
    assert.equal(passIsAlive(null, now), false);
    const h = dispatcherHealth({ lastPassAt: ago(3) }, now);
    assert.deepEqual(h, { state: 'healthy', healthy: true, line: 'Dispatcher healthy · last pass 3 s ago', lastPassAt: ago(3).toISOString() });
    const s = dispatcherHealth({ lastPassAt: ago(600) }, now);
    assert.equal(s.state, 'stalled');
    assert.equal(s.healthy, false);
    assert.equal(s.line, 'STALLED: no dispatcher pass for 10 min');
  });

  it('says starting in a window before its first pass, and "no dispatcher yet" to a process reading the pulse', () => {
    assert.equal(dispatcherHealth({ lastPassAt: null, ownDispatcher: true }, now).state, 'starting');
    const never = dispatcherHealth({ lastPassAt: null }, now);
    assert.equal(never.state, 'stalled');
    assert.equal(never.line, 'No dispatcher has run on this store yet');
  });

  it('puts a read-only store before a failed pass, and both before the age', () => {
    assert.equal(dispatcherHealth({ lastPassAt: ago(1), readOnly: 'EROFS', error: 'x' }, now).line, 'Store is read-only: EROFS');
    assert.equal(dispatcherHealth({ lastPassAt: ago(1), error: 'the lock is held' }, now).line, 'STALLED: the lock is held');
  });

  it('says paused only while passes still come', () => {
    assert.equal(dispatcherHealth({ lastPassAt: ago(1), paused: true }, now).line, 'Wakes paused · dispatcher healthy');
    assert.equal(dispatcherHealth({ lastPassAt: ago(500), paused: true }, now).state, 'stalled');
  });
});
