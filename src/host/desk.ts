import * as vscode from 'vscode';
import { diskFolderPaths } from './diskFolders';
import { contrib } from './contrib';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../core/errors';
import { type LandingRef } from '../core/landing';
import { evidenceLink } from '../core/anchor/links';
import { isLoopbackUrl } from '../core/loopback';
import type { DeskState } from '../core/wake/contract';
import { CHROMIUM_PATH_SETTING } from '../node/desk/chromium';
import { Desk } from '../node/desk/desk';
import { reportPageIn } from '../node/jobArtifacts';
import { pageOfEvidence, type DeskPage } from '../node/desk/deskFile';
import { evidenceKey, sameUrl } from '../node/desk/pageUrl';
import type { PrepareOptions, PrepareResult } from '../node/desk/prepare';
import { readThumbnail } from '../node/desk/thumbnail';
import { COMMANDS } from '../shared/commands';
import type { DeskView } from '../shared/protocol';
import { DeskViewPanel, type DeskViewSource, type ShownPage } from './deskView';
import type { DeskPort, DeskPrepare } from './landing';
import { setting } from './settings';
import type { ViewModel } from './viewModel';

/** A page the job-finish pipeline shows on the desk: a report file or a page on this machine, under its evidence id. */
export interface EvidencePage {
  /** `file:///…` or `http(s)://127.0.0.1…` / `localhost…` */
  url: string;
  /** Becomes `cdp://evidence/<evidenceId>`: letters, digits, `.`, `_`, `-` (at most 100). */
  evidenceId: string;
  title?: string;
}

/** What the pipeline gets back: the pulse's `desk` and the landing that opens the page again. */
export interface DeskShown {
  status: DeskState;
  /** `cdp://evidence/<id>`: on the desk, or inside VS Code when there is no desk browser. */
  landing: LandingRef;
  reason?: string;
  result: PrepareResult;
}

/** What `Life Thread: Open Desk` did: the desk's status, the page brought to front, or the message it showed. */
export interface OpenDeskResult {
  status: DeskState;
  pages: number;
  shown?: PrepareResult;
  message?: string;
}

const openDeskArgSchema = z.object({ page: z.string().min(1).max(300) }).strict();

/** The desk as this window uses it: settings → prepare options; the profile and the thumbnail live in the store. */
export class HostDesk implements DeskPort, DeskViewSource, vscode.Disposable {
  readonly desk: Desk;
  /** The desk view (./deskView.ts), where a page brought to front by the user's Open Desk or a landing is shown. */
  view: DeskViewPanel | undefined;
  lastResult: PrepareResult | undefined;
  /** When this window last used the desk (a prepare, a page shown): the idle stop counts from it (./deskWarmup.ts). */
  lastUsedAt = 0;
  private lastFrontUrl: string | undefined;
  private readonly thumbnailPath: string;

  constructor(
    private readonly storeDir: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly model: ViewModel,
  ) {
    this.desk = new Desk({ storeDir });
    this.thumbnailPath = join(storeDir, 'desk-thumbnail.png');
    void this.refreshView();
  }

  options(): PrepareOptions {
    return {
      endpoint: setting('cdp.endpoint'),
      allowRemote: setting('cdp.allowRemote'),
      chromiumPath: setting('cdp.chromiumPath'),
      chromiumArgs: setting('cdp.chromiumArgs'),
      profileDir: join(this.storeDir, 'desk-profile'),
      startAllowed: true,
      thumbnailPath: this.thumbnailPath,
    };
  }

  /**
   * The job-finish pipeline's call: prepares the desk (starting Chromium when `lifeThread.cdp.chromiumPath`
   * is set), opens or refreshes the page, remembers it under its evidence id, brings it to front and takes
   * the thumbnail. When no browser is reached the page is remembered all the same, so that its landing
   * opens it inside VS Code now and on the desk later. Throws an InputError for a page or id it refuses.
   */
  /**
   * Remembers a page under an evidence id without showing it now (a wake's own landing URL): its
   * `cdp://evidence/<id>` landing prepares the desk and brings it to front when the wake fires.
   */
  async rememberEvidence(page: EvidencePage): Promise<LandingRef> {
    const uri = evidenceLink(page.evidenceId);
    checkEvidencePage(page.url);
    await this.desk.remember({ key: evidenceKey(page.evidenceId), url: page.url, evidenceId: page.evidenceId, ...(page.title ? { title: page.title } : {}) });
    return { kind: 'deep_link', uri };
  }

  async showEvidence(page: EvidencePage): Promise<DeskShown> {
    const uri = evidenceLink(page.evidenceId);
    checkEvidencePage(page.url);
    const title = page.title ? { title: page.title } : {};
    const result = await this.run({ id: page.evidenceId, url: page.url, ...title }, `evidence ${page.evidenceId}`);
    if (result.endpoint === undefined) {
      await this.desk.remember({ key: evidenceKey(page.evidenceId), url: page.url, evidenceId: page.evidenceId, ...title }).catch((err: unknown) => {
        this.log.warn(`desk: evidence ${page.evidenceId} was not remembered: ${String(err)}`);
      });
      void this.refreshView();
    }
    return { status: result.status, landing: { kind: 'deep_link', uri }, ...(result.reason ? { reason: result.reason } : {}), result };
  }

  /**
   * The pipeline's call for a finished job: the HTML report (or server on this machine) its plain output
   * names inside the workspace (src/core/reportPage.ts), shown on the desk under `evidenceId`; undefined
   * when the output names none.
   */
  async showJobReport(job: { output: string; evidenceId: string; cwd?: string; title?: string }): Promise<DeskShown | undefined> {
    const folders = diskFolderPaths();
    const report = reportPageIn(job.output, folders, job.cwd);
    if (!report) return undefined;
    const title = job.title ?? (report.path ? vscode.workspace.asRelativePath(report.path) : report.url);
    return this.showEvidence({ url: report.url, evidenceId: job.evidenceId, title });
  }

  /**
   * Prepares the desk for a `cdp://evidence/<id>` landing: the remembered page to front, then shown in
   * the desk view (taking the focus only when `focus`: the user's own Open Landing).
   */
  async prepare(evidenceId: string, opts: { focus: boolean } = { focus: false }): Promise<DeskPrepare> {
    const r = await this.run({ id: evidenceId, url: evidenceLink(evidenceId) }, `evidence ${evidenceId}`);
    const key = pageOfEvidence(await this.desk.pages().catch((): DeskPage[] => []), evidenceId)?.key;
    const shown = key ? shownPage(key, r) : undefined;
    if (shown) await this.view?.show(shown.key, opts.focus, shown);
    return { status: r.status, ...(r.reason ? { reason: r.reason } : {}) };
  }

  /** The desk view's switch to a remembered page: brought to front on the desk, or why it cannot be. */
  async showForView(key: string): Promise<ShownPage | { problem: string }> {
    const r = await this.run(key, `page ${key} for the desk view`);
    return shownPage(key, r) ?? { problem: r.reason ?? (r.status === 'none' ? `no desk browser: set ${CHROMIUM_PATH_SETTING} or lifeThread.cdp.endpoint` : `the desk could not show ${key} (${r.status})`) };
  }

  pages(): Promise<DeskPage[]> {
    return this.desk.pages();
  }

  /** The key of the page the desk last brought to front in this window (a prepare that only restores leaves it). */
  async frontKey(): Promise<string | undefined> {
    const url = this.lastFrontUrl;
    if (!url) return undefined;
    return (await this.desk.pages().catch((): DeskPage[] => [])).find((p) => sameUrl(p.url, url))?.key;
  }

  /** Starts the desk (or reconnects to it) with nothing brought to front, ahead of a job's end (./deskWarmup.ts). */
  async warm(): Promise<void> {
    await this.run(undefined, 'prepare while the job runs');
  }

  /** Stops the Chromium this window started, if any; true when one was stopped. */
  async stopStarted(): Promise<boolean> {
    const stopped = await this.desk.stopStarted();
    if (stopped) await this.refreshView();
    return stopped;
  }

  async evidenceUrl(evidenceId: string): Promise<string | undefined> {
    return pageOfEvidence(await this.desk.pages(), evidenceId)?.url;
  }

  /**
   * `Life Thread: Open Desk`: prepares the desk, brings `arg.page` (default: the page last in front, else
   * the newest) to front and shows it in the desk view, which lists the other pages.
   */
  async openDesk(arg?: unknown): Promise<OpenDeskResult> {
    const parsed = arg === undefined ? undefined : openDeskArgSchema.safeParse(arg);
    if (parsed && !parsed.success) throw new InputError('page', 'Open Desk takes { page: <a remembered page\'s key> }');
    const wanted = parsed?.data.page;
    const ready = await this.withProgress('Preparing the desk…', () => this.run(undefined, 'open desk'));
    const pages = await this.desk.pages().catch((): DeskPage[] => []);
    const noBrowser = noBrowserMessage(ready, this.options());
    if (noBrowser) {
      void vscode.window.showWarningMessage(noBrowser, 'Open Settings').then((pick) => {
        if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'lifeThread.cdp');
      });
      return { status: ready.status, pages: pages.length, message: noBrowser };
    }
    if (ready.status === 'needs_restore') {
      const message = `Life Thread: the desk needs a restore — ${ready.reason ?? 'no reason was given'}`;
      void vscode.window.showWarningMessage(message);
      return { status: ready.status, pages: pages.length, message };
    }
    if (pages.length === 0) {
      const message = `Life Thread: the desk (${ready.endpoint ?? 'browser'}) is ready and remembers no pages yet. A job's HTML report opens here when a wake waits on the job, and a cdp://evidence/… landing brings it back.`;
      void vscode.window.showInformationMessage(message);
      return { status: ready.status, pages: 0, message };
    }
    const key = wanted ?? (await this.frontKey()) ?? pages.at(-1)?.key ?? '';
    const shown = await this.withProgress('Bringing the page to front…', () => this.run(key, `page ${key}`));
    const inView = shownPage(key, shown);
    if (!inView) {
      const message = `Life Thread: the desk could not show ${key} — ${shown.reason ?? shown.status}`;
      void vscode.window.showWarningMessage(message);
      return { status: shown.status, pages: pages.length, shown, message };
    }
    await this.view?.show(key, true, inView);
    return { status: shown.status, pages: pages.length, shown };
  }

  /** The panel's desk status: the last prepare in this window, the remembered pages, the last thumbnail. */
  async refreshView(): Promise<void> {
    const pages = await this.desk.pages().catch((): DeskPage[] => []);
    const thumbnail = (await readThumbnail(this.thumbnailPath)) ?? null;
    this.model.update({ desk: deskView(this.lastResult, pages, thumbnail, this.options()) });
  }

  async doctorSection(): Promise<string> {
    const o = this.options();
    const pages = await this.desk.pages().catch(() => []);
    const last = this.lastResult;
    return [
      `- Endpoint: \`${o.endpoint || '(none)'}\`${o.allowRemote ? ' (remote allowed)' : ''}; start Chromium: ${o.chromiumPath ? `\`${o.chromiumPath}\`` : 'no (lifeThread.cdp.chromiumPath is empty)'}`,
      `- Remembered pages: ${pages.length}${pages.length ? ` — ${pages.slice(0, 5).map((p) => `${p.evidenceId ? `evidence ${p.evidenceId}` : p.key}: ${p.url}`).join('; ')}` : ''}`,
      `- Last prepare: ${last ? `${last.status}${last.reason ? ` — ${last.reason}` : ''} (${last.timings.totalMs} ms)` : 'none in this window'}`,
    ].join('\n');
  }

  dispose(): void {
    void this.desk.stopStarted();
  }

  /** One prepare: evidence, a remembered page's key, or none (restore only); logged and shown in the panel. */
  private async run(target: { id: string; url: string; title?: string } | string | undefined, what: string): Promise<PrepareResult> {
    const o = this.options();
    this.lastUsedAt = Date.now();
    const r = typeof target === 'string' ? await this.desk.showPage(target, o) : await this.desk.prepare(target, o);
    this.lastResult = r;
    if (r.evidencePage) this.lastFrontUrl = r.evidencePage.url;
    this.log.info(`desk ${what}: ${r.status}${r.reason ? ` (${r.reason})` : ''} in ${r.timings.totalMs} ms${r.started ? `, started Chromium pid ${r.started.pid}` : ''}`);
    for (const w of r.warnings ?? []) this.log.warn(`desk: ${w}`);
    await this.refreshView();
    return r;
  }

  private withProgress<T>(title: string, task: () => Promise<T>): Promise<T> {
    return Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Life Thread: ${title}` }, task));
  }
}

export function registerDesk(context: vscode.ExtensionContext, desk: HostDesk, log: vscode.LogOutputChannel): DeskViewPanel {
  const view = new DeskViewPanel(context, desk, log);
  desk.view = view;
  context.subscriptions.push(
    view,
    desk,
    contrib.registerCommand(COMMANDS.openDesk, async (arg?: unknown) => {
      try {
        return await desk.openDesk(arg);
      } catch (err) {
        const msg = err instanceof InputError ? `${err.field}: ${err.reason}` : String(err);
        void vscode.window.showErrorMessage(`Life Thread: cannot open the desk — ${msg}`);
        return undefined;
      }
    }),
  );
  return view;
}

/** A page the desk may show for a job: a `file://` page or one on this machine (a report, a dev server). */
function checkEvidencePage(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError('url', `"${url.slice(0, 200)}" is not a URL`);
  }
  if (u.protocol === 'file:' && (u.host === '' || u.host === 'localhost')) return;
  if (isLoopbackUrl(url)) return;
  throw new InputError('url', `the desk shows file:// pages and pages on this machine (http://127.0.0.1…, http://localhost…), not ${u.protocol}//${u.host}`);
}

/** Where the desk view attaches after a prepare that brought `key` to front; undefined when it did not. */
function shownPage(key: string, r: PrepareResult): ShownPage | undefined {
  if ((r.status !== 'ok' && r.status !== 'prepared') || !r.endpoint || !r.evidencePage) return undefined;
  return { key, endpoint: r.endpoint, targetId: r.evidencePage.id };
}

/** Said when no browser can be reached and Life Thread may not start one: how to configure the desk. */
function noBrowserMessage(r: PrepareResult, o: PrepareOptions): string | undefined {
  if (r.status === 'ok' || r.status === 'prepared') return undefined;
  if (r.status !== 'none' && (r.endpoint !== undefined || o.chromiumPath?.trim())) return undefined;
  const why = r.status === 'none' ? noBrowserWhy(o) : (r.reason ?? 'no browser answers');
  return `Life Thread: the desk has no browser (${why}). Set ${CHROMIUM_PATH_SETTING} to a Chromium or Chrome executable (e.g. /usr/bin/chromium) and Life Thread starts one when needed, or start a browser with --remote-debugging-port=9222 and point lifeThread.cdp.endpoint at it.`;
}

/** Why there is no desk browser, in a few words: nothing configured, or nothing at the endpoint and no Chromium to start. */
function noBrowserWhy(o: PrepareOptions): string {
  const endpoint = o.endpoint.trim();
  return endpoint ? `nothing answers at ${endpoint} and ${CHROMIUM_PATH_SETTING} is empty` : `lifeThread.cdp.endpoint and ${CHROMIUM_PATH_SETTING} are empty`;
}

/** The desk status line and thumbnail of the sidebar and the panel. */
export function deskView(last: PrepareResult | undefined, pages: readonly DeskPage[], thumbnail: string | null, o: PrepareOptions): DeskView {
  const count = `${pages.length} page${pages.length === 1 ? '' : 's'} remembered`;
  const configured = o.endpoint.trim() !== '' || (o.chromiumPath?.trim() ?? '') !== '';
  const front = last?.evidencePage ? pages.find((p) => p.url === last.evidencePage?.url) : undefined;
  const frontName = front ? front.title || front.key : (last?.evidencePage?.url ?? null);
  let line: string;
  if (!last) line = configured ? `Not opened in this window · ${count}` : 'No desk browser: set lifeThread.cdp.chromiumPath or lifeThread.cdp.endpoint';
  else if (last.status === 'none') line = `No desk browser (${noBrowserWhy(o)}): set ${CHROMIUM_PATH_SETTING} to let Life Thread start one`;
  else if (last.status === 'needs_restore') line = `Needs a restore: ${last.reason ?? 'the browser or its pages are gone'}`;
  else line = `${last.status === 'ok' ? 'Ready' : 'Prepared'}${frontName ? ` · ${frontName} in front` : ''} · ${count}`;
  return { status: last?.status ?? null, line, pages: pages.length, front: frontName, thumbnail };
}
