import * as assert from 'node:assert/strict';
import { lifeThread, waitFor } from '../../../helpers';

describe('wake across a reload, phase 2: the job died with the window', () => {
  it('wakes with status lost, never a silent drop', async () => {
    const api = await lifeThread();
    const row = await waitFor(async () => (await api.wakes.store.list()).find((r) => (r.text ?? '').startsWith('WAKE-LOST') && r.status === 'fired' && r.fact?.delivered), 50_000, 'the lost wake delivered').catch(async (err: unknown) => {
      throw new Error(`${String(err)}; rows: ${JSON.stringify(await api.wakes.store.list())}; metrics: ${JSON.stringify(api.wakes.metrics)}`);
    });
    assert.equal(row.fact?.jobStatus, 'lost');
    // No language model in this phase: @life answers with the offline responder, which still receives the pulse.
    assert.equal(row.fact?.via, 'life');
    assert.equal((await api.wakes.store.list()).filter((r) => (r.text ?? '').startsWith('WAKE-LOST')).length, 1);
  });
});
