/**
 * The desk view as a user sees it in the real workbench (Chromium driving code-server; the desk is a
 * second, headless Chromium that Life Thread starts on the server). The desk remembers two report pages
 * from an earlier session (desk.json, src/node/desk/deskFile.ts). Open Desk from the palette shows the
 * newest one in the view; the view's image is read pixel by pixel in the webview, so a page of another
 * colour is seen as a changed image: after the desk's page navigates (over CDP, as a report server's
 * redirect would), and after Open Landing on the other page's `cdp://evidence/…`. The view's "Bring to
 * front" button is clicked while another tab is in front of the desk: the page records its own
 * visibility changes and turns visible only then. Screenshots go to test-results/e2e-desk-view-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { CHROMIUM, ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser, closeWorkbench, openWorkbench } from '../runner/browser';
import { quickInput, runFromPalette as runFromPaletteOn } from '../runner/quickInput';
import { lifeThreadFrame } from '../runner/walkthroughPage';
import { ownExtension } from '../runner/install';
import { ChromeRemoteTransport } from '../../src/node/cdpTransport';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-desk-view');
const workspace = join(stateDir, 'workspace');

type Rgb = [number, number, number];
const BLUE: Rgb = [0x30, 0x60, 0xd0];
const ORANGE: Rgb = [0xf0, 0x90, 0x20];
const GREEN: Rgb = [0x30, 0xb0, 0x50];

let server: RunningServer;
let browser: Browser;
let page: Page;
let desk: ChromeRemoteTransport;
const urls: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `e2e-desk-view-${name}.png`) });
}

const runFromPalette = (title: string): Promise<void> => runFromPaletteOn(page, title);

/** A report page of one colour that records its own visibility changes (for Bring to front). */
function reportPage(name: string, heading: string, [r, g, b]: Rgb): string {
  const file = join(workspace, 'reports', `${name}.html`);
  mkdirSync(join(workspace, 'reports'), { recursive: true });
  writeFileSync(
    file,
    `<!doctype html><title>${heading}</title>` +
      `<body style="margin:0;height:100vh;font:32px sans-serif;background:rgb(${r},${g},${b});color:#fff"><h1 style="margin:20px">${heading}</h1>` +
      `<script>window.seen = [document.visibilityState]; document.addEventListener('visibilitychange', () => window.seen.push(document.visibilityState));</script></body>`,
  );
  return pathToFileURL(file).href;
}

function store(): string {
  return join(stateDir, 'user-data', 'User', 'globalStorage', 'lifethread.life-thread');
}

/** The desk view's webview (its document holds the frame image). */
const deskFrame = (): Promise<FrameLocator> => lifeThreadFrame(page, 'img.desk-frame');

/** The colour of the view's image, read from its pixels inside the webview, away from the heading. */
async function viewColour(): Promise<Rgb | undefined> {
  const frame = await deskFrame();
  return frame.locator('img.desk-frame').evaluate((img: HTMLImageElement) => {
    if (img.hidden || !img.complete || img.naturalWidth === 0) return undefined;
    const c = document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const ctx = c.getContext('2d');
    if (!ctx) return undefined;
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(Math.floor(img.naturalWidth * 0.7), Math.floor(img.naturalHeight * 0.7), 1, 1).data;
    return [d[0] ?? 0, d[1] ?? 0, d[2] ?? 0] as Rgb;
  });
}

const near = (a: Rgb | undefined, b: Rgb): boolean => a !== undefined && a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 24);

async function viewShows(colour: Rgb, title: string, what: string): Promise<void> {
  const frame = await deskFrame();
  const deadline = Date.now() + 30_000;
  let last: Rgb | undefined;
  for (;;) {
    last = await viewColour().catch(() => undefined);
    const heading = (await frame.locator('.desk-title').textContent().catch(() => '')) ?? '';
    if (near(last, colour) && heading === title) return;
    if (Date.now() > deadline) throw new Error(`the desk view did not show ${what}: its image is rgb(${last?.join(', ') ?? 'none'}), want about rgb(${colour.join(', ')}); its title "${heading}", want "${title}"`);
    await page.waitForTimeout(200);
  }
}

/** The webview's element as an image (what the user sees of the panel). */
async function panelPng(name: string): Promise<Buffer> {
  const path = join(RESULTS, `e2e-desk-view-${name}.png`);
  return page.locator('iframe.webview.ready[src*="extensionId=lifethread.life-thread"] >> visible=true').first().screenshot({ path });
}

async function targetOf(url: string): Promise<string> {
  const t = (await desk.list()).find((p) => p.url === url);
  assert.ok(t, `${url} is open on the desk`);
  return t.id;
}

async function seen(url: string): Promise<string[]> {
  return (await desk.evaluate(await targetOf(url), 'JSON.stringify(window.seen)').then((v) => JSON.parse(String(v)))) as string[];
}

describe('the desk view in the workbench (Chromium driving code-server, the desk in a headless Chromium)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    urls.a = reportPage('a', 'Report A', BLUE);
    urls.b = reportPage('b', 'Report B', ORANGE);
    urls.c = reportPage('c', 'Report C', GREEN);
    mkdirSync(store(), { recursive: true });
    const earlier = Date.now() - 3_600_000;
    writeFileSync(
      join(store(), 'desk.json'),
      JSON.stringify({
        schemaVersion: 1,
        pages: [
          { key: 'evidence:report-a', url: urls.a, title: 'Report A', evidenceId: 'report-a', lastSeenAt: new Date(earlier).toISOString() },
          { key: 'evidence:report-b', url: urls.b, title: 'Report B', evidenceId: 'report-b', lastSeenAt: new Date(earlier + 60_000).toISOString() },
        ],
      }),
    );
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: { 'lifeThread.timeZone': 'UTC', 'lifeThread.cdp.chromiumPath': CHROMIUM, 'git.openRepositoryInParentFolders': 'never' },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await openWorkbench(page, server.url, workspace);
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-desk-view-last.png'), browser, server));

  it('Open Desk shows the newest remembered page live in the view', async () => {
    await runFromPalette('Life Thread: Open Desk');
    await page.locator('.tabs-container .tab', { hasText: /Desk/ }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await viewShows(ORANGE, 'Report B', 'Report B');
    const frame = await deskFrame();
    assert.match((await frame.locator('.desk-state').textContent()) ?? '', /^Live/);
    assert.equal(await frame.locator('.desk-url').textContent(), urls.b);
    const listed = await frame.locator('.desk-page .desk-page-title').allTextContents();
    assert.deepEqual([...listed].sort(), ['Report A', 'Report B'], 'the view lists the remembered pages');
    const endpoint = (JSON.parse(readFileSync(join(store(), 'desk.json'), 'utf8')) as { chromium?: { endpoint: string } }).chromium?.endpoint;
    assert.ok(endpoint, 'desk.json names the Chromium the desk started');
    desk = new ChromeRemoteTransport(endpoint);
    await shot('1-open-desk');
  });

  it('the desk page navigating changes the view\u2019s image', async () => {
    const before = await panelPng('2-panel-before');
    await desk.navigate(await targetOf(urls.b), urls.c);
    await viewShows(GREEN, 'Report C', 'the page it navigated to');
    const afterNav = await panelPng('3-panel-after-navigate');
    assert.notDeepEqual(afterNav, before, 'the panel looks different');
    assert.equal(await (await deskFrame()).locator('.desk-url').textContent(), urls.c);
    await shot('3-navigated');
  });

  it('Open Landing on the other page\u2019s cdp://evidence/ link shows that page in the view', async () => {
    await page.locator('.part.titlebar').click({ position: { x: 400, y: 10 } });
    await runFromPalette('Life Thread: Open Landing…');
    const input = await quickInput(page);
    await input.fill('cdp://evidence/report-a');
    await input.press('Enter');
    await viewShows(BLUE, 'Report A', 'Report A after Open Landing');
    await panelPng('4-panel-open-landing');
    await shot('4-open-landing');
  });

  it('"Bring to front" brings the shown page to the front of the desk', async () => {
    const other = await desk.newPage('about:blank');
    await desk.activate(other.id);
    const deadline = Date.now() + 10_000;
    while ((await seen(urls.a)).at(-1) !== 'hidden') {
      if (Date.now() > deadline) throw new Error(`Report A did not go behind the other tab: ${JSON.stringify(await seen(urls.a))}`);
      await page.waitForTimeout(100);
    }
    // Nothing else brings it back: it stays behind until the button is clicked.
    await page.waitForTimeout(1500);
    assert.equal((await seen(urls.a)).at(-1), 'hidden', 'Report A stays behind the other tab before the click');
    const frame = await deskFrame();
    await frame.getByRole('button', { name: 'Bring to front' }).click();
    const end = Date.now() + 10_000;
    while ((await seen(urls.a)).at(-1) !== 'visible') {
      if (Date.now() > end) throw new Error(`Report A did not come to the front after the click: ${JSON.stringify(await seen(urls.a))}`);
      await page.waitForTimeout(100);
    }
    await shot('5-brought-to-front');
    await desk.close(other.id);
    assert.ok(existsSync(join(store(), 'desk.json')));
  });
});
