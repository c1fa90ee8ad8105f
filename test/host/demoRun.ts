/**
 * The demo's failing `npm test` through `life-thread run --wake` in a terminal of this window, as a
 * user runs it: the job and wake ids the command prints, and the pulse this window delivers for it.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { lifeThread, waitFor } from './helpers';

/** The demo's test run without its pauses (they give a person time to ask for a wake). */
export const DEMO_ENV = { DEMO_TEST_PAUSE_MS: '0', NPM_CONFIG_UPDATE_NOTIFIER: 'false' };

export async function runDemoTestsWithWake(demoDir: string, terminalName: string, wakeText: string): Promise<{ jobId: string; wakeId: string; pulse: string }> {
  const api = await lifeThread();
  // Every pulse this window delivers from now on: the run's wake is known only once the command printed it.
  const seen = new Map<string, string>();
  const sub = api.wakes.onDidDeliver((e) => {
    for (const id of e.ids) seen.set(id, e.text);
  });
  const terminal = vscode.window.createTerminal({ name: terminalName, cwd: demoDir, env: DEMO_ENV, hideFromUser: true });
  try {
    const integration = await waitFor(() => terminal.shellIntegration, 15_000, 'shell integration');
    let out = '';
    for await (const chunk of integration.executeCommand(`life-thread run --wake '${wakeText}' -- npm test`).read()) out += chunk;
    const ids = /life-thread: job (j-[A-Za-z0-9_-]+) \(wake (w-[A-Za-z0-9_-]+)\)/.exec(out);
    assert.ok(ids, out);
    const [, jobId = '', wakeId = ''] = ids;
    // A window takes a wake a process outside it held for its receiver at its next retry (within about 20 s).
    const pulse = await waitFor(() => seen.get(wakeId), 90_000, `the pulse of ${wakeId}`, 200);
    assert.match(pulse, new RegExp(`job: \\{ id: "${jobId}", status: failed, exit_code: 1 \\}`), pulse);
    return { jobId, wakeId, pulse };
  } finally {
    sub.dispose();
    terminal.dispose();
  }
}
