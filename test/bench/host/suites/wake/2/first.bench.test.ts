/**
 * What a window's first chat request costs VS Code itself, without Life Thread: after a restart, a
 * task ends and a bare chat participant (@other, a test extension whose handler only notes the time)
 * is asked through the same `workbench.action.chat.open` the wake uses. Printed beside phase 1's first
 * run (Life Thread's wake as the window's first request); not a figure of its own.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lifeThread } from '../../../../../host/helpers';
import { bareAfterTask, bareParticipant } from '../bareParticipant';

describe('bench: a window\u2019s first chat request, without Life Thread', () => {
  it('a task ends → a bare participant has the request', async function () {
    this.timeout(3 * 60_000);
    await lifeThread();
    const api = await bareParticipant();
    const dir = mkdtempSync(join(tmpdir(), 'lt-bench-first-'));
    const times: number[] = [];
    for (let i = 0; i < 3; i++) times.push(await bareAfterTask(api, `first-${i}`, join(dir, `first-${i}.exit`), `FIRST ${i}`));
    console.log(`job end → bare participant, the window's first three requests (ms): ${times.map((t) => Math.round(t)).join(', ')}`);
    assert.equal(times.length, 3);
  });
});
