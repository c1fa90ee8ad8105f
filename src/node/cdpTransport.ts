/**
 * The seam between the desk and a browser reached over the Chrome DevTools Protocol: a
 * small `CdpTransport` interface (like vscode-js-debug's transport seam) so the desk can be tested
 * with an in-memory fake, and `ChromeRemoteTransport`, the real one over chrome-remote-interface.
 * Also the endpoint policy (loopback only unless `lifeThread.cdp.allowRemote`) and `withTimeout`.
 *
 * Every call of the real transport has a timeout (5 s by default): a dead or silent endpoint gives a
 * clear error instead of a hang. Every WebSocket client it opens is closed again, also on error and
 * also when it connects only after its timeout.
 */
import type CDP from 'chrome-remote-interface';

let loadedCdp: typeof CDP | undefined;
/**
 * chrome-remote-interface carries the whole DevTools protocol description (about 1 MB of the bundle):
 * it is evaluated at the first CDP call, not while the extension activates.
 */
function cdp(): typeof CDP {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require, kept in the bundle but evaluated on first use
  loadedCdp ??= require('chrome-remote-interface') as typeof CDP;
  return loadedCdp;
}
import { isLoopbackHost } from '../core/loopback';

export interface CdpTarget {
  id: string;
  type: string;
  url: string;
  title: string;
}

export interface CdpVersion {
  /** e.g. `Chrome/156.0.8078.114` */
  browser: string;
  protocolVersion?: string;
}

export interface ScreenshotOptions {
  /** The PNG is scaled down (never up) so that it is at most this many CSS pixels wide. */
  maxWidth: number;
}

export interface CdpTransport {
  /** The endpoint URL this transport talks to (for messages). */
  readonly endpoint: string;
  version(): Promise<CdpVersion>;
  /** Pages only (`type === 'page'`). */
  list(): Promise<CdpTarget[]>;
  /** Opens a new page at `url`; resolves once it has loaded (or the load wait ran out). */
  newPage(url: string): Promise<CdpTarget>;
  /** Brings the page to front. */
  activate(id: string): Promise<void>;
  close(id: string): Promise<void>;
  navigate(id: string, url: string): Promise<void>;
  /** Reloads the page; resolves once it has loaded (or the load wait ran out). */
  reload(id: string): Promise<void>;
  /** A PNG of the visible part of the page. */
  screenshot(id: string, opts: ScreenshotOptions): Promise<Buffer>;
  /** Evaluates `expression` in the page and returns its JSON value. */
  evaluate?(id: string, expression: string): Promise<unknown>;
}

// ---------------------------------------------------------------------------------------------
// Endpoint policy

export const ALLOW_REMOTE_SETTING = 'lifeThread.cdp.allowRemote';
export const ENDPOINT_SETTING = 'lifeThread.cdp.endpoint';

export interface ParsedEndpoint {
  /** Normalised `http(s)://host:port` (no path). */
  url: string;
  /** Host name or address without IPv6 brackets. */
  host: string;
  port: number;
  secure: boolean;
  loopback: boolean;
}

export type EndpointCheck = { ok: true; endpoint: ParsedEndpoint } | { ok: false; reason: string };

/** Parses an endpoint URL without the policy check. Throws on anything but an http(s) URL. */
export function parseEndpoint(raw: string): ParsedEndpoint {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new Error(`${ENDPOINT_SETTING}: "${raw}" is not a URL (expected e.g. http://127.0.0.1:9222)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new Error(`${ENDPOINT_SETTING}: "${raw}" uses ${u.protocol} — only http: and https: endpoints are used (e.g. http://127.0.0.1:9222)`);
  }
  const secure = u.protocol === 'https:';
  const port = u.port ? Number(u.port) : secure ? 443 : 80;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { url: `${u.protocol}//${u.host}`, host, port, secure, loopback: isLoopbackHost(u.hostname) };
}

/** The endpoint policy: http(s) only; loopback unless `lifeThread.cdp.allowRemote`. */
export function checkEndpoint(raw: string, allowRemote: boolean): EndpointCheck {
  let endpoint: ParsedEndpoint;
  try {
    endpoint = parseEndpoint(raw);
  } catch (e) {
    return { ok: false, reason: errText(e) };
  }
  if (!endpoint.loopback && !allowRemote) {
    return {
      ok: false,
      reason: `refused to use the browser at ${endpoint.url}: it is not on this machine (loopback), and a remote DevTools endpoint can read and drive every page; set ${ALLOW_REMOTE_SETTING} to true to allow it`,
    };
  }
  return { ok: true, endpoint };
}

// ---------------------------------------------------------------------------------------------
// Timeouts

export class CdpTimeoutError extends Error {
  override readonly name = 'CdpTimeoutError';
}

/** The page is not (or no longer) there: closed by the user, or closing. */
export class CdpPageGoneError extends Error {
  override readonly name = 'CdpPageGoneError';
}

/**
 * Settles like `p`, or rejects with a CdpTimeoutError after `ms`. `onLate` receives a value that
 * arrives after the timeout (to close a client that connected too late).
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(new CdpTimeoutError(`${what} did not answer within ${ms} ms`));
    }, ms);
    p.then(
      (v) => {
        if (done) {
          onLate?.(v);
          return;
        }
        done = true;
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

function isStaleSocket(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null && 'code' in e ? e.code : undefined;
  return code === 'ECONNRESET' || (e instanceof Error && e.message === 'socket hang up');
}

export function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// ---------------------------------------------------------------------------------------------
// Narrowing of the untyped answers

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

interface RawTarget extends CdpTarget {
  webSocketDebuggerUrl?: string;
}

export function toTarget(v: unknown): RawTarget | undefined {
  if (!isRecord(v)) return undefined;
  const id = str(v.id);
  const type = str(v.type);
  if (!id || !type) return undefined;
  const ws = str(v.webSocketDebuggerUrl);
  return { id, type, url: str(v.url) ?? '', title: str(v.title) ?? '', ...(ws ? { webSocketDebuggerUrl: ws } : {}) };
}

function plain(t: RawTarget): CdpTarget {
  return { id: t.id, type: t.type, url: t.url, title: t.title };
}

// ---------------------------------------------------------------------------------------------
// The real transport

export interface ChromeRemoteOptions {
  /** Per call (each HTTP request, WebSocket connect and protocol command). Default 5000 ms. */
  timeoutMs?: number;
  /** How long navigate/reload/newPage wait for the load event before going on anyway. Default 5000 ms. */
  loadTimeoutMs?: number;
}

export const DEFAULT_CALL_TIMEOUT_MS = 5000;
export const DEFAULT_LOAD_TIMEOUT_MS = 5000;

export class ChromeRemoteTransport implements CdpTransport {
  readonly endpoint: string;
  private readonly http: CDP.HttpOptions;
  private readonly timeoutMs: number;
  private readonly loadTimeoutMs: number;

  /** Parses the endpoint but applies no policy: call checkEndpoint first. */
  constructor(endpoint: string, opts: ChromeRemoteOptions = {}) {
    const e = parseEndpoint(endpoint);
    this.endpoint = e.url;
    this.http = { host: e.host, port: e.port, secure: e.secure };
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.loadTimeoutMs = opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  }

  private timed<T>(p: Promise<T>, what: string, onLate?: (v: T) => void): Promise<T> {
    return withTimeout(p, this.timeoutMs, `CDP ${what} at ${this.endpoint}`, onLate);
  }

  async version(): Promise<CdpVersion> {
    let v: unknown;
    try {
      v = await this.timed(cdp().Version(this.http), 'version');
    } catch (e) {
      // Node's global agent keeps sockets alive: one left from a browser that is gone (or was
      // restarted on the same port) fails once with a reset before a fresh connection is tried.
      if (!isStaleSocket(e)) throw e;
      v = await this.timed(cdp().Version(this.http), 'version');
    }
    if (!isRecord(v) || !str(v.Browser)) throw new Error(`${this.endpoint}/json/version did not answer like a DevTools endpoint`);
    const protocolVersion = str(v['Protocol-Version']);
    return { browser: str(v.Browser) ?? '', ...(protocolVersion ? { protocolVersion } : {}) };
  }

  private async rawList(): Promise<RawTarget[]> {
    const v = await this.timed(cdp().List(this.http), 'list');
    if (!Array.isArray(v)) throw new Error(`${this.endpoint}/json/list did not answer with a list`);
    const out: RawTarget[] = [];
    for (const item of v) {
      const t = toTarget(item);
      if (t) out.push(t);
    }
    return out;
  }

  async list(): Promise<CdpTarget[]> {
    return (await this.rawList()).filter((t) => t.type === 'page').map(plain);
  }

  /**
   * Opens `about:blank` and navigates it: /json/new takes its URL unescaped from the query string
   * (an `&` cuts it), and navigating over the client lets us wait for the load event.
   */
  async newPage(url: string): Promise<CdpTarget> {
    const v = await this.timed(cdp().New({ ...this.http, url: 'about:blank' }), 'new page');
    const t = toTarget(v);
    if (!t) throw new Error(`${this.endpoint}/json/new did not answer with a target`);
    try {
      await this.withClient(t, 'navigate', (c) => this.navigateWith(c, url));
    } catch (e) {
      await this.close(t.id).catch(() => undefined);
      throw e;
    }
    return { id: t.id, type: t.type, url, title: t.title };
  }

  async activate(id: string): Promise<void> {
    await this.timed(cdp().Activate({ ...this.http, id }), `activate ${id}`);
  }

  /** Closes the page and waits until it is gone from /json/list (Chromium answers "Target is closing" first). */
  async close(id: string): Promise<void> {
    await this.timed(cdp().Close({ ...this.http, id }), `close ${id}`);
    const end = Date.now() + this.timeoutMs;
    while ((await this.rawList()).some((t) => t.id === id)) {
      if (Date.now() > end) throw new CdpTimeoutError(`CDP close ${id} at ${this.endpoint}: the page was still listed after ${this.timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async navigate(id: string, url: string): Promise<void> {
    await this.withClient(id, 'navigate', (c) => this.navigateWith(c, url));
  }

  async reload(id: string): Promise<void> {
    await this.withClient(id, 'reload', async (c) => {
      await this.send(c, 'Page.enable');
      const loaded = this.nextEvent(c, 'Page.loadEventFired');
      try {
        await this.send(c, 'Page.reload', { ignoreCache: false });
        await loaded.promise;
      } finally {
        loaded.cancel();
      }
    });
  }

  async screenshot(id: string, opts: ScreenshotOptions): Promise<Buffer> {
    return this.withClient(id, 'screenshot', async (c) => {
      const m = await this.send(c, 'Page.getLayoutMetrics');
      const vp = isRecord(m) ? (isRecord(m.cssLayoutViewport) ? m.cssLayoutViewport : m.layoutViewport) : undefined;
      const width = (isRecord(vp) ? num(vp.clientWidth) : undefined) ?? 800;
      const height = (isRecord(vp) ? num(vp.clientHeight) : undefined) ?? 600;
      const x = (isRecord(vp) ? num(vp.pageX) : undefined) ?? 0;
      const y = (isRecord(vp) ? num(vp.pageY) : undefined) ?? 0;
      const scale = Math.min(1, Math.max(0.05, opts.maxWidth / Math.max(1, width)));
      const shot = await this.send(c, 'Page.captureScreenshot', { format: 'png', clip: { x, y, width, height, scale }, captureBeyondViewport: false });
      const data = isRecord(shot) ? str(shot.data) : undefined;
      if (!data) throw new Error(`Page.captureScreenshot of ${id} at ${this.endpoint} returned no image`);
      return Buffer.from(data, 'base64');
    });
  }

  async evaluate(id: string, expression: string): Promise<unknown> {
    return this.withClient(id, 'evaluate', async (c) => {
      const r = await this.send(c, 'Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
      if (!isRecord(r)) return undefined;
      if (isRecord(r.exceptionDetails)) {
        const ex = r.exceptionDetails;
        const desc = isRecord(ex.exception) ? str(ex.exception.description) : undefined;
        throw new Error(`evaluate in ${id} threw: ${desc ?? str(ex.text) ?? 'an exception'}`);
      }
      return isRecord(r.result) ? r.result.value : undefined;
    });
  }

  /**
   * A client of its own on the page, for a caller that keeps it (the desk view's screencast,
   * src/node/desk/screencast.ts); the caller closes it.
   */
  attach(id: string): Promise<CDP.Client> {
    return this.withClientOpen(id, 'attach');
  }

  // -- helpers ---------------------------------------------------------------------------------

  private async navigateWith(c: CDP.Client, url: string): Promise<void> {
    await this.send(c, 'Page.enable');
    const loaded = this.nextEvent(c, 'Page.loadEventFired');
    try {
      const r = await this.send(c, 'Page.navigate', { url });
      const errorText = isRecord(r) ? str(r.errorText) : undefined;
      if (errorText) throw new Error(`navigation to ${url} failed: ${errorText}`);
      // No loaderId: a same-document navigation (only the fragment changed), no load event follows.
      if (isRecord(r) && str(r.loaderId)) await loaded.promise;
    } finally {
      loaded.cancel();
    }
  }

  private send(c: CDP.Client, method: string, params?: Record<string, unknown>): Promise<unknown> {
    return this.timed(c.send(method, params), method);
  }

  /** Resolves on the next `event` or after loadTimeoutMs (a slow page does not fail the desk). */
  private nextEvent(c: CDP.Client, event: string): { promise: Promise<void>; cancel(): void } {
    let listener: CDP.EventListener = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<void>((resolve) => {
      listener = () => resolve();
      timer = setTimeout(resolve, this.loadTimeoutMs);
      c.on(event, listener);
    });
    return {
      promise,
      cancel: () => {
        if (timer) clearTimeout(timer);
        c.removeListener(event, listener);
      },
    };
  }

  /** Connects a client to the page, runs `fn`, and always closes the client. */
  private async withClient<T>(idOrTarget: string | RawTarget, what: string, fn: (c: CDP.Client) => Promise<T>): Promise<T> {
    const client = await this.withClientOpen(idOrTarget, what);
    try {
      return await fn(client);
    } finally {
      await withTimeout(client.close(), this.timeoutMs, 'close client').catch(() => undefined);
    }
  }

  private async withClientOpen(idOrTarget: string | RawTarget, what: string): Promise<CDP.Client> {
    const id = typeof idOrTarget === 'string' ? idOrTarget : idOrTarget.id;
    let ws = typeof idOrTarget === 'string' ? undefined : idOrTarget.webSocketDebuggerUrl;
    if (!ws) {
      const t = (await this.rawList()).find((x) => x.id === id);
      if (!t) throw new CdpPageGoneError(`no page ${id} at ${this.endpoint} (it was closed)`);
      ws = t.webSocketDebuggerUrl;
      if (!ws) throw new Error(`page ${id} at ${this.endpoint} has no debugger URL (another DevTools client is attached?)`);
    }
    return this.timed(cdp()({ ...this.http, target: ws, local: true }), `${what} ${id}: connect`, (late) => {
      void late.close().catch(() => undefined);
    });
  }
}
