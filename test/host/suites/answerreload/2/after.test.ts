/**
 * A reminder's answer across a reload, phase 2 (a new server on the same user data: a reload): the sidebar's feed
 * still shows the reminder's answer, and `@life /remind show r-…` shows it with no model connected.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { hasBrowserRunner, lifeThread, phaseInfo, runnerAction, waitFor } from '../../../helpers';
import { ANSWER } from '../answer';

describe('a reminder’s answer, phase 2: after the reload', function () {
  this.timeout(90_000);

  it('the feed and @life /remind show still have the answer', async () => {
    const info = phaseInfo() ?? assert.fail('phase info');
    const { id } = JSON.parse(readFileSync(join(info.ackDir, '..', 'answerreload.json'), 'utf8')) as { id: string };
    const api = await lifeThread();
    await api.ready;
    await waitFor(() => (api.model.feed.some((f) => f.body.includes(ANSWER)) ? true : undefined), 10_000, 'the answer in the sidebar feed after the reload');
    assert.equal((await api.schedule.store.get(id))?.fact?.answer, ANSWER);

    if (!hasBrowserRunner()) return;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /remind show ${id}`, isPartialQuery: false, modelSelector: { vendor: 'lifethread', id: 'offline' } });
    const shown = (await runnerAction({ action: 'pageText', text: 'ANSWER-KEPT-42', timeoutMs: 30_000 }, 40_000)) as { found?: boolean };
    await runnerAction({ action: 'screenshot', name: 'host-answerreload-remind-show' });
    assert.equal(shown.found, true, '@life /remind show shows the answer after the reload');
  });
});
