import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

/** Debian's Chromium, the desk browser these tests start. */
export const CHROMIUM = process.env.LIFE_THREAD_CHROMIUM || '/usr/bin/chromium';

/** The test workspace's folder. */
export function root(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'the test workspace is open');
  return f.uri.fsPath;
}

/** Sets (or, with undefined, clears) lifeThread.cdp.* settings for the user. */
export async function setCdp(values: { endpoint?: string; chromiumPath?: string }): Promise<void> {
  const c = vscode.workspace.getConfiguration('lifeThread');
  for (const [key, value] of Object.entries(values)) await c.update(`cdp.${key}`, value, vscode.ConfigurationTarget.Global);
}
