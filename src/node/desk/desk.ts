/**
 * The desk (README "The desk"): a browser the agent and the user look at, driven over the Chrome
 * DevTools Protocol, that remembers its pages in `<storeDir>/desk.json`. One operation at a time
 * per process; `prepare` is prepare.ts, the browser it may start is chromium.ts.
 */
import { ChromeRemoteTransport, withTimeout, type CdpTransport } from '../cdpTransport';
import { startChromium, type StartChromiumOptions, type StartedChromium } from './chromium';
import { DeskFileStore, putPage, type DeskPage } from './deskFile';
import { checkPageUrl } from './pageUrl';
import { prepareDesk, type Evidence, type PrepareOptions, type PrepareResult, type PrepareSeams } from './prepare';

export interface DeskOptions {
  /** Where desk.json lives (the store directory). */
  storeDir: string;
  /** Default: a ChromeRemoteTransport per endpoint. */
  transportFor?: (endpoint: string) => CdpTransport;
  /** Default: startChromium. */
  startBrowser?: (opts: StartChromiumOptions) => Promise<StartedChromium>;
  /** Each transport call is given up after this long. Default 15000 ms (the real transport's own steps time out after 5 s each). */
  callTimeoutMs?: number;
  now?: () => Date;
}

export class Desk {
  readonly store: DeskFileStore;
  /** The Chromium this Desk started (in this process), if any. */
  started: StartedChromium | undefined;
  private readonly seams: PrepareSeams;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(opts: DeskOptions) {
    this.store = new DeskFileStore(opts.storeDir);
    const callTimeoutMs = opts.callTimeoutMs ?? 15_000;
    this.seams = {
      file: this.store,
      transportFor: opts.transportFor ?? ((e) => new ChromeRemoteTransport(e)),
      startBrowser: opts.startBrowser ?? startChromium,
      call: (transport, what, p) => withTimeout(p(), callTimeoutMs, `CDP ${what} at ${transport.endpoint}`),
      now: opts.now ?? (() => new Date()),
      started: (browser) => {
        this.started = browser;
      },
      reached: new Set(),
    };
  }

  /** One desk operation at a time in this process. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  async pages(): Promise<DeskPage[]> {
    return (await this.store.read()).desk.pages;
  }

  /** Remembers (or updates) a page under `key`, as the newest. Throws for a URL the desk does not open. */
  remember(page: { key: string; url: string; title?: string; evidenceId?: string }): Promise<DeskPage> {
    return this.serial(async () => {
      const bad = checkPageUrl(page.url);
      if (bad) throw new Error(bad);
      const row: DeskPage = {
        key: page.key,
        url: page.url,
        title: page.title ?? '',
        ...(page.evidenceId ? { evidenceId: page.evidenceId } : {}),
        lastSeenAt: this.seams.now().toISOString(),
      };
      await this.store.update((d) => ({ ...d, pages: putPage(d.pages, row) }));
      return row;
    });
  }

  /** Forgets the page under `key`; false when there was none. */
  forget(key: string): Promise<boolean> {
    return this.serial(async () => {
      let found = false;
      await this.store.update((d) => {
        found = d.pages.some((p) => p.key === key);
        return found ? { ...d, pages: d.pages.filter((p) => p.key !== key) } : undefined;
      });
      return found;
    });
  }

  /** Stops the Chromium this Desk started and forgets it in desk.json. */
  stopStarted(): Promise<boolean> {
    return this.serial(async () => {
      const s = this.started;
      if (!s) return false;
      this.started = undefined;
      await s.stop();
      await this.store.update((d) => (d.chromium?.pid === s.pid ? { schemaVersion: d.schemaVersion, pages: d.pages } : undefined)).catch(() => undefined);
      return true;
    });
  }

  /** Prepares the desk and brings the evidence to front (or only restores the desk's pages). */
  prepare(evidence: Evidence | undefined, opts: PrepareOptions): Promise<PrepareResult> {
    return this.serial(() => prepareDesk(this.seams, evidence ? { evidence } : undefined, opts));
  }

  /** Prepares the desk and brings the remembered page `key` to front. */
  showPage(key: string, opts: PrepareOptions): Promise<PrepareResult> {
    return this.serial(() => prepareDesk(this.seams, { key }, opts));
  }
}
