/**
 * The chat's model and Agent mode's confirmations, in the real workbench (Chromium driving code-server,
 * a scripted model behind Life Thread's OpenAI-compatible provider):
 * - the chat on Life Thread's offline responder while the endpoint's model is connected: `@life`'s answer
 *   offers "Use <model> in the chat"; its click puts that model in the picker and the next `@life` request
 *   goes to it; a later offline answer, also after a window reload, does not offer it again
 *   (src/host/modelOffer.ts);
 * - Copilot Chat's real agent in Agent mode calls `lifethread_remind` with "in 15 seconds": allowed after
 *   the instant shown has passed, nothing is stored and the model is told the new instant, and its next
 *   call shows a fresh confirmation; allowed a few seconds after that one, the instant shown is stored
 *   (src/core/time/shownTimes.ts).
 * Screenshots go to test-results/e2e-chatAgent-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { chatInput, launchBrowser, revealInChat, sendChat, closeWorkbench, openWorkbench, untilLifeThreadActive } from '../runner/browser';
import { runFromPalette as runFromPaletteOn } from '../runner/quickInput';
import { ownExtension } from '../runner/install';
import { ScriptedServer, type ChatBody } from '../runner/scriptedServer';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-chatAgent');
const REMINDER = 'AGENT-REMINDER look at the deploy';
const WHEN = 'in 15 seconds';

let server: RunningServer;
let browser: Browser;
let page: Page;
const model = new ScriptedServer();

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `e2e-chatAgent-${name}.png`) });
}

const runFromPalette = (title: string): Promise<void> => runFromPaletteOn(page, title);

/** The last response in the chat that contains `text`. */
function response(text: string | RegExp): Locator {
  return page.locator('.interactive-item-container.interactive-response', { hasText: text }).last();
}

/** The chat's last response. */
function lastResponse(): Locator {
  return page.locator('.interactive-item-container.interactive-response').last();
}

/** "Use <model> in the chat" buttons in the chat. */
function offers(): Locator {
  return page.locator('.interactive-response .monaco-button', { hasText: /^Use .* in the chat$/ });
}

/** The chat input's model picker (its label is the model's name). */
function modelPicker(): Locator {
  return page.locator('.interactive-input-part .chat-input-toolbars .action-item', { hasText: /Life Thread|scripted-model|Auto/ }).last();
}

/**
 * In the open Settings editor: types `value` into the setting whose description holds `described`, as a
 * user does, until settings.json holds it (a box typed into while the editor still renders may lose it).
 */
async function setInSettingsEditor(key: string, described: string, value: string): Promise<void> {
  await page.locator('.settings-editor').waitFor({ state: 'visible', timeout: 30_000 });
  const item = page.locator('.settings-editor .setting-item-contents', { hasText: described }).first();
  await item.waitFor({ state: 'visible', timeout: 30_000 });
  for (let attempt = 0; attempt < 4; attempt++) {
    await item.locator('input').first().fill(value);
    await item.locator('input').first().press('Tab');
    for (let i = 0; i < 10; i++) {
      if ((JSON.parse(readFileSync(settingsPath(), 'utf8')) as Record<string, unknown>)[key] === value) return;
      await page.waitForTimeout(300);
    }
  }
  assert.fail(`${key} did not reach settings.json`);
}

/** The Settings editor opens as a modal over the workbench here: Escape (the focus is past the input) closes it. */
async function closeSettingsEditor(): Promise<void> {
  for (let i = 0; i < 3 && (await page.locator('.settings-editor').isVisible()); i++) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(500);
  }
  assert.equal(await page.locator('.settings-editor').isVisible(), false, 'the Settings editor closed');
}

async function reloadWindow(): Promise<void> {
  await page.reload();
  await untilLifeThreadActive(page);
  await chatInput(page).waitFor({ state: 'visible', timeout: 30_000 });
}

/**
 * Reloads until the chat comes up on the offline responder. Which model a restored chat shows races with
 * the endpoint's model being listed (seen both ways here); the window came up on the offline one.
 * Returns the attempt that did, or 0.
 */
async function reloadUntilOffline(): Promise<number> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    await reloadWindow();
    await page.waitForTimeout(3_000);
    const picked = (await modelPicker().textContent()) ?? '';
    console.log(`# reload ${attempt}: the chat shows ${JSON.stringify(picked)}`);
    if (picked.includes('offline')) return attempt;
  }
  return 0;
}

function settingsPath(): string {
  return join(server.userDataDir, 'User', 'settings.json');
}

function reminders(): { id: string; text?: string; schedule: { kind: string; at?: string } }[] {
  const file = join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread', 'reminders.json');
  if (!existsSync(file)) return [];
  return (JSON.parse(readFileSync(file, 'utf8')) as { rows: { id: string; text?: string; schedule: { kind: string; at?: string } }[] }).rows;
}

function lastMessage(b: ChatBody): ChatBody['messages'][number] | undefined {
  return b.messages[b.messages.length - 1];
}

/** Requests Copilot's agent sent (its system prompt mentions the user's request in a `<userRequest>` element). */
function agentRequests(): ChatBody[] {
  return model.requests.filter((b) => b.messages.some((m) => (m.content ?? '').includes('<userRequest>')));
}

/** The visible tool confirmation and the instant it shows ("… 13:30:12 UTC, in 15 s"): its clock; `not` skips an earlier one. */
async function confirmation(not?: string): Promise<{ widget: Locator; shown: string; text: string }> {
  const widget = page.locator('.chat-confirmation-widget-container', { hasText: 'Add a reminder?' }).filter({ visible: true }).last();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = (await widget.textContent({ timeout: Math.max(1, deadline - Date.now()) }).catch(() => '')) ?? '';
    const shown = /(\d\d:\d\d(?::\d\d)?) UTC/.exec(text)?.[1];
    if (shown && shown !== not) return { widget, shown, text };
    if (Date.now() > deadline) return assert.fail(`no confirmation with a new instant (last seen: ${text})`);
    await page.waitForTimeout(250);
  }
}

/** Allows this one call only ("Allow in this Session" would let the next call through unconfirmed). */
async function allow(widget: Locator): Promise<void> {
  const buttons = await widget.locator('.monaco-button').allTextContents();
  console.log(`# confirmation buttons: ${JSON.stringify(buttons)}`);
  const once = widget.locator('.monaco-button', { hasText: /^Allow( Once)?$/ });
  if ((await once.count()) > 0) return once.first().click();
  await widget.locator('.monaco-dropdown-button').first().click();
  const items = page.locator('.context-view .action-label, .monaco-menu .action-label, .action-widget .monaco-list-row').filter({ visible: true });
  await items.first().waitFor({ state: 'visible', timeout: 5_000 });
  console.log(`# allow menu: ${JSON.stringify(await items.allTextContents())}`);
  await shot('allow-menu');
  const item = items.filter({ hasText: /^Allow( Once)?$|Allow once/i });
  if ((await item.count()) === 0) return assert.fail(`no Allow-once choice: ${JSON.stringify(await items.allTextContents())}`);
  await item.first().click();
}

/** An ISO instant's UTC clock as a confirmation shows it: HH:MM:SS, or HH:MM on a whole minute. */
function clock(iso: string): string {
  const hms = new Date(iso).toISOString().slice(11, 19);
  return hms.endsWith(':00') ? hms.slice(0, 5) : hms;
}

describe('the chat\u2019s model and Agent mode\u2019s confirmed time (Chromium driving code-server)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    const workspace = join(stateDir, 'workspace');
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    await model.start();
    model.script = (b) => {
      const last = lastMessage(b);
      const userWords = b.messages.filter((m) => m.role === 'user').map((m) => m.content ?? '').join('\n');
      if (last?.role === 'tool') {
        // Nothing stored because the instant passed: call again with the same words, as a model does.
        if ((last.content ?? '').includes('Nothing was stored')) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: REMINDER, when: WHEN } }] };
        return { text: 'AGENT-DONE the reminder is set' };
      }
      if (userWords.includes('AGENT-REMIND') && (last?.content ?? '').includes('AGENT-REMIND')) return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: REMINDER, when: WHEN } }] };
      return { text: 'SCRIPTED-ANSWER from the endpoint model' };
    };
    // No endpoint at first: the offline responder is the only model, and the chat selects it.
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: { 'lifeThread.timeZone': 'UTC', 'git.openRepositoryInParentFolders': 'never' },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    await openWorkbench(page, server.url, workspace);
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-chatAgent-last.png'), browser, server, model));

  it('the chat on the offline responder; the user sets the endpoint in the Settings editor: the chat takes its model', async () => {
    await runFromPalette('Chat: Open Chat');
    await sendChat(page, '@life /doctor ');
    await response('Life Thread Doctor').waitFor({ state: 'visible', timeout: 60_000 });
    await modelPicker().filter({ hasText: 'offline' }).waitFor({ state: 'visible', timeout: 15_000 });
    await sendChat(page, '@life what failed in the nightly build?');
    const help = response('needs a language model');
    await help.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await offers().count(), 0, 'no offer while the offline responder is the only model');
    await shot('1-offline-only');

    // The user follows the answer's button and sets the endpoint in the Settings editor.
    await help.locator('.monaco-button', { hasText: 'Open Model Settings' }).click();
    await setInSettingsEditor('lifeThread.openai.baseUrl', 'Base URL of an OpenAI-compatible endpoint', model.baseUrl);
    await setInSettingsEditor('lifeThread.openai.model', 'The model name at the endpoint', model.modelId);
    await closeSettingsEditor();
    await modelPicker().filter({ hasText: model.modelId }).waitFor({ state: 'visible', timeout: 15_000 });
    await shot('2-endpoint-picked');
    const before = model.requests.length;
    await sendChat(page, '@life what failed in the nightly build?');
    await lastResponse().filter({ hasText: 'SCRIPTED-ANSWER' }).waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(model.requests[before]?.model, model.modelId, 'the endpoint answered');
    assert.equal(await offers().count(), 0, 'nothing to offer: the chat is on the endpoint model');
    await shot('3-answered-by-endpoint');
  });

  it('Agent mode: Copilot\u2019s agent calls lifethread_remind; allowed after the shown instant passed, nothing is stored and the next call shows a fresh one, which is stored as shown', async () => {
    // A fresh profile has the built-in Copilot Chat disabled (no sign-in); a user enables it in the Extensions view.
    await runFromPalette('Extensions: Enable All Extensions');
    await page.waitForTimeout(10_000);
    await shot('7-agent-mode');
    const before = model.requests.length;
    await sendChat(page, 'AGENT-REMIND remind me to look at the deploy in 15 seconds');

    // (a) The first confirmation, allowed once its instant has passed.
    const first = await confirmation();
    const firstSeenAt = Date.now();
    assert.ok(agentRequests().length > 0, 'Copilot\u2019s agent sent the request');
    await revealInChat(page, first.widget);
    await shot('8-first-confirmation');
    await page.waitForTimeout(Math.max(0, 15_000 + 3_000 - (Date.now() - firstSeenAt)));
    await allow(first.widget);
    const second = await confirmation(first.shown);
    const secondSeenAt = Date.now();
    assert.equal(reminders().filter((r) => r.text === REMINDER).length, 0, 'nothing stored once the shown instant had passed');
    const told = model.requests.slice(before).map((b) => lastMessage(b)).find((m) => m?.role === 'tool' && (m.content ?? '').includes('Nothing was stored'));
    assert.ok(told, 'the tool\u2019s answer reached the model');
    const toldJson = JSON.parse((told.content ?? '').split('\n').pop() ?? '{}') as { stored?: boolean; shown?: string; now?: string };
    assert.equal(toldJson.stored, false);
    assert.equal(clock(toldJson.shown ?? ''), first.shown, 'the answer names the instant that was shown');
    assert.ok(toldJson.now && Date.parse(toldJson.now) > Date.parse(toldJson.shown ?? ''), 'and the new instant');
    assert.notEqual(second.shown, first.shown, 'the fresh confirmation shows a new instant');
    await revealInChat(page, second.widget);
    await shot('9-fresh-confirmation');

    // (b) The fresh confirmation, allowed a few seconds later, before its instant.
    await page.waitForTimeout(4_000);
    const allowedAt = Date.now();
    await allow(second.widget);
    await response('AGENT-DONE').waitFor({ state: 'visible', timeout: 60_000 });
    const stored = reminders().filter((r) => r.text === REMINDER);
    assert.equal(stored.length, 1, 'one reminder stored');
    const at = stored[0]?.schedule.at ?? '';
    assert.equal(clock(at), second.shown, 'the instant shown is stored, to the second');
    assert.ok(Date.parse(at) - allowedAt < 15_000 - 2_000, `stored ${Date.parse(at) - allowedAt} ms after Allow: read at the confirmation (${allowedAt - secondSeenAt} ms before Allow), not at Allow`);
    await shot('10-stored-as-shown');
  });
  it('a window that comes up on the offline responder with the endpoint set: @life offers its model once; the button picks it', async (t) => {
    const offline = await reloadUntilOffline();
    if (!offline) return t.skip('every reload came up on the endpoint model: the offer has nothing to do');
    await shot('11-reloaded-offline');
    const before = model.requests.length;
    await sendChat(page, '@life what failed in the nightly build?');
    const button = offers().filter({ hasText: `Use ${model.modelId} in the chat` });
    await button.waitFor({ state: 'visible', timeout: 60_000 });
    const answer = lastResponse();
    assert.match((await answer.textContent()) ?? '', /The chat has Life Thread's offline responder selected/);
    assert.match((await answer.textContent()) ?? '', /SCRIPTED-ANSWER/, '@life itself answered with the endpoint model');
    assert.ok(model.requests.length > before);
    await revealInChat(page, button);
    await shot('12-offer');
    await button.click();
    await modelPicker().filter({ hasText: model.modelId }).waitFor({ state: 'visible', timeout: 15_000 });
    await shot('13-picked');

    // Offered once: a window that comes up on the offline responder again says nothing more about it.
    if (!(await reloadUntilOffline())) return t.skip('after the click, every reload came up on the endpoint model');
    await sendChat(page, '@life is the deploy green?');
    await lastResponse().filter({ hasText: 'SCRIPTED-ANSWER' }).waitFor({ state: 'visible', timeout: 60_000 });
    await page.waitForTimeout(2_000);
    assert.equal(await offers().count(), 0, 'the model is not offered again');
    await shot('14-not-offered-again');
  });
});
