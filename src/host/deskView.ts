import * as vscode from 'vscode';
import { contrib } from './contrib';
import { lifeThreadIcon } from './icon';
import { webviewHtml, webviewOptions } from './webviewHtml';
import { errText } from '../node/cdpTransport';
import type { DeskPage } from '../node/desk/deskFile';
import { PageScreencast, type PageInfo, type ScreencastFrame } from '../node/desk/screencast';
import { DESK_VIEW_TYPE, deskViewMessageSchema, deskViewStateSchema, type DeskHostMessage, type DeskInfo, type DeskViewMessage } from '../shared/deskProtocol';

/** A desk page already brought to front: where the view attaches. */
export interface ShownPage {
  key: string;
  endpoint: string;
  targetId: string;
}

/** What the desk view needs from the desk: a remembered page brought to front (or why not), and the pages. */
export interface DeskViewSource {
  showForView(key: string): Promise<ShownPage | { problem: string }>;
  pages(): Promise<DeskPage[]>;
  /** The key of the page the desk last brought to front in this window, if any. */
  frontKey(): Promise<string | undefined>;
}

/** A frame the view drew (src/shared/deskProtocol.ts `drawn`), with what the host sent. */
export interface DrawnFrame {
  seq: number;
  url: string;
  /** The length and a cheap fingerprint of the JPEG, to tell two frames apart. */
  bytes: number;
  sample: string;
}

/**
 * The desk view: a webview panel showing the desk's page live (a CDP screencast, stopped while the
 * panel is hidden), its title and URL, the desk's pages, and Reload / Bring to front / Open in a browser.
 * One instance, restored after a reload by its serializer (package.json names the view type in an
 * `onWebviewPanel:` activation event, so the boot's proxy is there before the window restores it).
 */
export class DeskViewPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private cast: PageScreencast | undefined;
  private key: string | undefined;
  private info: PageInfo = { url: '', title: '' };
  private state: DeskInfo['state'] = 'connecting';
  private message = '';
  private viewReady = false;
  private size = { width: 1280, height: 800 };
  private seq = 0;
  private readonly sent = new Map<number, DrawnFrame>();
  private attaching: Promise<void> = Promise.resolve();
  private readonly _onDidDraw = new vscode.EventEmitter<DrawnFrame>();
  /** The view drew a frame (the webview says so once its image has loaded). */
  readonly onDidDraw = this._onDidDraw.event;
  /** The last frame the view drew. */
  lastDrawn: DrawnFrame | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly source: DeskViewSource,
    private readonly log: vscode.LogOutputChannel,
  ) {
    context.subscriptions.push(
      contrib.registerWebviewPanelSerializer(DESK_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const saved = deskViewStateSchema.safeParse(state);
          this.adopt(panel);
          await this.showKey(saved.success ? saved.data.key : undefined);
        },
      }),
    );
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  get isLive(): boolean {
    return this.cast?.isCasting ?? false;
  }

  /** The page shown: its key, the browser's title and URL. */
  get shown(): { key: string | undefined; url: string; title: string } {
    return { key: this.key, ...this.info };
  }

  /**
   * Opens (or reveals) the view on the page `key` (default: the page in front, else the newest).
   * `focus` only for the user's own Open Desk or Open Landing: otherwise the editor keeps the focus.
   */
  async show(key: string | undefined, focus: boolean, prepared?: ShownPage): Promise<void> {
    if (this.panel) this.panel.reveal(undefined, !focus);
    else {
      const panel = vscode.window.createWebviewPanel(DESK_VIEW_TYPE, 'Life Thread Desk', { viewColumn: vscode.ViewColumn.Active, preserveFocus: !focus }, webviewOptions(this.context.extensionUri));
      this.adopt(panel);
    }
    await this.showKey(key, prepared);
  }

  /** `Page.bringToFront` on the shown page. */
  async bringToFront(): Promise<void> {
    const cast = this.requireCast('bring it to front');
    await cast.bringToFront();
  }

  async reload(): Promise<void> {
    const cast = this.requireCast('reload it');
    await cast.reload();
  }

  private requireCast(what: string): PageScreencast {
    if (!this.cast || this.cast.isClosed) throw new Error(`the desk view shows no page to ${what}${this.message ? ` (${this.message})` : ''}`);
    return this.cast;
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.viewReady = false;
    panel.iconPath = lifeThreadIcon(this.context.extensionUri);
    panel.webview.options = webviewOptions(this.context.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, this.context.extensionUri, 'Life Thread Desk', 'desk.js');
    const subs = [
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.onMessage(raw)),
      // Hidden: the webview goes away (no retained context) and the screencast stops; shown again, the
      // rebuilt webview's `ready` starts it again.
      panel.onDidChangeViewState((e) => {
        if (!e.webviewPanel.visible) {
          this.viewReady = false;
          void this.pause();
        }
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subs) s.dispose();
      this.panel = undefined;
      this.viewReady = false;
      void this.detach();
    });
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = deskViewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`desk view sent an invalid message: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return;
    }
    const msg: DeskViewMessage = parsed.data;
    try {
      switch (msg.type) {
        case 'ready':
          this.viewReady = true;
          this.size = { width: msg.width, height: msg.height };
          await this.pushInfo();
          await this.attaching;
          if (this.panel?.visible && !this.isLive) await this.resume();
          return;
        case 'drawn': {
          const frame = this.sent.get(msg.seq);
          for (const k of [...this.sent.keys()]) if (k <= msg.seq) this.sent.delete(k);
          if (frame) {
            this.lastDrawn = frame;
            this._onDidDraw.fire(frame);
          }
          return;
        }
        case 'reload':
          return await this.reload();
        case 'bringToFront':
          return await this.bringToFront();
        case 'openExternal':
          if (vscode.env.remoteName) throw new Error('the desk browser runs on the remote machine: its pages cannot be opened in your browser from here');
          if (!this.info.url) throw new Error('the desk view shows no page yet');
          await vscode.env.openExternal(vscode.Uri.parse(this.info.url));
          return;
        case 'showPage':
          return await this.showKey(msg.key);
      }
    } catch (err) {
      const text = errText(err);
      this.log.error(`desk view ${msg.type}: ${text}`);
      void vscode.window.showErrorMessage(`Life Thread: the desk view could not ${msg.type === 'showPage' ? 'show the page' : msg.type === 'bringToFront' ? 'bring the page to front' : msg.type} — ${text}`);
    }
  }

  /** Brings the page to front on the desk and attaches the screencast to it. */
  private showKey(key: string | undefined, prepared?: ShownPage): Promise<void> {
    const run = this.attaching.then(() => this.attach(key, prepared));
    this.attaching = run.catch(() => undefined);
    return run;
  }

  private async attach(wanted: string | undefined, prepared: ShownPage | undefined): Promise<void> {
    const key = prepared?.key ?? wanted ?? (await this.source.frontKey()) ?? (await this.source.pages()).at(-1)?.key;
    await this.detach();
    this.key = key;
    if (!key) {
      this.setState('error', 'The desk remembers no pages yet. A job\'s HTML report opens here when a wake waits on the job.');
      return;
    }
    this.setState('connecting', `Connecting to ${key}…`);
    const at = prepared ?? (await this.source.showForView(key));
    if ('problem' in at) {
      this.setState('error', at.problem);
      return;
    }
    try {
      this.cast = await PageScreencast.open(at.endpoint, at.targetId, {
        frame: (f) => this.postFrame(f),
        info: (i) => {
          this.info = i;
          if (this.panel) this.panel.title = `Desk: ${i.title || i.url || key}`;
          void this.pushInfo();
        },
        gone: (reason) => this.setState('error', `${reason}: Reload or pick a page to show it again`),
      });
    } catch (err) {
      this.setState('error', `could not attach to ${key}: ${errText(err)}`);
      return;
    }
    if (this.viewReady && this.panel?.visible) await this.resume();
    else this.setState('paused', 'Paused while the view is hidden');
  }

  private async resume(): Promise<void> {
    const cast = this.cast;
    if (!cast || cast.isClosed) return;
    const ratio = 2;
    await cast.start({ maxWidth: this.size.width * ratio, maxHeight: this.size.height * ratio });
    this.setState('live', '');
  }

  private async pause(): Promise<void> {
    const cast = this.cast;
    if (!cast || cast.isClosed) return;
    await cast.stop().catch((e: unknown) => this.log.warn(`desk view: stopping the screencast: ${errText(e)}`));
    this.setState('paused', 'Paused while the view is hidden');
  }

  private async detach(): Promise<void> {
    const cast = this.cast;
    this.cast = undefined;
    this.info = { url: '', title: '' };
    if (cast) await cast.close();
  }

  private async postFrame(f: ScreencastFrame): Promise<unknown> {
    if (!this.panel || !this.viewReady) return undefined;
    const seq = ++this.seq;
    this.sent.set(seq, { seq, url: this.info.url, bytes: f.data.length, sample: f.data.slice(-400) });
    if (this.sent.size > 20) this.sent.delete(Math.min(...this.sent.keys()));
    const message: DeskHostMessage = { type: 'frame', seq, data: f.data, width: f.width, height: f.height };
    return this.panel.webview.postMessage(message);
  }

  private setState(state: DeskInfo['state'], message: string): void {
    this.state = state;
    this.message = message;
    void this.pushInfo();
  }

  private async pushInfo(): Promise<void> {
    if (!this.panel || !this.viewReady) return;
    const pages = await this.source.pages().catch((): DeskPage[] => []);
    const info: DeskInfo = {
      state: this.state,
      message: this.message.slice(0, 2000),
      title: this.info.title.slice(0, 500),
      url: this.info.url.slice(0, 4000),
      pages: [...pages]
        .reverse()
        .slice(0, 200)
        .map((p) => ({ key: p.key.slice(0, 300), title: p.title.slice(0, 500), url: p.url.slice(0, 4000), shown: p.key === this.key })),
      canOpenExternal: !vscode.env.remoteName,
    };
    const message: DeskHostMessage = { type: 'info', info };
    await this.panel?.webview.postMessage(message);
  }

  dispose(): void {
    this.panel?.dispose();
    void this.detach();
    this._onDidDraw.dispose();
  }
}
