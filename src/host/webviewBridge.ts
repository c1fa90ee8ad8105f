import * as vscode from 'vscode';
import { webviewMessageSchema, type HostMessage, type ViewState, type WebviewRequest } from '../shared/protocol';
import type { ViewModel } from './viewModel';

export type RequestHandler = (request: WebviewRequest) => Promise<void>;

/**
 * Connects one webview to the view model: waits for the webview's `ready`, then pushes state on every
 * change; parses every incoming message and answers each request by id.
 */
export function bridgeWebview(
  webview: vscode.Webview,
  model: ViewModel,
  surface: ViewState['surface'],
  handle: RequestHandler,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  let ready = false;
  const post = (message: HostMessage) => void webview.postMessage(message);
  const pushState = () => {
    if (ready) post({ type: 'state', state: model.snapshot(surface) });
  };
  const subs = [
    model.onDidChange(pushState),
    webview.onDidReceiveMessage(async (raw: unknown) => {
      const parsed = webviewMessageSchema.safeParse(raw);
      if (!parsed.success) {
        log.warn(`webview sent an invalid message: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
        return;
      }
      const msg = parsed.data;
      if (msg.type === 'ready') {
        ready = true;
        pushState();
        return;
      }
      try {
        await handle(msg);
        post({ type: 'response', id: msg.id, ok: true });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(`webview request ${msg.method} failed: ${message}`);
        void vscode.window.showErrorMessage(`Life Thread: ${message}`);
        post({ type: 'response', id: msg.id, ok: false, message });
      }
    }),
  ];
  return vscode.Disposable.from(...subs);
}
