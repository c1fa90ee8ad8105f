import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, sandboxEnv, shortTempDir } from './codeServer';

/**
 * Debian's Chromium driven by playwright-core (no browser download), with its own HOME under `stateDir`;
 * its profile, TMPDIR and sockets sit in a short temp dir, removed when the browser goes.
 */
export async function launchBrowser(stateDir: string): Promise<Browser> {
  const dir = join(stateDir, 'chromium');
  mkdirSync(dir, { recursive: true });
  const shortDir = shortTempDir('lt-br-');
  const remove = () => rmSync(shortDir, { recursive: true, force: true });
  try {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      env: { ...process.env, ...sandboxEnv(dir, shortDir) } as Record<string, string>,
      headless: true,
    });
    browser.once('disconnected', remove);
    return browser;
  } catch (err) {
    remove();
    throw err;
  }
}

/** Life Thread's icon in the activity bar: shown once the workbench has read the extension's contributions. */
export const LIFE_THREAD_ICON = '.activitybar .action-item a[aria-label^="Life Thread"]';

/**
 * Opens the workbench on `folder` in `page` and waits, up to `until`: the workbench itself; then Life
 * Thread's icon; then its status bar item with words, which means the extension is active (its model and
 * tools are registered).
 */
export async function openWorkbench(page: Page, serverUrl: string, folder: string, until: 'workbench' | 'icon' | 'active' = 'active'): Promise<void> {
  await page.goto(`${serverUrl}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  if (until === 'workbench') return;
  await page.locator(LIFE_THREAD_ICON).waitFor({ state: 'visible', timeout: 60_000 });
  if (until === 'icon') return;
  await untilLifeThreadActive(page);
}

/** Waits until Life Thread's status bar item has words: the extension is active (after an open or a reload). */
export async function untilLifeThreadActive(page: Page): Promise<void> {
  await page.locator('.statusbar-item', { hasText: /healthy|STALLED|paused/ }).first().waitFor({ state: 'visible', timeout: 90_000 });
}

/**
 * Ends a browser test file: a last screenshot of `page` (when there is one) to `shotPath`, then the browser,
 * then each of `stops` in order (the server, a fake model). A failed screenshot or browser close is ignored:
 * the stops still run.
 */
export async function closeWorkbench(page: Page | undefined, shotPath: string | undefined, browser: Browser | undefined, ...stops: ({ stop(): Promise<void> } | undefined)[]): Promise<void> {
  if (page && shotPath) await page.screenshot({ path: shotPath }).catch(() => undefined);
  await browser?.close().catch(() => undefined);
  for (const part of stops) await part?.stop();
}

/** The chat view's input box (a Monaco editor). */
export function chatInput(page: Page): Locator {
  return page.locator('.interactive-input-part .monaco-editor').first();
}

/** Types into the chat box and sends, as a user does. `@life` is sticky: the box may already hold it, so it starts empty. */
export async function sendChat(page: Page, text: string): Promise<void> {
  const box = chatInput(page);
  await box.waitFor({ state: 'visible', timeout: 30_000 });
  await box.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Life Thread's sidebar: the webview's inner frame. */
export function sidebarFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/**
 * Scrolls the chat (a virtual list: the DOM's scrollIntoView does not move it) with the mouse wheel until
 * `target` is whole in view, or its top is at the top when it is taller than the view.
 */
export async function revealInChat(page: Page, target: Locator): Promise<void> {
  const list = page.locator('.interactive-session .interactive-list').first();
  await target.waitFor({ state: 'attached', timeout: 15_000 });
  for (let i = 0; i < 40; i++) {
    const listBox = await list.boundingBox();
    const box = await target.boundingBox();
    if (!listBox || !box) break;
    // The list's top holds the request's sticky header: count the view from below it.
    const view = { ...listBox, y: listBox.y + 40, height: listBox.height - 40 };
    const above = view.y - box.y;
    const below = box.y + box.height - (view.y + view.height);
    const delta = above > 0 ? -above : below > 0 ? Math.min(below, box.y - view.y) : 0;
    if (Math.abs(delta) < 2) break;
    await page.mouse.move(view.x + view.width / 2, view.y + view.height / 2);
    await page.mouse.wheel(0, delta);
    await page.waitForTimeout(150);
  }
}

/** Drags the secondary side bar's edge (where the chat view lives) until it is `width` px wide, so long pulse lines fit a screenshot; returns the width it had. */
export async function widenChat(page: Page, width: number): Promise<number> {
  const bar = page.locator('.part.auxiliarybar');
  const box = await bar.boundingBox();
  if (!box) return 0;
  // The sash is its own element beside the bar's edge (the bar may have a margin): take the vertical sash nearest that edge.
  const sashX = await page.evaluate((edge) => {
    const xs = [...document.querySelectorAll('.monaco-sash.vertical')].map((e) => e.getBoundingClientRect()).filter((r) => r.height > 200).map((r) => r.x + r.width / 2);
    return xs.sort((a, b) => Math.abs(a - edge) - Math.abs(b - edge))[0] ?? edge;
  }, box.x);
  await page.mouse.move(sashX, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(sashX - (width - box.width), box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await page.waitForTimeout(300);
  return box.width;
}
