/**
 * A wake falls due while the user types a command in the integrated terminal (Chromium driving
 * code-server, a scripted model behind Life Thread's OpenAI-compatible provider). The wake is a timer set
 * from the CLI a few seconds ahead, and the command is typed one key at a time across its due time:
 * every key lands in the terminal (the command writes what it got to a file), none in the chat box,
 * which holds a draft; "Wake ready — Send" shows in the status bar while the typing goes on; the pulse
 * reaches the model within 2 s of the click on it, and the draft is still in the chat box afterwards.
 * The gate is src/host/wakeFocus.ts. Screenshots go to test-results/e2e-wake-at-work-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { chatInput, launchBrowser, closeWorkbench, openWorkbench } from '../runner/browser';
import { runFromPalette as runFromPaletteOn } from '../runner/quickInput';
import { ownExtension } from '../runner/install';
import { ScriptedServer, lastUser } from '../runner/scriptedServer';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-wake-at-work');
const workspace = join(stateDir, 'workspace');
const DRAFT = 'DRAFTKEPT half a thought about the cache';
const MARKER = 'WAKEATWORK';
/** What the user types: long enough that typing it key by key takes well over the wake's delay. */
const PAYLOAD = `typed${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3)}end`;
const KEY_DELAY_MS = 120;
const WAKE_DELAY_S = 5;

let server: RunningServer;
let browser: Browser;
let page: Page;
const model = new ScriptedServer();
/** When the model got the pulse's request (its last user message names the marker and `life_wake:`). */
let pulseAt: number | undefined;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `e2e-wake-at-work-${name}.png`) });
}

const runFromPalette = (title: string): Promise<void> => runFromPaletteOn(page, title);

function store(): string {
  return join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread');
}

interface WakeRow {
  id: string;
  status: string;
  nextRunAt?: string;
  fact?: { via?: string };
}

function wakeRow(id: string): WakeRow | undefined {
  const table = JSON.parse(readFileSync(join(store(), 'wakes.json'), 'utf8')) as { rows: WakeRow[] };
  return table.rows.find((r) => r.id === id);
}

async function until<T>(read: () => T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The text of the chat box (a Monaco editor: its rendered lines). */
async function chatBoxText(): Promise<string> {
  return ((await chatInput(page).locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
}

const readyItem = () => page.locator('.statusbar-item', { hasText: 'Wake ready' });

describe('a wake never takes the keyboard from the user typing in the terminal (Chromium driving code-server)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    await model.start();
    model.script = (b) => {
      const asked = lastUser(b);
      if (asked.includes(MARKER) && asked.includes('life_wake:')) {
        pulseAt ??= Date.now();
        return { text: 'WOKEN-AT-WORK: the timer is up, carrying on.' };
      }
      return { text: 'ok' };
    };
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: {
        'lifeThread.timeZone': 'UTC',
        'lifeThread.openai.baseUrl': model.baseUrl,
        'lifeThread.openai.model': model.modelId,
        'git.openRepositoryInParentFolders': 'never',
      },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1500, height: 920 } });
    await openWorkbench(page, server.url, workspace);
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-wake-at-work-last.png'), browser, server, model));

  it('typing across the due time: every key in the terminal, none in the chat; "Wake ready" shows; Send delivers within 2 s; the draft stays', async () => {
    // A draft in the chat box, not sent.
    await runFromPalette('Chat: Open Chat');
    const box = chatInput(page);
    await box.waitFor({ state: 'visible', timeout: 30_000 });
    await box.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(DRAFT);
    // The editor paints its lines on the next frame: the last key may not be drawn yet when typing returns.
    for (let i = 0; i < 20 && (await chatBoxText()).trim() !== DRAFT; i++) await page.waitForTimeout(250);
    assert.equal((await chatBoxText()).trim(), DRAFT);

    // The user goes to a new terminal.
    await runFromPalette('Terminal: Create New Terminal');
    const term = page.locator('.terminal-wrapper.active .xterm').first();
    await term.waitFor({ state: 'visible', timeout: 30_000 });
    await term.click();
    await page.waitForTimeout(1500);
    const out = join(stateDir, 'typed.txt');
    const prefix = `echo ${PAYLOAD} > ${out}`;

    // The timer wake, from the CLI, due a few seconds into the typing.
    const added = JSON.parse(execFileSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), '--store', store(), '--json', 'wake', 'add', '--text', `${MARKER} the timer is up`, '--delay-seconds', String(WAKE_DELAY_S)], { encoding: 'utf8' })) as { id: string; nextRunAt: string };
    const dueAt = Date.parse(added.nextRunAt);

    // "Wake ready" is watched for while the keys go in.
    let readyAt: number | undefined;
    void readyItem()
      .waitFor({ state: 'visible', timeout: 120_000 })
      .then(() => (readyAt = Date.now()))
      .catch(() => undefined);
    const typingStart = Date.now();
    await page.keyboard.type(prefix, { delay: KEY_DELAY_MS });
    const typingEnd = Date.now();
    console.log(`# typing ${typingStart - dueAt} ms → ${typingEnd - dueAt} ms around the due time; "Wake ready" at ${readyAt === undefined ? 'not yet' : `${readyAt - dueAt} ms`}`);
    assert.ok(typingStart < dueAt && dueAt < typingEnd, `the due time falls inside the typing (typing ${typingStart - dueAt} ms → ${typingEnd - dueAt} ms from it)`);
    await shot('1-typed-wake-ready');
    assert.equal((await chatBoxText()).trim(), DRAFT, 'the chat box holds only the draft: no key of the command went there');
    assert.equal(pulseAt, undefined, 'no pulse went to the chat while the user typed');
    assert.ok(readyAt !== undefined && readyAt < typingEnd, '"Wake ready — Send" showed while the user was still typing');
    assert.equal(wakeRow(added.id)?.status, 'delivering', 'the wake is claimed by the window and waits');

    await page.keyboard.press('Enter');
    const typed = await until(() => (existsSync(out) ? readFileSync(out, 'utf8') : undefined), `the command's output in ${out}`);
    assert.equal(typed, `${PAYLOAD}\n`, 'every key reached the terminal, in order');

    // The click on the status bar item sends the pulse.
    assert.match((await readyItem().textContent()) ?? '', /^\s*Wake ready — Send\s*$/, 'the status bar item reads "Wake ready — Send"');
    const clickedAt = Date.now();
    await readyItem().click();
    const arrived = await until(() => pulseAt, 'the pulse at the model', 15_000);
    console.log(`# the pulse reached the model ${arrived - clickedAt} ms after the click`);
    assert.ok(arrived - clickedAt <= 2000, `the pulse arrived ${arrived - clickedAt} ms after the click, more than 2 s`);
    await page.locator('.interactive-item-container', { hasText: 'WOKEN-AT-WORK' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    const row = await until(() => {
      const r = wakeRow(added.id);
      return r?.status === 'fired' ? r : undefined;
    }, 'the wake fired');
    assert.equal(row.fact?.via, 'life');
    await readyItem().waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal((await chatBoxText()).trim(), DRAFT, 'the draft survived the wake');
    assert.ok(!model.requests.some((b) => lastUser(b).includes('DRAFTKEPT')), 'the draft was not sent');
    await shot('2-pulse-sent-draft-kept');
  });
});
