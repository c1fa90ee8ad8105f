import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

/**
 * The webview document: a strict CSP with a fresh nonce, the codicon font and theme-variable CSS.
 * `script` is the bundle under dist/ (scripts/build.mjs): the sidebar and panel's, or the desk view's.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string, script: 'webview.js' | 'desk.js' = 'webview.js'): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${asset('dist', 'media', 'codicon.css')}" rel="stylesheet" id="vscode-codicon-stylesheet">
<link href="${asset('media', 'webview.css')}" rel="stylesheet">
<title>${title}</title>
</head>
<body>
<main id="root" aria-live="polite"><div class="loading" role="status"><i class="codicon codicon-loading codicon-modifier-spin" aria-hidden="true"></i><span>Loading ${title}…</span></div></main>
<script nonce="${nonce}" src="${asset('dist', script)}"></script>
</body>
</html>`;
}

/** Webview options shared by the sidebar and the panel: scripts on, resources only from our folders. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}
