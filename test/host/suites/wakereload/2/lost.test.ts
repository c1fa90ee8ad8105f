import * as assert from 'node:assert/strict';
import { lifeThread, waitFor } from '../../../helpers';

describe('wake across a reload, phase 2: the job died with the window', () => {
  it('wakes with status lost, never a silent drop', async () => {
    const api = await lifeThread();
    const row = await waitFor(async () => (await api.wakes.store.list()).find((r) => (r.text ?? '').startsWith('WAKE-LOST') && r.status === 'fired' && r.fact?.delivered), 30_000, 'the lost wake delivered');
    assert.equal(row.fact?.jobStatus, 'lost');
    // No model in this phase: it is shown as a notification and in the feed, and handed to @life's next turn.
    assert.equal(row.fact?.via, 'notification');
    assert.ok(api.model.feed.some((f) => f.body.includes('WAKE-LOST') && f.body.includes('status: lost')));
    assert.ok(api.wakes.pendingForNextTurn.some((p) => p.includes('WAKE-LOST')));
  });
});
