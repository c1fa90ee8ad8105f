/**
 * One desk page shown live: a client of its own on the page (src/node/cdpTransport.ts `attach`) that
 * runs `Page.startScreencast`, acknowledges every frame once the caller has taken it (Chromium sends
 * the next one only then), follows the page's URL and title, and brings the page to front or reloads it.
 */
import type CDP from 'chrome-remote-interface';
import { ChromeRemoteTransport, errText, withTimeout } from '../cdpTransport';

export interface ScreencastFrame {
  /** A JPEG, base64. */
  data: string;
  /** The page's size in CSS pixels when the frame was taken. */
  width: number;
  height: number;
}

export interface PageInfo {
  url: string;
  title: string;
}

export interface ScreencastEvents {
  /** A frame; the next one is asked for when the returned promise settles. */
  frame(frame: ScreencastFrame): Promise<unknown>;
  /** The page navigated or loaded: its URL and title now. */
  info(info: PageInfo): void;
  /** The client is gone: the page closed, or the browser stopped. */
  gone(reason: string): void;
}

export interface ScreencastSize {
  maxWidth: number;
  maxHeight: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A frame that does not come this long after the start (a page that paints nothing new) is taken as a screenshot. */
const FIRST_FRAME_WAIT_MS = 800;

export class PageScreencast {
  private casting = false;
  private closed = false;
  private framesSinceStart = 0;
  private firstFrameTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: CDP.Client,
    readonly targetId: string,
    private readonly events: ScreencastEvents,
    private readonly timeoutMs: number,
  ) {}

  /** Attaches to the page `targetId` of the browser at `endpoint` (already checked by the desk's prepare). */
  static async open(endpoint: string, targetId: string, events: ScreencastEvents, timeoutMs = 5000): Promise<PageScreencast> {
    const client = await new ChromeRemoteTransport(endpoint, { timeoutMs }).attach(targetId);
    const cast = new PageScreencast(client, targetId, events, timeoutMs);
    try {
      await cast.init();
    } catch (e) {
      await cast.close();
      throw e;
    }
    return cast;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private async init(): Promise<void> {
    const c = this.client;
    c.on('Page.screencastFrame', (p) => void this.onFrame(p));
    c.on('Page.frameNavigated', (p) => {
      if (isRecord(p) && isRecord(p.frame) && p.frame.parentId === undefined) void this.refreshInfo();
    });
    c.on('Page.loadEventFired', () => void this.refreshInfo());
    c.on('Page.navigatedWithinDocument', () => void this.refreshInfo());
    c.on('disconnect', () => this.lost('the page was closed or the desk browser stopped'));
    c.on('Inspector.detached', (p) => this.lost(`the desk page was detached (${isRecord(p) && typeof p.reason === 'string' ? p.reason : 'no reason given'})`));
    await this.send('Page.enable');
    await this.refreshInfo();
  }

  /** Starts the screencast (again); a page that paints nothing new still shows once, as a screenshot. */
  async start(size: ScreencastSize): Promise<void> {
    if (this.closed) return;
    if (this.casting) await this.stop();
    this.framesSinceStart = 0;
    await this.send('Page.startScreencast', { format: 'jpeg', quality: 80, maxWidth: Math.round(size.maxWidth), maxHeight: Math.round(size.maxHeight), everyNthFrame: 1 });
    this.casting = true;
    clearTimeout(this.firstFrameTimer);
    this.firstFrameTimer = setTimeout(() => void this.stillFrame(), FIRST_FRAME_WAIT_MS);
  }

  async stop(): Promise<void> {
    clearTimeout(this.firstFrameTimer);
    if (!this.casting || this.closed) return;
    this.casting = false;
    await this.send('Page.stopScreencast');
  }

  get isCasting(): boolean {
    return this.casting;
  }

  /** `Page.bringToFront`: the page becomes the browser's active tab (and its window comes up where there is one). */
  async bringToFront(): Promise<void> {
    await this.send('Page.bringToFront');
  }

  async reload(): Promise<void> {
    await this.send('Page.reload', { ignoreCache: false });
  }

  async close(): Promise<void> {
    clearTimeout(this.firstFrameTimer);
    this.closed = true;
    this.casting = false;
    await withTimeout(this.client.close(), this.timeoutMs, 'close the screencast client').catch(() => undefined);
  }

  private lost(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.casting = false;
    clearTimeout(this.firstFrameTimer);
    this.events.gone(reason);
  }

  private send(method: string, params?: Record<string, unknown>): Promise<unknown> {
    return withTimeout(this.client.send(method, params), this.timeoutMs, `CDP ${method} on the desk page ${this.targetId}`);
  }

  private async onFrame(p: unknown): Promise<void> {
    if (!isRecord(p) || typeof p.sessionId !== 'number' || typeof p.data !== 'string') return;
    const meta = isRecord(p.metadata) ? p.metadata : {};
    const width = typeof meta.deviceWidth === 'number' ? meta.deviceWidth : 0;
    const height = typeof meta.deviceHeight === 'number' ? meta.deviceHeight : 0;
    this.framesSinceStart++;
    try {
      if (this.casting) await this.events.frame({ data: p.data, width, height });
    } finally {
      // Acknowledged whatever became of it: an unacknowledged frame stops the screencast for good.
      if (!this.closed) await this.send('Page.screencastFrameAck', { sessionId: p.sessionId }).catch(() => undefined);
    }
  }

  /** One screenshot as a frame, for a screencast that has sent nothing since it started. */
  private async stillFrame(): Promise<void> {
    if (!this.casting || this.closed || this.framesSinceStart > 0) return;
    try {
      const shot = await this.send('Page.captureScreenshot', { format: 'jpeg', quality: 80 });
      const metrics = await this.send('Page.getLayoutMetrics');
      const vp = isRecord(metrics) && isRecord(metrics.cssLayoutViewport) ? metrics.cssLayoutViewport : {};
      const data = isRecord(shot) && typeof shot.data === 'string' ? shot.data : undefined;
      if (data && this.casting && this.framesSinceStart === 0) {
        await this.events.frame({ data, width: typeof vp.clientWidth === 'number' ? vp.clientWidth : 0, height: typeof vp.clientHeight === 'number' ? vp.clientHeight : 0 });
      }
    } catch {
      // A page that cannot be captured now shows its next screencast frame instead.
    }
  }

  private async refreshInfo(): Promise<void> {
    try {
      const r = await this.send('Runtime.evaluate', { expression: '[location.href, document.title]', returnByValue: true });
      const value = isRecord(r) && isRecord(r.result) ? r.result.value : undefined;
      if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') this.events.info({ url: value[0], title: value[1] });
    } catch (e) {
      if (!this.closed) this.events.info({ url: '', title: `(the page did not answer: ${errText(e)})` });
    }
  }
}
