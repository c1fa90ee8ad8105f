import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, phaseInfo } from '../../../../../host/helpers';
import { round, writeFigures } from '../../../../figures';

describe('bench: activation in the real host', () => {
  it('activation_ms beside an empty extension activated in the same host', async () => {
    const api = await lifeThread();
    const empty = vscode.extensions.getExtension<{ activationMs: number }>('lifethread-test.bench-empty');
    assert.ok(empty, 'the bench-empty fixture extension is not installed');
    const baseline = await empty.activate();
    const info = phaseInfo();
    assert.ok(info);
    writeFigures(info.resultsDir, 'activation', {
      activation_ms: { value: round(api.activationMs), unit: 'ms', baseline: round(baseline.activationMs) },
    });
  });
});
