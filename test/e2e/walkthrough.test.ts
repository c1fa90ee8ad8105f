/**
 * The first five minutes, as a first-time user meets them (Chromium driving code-server on the demo
 * workspace `npm start` makes, a scripted model behind Life Thread's OpenAI-compatible provider): the
 * walkthrough and the README open by themselves → a reminder in words from the walkthrough's button →
 * the sidebar shows its instant → it fires; the failing tests started with a wake from the walkthrough →
 * the pulse arrives in the chat → the landing opens the failing code and the report is on the desk;
 * the panel shows the sample topic's pair. Screenshots go to test-results/e2e-walkthrough-*.png; three
 * of them are copied to media/screenshots/ for the README, so the README's pictures stay current.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser } from '../runner/browser';
import { ownExtension } from '../runner/install';
import { makeDemoWorkspace } from '../runner/demoWorkspace';
import { ScriptedServer, lastUser } from '../runner/scriptedServer';

const RESULTS = join(ROOT, 'test-results');
const README_SHOTS = join(ROOT, 'media', 'screenshots');
const stateDir = join(RESULTS, 'e2e-walkthrough');
const workspace = join(stateDir, 'workspace');

/** "Once, Thu 3 Dec 00:56:39 CET (Wed 2 Dec 23:56:39Z)": the instant in the owner's zone (Berlin, either season) and in UTC. */
const INSTANT = /Once, \w{3} \d{1,2} \w{3}( \d{4})? \d\d:\d\d(:\d\d)? CES?T \((\w{3} \d{1,2} \w{3}( \d{4})? )?\d\d:\d\d(:\d\d)?Z\)/;

let server: RunningServer;
let browser: Browser;
let page: Page;
const model = new ScriptedServer();

async function shot(name: string, readme?: string): Promise<void> {
  const path = join(RESULTS, `e2e-walkthrough-${name}.png`);
  await page.screenshot({ path });
  if (readme) {
    mkdirSync(README_SHOTS, { recursive: true });
    copyFileSync(path, join(README_SHOTS, readme));
  }
}

/** The walkthrough's editor (Welcome page). */
function walkthrough(): Locator {
  return page.locator('.gettingStartedContainer');
}

/** A step of the walkthrough, by its title. */
function step(title: string): Locator {
  return walkthrough().locator('.getting-started-step', { hasText: title });
}

/** Opens a step and presses its "Do it" button. */
async function doStep(title: string, button: string): Promise<void> {
  const s = step(title);
  await s.waitFor({ state: 'visible', timeout: 30_000 });
  await s.locator('.step-title').click();
  await s.locator('.step-description-container').first().waitFor({ state: 'visible', timeout: 15_000 }).catch(() => undefined);
  const b = s.getByRole('button', { name: button });
  await b.waitFor({ state: 'visible', timeout: 15_000 });
  await b.click();
}

async function stepDone(title: string, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(
    (t) => [...document.querySelectorAll('.gettingStartedContainer .getting-started-step')].some((e) => e.textContent?.includes(t) && e.querySelector('.complete') !== null),
    title,
    { timeout: timeoutMs },
  );
}

/** Brings the walkthrough back: its tab, and from the Welcome page's list when the page went back home. */
async function showWalkthrough(): Promise<void> {
  await page.locator('.tabs-container .tab', { hasText: /Welcome|Walkthrough: / }).first().click();
  await walkthrough().waitFor({ state: 'visible', timeout: 15_000 });
  // The page's home keeps the steps in the DOM, hidden and disabled.
  const first = step('Add a reminder in words');
  if ((await first.isVisible()) && (await first.isEnabled())) return;
  await walkthrough().getByRole('button', { name: /Life Thread: the first five minutes/ }).first().click();
  await page.waitForFunction(() => {
    const b = document.querySelector<HTMLButtonElement>('.gettingStartedContainer .getting-started-step');
    return b !== null && !b.disabled && b.getAttribute('aria-disabled') !== 'true';
  }, undefined, { timeout: 15_000 });
}

/** The Life Thread webview whose document holds `selector` (the sidebar and the panel are separate webviews). */
async function lifeThreadFrame(selector: string): Promise<FrameLocator> {
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
async function waitForFrameText(text: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const f of page.frames()) if ((await f.getByText(text).count().catch(() => 0)) > 0) return;
    await page.waitForTimeout(300);
  }
  throw new Error(`no frame shows ${text}`);
}

async function quickInput(): Promise<Locator> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  return input;
}

describe('the first five minutes (walkthrough, demo workspace, Chromium driving code-server)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    await makeDemoWorkspace(workspace);
    await model.start();
    model.script = (b) => {
      const asked = lastUser(b);
      if (asked.includes('life_wake:')) return { text: 'WOKEN: the tests ended with 3 passed, 1 failed; Calculator.average throws on an empty list. Fixing it next.' };
      return { text: 'REMINDED: the report says Calculator.average fails on an empty list.' };
    };
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: {
        'lifeThread.timeZone': 'Europe/Berlin',
        'lifeThread.openai.baseUrl': model.baseUrl,
        'lifeThread.openai.model': model.modelId,
        'lifeThread.cdp.chromiumPath': '/usr/bin/chromium',
        'git.openRepositoryInParentFolders': 'never',
        'workbench.colorTheme': 'Default Dark Modern',
      },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1500, height: 920 } });
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  });

  after(async () => {
    if (page) await shot('last').catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
    await model.stop();
  });

  it('the first screen shows the walkthrough and the demo README', async () => {
    await walkthrough().getByText('Life Thread: the first five minutes').first().waitFor({ state: 'visible', timeout: 120_000 });
    await page.locator('.tabs-container .tab', { hasText: 'Preview README.md' }).waitFor({ state: 'visible', timeout: 30_000 });
    for (const title of ['Add a reminder in words', 'Schedule a command', 'Be woken when the tests end', 'Open the landing and the desk', 'Partition a chat']) {
      assert.equal(await step(title).count(), 1, `step ${title}`);
    }
    assert.equal(await walkthrough().locator('.getting-started-step .complete').count(), 0, 'no step is done before the user did it');
    await waitForFrameText('Life Thread demo workspace');
    await shot('0-first-screen', 'first-screen.png');
  });

  it('a reminder in words from the walkthrough: the sidebar shows the instant, the step completes, and it fires', async () => {
    await doStep('Add a reminder in words', 'Add a Reminder');
    const input = await quickInput();
    await input.fill('look at the test report');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'when?' }).waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('in 1 minute');
    await page.locator('.quick-input-widget', { hasText: INSTANT }).waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.press('Enter');
    await stepDone('Add a reminder in words');
    await shot('1-reminder-step-done');
    await page.locator('.activitybar .action-item a[aria-label^="Life Thread"]').click();
    const sidebar = await lifeThreadFrame('.row');
    const row = sidebar.locator('.row', { hasText: 'look at the test report' });
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await row.locator('.row-when').textContent()) ?? '', new RegExp(`^${INSTANT.source}, in `));
    // While it waits: a command on a schedule, from the walkthrough's next step.
    await showWalkthrough();
    await doStep('Schedule a command', 'Schedule a Command');
    const cmd = await quickInput();
    await cmd.fill('npm test');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'when?' }).waitFor({ state: 'visible', timeout: 15_000 });
    await cmd.fill('every 30m');
    await page.locator('.quick-input-widget', { hasText: /Every 30 min/i }).waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.press('Enter');
    await stepDone('Schedule a command');
    await sidebar.locator('.row', { hasText: 'npm test' }).waitFor({ state: 'visible', timeout: 30_000 });
    await shot('1-reminder-sidebar', 'sidebar.png');
    // It fires within the minute (plus a loaded machine's slack): the row says what happened.
    await row.locator('.row-fact', { hasText: /delivered/ }).waitFor({ state: 'visible', timeout: 120_000 });
    await shot('2-reminder-fired');
  });

  it('Wake Me When the Tests End offers the task "tests", starts it, and the pulse arrives in the chat', async () => {
    await showWalkthrough();
    await doStep('Be woken when the tests end', 'Wake Me When the Tests End');
    const input = await quickInput();
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'tests' }).filter({ hasText: 'start it and wake when it ends' });
    await pick.first().waitFor({ state: 'visible', timeout: 20_000 });
    await shot('3-task-picker');
    await pick.first().click();
    await page.locator('.quick-input-widget', { hasText: 'When tests ends' }).waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('The tests ended: read the failure and fix it.');
    await page.keyboard.press('Enter');
    // The task runs in the terminal (about 6 s), then the wake is an @life turn in the chat.
    const woken = page.locator('.interactive-item-container', { hasText: 'WOKEN: the tests ended' });
    await woken.first().waitFor({ state: 'visible', timeout: 90_000 });
    const pulse = page.locator('.interactive-item-container', { hasText: 'The tests ended: read the failure and fix it.' }).first();
    await pulse.waitFor({ state: 'visible', timeout: 10_000 });
    const prompt = model.requests.map(lastUser).find((u) => u.includes('life_wake:')) ?? '';
    assert.match(prompt, /job: \{ id: "tests", status: failed, exit_code: 1 \}/);
    assert.match(prompt, /3 passed, 1 failed/);
    assert.match(prompt, /landing: \{ kind: code_anchor, path: "[^"]*\/src\/calc\.js", symbol: "Calculator\.average", lines: "L19-L19"/);
    await shot('4-wake-in-chat', 'wake-in-chat.png');
  });

  it('the landing opens the failing code and the desk holds the HTML report', async () => {
    // The landing opened while the pulse went out: src/calc.js at Calculator.average.
    const tab = page.locator('.tabs-container .tab.active', { hasText: 'calc.js' });
    await tab.first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.editor-instance .view-lines', { hasText: 'values.reduce' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    assert.ok(existsSync(join(workspace, 'reports', 'tests.html')), 'the task wrote its report');
    await showWalkthrough();
    for (const t of ['Add a reminder in words', 'Be woken when the tests end', 'Open the landing and the desk']) await stepDone(t);
    assert.equal(await step('Partition a chat').locator('.complete').count(), 0, 'the sample pair does not count as a partition made');
    await shot('5-walkthrough-ticks');
    await page.keyboard.press('F1');
    const input = await quickInput();
    await input.fill('>Life Thread: Open Panel');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Life Thread: Open Panel' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await page.keyboard.press('Enter');
    const panel = await lifeThreadFrame('.pair');
    await panel.getByText('tests.html').first().waitFor({ state: 'visible', timeout: 60_000 });
    await shot('6-desk-in-panel');
  });

  it('the panel shows the sample topic\u2019s pair: TopicDecisions beside Handover ops', async () => {
    const panel = await lifeThreadFrame('.pair');
    await panel.locator('.pair .decisions').getByText('average([]) returns 0').waitFor({ state: 'visible', timeout: 30_000 });
    await panel.locator('.pair .decisions').getByText('Use lodash for the mean').waitFor({ state: 'visible' });
    await panel.locator('.pair .ops').getByText('Handover ops · partition 1').waitFor({ state: 'visible' });
    assert.match((await panel.locator('.verify').textContent()) ?? '', /^export verified/);
    await panel.locator('.pair').first().scrollIntoViewIfNeeded();
    await shot('7-panel-pair', 'panel-pair.png');
  });
});
