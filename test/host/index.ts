/**
 * Entry of the host suites: the extension host requires this module and awaits `run()` (the contract
 * of @vscode/test-electron, so the same suite runs on desktop). The phase to run comes from the file
 * named by LIFE_THREAD_TEST_PHASE (set by test/runner/host.ts); without it, every phase-1 file runs.
 */
import Mocha from 'mocha';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { hasBrowserRunner, runnerAction, waitFor } from './helpers';
import { phaseInfoSchema } from './runnerProtocol';

function filesToRun(): string[] {
  const phaseFile = process.env.LIFE_THREAD_TEST_PHASE;
  if (phaseFile && existsSync(phaseFile)) return phaseInfoSchema.parse(JSON.parse(readFileSync(phaseFile, 'utf8'))).files;
  const suites = join(__dirname, 'suites');
  const files: string[] = [];
  for (const suite of readdirSync(suites)) {
    const one = join(suites, suite, '1');
    if (existsSync(one)) for (const f of readdirSync(one)) if (f.endsWith('.test.js')) files.push(join(one, f));
  }
  return files;
}

/**
 * A freshly loaded page has the focus and VS Code counts it user-active for its first 30-40 s, so a wake
 * due then would wait behind "Wake ready — Send" (src/host/wakeFocus.ts) as it should for a user at work.
 * No one works in a test window: every phase starts with it blurred, as a window the user left. A test
 * that plays the user at work focuses it and presses a key itself (suite wakefocus).
 */
async function leaveWindow(): Promise<void> {
  if (!hasBrowserRunner()) return;
  await runnerAction({ action: 'blur' });
  await waitFor(() => (vscode.window.state.focused ? undefined : true), 10_000, 'the test window without focus after the runner blurred it');
}

export async function run(): Promise<void> {
  await leaveWindow();
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  for (const f of filesToRun()) mocha.addFile(f);
  await mocha.loadFilesAsync();
  const { passed, failed } = await new Promise<{ passed: number; failed: number }>((resolve) => {
    let passedCount = 0;
    let failedCount = 0;
    const runner = mocha.run(() => resolve({ passed: passedCount, failed: failedCount }));
    runner.on('pass', () => passedCount++);
    runner.on('fail', () => failedCount++);
  });
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} host test(s) failed`);
}
