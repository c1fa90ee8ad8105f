import * as vscode from 'vscode';
import { holderFor } from '../node/liveness';
import { announceWindow, withdrawWindow } from '../node/windows';
import { WINDOW_ID } from './settings';

/**
 * Tells processes outside VS Code (`life-thread mcp`) that this window is open and on which folders
 * (src/node/windows.ts): written at start and when the folders change, removed when the window closes.
 */
export function registerWindowPresence(context: vscode.ExtensionContext, storeDir: string, log: vscode.LogOutputChannel): Promise<void> {
  const announce = (): Promise<void> =>
    announceWindow(storeDir, holderFor(WINDOW_ID), (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString())).catch((err: unknown) => log.warn(`window presence: ${String(err)}`));
  context.subscriptions.push(
    vscode.workspace.onDidChangeWorkspaceFolders(() => void announce()),
    { dispose: () => void withdrawWindow(storeDir, WINDOW_ID) },
  );
  return announce();
}
