/**
 * first_wake_own_ms: what the window's first wake costs Life Thread, beyond what a window's first chat
 * request costs VS Code. Each sample is one fresh window (a phase: the host runner restarts the server
 * and the page) whose first chat request it times: a bench task ends and either
 * - `life`: Life Thread's wake (a `job.done` wake set through the language-model tool, as an agent
 *   sets it) delivers the pulse: the task's exit → the @life handler has it; or
 * - `bare`: the bare participant (@other, a test extension whose handler only notes the time) is
 *   asked through the same `workbench.action.chat.open` when VS Code says the task ended: the
 *   task's exit → its handler has the request.
 * Fairness: both sides run in the same kind of window, with the same extensions activated (Life
 * Thread and @other) and the same settle time after activation before the task starts; neither side
 * ever follows the other in a window. Consecutive phases make a pair, and the order inside a pair
 * alternates (life, bare / bare, life / …) so a machine that speeds up or slows down over the run
 * (disk caches warming, another load) does not favour one side. The figure is the median over
 * PAIRS pairs of (life − bare); its baseline is the bare participant's median.
 * The task stamps the instant it exits, so both count from the real exit. No language model: @life
 * answers with the offline responder.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { LifeThreadApi } from '../../../../../src/host/extension';
import { lifeThread, phaseInfo } from '../../../../host/helpers';
import { percentile, round, writeFigures } from '../../../figures';
import { addPhaseSample, sleep } from '../../phaseSamples';
import { bareAfterTask, bareParticipant, benchTask, exitAt } from './bareParticipant';

export type FirstWakeSide = 'life' | 'bare';

/** Pairs of fresh windows (one per side) the figure takes its median over. */
const PAIRS = 5;
/** After both extensions are active, before the task starts: the window's own start-up work settles alike for both sides. */
const SETTLE_MS = 3000;

/** Runs the bench task `name` with a `job.done` wake on it; answers the ms from its exit to the @life handler having the pulse. */
async function lifeAfterTask(api: LifeThreadApi, name: string, stamp: string): Promise<number> {
  const received = new Promise<number>((resolve) => {
    const sub = api.wakes.onDidReceive((e) => {
      sub.dispose();
      resolve(e.at);
    });
  });
  const delivered = new Promise<void>((resolve) => {
    const sub = api.wakes.onDidDeliver(() => {
      sub.dispose();
      resolve();
    });
  });
  await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text: `FIRST ${name}`, when: 'job.done', job_id: name }, toolInvocationToken: undefined });
  await vscode.tasks.executeTask(benchTask(name, stamp));
  const at = await received;
  await delivered;
  return at - exitAt(stamp);
}

/** One phase of the first-wake bench: times `side`'s first request in this fresh window; the last phase writes the figure. */
export function firstWakePhase(side: FirstWakeSide): void {
  describe(`bench: the window's first wake (${side === 'life' ? 'Life Thread' : 'the bare participant'})`, () => {
    it(`a task ends → ${side === 'life' ? '@life has the pulse' : '@other has the request'}, the window's first chat request`, async function () {
      this.timeout(3 * 60_000);
      const api = await lifeThread();
      const other = await bareParticipant();
      // Earlier phases of the suite woke often within the hour: the wake's hourly cap must not hold this one.
      await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
      await sleep(SETTLE_MS);
      const dir = mkdtempSync(join(tmpdir(), 'lt-bench-first-'));
      const name = `first-${side}`;
      const stamp = join(dir, `${name}.exit`);
      const ms = side === 'life' ? await lifeAfterTask(api, name, stamp) : await bareAfterTask(other, name, stamp, `FIRST ${name}`);
      console.log(`the window's first chat request, ${side}: ${Math.round(ms)} ms from the task's exit`);
      const samples = addPhaseSample('first-wake', side, ms);
      if (samples.length < 2 * PAIRS) return;
      const pairs = Array.from({ length: PAIRS }, (_, k) => {
        const two = samples.slice(2 * k, 2 * k + 2);
        const life = two.find((s) => s.side === 'life');
        const bare = two.find((s) => s.side === 'bare');
        assert.ok(life && bare, `pair ${k} is one window of each side: ${JSON.stringify(two)}`);
        return { life: life.ms, bare: bare.ms };
      });
      console.log(`first wake per pair (ms, life/bare): ${pairs.map((p) => `${Math.round(p.life)}/${Math.round(p.bare)}`).join(', ')}`);
      const info = phaseInfo();
      assert.ok(info);
      writeFigures(info.resultsDir, 'wake-first', {
        first_wake_own_ms: { value: round(percentile(pairs.map((p) => p.life - p.bare), 50)), unit: 'ms', baseline: round(percentile(pairs.map((p) => p.bare), 50)), target: 500 },
      });
    });
  });
}
