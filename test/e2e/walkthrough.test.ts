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
import type { Browser, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser, revealInChat, widenChat, closeWorkbench, LIFE_THREAD_ICON, openWorkbench } from '../runner/browser';
import { answerThenWhen, quickInput as quickInputOn, runFromPalette } from '../runner/quickInput';
import { STEP_TITLES, WALKTHROUGH_TITLE, backToWalkthrough, doStep as doStepOn, lifeThreadFrame as frameOn, showsSteps, step as stepOn, stepDone as stepDoneOn, waitForFrameText, walkthrough as walkthroughOn } from '../runner/walkthroughPage';
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

const walkthrough = () => walkthroughOn(page);
const step = (title: string) => stepOn(page, title);
const doStep = (title: string, button: string) => doStepOn(page, title, button);
const stepDone = (title: string, timeoutMs?: number) => stepDoneOn(page, title, timeoutMs);
const showWalkthrough = () => backToWalkthrough(page);
const lifeThreadFrame = (selector: string) => frameOn(page, selector);
const quickInput = () => quickInputOn(page);

async function shot(name: string, readme?: string): Promise<void> {
  const path = join(RESULTS, `e2e-walkthrough-${name}.png`);
  await page.screenshot({ path });
  if (readme) {
    mkdirSync(README_SHOTS, { recursive: true });
    copyFileSync(path, join(README_SHOTS, readme));
  }
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
        // A wide chat (for the wake's screenshot) would otherwise give half its width to the sessions list.
        'chat.viewSessions.enabled': false,
        'workbench.colorTheme': 'Default Dark Modern',
      },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1500, height: 920 } });
    await openWorkbench(page, server.url, workspace, 'workbench');
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-walkthrough-last.png'), browser, server, model));

  it('the first screen shows the walkthrough and the demo README', async () => {
    await walkthrough().getByText(WALKTHROUGH_TITLE).first().waitFor({ state: 'visible', timeout: 120_000 });
    await page.locator('.tabs-container .tab', { hasText: 'Preview README.md' }).waitFor({ state: 'visible', timeout: 30_000 });
    for (const title of STEP_TITLES) {
      assert.equal(await step(title).count(), 1, `step ${title}`);
    }
    assert.equal(await walkthrough().locator('.getting-started-step .complete').count(), 0, 'no step is done before the user did it');
    await waitForFrameText(page, 'Life Thread demo workspace');
    await shot('0-first-screen', 'first-screen.png');
  });

  it('a reminder in words from the walkthrough: the sidebar shows the instant, the step completes, and it fires', async () => {
    await doStep('Add a reminder in words', 'Add a Reminder');
    const input = await quickInput();
    await answerThenWhen(page, input, 'look at the test report');
    await input.fill('in 1 minute');
    await page.locator('.quick-input-widget', { hasText: INSTANT }).waitFor({ state: 'visible', timeout: 10_000 });
    await input.press('Enter');
    await stepDone('Add a reminder in words');
    assert.equal(await showsSteps(page), true, 'the page stays on the walkthrough when its step ticks');
    await shot('1-reminder-step-done');
    await page.locator(LIFE_THREAD_ICON).click();
    const sidebar = await lifeThreadFrame('.row');
    const row = sidebar.locator('.row', { hasText: 'look at the test report' });
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await row.locator('.row-when').textContent()) ?? '', new RegExp(`^${INSTANT.source}, in `));
    // While it waits: a command on a schedule, from the walkthrough's next step.
    await showWalkthrough();
    await doStep('Schedule a command', 'Schedule a Command');
    const cmd = await quickInput();
    await answerThenWhen(page, cmd, 'npm test');
    await cmd.fill('every 30m');
    await page.locator('.quick-input-widget', { hasText: /Every 30 min/i }).waitFor({ state: 'visible', timeout: 10_000 });
    await cmd.press('Enter');
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
    await page.locator('.quick-input-widget', { hasText: 'When tests end, the agent should' }).waitFor({ state: 'visible', timeout: 15_000 });
    // The second box says what Enter does, so a new user is not left waiting on it.
    await page.locator('.quick-input-widget', { hasText: 'Enter sets the wake and starts the task tests' }).waitFor({ state: 'visible', timeout: 5_000 });
    // The box comes filled with the job's own default, ready for Enter.
    assert.equal(await input.inputValue(), 'tests finished: look at the result and continue.');
    await input.fill('The tests ended: read the failure and fix it.');
    await input.press('Enter');
    // The task runs in the terminal (about 6 s), then the wake is an @life turn in the chat.
    const woken = page.locator('.interactive-item-container', { hasText: 'WOKEN: the tests ended' });
    await woken.first().waitFor({ state: 'visible', timeout: 90_000 });
    const pulse = page.locator('.interactive-item-container', { hasText: 'The tests ended: read the failure and fix it.' }).first();
    await pulse.waitFor({ state: 'visible', timeout: 10_000 });
    const chatWidth = await widenChat(page, 640);
    await revealInChat(page, pulse);
    const prompt = model.requests.map(lastUser).find((u) => u.includes('life_wake:')) ?? '';
    assert.match(prompt, /job: \{ id: "tests", status: failed, exit_code: 1 \}/);
    assert.match(prompt, /3 passed, 1 failed/);
    assert.match(prompt, /landing: \{ kind: code_anchor, path: "src\/calc\.js", symbol: "Calculator\.average", lines: "L19-L19"/);
    await shot('4-wake-in-chat', 'wake-in-chat.png');
    await widenChat(page, chatWidth);
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
    await runFromPalette(page, 'Life Thread: Open Panel');
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

  it('a decision\u2019s quote opens the quoted span in its message, and its close button closes it', async () => {
    const panel = await lifeThreadFrame('.pair');
    await panel.locator('.pair .decisions .anchor-link', { hasText: 'average([]) should give 0, not throw' }).first().click();
    const focus = panel.locator('.focus');
    await focus.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await focus.locator('.focus-span').textContent(), 'average([]) should give 0, not throw');
    await focus.scrollIntoViewIfNeeded();
    await shot('8-quoted-span');
    await focus.getByRole('button', { name: 'Close the quoted span' }).click();
    await focus.waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await panel.locator('.pair').count() > 0, true, 'the pair stays');
    await shot('9-quoted-span-closed');
  });
});
