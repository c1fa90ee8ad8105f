import * as vscode from 'vscode';
import { contrib } from './contrib';
import { SIDEBAR_VIEW_ID } from '../shared/commands';
import { webviewHtml, webviewOptions } from './webviewHtml';
import { bridgeWebview, type RequestHandler } from './webviewBridge';
import type { ViewModel } from './viewModel';

/** The activity-bar sidebar: the schedule at a glance, with the dispatcher's health line. */
export function registerSidebar(context: vscode.ExtensionContext, model: ViewModel, handle: RequestHandler, log: vscode.LogOutputChannel, onVisible: (visible: boolean) => void): void {
  const provider: vscode.WebviewViewProvider = {
    resolveWebviewView(view) {
      view.webview.options = webviewOptions(context.extensionUri);
      view.webview.html = webviewHtml(view.webview, context.extensionUri, 'Life Thread');
      const bridge = bridgeWebview(view.webview, model, 'sidebar', handle, log);
      onVisible(view.visible);
      const shown = view.onDidChangeVisibility(() => onVisible(view.visible));
      view.onDidDispose(() => {
        onVisible(false);
        shown.dispose();
        bridge.dispose();
      });
    },
  };
  context.subscriptions.push(contrib.registerWebviewViewProvider(SIDEBAR_VIEW_ID, provider, { webviewOptions: { retainContextWhenHidden: false } }));
}
