import { chromium, type Browser } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, sandboxEnv } from './codeServer';

/** Debian's Chromium driven by playwright-core (no browser download), with its own HOME and profile. */
export async function launchBrowser(stateDir: string): Promise<Browser> {
  const dir = join(stateDir, 'chromium');
  mkdirSync(dir, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    env: { ...process.env, ...sandboxEnv(dir) } as Record<string, string>,
    headless: true,
  });
}
