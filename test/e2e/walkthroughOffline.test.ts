/**
 * The first five minutes with no language model at all (a fresh user data dir; the only model is Life
 * Thread's offline responder): each step of the walkthrough from its button, in
 * Chromium driving code-server on the demo workspace. The first four tick; the wake arrives as an @life
 * turn that shows its pulse; Partition says a model is needed and does not tick. No error appears, and
 * the Welcome page stays on the walkthrough whenever the user comes back to it by its tab.
 * Screenshots go to test-results/e2e-walkthrough-offline-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser, revealInChat, widenChat, closeWorkbench, LIFE_THREAD_ICON, openWorkbench } from '../runner/browser';
import { answerThenWhen, quickInput } from '../runner/quickInput';
import { ownExtension } from '../runner/install';
import { makeDemoWorkspace } from '../runner/demoWorkspace';
import { STEP_TITLES, WALKTHROUGH_TITLE, backToWalkthrough, doStep, showsSteps, step, stepDone, walkthrough } from '../runner/walkthroughPage';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-walkthrough-offline');
const workspace = join(stateDir, 'workspace');

let server: RunningServer;
let browser: Browser;
let page: Page;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `e2e-walkthrough-offline-${name}.png`) });
}

/** Nothing went wrong where the user would see it: no error toast, and VS Code never refused a chat request. */
async function noErrors(when: string): Promise<void> {
  assert.equal(await page.locator('.notifications-toasts .codicon-error').count(), 0, `an error notification ${when}`);
  assert.equal(await page.getByText('Language model unavailable').count(), 0, `VS Code refused a chat request ${when}`);
}

describe('the first five minutes without any language model (Chromium driving code-server)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    await makeDemoWorkspace(workspace);
    // No lifeThread.openai.* and no other model extension: the offline responder is the only model.
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: {
        'lifeThread.timeZone': 'Europe/Berlin',
        'lifeThread.cdp.chromiumPath': '/usr/bin/chromium',
        'git.openRepositoryInParentFolders': 'never',
        // A wide chat (for the wake's screenshot) would otherwise give half its width to the sessions list.
        'chat.viewSessions.enabled': false,
      },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1500, height: 920 } });
    await openWorkbench(page, server.url, workspace, 'workbench');
    await walkthrough(page).getByText(WALKTHROUGH_TITLE).first().waitFor({ state: 'visible', timeout: 120_000 });
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-walkthrough-offline-last.png'), browser, server));

  it('a reminder in words and a scheduled command: both steps tick', async () => {
    for (const title of STEP_TITLES) assert.equal(await step(page, title).count(), 1, `step ${title}`);
    await doStep(page, 'Add a reminder in words', 'Add a Reminder');
    const input = await quickInput(page);
    await answerThenWhen(page, input, 'look at the test report');
    await input.fill('in 5 minutes');
    await page.locator('.quick-input-widget', { hasText: /Once, .* CES?T/ }).waitFor({ state: 'visible', timeout: 10_000 });
    await input.press('Enter');
    await stepDone(page, 'Add a reminder in words');
    assert.equal(await showsSteps(page), true, 'the page stays on the walkthrough when its step ticks');
    // Away to the sidebar and back by the tab, as a user checks the row.
    await page.locator(LIFE_THREAD_ICON).click();
    await page.waitForTimeout(1000);
    await backToWalkthrough(page);
    await doStep(page, 'Schedule a command', 'Schedule a Command');
    const cmd = await quickInput(page);
    await answerThenWhen(page, cmd, 'npm test');
    await cmd.fill('every 30m');
    await page.locator('.quick-input-widget', { hasText: /Every 30 min/i }).waitFor({ state: 'visible', timeout: 10_000 });
    await cmd.press('Enter');
    await stepDone(page, 'Schedule a command');
    assert.equal(await showsSteps(page), true);
    await shot('1-two-steps');
    await noErrors('after the first two steps');
  });

  it('the wake on the tests arrives as an @life turn with its pulse, lands on the failing code, and both steps tick', async () => {
    await backToWalkthrough(page);
    await doStep(page, 'Be woken when the tests end', 'Wake Me When the Tests End');
    const input = await quickInput(page);
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'tests' }).filter({ hasText: 'start it and wake when it ends' });
    await pick.first().click({ timeout: 20_000 });
    await page.locator('.quick-input-widget', { hasText: 'When tests end, the agent should' }).waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('The tests ended: read the failure and fix it.');
    await input.press('Enter');
    const woken = page.locator('.interactive-item-container.interactive-response', { hasText: /Woken \(w-/ }).last();
    await woken.waitFor({ state: 'visible', timeout: 90_000 });
    const text = (await woken.textContent()) ?? '';
    assert.match(text, /The tests ended: read the failure and fix it\./);
    assert.match(text, /3 passed, 1 failed/);
    await widenChat(page, 760);
    await revealInChat(page, woken.locator('.interactive-result-code-block', { hasText: 'life_wake:' }).first());
    await shot('2-woken');
    await page.locator('.tabs-container .tab', { hasText: 'calc.js' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok(existsSync(join(workspace, 'reports', 'tests.html')), 'the task wrote its report');
    await backToWalkthrough(page);
    await stepDone(page, 'Be woken when the tests end');
    await stepDone(page, 'Open the landing and the desk');
    await shot('3-four-ticks');
    await noErrors('after the wake');
  });

  it("the wake's buttons: Open Landing brings the failing code to the front, selected; Connect a Model opens the model settings", async () => {
    const woken = page.locator('.interactive-item-container.interactive-response', { hasText: /Woken \(w-/ }).last();
    // The landing the wake carries (its row in the store): the failing code's lines.
    const wakes = JSON.parse(readFileSync(join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread', 'wakes.json'), 'utf8')) as {
      rows: { landing?: { kind: string; anchor?: { path: string; range: { start: { line: number }; end: { line: number } } } } }[];
    };
    const anchor = wakes.rows.map((r) => r.landing).find((l) => l?.kind === 'code_anchor')?.anchor;
    assert.ok(anchor && anchor.path.endsWith('calc.js'), 'the wake lands on calc.js');
    const lines = [0, anchor.range.start.line + 1, anchor.range.end.line + 1];
    // The pack the wake brought gives its times as the sidebar does, not ISO.
    assert.doesNotMatch((await woken.textContent()) ?? '', /written \d{4}-\d\d-\d\dT/);
    // The user moved on: the cursor to the top of calc.js (no selection), then the README in front.
    const selection = page.locator('.statusbar-item[id="status.editor.selection"]');
    await page.locator('.tabs-container .tab', { hasText: 'calc.js' }).first().click();
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await selection.filter({ hasText: /^Ln 1, Col 1$/ }).waitFor({ state: 'visible', timeout: 10_000 });
    await page.locator('.tabs-container .tab', { hasText: 'README.md' }).first().click();
    await page.locator('.tabs-container .tab.active', { hasText: 'README.md' }).waitFor({ state: 'visible', timeout: 10_000 });
    await shot('2a-moved-on');
    const open = woken.locator('.monaco-button', { hasText: 'Open Landing' });
    await revealInChat(page, open);
    await open.click();
    await page.locator('.tabs-container .tab.active', { hasText: 'calc.js' }).waitFor({ state: 'visible', timeout: 20_000 });
    // In front and selected on the failing lines: the status bar reads the active editor's cursor and selection.
    await selection.filter({ hasText: 'selected' }).waitFor({ state: 'visible', timeout: 10_000 });
    const at = /Ln (\d+), Col \d+ \((\d+) selected\)/.exec((await selection.textContent()) ?? '');
    assert.ok(at, `the status bar shows a selection: ${(await selection.textContent()) ?? ''}`);
    assert.ok(Number(at[1]) >= Number(lines[1]) && Number(at[1]) <= Number(lines[2]), `the cursor is on line ${at[1]}, in L${lines[1]}-L${lines[2]}`);
    assert.ok(Number(at[2]) > 0);
    await page.locator('.monaco-editor .view-overlays .selected-text').first().waitFor({ state: 'visible', timeout: 10_000 });
    await shot('2b-open-landing');
    await noErrors('after Open Landing');

    // Connect a Model: the settings, filtered to the model endpoint's (where a model is connected).
    const connect = woken.locator('.monaco-button', { hasText: 'Connect a Model' });
    await revealInChat(page, connect);
    await connect.click();
    await page.locator('.settings-editor').waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.settings-editor .setting-item-contents', { hasText: 'Base URL' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    // Filtered: Life Thread's other settings (its time zone) are not listed.
    assert.equal(await page.locator('.settings-editor .setting-item-contents', { hasText: 'Time Zone' }).count(), 0, 'the settings are filtered to the model endpoint');
    assert.ok((await page.locator('.settings-editor .setting-item-contents', { hasText: /API key|Set API Key/i }).count()) > 0, 'the settings say how to set the key');
    await shot('2c-connect-model');
    await page.keyboard.press('Control+W');
    await backToWalkthrough(page);
  });

  it('Partition without a model: @life says a model is needed, with buttons; the step does not tick and nothing errs', async () => {
    // Still on the walkthrough from the step before: the user goes on from there.
    assert.equal(await showsSteps(page), true);
    await doStep(page, 'Partition a chat', 'Partition the Chat');
    const input = await quickInput(page);
    assert.equal(await input.inputValue(), 'main');
    await input.press('Enter');
    const answer = page.locator('.interactive-item-container.interactive-response', { hasText: 'needs a language model' }).last();
    await answer.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await answer.locator('.monaco-button', { hasText: 'Open Model Settings' }).count(), 1);
    await revealInChat(page, answer);
    await shot('4-partition-needs-model');
    await backToWalkthrough(page);
    for (const t of STEP_TITLES.slice(0, 4)) await stepDone(page, t);
    assert.equal(await step(page, 'Partition a chat').locator('.complete').count(), 0, 'nothing was partitioned');
    await shot('5-walkthrough');
    await noErrors('after Partition');
  });
});
