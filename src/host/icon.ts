import * as vscode from 'vscode';

/** Life Thread's icon in light and dark variants (the single one was near-invisible in Dark Modern). Tiny: the boot uses it too. */
export function lifeThreadIcon(extensionUri: vscode.Uri): { light: vscode.Uri; dark: vscode.Uri } {
  return { light: vscode.Uri.joinPath(extensionUri, 'media', 'life-thread-light.svg'), dark: vscode.Uri.joinPath(extensionUri, 'media', 'life-thread-dark.svg') };
}
