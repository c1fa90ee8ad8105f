/**
 * The continuity pair as a user meets it, in the real workbench (Chromium driving code-server, a
 * scripted model behind Life Thread's OpenAI-compatible provider, a git repository as the workspace):
 * a conversation with @life → `/partition` → the panel shows TopicDecisions beside Handover ops →
 * an anchor's click highlights the quoted span → Approve → a new chat starts from TopicDecisions →
 * a commit makes the ops "stale" with what changed → the next partition approved from the palette's
 * Approve Partition… through its modal, and the one after from the chat's button.
 * Screenshots go to test-results/e2e-continuity-*.png.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { ROOT, startCodeServer, type RunningServer } from '../runner/codeServer';
import { launchBrowser, sendChat, closeWorkbench, openWorkbench } from '../runner/browser';
import { runFromPalette as runFromPaletteOn } from '../runner/quickInput';
import { ownExtension } from '../runner/install';
import { ScriptedServer, toolResults, type ChatBody } from '../runner/scriptedServer';

const RESULTS = join(ROOT, 'test-results');
const stateDir = join(RESULTS, 'e2e-continuity');
const workspace = join(stateDir, 'workspace');
const topicDir = join(workspace, '.life-thread', 'topics', 'demo');

let server: RunningServer;
let browser: Browser;
let page: Page;
const model = new ScriptedServer();

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Life Thread test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, encoding: 'utf8' }).trim();
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `e2e-continuity-${name}.png`) });
}

const runFromPalette = (title: string): Promise<void> => runFromPaletteOn(page, title);

/** The Life Thread panel's webview (this test never opens the sidebar, so it is Life Thread's only one). */
function panelFrame(): FrameLocator {
  return page.frameLocator('iframe.webview.ready[src*="extensionId=lifethread.life-thread"]').frameLocator('#active-frame');
}

/** A tool call of @life may ask for confirmation in the chat; allow it when it does. */
async function allowToolIfAsked(until: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await until()) return;
    const allow = page.locator('.chat-confirmation-widget .monaco-button', { hasText: /^(Allow|Continue)$/ }).first();
    if (await allow.isVisible().catch(() => false)) await allow.click().catch(() => undefined);
    await page.waitForTimeout(250);
  }
  throw new Error('timed out waiting for the partition to be filled');
}

function promptOf(body: ChatBody): string {
  return body.messages.map((m) => m.content ?? '').join('\n');
}

function spanLines(body: ChatBody): { id: string; role: string; text: string }[] {
  return [...promptOf(body).matchAll(/^\[(m-[\w-]+)\] (user|assistant): (.*)$/gm)].map((m) => ({ id: m[1] ?? '', role: m[2] ?? '', text: m[3] ?? '' }));
}

function cite(line: { id: string; text: string }, quote: string): { msgId: string; start: number; end: number; quote: string } {
  const start = line.text.indexOf(quote);
  if (start < 0) throw new Error(`${quote} not in ${line.text}`);
  return { msgId: line.id, start, end: start + quote.length, quote };
}

/** What the scripted agent fills, from the span it was given (the n-th partition of the test). */
function decisionsFrom(body: ChatBody): object {
  const lines = spanLines(body);
  const user = (word: string) => {
    const l = lines.find((x) => x.role === 'user' && x.text.includes(word));
    if (!l) throw new Error(`no user message with ${word} in ${promptOf(body).slice(0, 500)}`);
    return l;
  };
  const asked = lines.filter((l) => l.role === 'user');
  if (asked.some((l) => l.text.includes('croner'))) {
    const u = user('croner');
    return {
      frame: 'Durable reminders for the agent, fired on time by one dispatcher.',
      accepted: [{ text: 'Use croner with an explicit zone', reason: 'DST-safe next runs', anchors: [cite(u, 'croner with an explicit zone')] }],
      rejected: [{ text: 'A minute poll', reason: 'it wakes the laptop every minute', anchors: [cite(u, 'minute poll')] }],
      new: [{ text: 'croner 11.0.1 passed the DST sweep' }],
      next: ['Wire the dispatcher to the store'],
      anchors: [],
    };
  }
  const word = asked.some((l) => l.text.includes('quarantine')) ? 'quarantine' : 'journal';
  const u = user(word);
  return {
    frame: 'Durable reminders for the agent, fired on time by one dispatcher.',
    accepted: [{ text: word === 'quarantine' ? 'Quarantine bad rows' : 'No journal beside the table', reason: 'nothing stored is lost', anchors: [cite(u, word)] }],
    rejected: [],
    new: [],
    next: [word === 'quarantine' ? 'Write the quarantine file' : 'Keep one table file'],
    anchors: [],
  };
}

/** An ISO-8601 instant, which the panel and /resume no longer show. */
const ISO_INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
/** An instant as the sidebar shows it in Berlin, either season: "Thu 3 Dec 10:24:30 CET (09:24:30Z)". */
const WORDS_INSTANT = String.raw`\w{3} \d{1,2} \w{3}( \d{4})? \d\d:\d\d(:\d\d)? CES?T \((\w{3} \d{1,2} \w{3}( \d{4})? )?\d\d:\d\d(:\d\d)?Z\)`;

function decisionsOnDisk(): { partition: number; frame: string } {
  return JSON.parse(readFileSync(join(topicDir, 'topic-decisions.json'), 'utf8')) as { partition: number; frame: string };
}

describe('continuity in the workbench (Chromium driving code-server)', () => {
  before(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(stateDir, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    writeFileSync(join(workspace, 'notes.md'), '# Notes\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    await model.start();
    model.script = (b) => {
      const tools = (b.tools ?? []).map((t) => t.function.name);
      if (tools.join() === 'lifethread_partition') {
        const topic = /Partition of topic "([\w.-]+)"/.exec(promptOf(b))?.[1] ?? 'demo';
        if (toolResults(b).length === 0) return { toolCalls: [{ name: 'lifethread_partition', args: { action: 'fill', topic, decisions: decisionsFrom(b) } }] };
        return { text: 'TopicDecisions are filled.' };
      }
      return { text: 'Agreed: croner with an explicit zone; the minute poll is rejected.' };
    };
    server = await startCodeServer({
      stateDir,
      installExtensions: [ownExtension()],
      settings: {
        'lifeThread.timeZone': 'Europe/Berlin',
        'lifeThread.openai.baseUrl': model.baseUrl,
        'lifeThread.openai.model': model.modelId,
        'git.openRepositoryInParentFolders': 'never',
      },
    });
    browser = await launchBrowser(stateDir);
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await openWorkbench(page, server.url, workspace);
  });

  after(() => closeWorkbench(page, join(RESULTS, 'e2e-continuity-last.png'), browser, server, model));

  it('a conversation with @life, then /partition: the panel shows TopicDecisions beside Handover ops', async () => {
    await runFromPalette('Chat: Open Chat');
    await shot('0-chat');
    await sendChat(page, '@life we should use croner with an explicit zone, not a minute poll');
    await page.locator('.interactive-item-container', { hasText: 'Agreed: croner' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await shot('1-conversation');
    await sendChat(page, '@life /partition demo');
    await allowToolIfAsked(async () => existsSync(join(topicDir, 'topic-decisions.draft.json')));
    const frame = panelFrame();
    await frame.getByText('Approve and open the new chat').waitFor({ state: 'visible', timeout: 60_000 });
    await frame.locator('.pair .decisions').getByText('Use croner with an explicit zone').waitFor({ state: 'visible', timeout: 30_000 });
    await frame.locator('.pair .ops').getByText('Handover ops · partition 1').waitFor({ state: 'visible' });
    assert.match((await frame.locator('.ops-state').textContent()) ?? '', /fresh/);
    assert.match((await frame.locator('.verify').textContent()) ?? '', /^export verified/);
    assert.equal(await frame.locator('.pair .ops dd', { hasText: /^main$/ }).count(), 1, 'the branch of the workspace repository');
    // Times as the sidebar shows them, in the owner's zone (Berlin, either season), never ISO.
    const pairText = (await frame.locator('.pair').first().textContent()) ?? '';
    assert.doesNotMatch(pairText, ISO_INSTANT, 'an ISO instant in the panel\u2019s pair');
    assert.match((await frame.locator('.pair .ops dd').filter({ hasText: /CES?T/ }).first().textContent()) ?? '', new RegExp(`^${WORDS_INSTANT}, in 1[12] h`));
    assert.match((await frame.locator('.ops-state').textContent()) ?? '', new RegExp(`fresh \\(re-checked ${WORDS_INSTANT}, (now|under a minute ago|\\d+ min ago)\\)`));
    assert.match(pairText, new RegExp(`written ${WORDS_INSTANT}`));
    await shot('2-panel-pair');
  });

  it('clicking an anchor highlights the quoted span of the export', async () => {
    const frame = panelFrame();
    await frame.locator('.pair .decisions a.anchor-link', { hasText: 'minute poll' }).click();
    const mark = frame.locator('.focus mark.focus-span');
    await mark.waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await mark.textContent(), 'minute poll');
    assert.match((await frame.locator('.focus-text').textContent()) ?? '', /we should use croner with an explicit zone, not a minute poll/);
    const bg = await mark.evaluate((m) => getComputedStyle(m).backgroundColor);
    assert.notEqual(bg, 'rgba(0, 0, 0, 0)', 'the span is highlighted');
    await shot('3-anchor-span');
  });

  it('Approve opens a new chat that starts from TopicDecisions; the ops are re-checked', async () => {
    const frame = panelFrame();
    await frame.getByRole('button', { name: 'Approve and open the new chat' }).click();
    await page.locator('.interactive-item-container', { hasText: 'Resuming topic demo, partition 1' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await page.locator('.interactive-item-container', { hasText: 'we should use croner with an explicit zone, not a minute poll' }).count(), 0, 'the new chat does not show the old conversation');
    const resume = page.locator('.interactive-item-container', { hasText: 'Resuming topic demo' }).first();
    const resumeText = (await resume.textContent()) ?? '';
    assert.match(resumeText, /Frame: Durable reminders for the agent[\s\S]*Rejected[\s\S]*A minute poll[\s\S]*Handover ops/);
    // /resume's text gives its times in the owner's zone, like the sidebar; ISO stays in the files.
    assert.doesNotMatch(resumeText, ISO_INSTANT, 'an ISO instant in /resume\u2019s text');
    assert.match(resumeText, new RegExp(`written ${WORDS_INSTANT}`));
    assert.match(resumeText, new RegExp(`expires ${WORDS_INSTANT}, in 1[12] h`));
    assert.equal(decisionsOnDisk().frame, 'Durable reminders for the agent, fired on time by one dispatcher.');
    await frame.getByText('TopicDecisions · partition 1', { exact: true }).waitFor({ state: 'visible', timeout: 20_000 });
    await frame.locator('.pair .ops li', { hasText: 'Wire the dispatcher to the store' }).waitFor({ state: 'visible' });
    await shot('4-approved-new-chat');
  });

  it('after a commit, the ops say "stale" and what changed', async () => {
    const frame = panelFrame();
    const head = git('rev-parse', 'HEAD');
    writeFileSync(join(workspace, 'notes.md'), '# Notes\n\nThe dispatcher is wired.\n');
    git('add', 'notes.md');
    git('commit', '-q', '-m', 'wire the dispatcher');
    const state = frame.locator('.ops-state.stale');
    await state.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await state.textContent()) ?? '', new RegExp(`stale: HEAD moved from ${head.slice(0, 12)} to ${git('rev-parse', 'HEAD').slice(0, 12)} \\(1 commit ahead\\)`));
    await shot('5-ops-stale');
  });

  it('Life Thread: Approve Partition… from the palette shows the draft\u2019s summary in a modal and approves', async () => {
    await sendChat(page, '@life we should quarantine bad rows, not drop them');
    await page.locator('.interactive-item-container', { hasText: 'Agreed: croner' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await sendChat(page, '@life /partition demo');
    await allowToolIfAsked(async () => existsSync(join(topicDir, 'topic-decisions.draft.json')));
    await panelFrame().getByText('Review: partition 2', { exact: false }).waitFor({ state: 'visible', timeout: 60_000 });
    await runFromPalette('Life Thread: Approve Partition…');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    const text = (await dialog.textContent()) ?? '';
    assert.match(text, /Approve partition 2 of topic demo\?/);
    assert.match(text, /1 accepted, 1 rejected \(1 carried forward\), 0 new, 1 next; the lint passes\./);
    assert.equal(await dialog.getByRole('button', { name: 'Open in Panel' }).count(), 1);
    assert.equal(await dialog.getByRole('button', { name: 'Cancel' }).count(), 1);
    await shot('6-palette-modal');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.interactive-item-container', { hasText: 'Resuming topic demo, partition 2' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(decisionsOnDisk().partition, 2);
    assert.equal(existsSync(join(topicDir, 'topic-decisions.draft.json')), false);
    assert.ok(existsSync(join(topicDir, 'history', '1', 'export.jsonl')), 'partition 1\u2019s export kept');
    await shot('7-palette-approved');
  });

  it('@life /partition approve answers with a button that runs Approve Partition…', async () => {
    await sendChat(page, '@life and no journal beside the table');
    await page.locator('.interactive-item-container', { hasText: 'Agreed: croner' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await sendChat(page, '@life /partition demo');
    await allowToolIfAsked(async () => existsSync(join(topicDir, 'topic-decisions.draft.json')));
    await sendChat(page, '@life /partition approve demo');
    const answer = page.locator('.interactive-item-container', { hasText: 'Approve partition 3 of topic demo?' }).last();
    await answer.waitFor({ state: 'visible', timeout: 30_000 });
    await shot('8-chat-approve-button');
    await answer.getByRole('button', { name: 'Approve Partition… (demo)' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.interactive-item-container', { hasText: 'Resuming topic demo, partition 3' }).first().waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(decisionsOnDisk().partition, 3);
    await shot('9-chat-approved');
  });

  it('the chats before each approval stay in the chat history', async () => {
    await runFromPalette('Chat Agent Sessions: Show Agent Sessions Sidebar');
    const first = page.locator('.monaco-list-row', { hasText: '@life we should use croner with an' });
    // The sessions list is filled from the stored chats after it opens: slow on a loaded machine.
    await first.first().waitFor({ state: 'visible', timeout: 60_000 });
    // The first conversation and the chat each approval opened (three; the chat view's own request row matches too).
    assert.ok((await page.locator('.monaco-list-row', { hasText: '@life /resume demo' }).count()) >= 3);
    await shot('10-chat-history');
  });
});
