import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread, phaseInfo } from '../../../helpers';

describe('reload, phase 1: add a reminder, then the window goes away', () => {
  it('adds a reminder due after the restart', async () => {
    await lifeThread();
    const at = new Date(Date.now() + 25_000).toISOString();
    const result = await vscode.lm.invokeTool('lifethread_remind', { input: { action: 'add', text: 'survives the reload', when: at }, toolInvocationToken: undefined });
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    const id = /Reminder (r-\w+) added/.exec(text)?.[1];
    assert.ok(id, text);
    const info = phaseInfo();
    assert.ok(info);
    writeFileSync(join(info.ackDir, '..', 'reload-row.json'), JSON.stringify({ id, at }));
  });
});
