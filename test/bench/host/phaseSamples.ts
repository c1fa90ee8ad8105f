/**
 * Samples a host bench gathers over several phases of its suite (each phase a fresh window): kept in
 * the suite's state folder, which the host runner (test/runner/host.ts) empties when the suite starts
 * and keeps between its phases, so one run's samples never mix with an earlier run's.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { phaseInfo } from '../../host/helpers';

export interface PhaseSample {
  phase: number;
  side: string;
  ms: number;
}

function samplesDir(name: string): string {
  const file = process.env.LIFE_THREAD_TEST_PHASE;
  assert.ok(file, 'a host bench runs under the host runner (LIFE_THREAD_TEST_PHASE is unset)');
  return join(dirname(file), 'bench-samples', name);
}

/** Keeps this phase's sample of `name`; answers every phase's sample so far, in phase order. */
export function addPhaseSample(name: string, side: string, ms: number): PhaseSample[] {
  const info = phaseInfo();
  assert.ok(info);
  const dir = samplesDir(name);
  mkdirSync(dir, { recursive: true });
  const phase = Number(info.phase);
  writeFileSync(join(dir, `${phase}.json`), JSON.stringify({ phase, side, ms } satisfies PhaseSample));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as PhaseSample)
    .sort((a, b) => a.phase - b.phase);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
