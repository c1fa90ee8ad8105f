import { chromium, type Browser } from 'playwright-core';
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
