/** The Welcome page's walkthrough and Life Thread's webviews as a user meets them, for the browser tests of the first five minutes. */
import type { FrameLocator, Locator, Page } from 'playwright-core';

export const WALKTHROUGH_TITLE = 'Life Thread: the first five minutes';
export const STEP_TITLES = ['Add a reminder in words', 'Schedule a command', 'Be woken when the tests end', 'Open the landing and the desk', 'Partition a chat'] as const;

/** The walkthrough's editor (Welcome page). */
export function walkthrough(page: Page): Locator {
  return page.locator('.gettingStartedContainer');
}

/** A step of the walkthrough, by its title. */
export function step(page: Page, title: string): Locator {
  return walkthrough(page).locator('.getting-started-step', { hasText: title });
}

/** Opens a step and presses its "Do it" button. */
export async function doStep(page: Page, title: string, button: string): Promise<void> {
  const s = step(page, title);
  await s.waitFor({ state: 'visible', timeout: 30_000 });
  await s.locator('.step-title').click();
  await s.locator('.step-description-container').first().waitFor({ state: 'visible', timeout: 15_000 }).catch(() => undefined);
  const b = s.getByRole('button', { name: button });
  await b.waitFor({ state: 'visible', timeout: 15_000 });
  await b.click();
}

/** Waits until the step shows its tick. */
export async function stepDone(page: Page, title: string, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(
    (t) => [...document.querySelectorAll('.gettingStartedContainer .getting-started-step')].some((e) => e.textContent?.includes(t) && e.querySelector('.complete') !== null),
    title,
    { timeout: timeoutMs },
  );
}

/** Whether the page shows this walkthrough's step list (not the Welcome page's home, which keeps the steps hidden and disabled). */
export async function showsSteps(page: Page): Promise<boolean> {
  return page.evaluate((title) => {
    const g = document.querySelector('.gettingStartedContainer .gettingStarted');
    const heading = document.querySelector('.gettingStartedContainer .gettingStartedSlideDetails .category-title');
    const b = document.querySelector<HTMLButtonElement>('.gettingStartedContainer .getting-started-step');
    return g?.classList.contains('showDetails') === true && heading?.textContent?.includes(title) === true && b !== null && !b.disabled;
  }, WALKTHROUGH_TITLE);
}

/**
 * Comes back to the walkthrough as a user does, by its tab, and checks that it is still on its step list:
 * VS Code's Welcome page falls back to its home on a tab click, and Life Thread takes it back to the steps.
 */
export async function backToWalkthrough(page: Page): Promise<void> {
  await page.locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough: / }).first().click();
  await walkthrough(page).waitFor({ state: 'visible', timeout: 15_000 });
  // The page may still show the steps for a moment after the click, before it falls back to its home and
  // Life Thread takes it back; a step's button pressed in between would have its quick input lose the
  // focus to that. So the steps must stay in view for a while, not only once.
  const deadline = Date.now() + 20_000;
  let since: number | undefined;
  for (;;) {
    if (await showsSteps(page)) {
      since ??= Date.now();
      if (Date.now() - since >= 1_500) return;
    } else since = undefined;
    if (Date.now() > deadline) throw new Error('the Welcome page left the walkthrough for its home');
    await page.waitForTimeout(200);
  }
}

/** The Life Thread webview whose document holds `selector` (the sidebar and the panel are separate webviews). */
export async function lifeThreadFrame(page: Page, selector: string): Promise<FrameLocator> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const outer = page.locator('iframe.webview.ready[src*="extensionId=lifethread.life-thread"]');
    const n = await outer.count();
    for (let i = 0; i < n; i++) {
      const f = outer.nth(i).contentFrame().frameLocator('#active-frame');
      if ((await f.locator(selector).count().catch(() => 0)) > 0) return f;
    }
    if (Date.now() > deadline) throw new Error(`no Life Thread webview shows ${selector}`);
    await page.waitForTimeout(300);
  }
}

/** Waits until some frame of the page (a webview such as the Markdown preview) shows `text`. */
export async function waitForFrameText(page: Page, text: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const f of page.frames()) if ((await f.getByText(text).count().catch(() => 0)) > 0) return;
    await page.waitForTimeout(300);
  }
  throw new Error(`no frame shows ${text}`);
}
