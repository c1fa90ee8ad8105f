import * as vscode from 'vscode';
import { contrib } from './contrib';
import { lifeThreadIcon } from './icon';
import { PANEL_VIEW_TYPE } from '../shared/commands';
import { webviewHtml, webviewOptions } from './webviewHtml';
import { bridgeWebview, type RequestHandler } from './webviewBridge';
import type { ViewModel } from './viewModel';

/**
 * The full-size panel: one instance, restored after a reload by its serializer. It only opens and
 * reveals; the features that show things in it are built with it, and its webview is connected to
 * their requests by `bridgePanel` once they exist (the requests reach those same features).
 */
export class LifeThreadPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly _onDidOpen = new vscode.EventEmitter<vscode.WebviewPanel>();
  /** A panel was created or restored, before it is first revealed. */
  readonly onDidOpen = this._onDidOpen.event;
  private readonly _onDidReveal = new vscode.EventEmitter<void>();
  /** The panel was opened, restored or became visible again: its content should be re-read. */
  readonly onDidReveal = this._onDidReveal.event;

  constructor(private readonly context: vscode.ExtensionContext) {
    context.subscriptions.push(
      contrib.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.adopt(panel),
      }),
    );
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(): vscode.WebviewPanel {
    if (this.panel) {
      if (!this.panel.visible) this.panel.reveal();
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'Life Thread', vscode.ViewColumn.Active, {
      ...webviewOptions(this.context.extensionUri),
      retainContextWhenHidden: false,
    });
    this.adopt(panel);
    return panel;
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.iconPath = lifeThreadIcon(this.context.extensionUri);
    panel.webview.options = webviewOptions(this.context.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, this.context.extensionUri, 'Life Thread');
    this._onDidOpen.fire(panel);
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.visible) this._onDidReveal.fire();
    });
    panel.onDidDispose(() => {
      this.panel = undefined;
    });
    this._onDidReveal.fire();
  }

  dispose(): void {
    this.panel?.dispose();
    this._onDidOpen.dispose();
    this._onDidReveal.dispose();
  }
}

/** Connects every panel that opens to the view model and to the webview requests, until the panel closes. */
export function bridgePanel(panel: LifeThreadPanel, model: ViewModel, handle: RequestHandler, log: vscode.LogOutputChannel): vscode.Disposable {
  return panel.onDidOpen((opened) => {
    const bridge = bridgeWebview(opened.webview, model, 'panel', handle, log);
    opened.onDidDispose(() => bridge.dispose());
  });
}
