/**
 * `@life` without any language model, in the real workbench: only Life
 * Thread's offline responder exists. `/doctor` answers; free text says how to connect a model, with
 * buttons; `/wake` with explicit words adds a wake that arrives as an `@life` turn with its summary;
 * `/remind` lists. The chat view is not opened by Life Thread on its own. Then the sidebar at 300 px in
 * light, dark and high-contrast themes, and its Clear, Clear feed and Move actions.
 * Screenshots go to test-results/e2e-offline-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser, revealInChat, sendChat, sidebarFrame, closeWorkbench, LIFE_THREAD_ICON, openWorkbench } from '../runner/browser';
import { answerThenWhen, runFromPalette as runFromPaletteOn } from '../runner/quickInput';
import { ownExtension } from '../runner/install';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-offline');

let server: RunningServer;
let browser: Browser;
let page: Page;

async function shot(name: string, target?: Locator): Promise<void> {
  const path = join(RESULTS, `e2e-offline-${name}.png`);
  if (target) await target.screenshot({ path });
  else await page.screenshot({ path });
}

const runFromPalette = (title: string): Promise<void> => runFromPaletteOn(page, title);

/** The last response in the chat that contains `text`. */
function response(text: string | RegExp): Locator {
  return page.locator('.interactive-item-container.interactive-response', { hasText: text }).last();
}

describe('@life without a language model (Chromium driving code-server)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    const workspace = join(stateDir, 'workspace');
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    // No lifeThread.openai.* and no other model extension: the offline responder is the only model.
    // The chat view starts closed, as for a user who closed it: Life Thread must not open it by itself.
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: { 'lifeThread.timeZone': 'UTC', 'git.openRepositoryInParentFolders': 'never', 'workbench.secondarySideBar.defaultVisibility': 'hidden' },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await openWorkbench(page, server.url, workspace);
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-offline-last.png'), browser, server));

  it('the chat view stays closed until the user opens it; then @life /doctor answers without a model', async () => {
    // Activation, the language models settling, and room for anything that would open the chat on its own.
    await page.waitForTimeout(10_000);
    assert.equal(await page.locator('.interactive-input-part').filter({ visible: true }).count(), 0, 'the chat view opened without the user');
    await runFromPalette('Chat: Open Chat');
    // The trailing space closes the slash-command suggestions, which would otherwise take the Enter.
    await sendChat(page, '@life /doctor ');
    const answer = response('Life Thread Doctor');
    await answer.waitFor({ state: 'visible', timeout: 60_000 });
    assert.match((await answer.textContent()) ?? '', /Store/);
    assert.equal(await page.getByText('Language model unavailable').count(), 0, 'VS Code refused the request');
    await shot('1-doctor');
  });

  it('free text says how to connect a model, with buttons for the settings and the key', async () => {
    await sendChat(page, '@life what failed in the nightly build?');
    const answer = response('needs a language model');
    await answer.waitFor({ state: 'visible', timeout: 60_000 });
    assert.match((await answer.textContent()) ?? '', /lifeThread\.openai\.baseUrl/);
    const settings = answer.locator('.monaco-button', { hasText: 'Open Model Settings' });
    const key = answer.locator('.monaco-button', { hasText: 'Set API Key' });
    assert.equal(await settings.isVisible(), true, 'no settings button');
    assert.equal(await key.isVisible(), true, 'no key button');
    await shot('2-free-text');
    // The settings button opens the settings at lifeThread.openai.
    await settings.click();
    await page.locator('.settings-editor').waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.settings-editor .setting-item-contents', { hasText: 'Base URL' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await shot('3-model-settings');
    await page.keyboard.press('Control+W');
  });

  it('/wake with explicit words adds a wake; it arrives as an @life turn with its pulse; /remind lists', async () => {
    await runFromPalette('Chat: Open Chat');
    await sendChat(page, '@life /wake in 20 seconds: check the deploy');
    const added = response('Wake added');
    await added.waitFor({ state: 'visible', timeout: 60_000 });
    await shot('4-wake-added');
    const woken = response(/Woken \(w-/);
    await woken.waitFor({ state: 'visible', timeout: 120_000 });
    const text = (await woken.textContent()) ?? '';
    assert.match(text, /check the deploy/);
    assert.match(text, /Timer/);
    // The whole pulse in view: its text, the life_wake: block, the landing buttons.
    // The list re-renders the response as its parts arrive (a rendered element may be swapped for a new one
    // between two reads), so the pulse is brought into view and measured again until it stays.
    const block = woken.getByText('life_wake:').first();
    await block.waitFor({ state: 'visible', timeout: 15_000 });
    const list = page.locator('.interactive-session .interactive-list').first();
    let inView = false;
    for (let i = 0; i < 10 && !inView; i++) {
      await revealInChat(page, woken);
      const [blockBox, view] = [await block.boundingBox(), await list.boundingBox()];
      inView = !!blockBox && !!view && blockBox.y >= view.y && blockBox.y + blockBox.height <= view.y + view.height;
      if (!inView) await page.waitForTimeout(500);
    }
    assert.ok(inView, 'the life_wake: block is in view');
    await shot('5-woken');
    await sendChat(page, '@life /remind list ');
    await response('No reminders').waitFor({ state: 'visible', timeout: 60_000 });
    await sendChat(page, '@life /wake sometime maybe');
    const forms = response('reads these forms');
    await forms.waitFor({ state: 'visible', timeout: 60_000 });
    await shot('6-wake-forms');
  });

  it('the sidebar at 300 px in light, dark and high-contrast themes', async () => {
    // A reminder that fires while no model exists: delivered as written, a normal state.
    await runFromPalette('Life Thread: Add Reminder…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await answerThenWhen(page, input, 'stretch your legs and look at the deploy dashboard');
    await input.fill('in 15 seconds');
    await page.locator('.quick-input-widget', { hasText: /Once, .* UTC, in / }).waitFor({ state: 'visible', timeout: 10_000 });
    await input.press('Enter');
    await page.locator(LIFE_THREAD_ICON).click();
    const frame = sidebarFrame(page);
    const row = frame.locator('.row', { hasText: 'stretch your legs' });
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    // A UTC zone is named once.
    assert.doesNotMatch((await row.locator('.row-when').textContent()) ?? '', /UTC \(/);
    await row.locator('.row-fact', { hasText: 'delivered as written (no model)' }).waitFor({ state: 'visible', timeout: 120_000 });
    assert.match((await row.locator('.row-fact').getAttribute('class')) ?? '', /tone-ok/);
    // Fired for good: no Run now or Move; Remove names the text.
    await row.hover();
    assert.equal(await row.getByRole('button', { name: /^Run / }).count(), 0);
    assert.equal(await row.getByRole('button', { name: /^Move / }).count(), 0);
    assert.equal(await row.getByRole('button', { name: /^Remove “stretch your legs/ }).count(), 1);
    // The sidebar at 300 px: drag its sash.
    const sidebar = page.locator('.part.sidebar');
    const box = await sidebar.boundingBox();
    assert.ok(box);
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 300, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const width = (await sidebar.boundingBox())?.width ?? 0;
    assert.ok(Math.abs(width - 300) <= 8, `sidebar is ${width}px wide`);
    // Rows use the sidebar's width: the text column takes the room beside the actions.
    const rowBox = await row.boundingBox();
    const mainBox = await row.locator('.row-main').boundingBox();
    assert.ok(rowBox && mainBox && mainBox.width > rowBox.width * 0.75, `row text uses ${mainBox?.width ?? 0} of ${rowBox?.width ?? 0}px`);
    // Themes as a user picks them: Preferences: Color Theme, type the name, Enter.
    for (const [theme, name, cls] of [
      ['Light Modern', 'light', 'vs'],
      ['Dark Modern', 'dark', 'vs-dark'],
      ['Dark High Contrast', 'hc-dark', 'hc-black'],
      ['Light High Contrast', 'hc-light', 'hc-light'],
    ] as const) {
      await runFromPalette('Preferences: Color Theme');
      // The theme list is there (its title is only a placeholder, which text matching does not see).
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Dark Modern' }).first().waitFor({ state: 'visible', timeout: 15_000 });
      await page.keyboard.type(theme);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: theme }).first().waitFor({ state: 'visible', timeout: 15_000 });
      await page.keyboard.press('Enter');
      await page.locator(`.monaco-workbench.${cls}`).waitFor({ state: 'attached', timeout: 30_000 });
      await page.waitForTimeout(1000);
      await row.hover();
      await shot(`sidebar-${name}`, sidebar);
    }
  });

  it("the sidebar's Move is pre-filled; Clear fired rows and Clear the feed empty the store's files", async () => {
    const store = join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread');
    const rows = (file: string) => (JSON.parse(readFileSync(join(store, file), 'utf8')) as { rows: { id: string; text?: string; status?: string; schedule?: { kind: string; at?: string } }[] }).rows;
    // A reminder still waiting: its Move box starts from its own time, in the owner's zone (UTC here).
    await runFromPalette('Life Thread: Add Reminder…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await answerThenWhen(page, input, 'read the release notes');
    await input.fill('in 3 hours');
    await page.locator('.quick-input-widget', { hasText: /Once, .* UTC, in / }).waitFor({ state: 'visible', timeout: 10_000 });
    await input.press('Enter');
    const frame = sidebarFrame(page);
    const pending = frame.locator('.row', { hasText: 'read the release notes' });
    await pending.waitFor({ state: 'visible', timeout: 30_000 });
    const row = rows('reminders.json').find((r) => r.text === 'read the release notes');
    assert.ok(row?.schedule?.at, 'the reminder is in reminders.json');
    const at = new Date(row.schedule.at).toISOString();
    const expected = `${at.slice(0, 10)} ${at.slice(11, 16)}${at.slice(17, 19) === '00' ? '' : `:${at.slice(17, 19)}`}`;
    await pending.hover();
    await pending.getByRole('button', { name: /^Move “read the release notes” \(r-/ }).click();
    await page.locator('.quick-input-widget', { hasText: /new time/ }).waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await input.inputValue(), expected, 'Move starts from the row\u2019s own time');
    await shot('7-move-prefilled');
    await page.keyboard.press('Escape');

    // Clear fired rows: a real confirmation, then the fired reminder is gone from the view and the file.
    const fired = rows('reminders.json').filter((r) => r.status !== 'pending');
    assert.ok(fired.some((r) => r.text?.startsWith('stretch your legs')), 'the fired reminder is there before');
    await frame.getByRole('button', { name: /^Clear \d+ fired rows?$/ }).first().click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match((await dialog.textContent()) ?? '', /Clear \d+ fired rows? and their logs\?/);
    await shot('8-clear-fired-confirm');
    await dialog.getByRole('button', { name: 'Clear' }).click();
    await frame.locator('.row', { hasText: 'stretch your legs' }).waitFor({ state: 'detached', timeout: 15_000 });
    assert.deepEqual(rows('reminders.json').map((r) => r.text), ['read the release notes'], 'only the waiting reminder is left in reminders.json');
    assert.equal(await pending.isVisible(), true);

    // Clear the feed: the wake and the reminder that fired were in it.
    assert.ok(rows('feed.json').length > 0, 'the feed has items before');
    assert.ok((await frame.locator('.feed-item').count()) > 0);
    await frame.getByRole('button', { name: 'Clear the feed' }).click();
    await frame.locator('.feed-item').first().waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(rows('feed.json').length, 0, 'feed.json is empty');
    await shot('9-cleared', page.locator('.part.sidebar'));
  });

  it('the when box: words left open until they mean another instant are shown again before they are stored; a fixed time is taken at once', async () => {
    const store = join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread');
    const rowOf = (file: string, text: string) =>
      (JSON.parse(readFileSync(join(store, file), 'utf8')) as { rows: { id: string; text?: string; command?: string; schedule: { kind: string; at?: string } }[] }).rows.find((r) => (r.text ?? r.command) === text);
    const input = page.locator('.quick-input-widget input');
    const widget = page.locator('.quick-input-widget');
    const LEFT_OPEN_MS = 13_000;

    // Add Reminder: "in 30 seconds", left open 13 s. Enter shows the instant the words mean now; the next Enter stores it.
    await runFromPalette('Life Thread: Add Reminder…');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await answerThenWhen(page, input, 'water the plants');
    await input.fill('in 30 seconds');
    await widget.filter({ hasText: /Once, .* UTC, in / }).waitFor({ state: 'visible', timeout: 10_000 });
    const shownAt = Date.now();
    await page.waitForTimeout(LEFT_OPEN_MS);
    await input.press('Enter');
    const again = widget.filter({ hasText: 'press Enter again' });
    await again.waitFor({ state: 'visible', timeout: 10_000 });
    const refreshedAt = Date.now();
    assert.match((await again.textContent()) ?? '', /Now Once, .* \d\d:\d\d(?::\d\d)? UTC, in [^(]+ \(it showed \d\d:\d\d(?::\d\d)? UTC\) \u2014 press Enter again to accept\./);
    assert.equal(rowOf('reminders.json', 'water the plants'), undefined, 'nothing stored on the first Enter');
    await shot('10-when-refreshed');
    await input.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
    const reminder = rowOf('reminders.json', 'water the plants');
    assert.ok(reminder?.schedule.at, 'the reminder is stored after the second Enter');
    const at = Date.parse(reminder.schedule.at);
    assert.ok(at - shownAt >= 30_000 + LEFT_OPEN_MS - 2000, `stored ${at - shownAt} ms after the first preview: the instant shown first, not the one the words meant at Enter`);
    assert.ok(at - refreshedAt <= 30_500, `stored ${at - refreshedAt} ms after the refreshed preview`);

    // Schedule Command: "tomorrow at 9" means the same instant however long the box stays open: one Enter.
    await runFromPalette('Life Thread: Schedule Command…');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await answerThenWhen(page, input, 'echo nightly');
    await input.fill('tomorrow at 9');
    await widget.filter({ hasText: /Once, .* 09:00 UTC, in / }).waitFor({ state: 'visible', timeout: 10_000 });
    await page.waitForTimeout(LEFT_OPEN_MS);
    await input.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
    const command = rowOf('schedule-commands.json', 'echo nightly');
    assert.match(command?.schedule.at ?? '', /T09:00:00\.000Z$/, 'tomorrow at 9 stored at once');

    // Move (from the sidebar): the same refresh for words that drift.
    const frame = sidebarFrame(page);
    const pending = frame.locator('.row', { hasText: 'read the release notes' });
    await pending.hover();
    await pending.getByRole('button', { name: /^Move “read the release notes” \(r-/ }).click();
    await widget.filter({ hasText: /new time/ }).waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('in 2 minutes');
    await widget.filter({ hasText: /Once, .* UTC, in 2 min/ }).waitFor({ state: 'visible', timeout: 10_000 });
    const moveShownAt = Date.now();
    await page.waitForTimeout(LEFT_OPEN_MS);
    await input.press('Enter');
    await again.waitFor({ state: 'visible', timeout: 10_000 });
    const moveRefreshedAt = Date.now();
    await input.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: 10_000 });
    await page.waitForTimeout(1000);
    const moved = Date.parse(rowOf('reminders.json', 'read the release notes')?.schedule.at ?? '');
    assert.ok(moved - moveShownAt >= 120_000 + LEFT_OPEN_MS - 2000 && moved - moveRefreshedAt <= 120_500, `moved to ${moved - moveShownAt} ms after the first preview`);
    await shot('11-after-when-refresh');
  });
});
