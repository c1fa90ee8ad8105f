import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, phaseInfo } from '../../../../../host/helpers';
import { round, writeFigures } from '../../../../figures';

describe('bench: activation in the real host', () => {
  it('activation_ms (≤ 2× an empty extension activated at startup in the same host) and ready_ms', async () => {
    const api = await lifeThread();
    const empty = vscode.extensions.getExtension<{ activationMs: number }>('lifethread-test.bench-empty');
    assert.ok(empty, 'the bench-empty fixture extension is not installed');
    const baseline = await empty.activate();
    const info = phaseInfo();
    assert.ok(info);
    writeFigures(info.resultsDir, 'activation', {
      activation_ms: { value: round(api.activationMs), unit: 'ms', baseline: round(baseline.activationMs), target: round(2 * baseline.activationMs) },
      ready_ms: { value: round(api.readyMs ?? NaN), unit: 'ms' },
    });
  });
});
