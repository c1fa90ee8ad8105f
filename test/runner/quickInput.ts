/** VS Code's quick input (the palette, an input box, a pick) as the browser tests type into it. */
import type { Locator, Page } from 'playwright-core';

/** The open quick input's text box. */
export async function quickInput(page: Page): Promise<Locator> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  return input;
}

/**
 * Runs a command from the palette (F1) by its title: its row is clicked, since Enter would take the
 * list's first row, which the fuzzy sort may put elsewhere.
 */
export async function runFromPalette(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = await quickInput(page);
  await input.fill(`>${title}`);
  const item = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await item.waitFor({ state: 'visible', timeout: 15_000 });
  await item.click();
}

/**
 * Answers the first box of a two-box command (Add Reminder's text, Schedule Command's command) and waits
 * for its "when?" box. The text is typed and Enter pressed in the box itself, wherever the focus went.
 * On a loaded machine the box may not have taken the text yet when it is typed (it sets its own value
 * as it opens): while the same box is still there, the answer is given again (and said in the log),
 * never into the box after it.
 */
export async function answerThenWhen(page: Page, input: Locator, text: string): Promise<void> {
  const when = page.locator('.quick-input-widget', { hasText: 'when?' });
  const title = await input.getAttribute('aria-label');
  for (let attempt = 1; ; attempt++) {
    await input.fill(text);
    await input.press('Enter');
    try {
      await when.waitFor({ state: 'visible', timeout: attempt < 3 ? 5_000 : 15_000 });
      return;
    } catch (err) {
      const now = await input.getAttribute('aria-label', { timeout: 1_000 }).catch(() => null);
      if (attempt >= 3 || now !== title) throw err;
      const value = await input.inputValue({ timeout: 1_000 }).catch(() => '?');
      console.log(`# the box "${title ?? ''}" is still open 5 s after Enter (its value: ${JSON.stringify(value)}); answering "${text}" again`);
    }
  }
}
