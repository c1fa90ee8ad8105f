import * as vscode from 'vscode';

/**
 * The window's workspace folders that are on this machine's disk. A virtual folder (`vscode-vfs:`,
 * `github:`, …) has an `fsPath` too, but nothing is there: writing a transcript or running a command
 * "in" it would touch an unrelated local path, so every path use goes through here.
 */
export function diskFolders(): vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

/** The paths of the folders on disk (for matching output paths against the workspace). */
export function diskFolderPaths(): string[] {
  return diskFolders().map((f) => f.uri.fsPath);
}

/** The first workspace folder when it is on disk; otherwise why not, in words that end a sentence starting "needs …". */
export function firstDiskFolder(): { path: string } | { missing: string } {
  const first = vscode.workspace.workspaceFolders?.[0];
  if (!first) return { missing: 'an open workspace folder' };
  if (first.uri.scheme !== 'file') return { missing: `a workspace folder on this machine's disk (the first folder, ${first.uri.toString(true)}, is virtual)` };
  return { path: first.uri.fsPath };
}

/** The first workspace folder's path when it is on disk, else undefined. */
export function firstDiskFolderPath(): string | undefined {
  const f = firstDiskFolder();
  return 'path' in f ? f.path : undefined;
}
