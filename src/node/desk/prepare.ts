/**
 * The desk's prepare: connect (the configured endpoint, then the Chromium the desk
 * started earlier, then start one when allowed), restore the remembered pages that are missing,
 * open or refresh the page to show, bring it to front, take the thumbnail, and remember what was
 * seen. The outcome is the wake's `desk`: `ok` (everything was there), `prepared` (pages restored or
 * the page opened), `needs_restore` (a browser or page gone and not restored: the reason says why)
 * or `none` (no browser reachable or configured, and none to start: the caller shows the evidence
 * inside VS Code).
 */
import type { DeskState } from '../../core/wake/contract';
import { CdpPageGoneError, CdpTimeoutError, checkEndpoint, errText, parseEndpoint, type CdpTarget, type CdpTransport } from '../cdpTransport';
import { CHROMIUM_PATH_SETTING, type StartChromiumOptions, type StartedChromium } from './chromium';
import { pageOfEvidence, putPage, type DeskFile, type DeskFileStore, type DeskPage } from './deskFile';
import { checkPageUrl, evidenceKey, parseEvidenceUri, sameUrl } from './pageUrl';
import { keepThumbnail, THUMBNAIL_MAX_WIDTH } from './thumbnail';

export interface Evidence {
  id: string;
  /** The page, or `cdp://evidence/<id>` for one the desk remembers. */
  url: string;
  title?: string;
}

/** What a prepare brings to front: evidence (a page to remember under its id, or `cdp://evidence/<id>`), or a remembered page by its key. */
export type DeskTarget = { evidence: Evidence } | { key: string };

export interface PrepareOptions {
  /** `lifeThread.cdp.endpoint`; empty = none configured. */
  endpoint: string;
  /** `lifeThread.cdp.allowRemote` */
  allowRemote: boolean;
  /** `lifeThread.cdp.chromiumPath`; empty/undefined = do not start one. */
  chromiumPath?: string;
  /** `lifeThread.cdp.chromiumArgs` */
  chromiumArgs: readonly string[];
  /** The profile (user-data-dir) of a Chromium the desk starts. */
  profileDir: string;
  /** May this prepare start Chromium when none answers? */
  startAllowed: boolean;
  /** Write the thumbnail PNG here; without it the result carries a data: URL. */
  thumbnailPath?: string;
  /** May missing remembered pages be reopened? Default true; false → needs_restore naming them. */
  restoreAllowed?: boolean;
  /** Default 480 CSS pixels. */
  thumbnailMaxWidth?: number;
}

export interface PrepareResult {
  status: DeskState;
  reason?: string;
  /** Keys of the remembered pages that were reopened. */
  restored: string[];
  evidencePage?: { id: string; url: string };
  /** The thumbnail's path (thumbnailPath) or a `data:image/png;base64,…` URL. */
  thumbnail?: string;
  endpoint?: string;
  /** Set when this prepare started Chromium. */
  started?: { pid: number };
  /** Things that went wrong without failing the prepare (desk.json problems, a page that would not reopen, the thumbnail). */
  warnings?: string[];
  timings: { connectMs: number; totalMs: number };
}

/** What the algorithm needs from the Desk that runs it. */
export interface PrepareSeams {
  file: DeskFileStore;
  transportFor(endpoint: string): CdpTransport;
  startBrowser(opts: StartChromiumOptions): Promise<StartedChromium>;
  /** A transport call, given up after the desk's call timeout. */
  call<T>(transport: CdpTransport, what: string, p: () => Promise<T>): Promise<T>;
  now(): Date;
  /** The Desk keeps a browser this prepare started, to stop it later. */
  started(browser: StartedChromium): void;
  /** Endpoints that answered in this process: one that is silent now was there and is gone (needs_restore, not none). */
  reached: Set<string>;
}

/** The page to bring to front, as it will be remembered. */
interface ShownPage {
  key: string;
  url: string;
  /** Given by the caller; else the remembered one, else the browser's. */
  title?: string;
  evidenceId?: string;
}

/** The desk's prepare; never throws: every failure is a `needs_restore` with its reason. */
export async function prepareDesk(seams: PrepareSeams, target: DeskTarget | undefined, opts: PrepareOptions): Promise<PrepareResult> {
  const t0 = performance.now();
  const warnings: string[] = [];
  const restored: string[] = [];
  let connectMs = 0;
  const finish = (r: Omit<PrepareResult, 'timings' | 'restored' | 'warnings'>): PrepareResult => ({
    ...r,
    restored,
    ...(warnings.length ? { warnings } : {}),
    timings: { connectMs: Math.round(connectMs * 10) / 10, totalMs: Math.round((performance.now() - t0) * 10) / 10 },
  });

  if (!opts.endpoint.trim() && !opts.chromiumPath?.trim()) {
    return finish({ status: 'none', reason: 'no browser is configured (lifeThread.cdp.endpoint and lifeThread.cdp.chromiumPath are empty): open the evidence inside VS Code' });
  }
  const read = await seams.file.read();
  if (read.problem) warnings.push(read.problem);

  const tc = performance.now();
  const connected = await connect(seams, read.desk, opts, warnings);
  connectMs = performance.now() - tc;
  if ('none' in connected) return finish({ status: 'none', reason: connected.none });
  if ('refused' in connected) return finish({ status: 'needs_restore', reason: connected.refused });
  const { transport: tr, desk } = connected;
  const endpoint = tr.endpoint;
  const extra = connected.started ? { started: { pid: connected.started.pid } } : {};

  const at = { step: 'list pages' };
  try {
    const shown = target ? pageToShow(target, desk) : undefined;
    const shownUrl = shown && 'page' in shown ? shown.page.url : undefined;

    const restore = await restoreMissing(seams, tr, desk, shownUrl, opts, restored, warnings, at);
    if ('refused' in restore) return finish({ status: 'needs_restore', reason: restore.refused, endpoint, ...extra });
    if (shown && 'problem' in shown) {
      await rememberSeen(seams, restore.seen, undefined, warnings);
      return finish({ status: 'needs_restore', reason: shown.problem, endpoint, ...extra });
    }

    let front: { page: CdpTarget; opened: boolean } | undefined;
    let thumbnail: string | undefined;
    if (shown) {
      const { page } = shown;
      front = await bringToFront(seams, tr, restore.targets, page.url, at);
      const id = front.page.id;
      at.step = 'take the thumbnail';
      try {
        const png = await seams.call(tr, `screenshot ${id}`, () => tr.screenshot(id, { maxWidth: opts.thumbnailMaxWidth ?? THUMBNAIL_MAX_WIDTH }));
        thumbnail = await keepThumbnail(png, opts.thumbnailPath);
      } catch (e) {
        warnings.push(`no thumbnail: ${errText(e)}`);
      }
      const prior = desk.pages.find((p) => p.key === page.key);
      await rememberSeen(seams, restore.seen, { ...page, title: page.title ?? (prior?.title || front.page.title || '') }, warnings);
    } else {
      await rememberSeen(seams, restore.seen, undefined, warnings);
    }

    return finish({
      status: restored.length > 0 || front?.opened ? 'prepared' : 'ok',
      ...(restore.missing > restored.length ? { reason: `${restore.missing - restored.length} desk page(s) could not be restored` } : {}),
      ...(front ? { evidencePage: { id: front.page.id, url: shownUrl ?? front.page.url } } : {}),
      ...(thumbnail ? { thumbnail } : {}),
      endpoint,
      ...extra,
    });
  } catch (e) {
    const kind = e instanceof CdpTimeoutError ? 'timed out' : 'failed';
    return finish({ status: 'needs_restore', reason: `the desk could not ${at.step} (${kind}): ${errText(e)}`, endpoint, ...extra });
  }
}

type Connected = { transport: CdpTransport; desk: DeskFile; started?: StartedChromium } | { refused: string } | { none: string };

/**
 * The configured endpoint, then a Chromium the desk started earlier, then a new one when allowed.
 * Nothing answering and nothing to start is `none` (no desk browser: the default endpoint with no
 * browser there), unless a browser was there before — it answered in this process, or desk.json
 * names a Chromium the desk started — or something at the endpoint hangs: that is `needs_restore`.
 */
async function connect(seams: PrepareSeams, desk: DeskFile, opts: PrepareOptions, warnings: string[]): Promise<Connected> {
  const configured = opts.endpoint.trim();
  const chromiumPath = opts.chromiumPath?.trim() ?? '';
  const answers = async (url: string): Promise<CdpTransport> => {
    const t = seams.transportFor(url);
    await seams.call(t, 'version', () => t.version());
    seams.reached.add(url);
    return t;
  };
  let gone = 'no browser is running';
  let silent = 'no browser answers';
  let wasThere = false;
  if (configured) {
    const check = checkEndpoint(configured, opts.allowRemote);
    if (!check.ok) return { refused: check.reason };
    try {
      return { transport: await answers(check.endpoint.url), desk };
    } catch (e) {
      gone = `the browser at ${check.endpoint.url} is not running (${errText(e)})`;
      silent = `no browser answers at ${check.endpoint.url} (${errText(e)})`;
      // Something that accepts and does not answer is a browser in trouble, not a missing one.
      wasThere = seams.reached.has(check.endpoint.url) || e instanceof CdpTimeoutError;
    }
  }
  const own = desk.chromium;
  if (own && own.endpoint !== (configured ? normalizeEndpoint(configured) : '')) {
    const check = checkEndpoint(own.endpoint, false);
    if (check.ok) {
      try {
        return { transport: await answers(check.endpoint.url), desk };
      } catch {
        // the desk's own Chromium is gone too
        wasThere = true;
        if (!configured) gone = `the desk's Chromium (pid ${own.pid}, ${own.endpoint}) is not running`;
      }
    }
  }
  if (!chromiumPath) {
    if (wasThere) return { refused: `${gone} and ${CHROMIUM_PATH_SETTING} is empty` };
    return { none: `${silent} and ${CHROMIUM_PATH_SETTING} is empty: no desk browser, the evidence opens inside VS Code` };
  }
  if (!opts.startAllowed) return { refused: `${gone} and starting ${chromiumPath} is not allowed for this prepare` };
  let started: StartedChromium | undefined;
  try {
    started = await seams.startBrowser({ chromiumPath, profileDir: opts.profileDir, extraArgs: opts.chromiumArgs });
    const transport = await answers(started.endpoint);
    seams.started(started);
    const chromium = { pid: started.pid, endpoint: started.endpoint };
    await save(seams, (d) => ({ ...d, chromium }), warnings);
    return { transport, desk: { ...desk, chromium }, started };
  } catch (e) {
    if (started) await started.stop().catch(() => undefined);
    return { refused: `${gone} and starting ${chromiumPath} failed: ${errText(e)}` };
  }
}

/** The page a target names, or why it cannot be shown. */
function pageToShow(target: DeskTarget, desk: DeskFile): { page: ShownPage } | { problem: string } {
  if ('key' in target) {
    const known = desk.pages.find((p) => p.key === target.key);
    return known ? { page: shownOf(known) } : { problem: `the desk remembers no page "${target.key}"` };
  }
  const { evidence } = target;
  const landingId = parseEvidenceUri(evidence.url);
  if (landingId !== undefined) {
    const known = pageOfEvidence(desk.pages, landingId);
    if (!known) return { problem: `cdp://evidence/${landingId} is not a page the desk remembers (it was never opened here, or desk.json was lost)` };
    // An older id of the page (an earlier run's report) shows it under its newest id.
    const id = known.evidenceId ?? (known.key === evidenceKey(landingId) ? landingId : undefined);
    return { page: { ...shownOf(known), ...(id ? { evidenceId: id } : {}), ...(evidence.title ? { title: evidence.title } : {}) } };
  }
  const problem = checkPageUrl(evidence.url);
  if (problem) return { problem };
  return { page: { key: evidenceKey(evidence.id), url: evidence.url, evidenceId: evidence.id, ...(evidence.title ? { title: evidence.title } : {}) } };
}

/** A remembered page to show again; it keeps its title (the browser's fills an empty one). */
function shownOf(p: DeskPage): ShownPage {
  return { key: p.key, url: p.url, ...(p.evidenceId ? { evidenceId: p.evidenceId } : {}) };
}

type Restore = { targets: CdpTarget[]; seen: Set<string>; missing: number } | { refused: string };

/** Reopens the remembered pages that are not open (by URL), except the one about to be shown. */
async function restoreMissing(
  seams: PrepareSeams,
  tr: CdpTransport,
  desk: DeskFile,
  shownUrl: string | undefined,
  opts: PrepareOptions,
  restored: string[],
  warnings: string[],
  at: { step: string },
): Promise<Restore> {
  let targets = await seams.call(tr, 'list', () => tr.list());
  const isOpen = (url: string) => targets.some((t) => sameUrl(t.url, url));
  const missing = desk.pages.filter((p) => !isOpen(p.url) && !(shownUrl && sameUrl(p.url, shownUrl)));
  if (missing.length > 0 && opts.restoreAllowed === false) {
    return { refused: `desk pages are gone and restoring is not allowed: ${missing.map((p) => p.key).join(', ')}` };
  }
  for (const p of missing) {
    at.step = `restore ${p.key}`;
    try {
      const t = await seams.call(tr, `open ${p.url}`, () => tr.newPage(p.url));
      targets = [...targets, t];
      restored.push(p.key);
    } catch (e) {
      warnings.push(`could not restore ${p.key} (${p.url}): ${errText(e)}`);
    }
  }
  const seen = new Set(desk.pages.filter((p) => isOpen(p.url)).map((p) => p.key));
  return { targets, seen, missing: missing.length };
}

/** Refreshes an open copy of `url` (one closing meanwhile is skipped) or opens it, then activates it. */
async function bringToFront(seams: PrepareSeams, tr: CdpTransport, targets: CdpTarget[], url: string, at: { step: string }): Promise<{ page: CdpTarget; opened: boolean }> {
  at.step = 'refresh the evidence page';
  let page: CdpTarget | undefined;
  let opened = false;
  let candidates = targets.filter((t) => sameUrl(t.url, url));
  for (let attempt = 0; !page && candidates.length > 0 && attempt < 3; attempt++) {
    const c = candidates[0];
    if (!c) break;
    try {
      await seams.call(tr, `reload ${c.id}`, () => tr.reload(c.id));
      page = c;
    } catch (e) {
      if (!(e instanceof CdpPageGoneError)) throw e;
      candidates = (await seams.call(tr, 'list', () => tr.list())).filter((t) => sameUrl(t.url, url) && t.id !== c.id);
    }
  }
  if (!page) {
    at.step = 'open the evidence page';
    page = await seams.call(tr, `open ${url}`, () => tr.newPage(url));
    opened = true;
  }
  const id = page.id;
  at.step = 'bring the evidence page to front';
  await seams.call(tr, `activate ${id}`, () => tr.activate(id));
  return { page, opened };
}

/** lastSeenAt for the pages seen open, and the shown page remembered last (evidence pages beyond the cap forgotten). */
async function rememberSeen(seams: PrepareSeams, seen: Set<string>, shown: ShownPage | undefined, warnings: string[]): Promise<void> {
  if (seen.size === 0 && !shown) return;
  const at = seams.now().toISOString();
  await save(
    seams,
    (d) => {
      const pages = d.pages.map((p) => (seen.has(p.key) ? { ...p, lastSeenAt: at } : p));
      if (!shown) return { ...d, pages };
      const row: DeskPage = { key: shown.key, url: shown.url, title: shown.title ?? '', ...(shown.evidenceId ? { evidenceId: shown.evidenceId } : {}), lastSeenAt: at };
      // The page shown last goes last: the cap forgets from the front; the same URL under an older id becomes an alias.
      return { ...d, pages: putPage(pages, row) };
    },
    warnings,
  );
}

async function save(seams: PrepareSeams, fn: (d: DeskFile) => DeskFile | undefined, warnings: string[]): Promise<void> {
  try {
    const r = await seams.file.update(fn);
    if (r.backup) warnings.push(`the unreadable desk.json was moved to ${r.backup} and a fresh one written`);
  } catch (e) {
    warnings.push(`desk.json was not updated: ${errText(e)}`);
  }
}

function normalizeEndpoint(raw: string): string {
  try {
    return parseEndpoint(raw).url;
  } catch {
    return raw;
  }
}
