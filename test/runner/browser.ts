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
