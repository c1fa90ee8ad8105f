/**
 * A reminder's answer across a reload, phase 1: a reminder answered by the (scripted) model keeps the agent's final
 * answer on its row (`fact.answer`, read back through the CLI's `remind list --json`) and in the
 * durable feed (`feed.json`). Phase 2 reloads the window and looks for it again.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EXTENSION_ID } from '../../../../../src/shared/commands';
import { lifeThread, phaseInfo, waitFor } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';

import { ANSWER } from '../answer';

describe('a reminder’s answer, phase 1: kept on the row and in feed.json', function () {
  this.timeout(60_000);
  // Gone after this phase: phase 2 runs with no model but the offline responder.
  useScriptedModel(() => ({ text: ANSWER }));

  it('keeps fact.answer and a feed item, and the CLI reads fact.answer back', async () => {
    const info = phaseInfo() ?? assert.fail('phase info');
    const api = await lifeThread();
    await api.ready;
    const added = (await vscode.lm.invokeTool('lifethread_remind', { input: { action: 'add', text: 'check the nightly build and say what changed', when: new Date(Date.now() + 1500).toISOString() }, toolInvocationToken: undefined })).content
      .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
      .join('');
    const id = /r-[\w-]+/.exec(added)?.[0] ?? assert.fail(added);
    await waitFor(async () => ((await api.schedule.store.get(id))?.fact?.answer ? true : undefined), 30_000, 'the reminder answered', 100);

    const ext = vscode.extensions.getExtension(EXTENSION_ID) ?? assert.fail('extension');
    const cli = spawnSync(process.execPath, [join(ext.extensionPath, 'dist', 'cli.js'), '--store', api.storeDir, 'remind', 'list', '--json'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    assert.equal(cli.status, 0, cli.stderr);
    const rows = JSON.parse(cli.stdout) as { id: string; fact?: { answer?: string } }[];
    assert.equal(rows.find((r) => r.id === id)?.fact?.answer, ANSWER, 'remind list --json shows fact.answer');

    const feed = readFileSync(join(api.storeDir, 'feed.json'), 'utf8');
    assert.ok(feed.includes(ANSWER), 'feed.json keeps the answer');
    writeFileSync(join(info.ackDir, '..', 'answerreload.json'), JSON.stringify({ id }));
  });
});
