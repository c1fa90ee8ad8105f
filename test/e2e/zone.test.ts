/**
 * The owner's zone wherever the window runs (README "The owner's zone", "Remote, containers and
 * Codespaces"): code-server and its terminals run in Asia/Tokyo, the browser in America/Los_Angeles, as for
 * a user in Los Angeles on a server elsewhere. Before any Life Thread view reported, this remote window's
 * first answer says the host's zone is used, with buttons; once the sidebar has shown, "tomorrow at 9"
 * through the palette, `@life /remind` (a scripted model calling lifethread_remind), the CLI in the
 * integrated terminal and an MCP server started from the copied config all store 09:00 Los Angeles and
 * name the zone with `source: ui`. With lifeThread.timeZone set, the same surfaces say `source: setting`,
 * the UI's zone is ignored, and terminals get LIFE_THREAD_TZ. Screenshots go to test-results/e2e-zone-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Temporal } from 'temporal-polyfill';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser, sendChat, sidebarFrame, closeWorkbench, LIFE_THREAD_ICON, openWorkbench } from '../runner/browser';
import { answerThenWhen, quickInput, runFromPalette as runFromPaletteOn } from '../runner/quickInput';
import { ownExtension } from '../runner/install';
import { ScriptedServer, lastUser, toolResults } from '../runner/scriptedServer';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-zone');
const workspace = join(stateDir, 'workspace');
const HOST_TZ = 'Asia/Tokyo';
const UI_TZ = 'America/Los_Angeles';
const SET_TZ = 'Europe/Berlin';

let server: RunningServer;
let browser: Browser;
let page: Page;
const model = new ScriptedServer();

const runFromPalette = (title: string): Promise<void> => runFromPaletteOn(page, title);
const store = (): string => join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread');

interface Row {
  id: string;
  text: string;
  tz: string;
  nextRunAt: string;
}

function reminders(): Row[] {
  const file = join(store(), 'reminders.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { rows: Row[] }).rows : [];
}

async function rowOf(text: string): Promise<Row> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const row = reminders().find((r) => r.text === text);
    if (row) return row;
    if (Date.now() > deadline) throw new Error(`no reminder "${text}" in the store: ${JSON.stringify(reminders())}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** "tomorrow at 9" read in `tz`: the row is due at 09:00 there, on the day after the day the words were read. */
function assertTomorrowAtNine(row: Row, tz: string, readAt: Temporal.Instant): void {
  assert.equal(row.tz, tz, `${row.text}: stored in ${row.tz}`);
  const due = Temporal.Instant.from(row.nextRunAt).toZonedDateTimeISO(tz);
  assert.equal(due.toPlainTime().toString(), '09:00:00', `${row.text}: due ${due.toString()}`);
  const tomorrow = readAt.toZonedDateTimeISO(tz).toPlainDate().add({ days: 1 });
  const later = Temporal.Now.instant().toZonedDateTimeISO(tz).toPlainDate().add({ days: 1 });
  assert.ok(due.toPlainDate().equals(tomorrow) || due.toPlainDate().equals(later), `${row.text}: due ${due.toString()}, not tomorrow`);
}

function ownerJson(): { timeZone: string; source: string } {
  return JSON.parse(readFileSync(join(store(), 'owner.json'), 'utf8')) as { timeZone: string; source: string };
}

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = probe();
      if (v !== undefined) return v;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function toast(text: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: text }).last();
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `e2e-zone-${name}.png`) });
}

/** The palette's Add Reminder with "tomorrow at 9"; returns the toast it answers with and the row. */
async function addFromPalette(text: string): Promise<{ answer: string; row: Row; readAt: Temporal.Instant }> {
  await runFromPalette('Life Thread: Add Reminder…');
  const input = await quickInput(page);
  await answerThenWhen(page, input, text);
  await input.fill('tomorrow at 9');
  await page.locator('.quick-input-widget', { hasText: /Once, / }).waitFor({ state: 'visible', timeout: 10_000 });
  const readAt = Temporal.Now.instant();
  await input.press('Enter');
  const answer = toast(`"${text}"`).or(toast(/Reminder r-\w+: Once/)).last();
  await answer.waitFor({ state: 'visible', timeout: 15_000 });
  return { answer: (await answer.textContent()) ?? '', row: await rowOf(text), readAt };
}

/** A tool call of @life may ask for confirmation in the chat; allow it when it does. */
async function allowToolUntil(done: Locator, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await done.isVisible().catch(() => false)) return;
    const allow = page.locator('.chat-confirmation-widget-buttons .monaco-button', { hasText: /^(Allow|Continue)/ }).filter({ visible: true }).first();
    if (await allow.isVisible().catch(() => false)) await allow.click().catch(() => undefined);
    await page.waitForTimeout(250);
  }
  throw new Error('timed out waiting for @life to answer');
}

/** `@life /remind …` with the scripted model: it calls lifethread_remind, and its answer quotes the tool's first line. */
async function remindInChat(text: string): Promise<{ answer: string; row: Row; readAt: Temporal.Instant }> {
  await runFromPalette('Chat: Open Chat');
  const readAt = Temporal.Now.instant();
  await sendChat(page, `@life /remind tomorrow at 9: ${text}`);
  const answer = page.locator('.interactive-item-container.interactive-response', { hasText: `REMINDED ${text}` }).last();
  await allowToolUntil(answer);
  return { answer: (await answer.textContent()) ?? '', row: await rowOf(text), readAt };
}

/** The CLI typed into a new integrated terminal, as a user does; its output and $LIFE_THREAD_TZ go to a file. */
async function remindInTerminal(text: string): Promise<{ output: string; row: Row; readAt: Temporal.Instant }> {
  const out = join(stateDir, `terminal-${Date.now()}.txt`);
  await runFromPalette('Terminal: Create New Terminal');
  await page.locator('.terminal-wrapper.active .xterm').first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.locator('.terminal-wrapper.active .xterm').first().click();
  await page.waitForTimeout(1500);
  const readAt = Temporal.Now.instant();
  await page.keyboard.type(`life-thread remind add --text '${text}' --when 'tomorrow at 9' > '${out}.part' 2>&1; echo "TZVAR=[$LIFE_THREAD_TZ]" >> '${out}.part'; mv '${out}.part' '${out}'`);
  await page.keyboard.press('Enter');
  const output = await until(() => (existsSync(out) ? readFileSync(out, 'utf8') : undefined), `the terminal's output in ${out}`);
  return { output: output.replace(/\s+/g, ' '), row: await rowOf(text), readAt };
}

/** The MCP server exactly as the copied config starts it (the process's own zone is the server's). */
async function remindOverMcp(config: { command: string; args: string[] }, text: string): Promise<{ answer: string; row: Row; readAt: Temporal.Instant }> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(stateDir, 'home'), TZ: HOST_TZ };
  const transport = new StdioClientTransport({ command: config.command, args: config.args, cwd: workspace, env, stderr: 'pipe' });
  const client = new Client({ name: 'e2e-zone', version: '1.0.0' });
  await client.connect(transport);
  try {
    const readAt = Temporal.Now.instant();
    const r = (await client.callTool({ name: 'lifethread_remind', arguments: { action: 'add', text, when: 'tomorrow at 9' } })) as CallToolResult;
    const answer = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    assert.notEqual(r.isError, true, answer);
    return { answer, row: await rowOf(text), readAt };
  } finally {
    await client.close();
  }
}

let mcpConfig: { command: string; args: string[] };

describe("the owner's zone wherever the window runs (Chromium in Los Angeles driving code-server in Tokyo)", () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(join(stateDir, 'home'), { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    await model.start();
    model.script = (b) => {
      const asked = /tomorrow at 9: (.+)$/.exec(lastUser(b))?.[1]?.trim() ?? '';
      const results = toolResults(b);
      if (results.length > 0) return { text: `REMINDED ${asked} — ${(results.at(-1) ?? '').split('\n')[0] ?? ''}` };
      return { toolCalls: [{ name: 'lifethread_remind', args: { action: 'add', text: asked, when: 'tomorrow at 9' } }] };
    };
    // No lifeThread.timeZone: the owner's zone is the UI's, once a view has reported it.
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      env: { TZ: HOST_TZ },
      settings: { 'lifeThread.openai.baseUrl': model.baseUrl, 'lifeThread.openai.model': model.modelId, 'git.openRepositoryInParentFolders': 'never' },
    });
    browser = await launchBrowser(stateDir);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, timezoneId: UI_TZ, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    await openWorkbench(page, server.url, workspace);
    assert.equal(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone), UI_TZ);
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-zone-last.png'), browser, server, model));

  it('before any view reported, the first answer says the host\u2019s zone is used, with a button that opens the sidebar', async () => {
    await runFromPalette('Life Thread: Add Reminder…');
    const input = await quickInput(page);
    await answerThenWhen(page, input, 'never stored');
    // The box reads times in the server's zone and says where it came from.
    await page.locator('.quick-input-widget', { hasText: `Times are read in zone ${HOST_TZ}, source: host` }).waitFor({ state: 'visible', timeout: 10_000 });
    const notice = toast(`times are read in ${HOST_TZ}, the zone of the machine the extension host runs on`);
    await notice.waitFor({ state: 'visible', timeout: 15_000 });
    await shot('1-host-zone');
    await input.press('Escape');
    const open = notice.locator('.monaco-button', { hasText: 'Open Life Thread Sidebar' });
    assert.equal(await notice.locator('.monaco-button', { hasText: 'Set lifeThread.timeZone' }).isVisible(), true, 'no setting button');
    await open.click();
    // The sidebar shows, reports the browser's zone, and the change is said.
    await sidebarFrame(page).getByText(`Times in ${UI_TZ}`).waitFor({ state: 'visible', timeout: 30_000 });
    await toast(`times are now read in zone ${UI_TZ}, source: ui`).waitFor({ state: 'visible', timeout: 15_000 });
    assert.deepEqual(await until(() => (ownerJson().source === 'ui' ? ownerJson() : undefined), 'owner.json'), { ...ownerJson(), timeZone: UI_TZ, source: 'ui' });
    assert.equal(reminders().length, 0, 'the cancelled box stored nothing');
    await shot('2-ui-zone');
  });

  it('palette, @life, the terminal\u2019s CLI and MCP from the copied config store 09:00 Los Angeles and say source: ui', async () => {
    const palette = await addFromPalette('palette: standup');
    assertTomorrowAtNine(palette.row, UI_TZ, palette.readAt);
    assert.match(palette.answer, /09:00 P[SD]T .*zone America\/Los_Angeles, source: ui/);

    const chat = await remindInChat('chat standup');
    assertTomorrowAtNine(chat.row, UI_TZ, chat.readAt);
    assert.match(chat.answer, /zone America\/Los_Angeles, source: ui/);
    await shot('3-chat');

    const term = await remindInTerminal('terminal standup');
    assertTomorrowAtNine(term.row, UI_TZ, term.readAt);
    assert.match(term.output, /zone America\/Los_Angeles, source: ui \(the zone the VS Code UI reported, kept in the store by a VS Code window\), as no --tz was given/);
    assert.match(term.output, /TZVAR=\[\]/, 'terminals get no LIFE_THREAD_TZ for a UI zone');
    await shot('4-terminal');

    // The command asks which client to configure; Claude Code's .mcp.json is plain JSON with mcpServers.
    await runFromPalette('Life Thread: Copy MCP Server Config');
    const claude = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Claude Code' }).first();
    await claude.waitFor({ state: 'visible', timeout: 15_000 });
    await claude.click();
    await toast('is on the clipboard').waitFor({ state: 'visible', timeout: 15_000 });
    const text = await page.evaluate(() => navigator.clipboard.readText());
    mcpConfig = (JSON.parse(text) as { mcpServers: { 'life-thread': { command: string; args: string[] } } }).mcpServers['life-thread'];
    assert.doesNotMatch(text, /\bTZ\b|LIFE_THREAD_TZ|--tz/, 'the copied config carries no zone');
    const mcp = await remindOverMcp(mcpConfig, 'mcp standup');
    assertTomorrowAtNine(mcp.row, UI_TZ, mcp.readAt);
    assert.match(mcp.answer, /zone America\/Los_Angeles, source: ui/);

    // The sidebar (open since the first test: a click on its icon would close it) shows the rows in Los Angeles time.
    const frame = sidebarFrame(page);
    if (!(await frame.locator('.footer').isVisible().catch(() => false))) await page.locator(LIFE_THREAD_ICON).click();
    for (const t of ['palette: standup', 'chat standup', 'terminal standup', 'mcp standup']) {
      const row = frame.locator('.row', { hasText: t });
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      assert.match((await row.locator('.row-when').textContent()) ?? '', /09:00 P[SD]T \(/);
    }
    await frame.getByText(`Times in ${UI_TZ} (your UI's zone)`).waitFor({ state: 'visible', timeout: 10_000 });
    await shot('5-sidebar');
  });

  it('with lifeThread.timeZone set: source setting everywhere, the UI\u2019s zone ignored, terminals get LIFE_THREAD_TZ', async () => {
    // Set in the Settings editor, as a user does.
    await runFromPalette('Preferences: Open Settings (UI)');
    await page.locator('.settings-editor').waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.type('lifeThread.timeZone');
    const item = page.locator('.settings-editor .setting-item-contents', { hasText: 'Time Zone' }).first();
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    await item.locator('input').first().fill(SET_TZ);
    await item.locator('input').first().press('Tab');
    await until(() => (ownerJson().source === 'setting' && ownerJson().timeZone === SET_TZ ? true : undefined), 'owner.json with the setting');
    // The Settings editor opens as a modal over the workbench here: Escape (the focus is past the input now) closes it.
    for (let i = 0; i < 3 && (await page.locator('.settings-editor').isVisible()); i++) {
      await page.keyboard.press('Escape');
      await page.waitForTimeout(500);
    }
    if (await page.locator('.settings-editor').isVisible()) {
      const closers = await page.evaluate(() =>
        [...document.querySelectorAll('[aria-label*="Close"], .codicon-close')].map((e) => `${e.tagName}.${e.className} [${e.getAttribute('aria-label') ?? ''}] <- ${e.parentElement?.className ?? ''}`),
      );
      throw new Error(`the Settings editor stays open; closers: ${closers.join('\n')}`);
    }
    await toast(`times are now read in zone ${SET_TZ}, source: setting`).waitFor({ state: 'visible', timeout: 15_000 });
    // The sidebar keeps reporting Los Angeles; the setting wins.
    await sidebarFrame(page).getByText(`Times in ${SET_TZ} (lifeThread.timeZone)`).waitFor({ state: 'visible', timeout: 15_000 });

    const palette = await addFromPalette('palette: setting');
    assertTomorrowAtNine(palette.row, SET_TZ, palette.readAt);
    assert.match(palette.answer, /zone Europe\/Berlin, source: setting \(lifeThread\.timeZone\)/);

    const chat = await remindInChat('chat setting');
    assertTomorrowAtNine(chat.row, SET_TZ, chat.readAt);
    assert.match(chat.answer, /zone Europe\/Berlin, source: setting/);

    const term = await remindInTerminal('terminal setting');
    assertTomorrowAtNine(term.row, SET_TZ, term.readAt);
    assert.match(term.output, /TZVAR=\[Europe\/Berlin\]/);
    assert.match(term.output, /zone Europe\/Berlin, source: setting \(lifeThread\.timeZone, passed in LIFE_THREAD_TZ\), as no --tz was given/);

    const mcp = await remindOverMcp(mcpConfig, 'mcp setting');
    assertTomorrowAtNine(mcp.row, SET_TZ, mcp.readAt);
    assert.match(mcp.answer, /zone Europe\/Berlin, source: setting \(lifeThread\.timeZone, kept in the store by a VS Code window\)/);
    assert.equal(ownerJson().source, 'setting', 'the UI\u2019s reports did not replace the setting');
    await shot('6-setting');
  });
});
