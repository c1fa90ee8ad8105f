import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lifeThread, phaseInfo, waitFor } from '../../../helpers';

describe('reload, phase 2: the new window fires it, once', () => {
  it('fires the reminder added before the restart exactly once', async () => {
    const info = phaseInfo();
    assert.ok(info);
    const { id, at } = JSON.parse(readFileSync(join(info.ackDir, '..', 'reload-row.json'), 'utf8')) as { id: string; at: string };
    const api = await lifeThread();
    const row = await waitFor(async () => {
      const r = await api.schedule.store.get(id);
      return r?.fact?.delivered ? r : undefined;
    }, 40_000, `reminder ${id} delivered after the restart`, 100);
    assert.equal(row.status, 'fired');
    assert.ok(Date.parse(row.firedAt ?? '') >= Date.parse(at), 'not fired before its time');
    assert.equal(api.model.feed.filter((f) => f.title.includes(id)).length, 1, 'delivered once');
  });
});
