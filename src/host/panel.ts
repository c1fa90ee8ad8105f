import * as vscode from 'vscode';
import { lifeThreadIcon } from './icon';
import { PANEL_VIEW_TYPE } from '../shared/commands';
import { webviewHtml, webviewOptions } from './webviewHtml';
import { bridgeWebview, type RequestHandler } from './webviewBridge';
import type { ViewModel } from './viewModel';

/** The full-size panel: one instance, restored after a reload by its serializer. */
export class LifeThreadPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private bridge: vscode.Disposable | undefined;
  private readonly _onDidReveal = new vscode.EventEmitter<void>();
  /** The panel was opened, restored or became visible again: its content should be re-read. */
  readonly onDidReveal = this._onDidReveal.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly model: ViewModel,
    private readonly handle: RequestHandler,
    private readonly log: vscode.LogOutputChannel,
  ) {
    context.subscriptions.push(
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
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
    this.bridge = bridgeWebview(panel.webview, this.model, 'panel', this.handle, this.log);
    panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.visible) this._onDidReveal.fire();
    });
    panel.onDidDispose(() => {
      this.bridge?.dispose();
      this.bridge = undefined;
      this.panel = undefined;
    });
    this._onDidReveal.fire();
  }

  dispose(): void {
    this.panel?.dispose();
    this._onDidReveal.dispose();
  }
}
