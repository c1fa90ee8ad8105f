/**
 * Runs the host suites inside a real VS Code extension host (code-server + Chromium).
 *
 * Layout: test/host/suites/<suite>/<phase>/*.test.ts, compiled to out/. Each phase of a suite runs in a
 * freshly started server on the same user-data-dir (so global storage survives, like a reload), with
 * the same workspace. A host test may ask the runner to act in the browser by printing a marker line.
 *
 * Usage: node out/test/runner/host.js [suite ...]      Exit code: 0 when every test passed.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { ROOT, startCodeServer, testUrl, type RunningServer } from './codeServer';
import { fixtureExtensions } from './install';
import { launchBrowser } from './browser';
import { RUNNER_MARKER, runnerRequestSchema, type RunnerRequest } from '../host/runnerProtocol';

const OUT = join(ROOT, 'out', 'test');
const RESULTS = join(ROOT, 'test-results');
/** Workbench chatter that says nothing about the tests. */
const NOISE = /DevTools|Dialog requested|\[Extension Host\] (rejected|Started)|Unable to read file|workbench\.contrib|ResizeObserver|\[AgentHost\]|\[AccountPolicyGate\]|\[ChatModelSelection\]|api\.github\.com|marketplace|Long running operations during shutdown|open-vsx|ENOTFOUND|GalleryExtensions|^\s+at (async )?\S+ \(http/;
const PHASE_TIMEOUT_MS = Number(process.env.LIFE_THREAD_PHASE_TIMEOUT_MS ?? 10 * 60_000);

interface PhaseResult {
  exitCode: number;
  passed: number;
  failed: number;
}

/** Suites live in out/test/host/suites; the benchmarks point this at out/test/bench/host/suites. */
const SUITES_DIR = process.env.LIFE_THREAD_SUITES_DIR ?? join(OUT, 'host', 'suites');

function suitesAvailable(): string[] {
  const dir = SUITES_DIR;
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function phasesOf(suite: string): { phase: string; files: string[] }[] {
  const dir = join(SUITES_DIR, suite);
  return readdirSync(dir)
    .filter((p) => /^\d+$/.test(p))
    .sort((a, b) => Number(a) - Number(b))
    .map((phase) => ({
      phase,
      files: readdirSync(join(dir, phase))
        .filter((f) => f.endsWith('.test.js'))
        .sort()
        .map((f) => join(dir, phase, f)),
    }));
}

/** The CDP sessions of the CPU profiles being taken, per page. */
const profilers = new WeakMap<Page, CDPSession>();

/** The windows `openWindow` opened beside each test page, in order. */
const otherWindows = new WeakMap<Page, Page[]>();

async function act(page: Page, req: RunnerRequest, stateDir: string, server: RunningServer): Promise<unknown> {
  switch (req.action) {
    case 'blur':
    case 'focus': {
      const focused = req.action === 'focus';
      await page.evaluate(async (to) => {
        // What document.hasFocus() answers from now on: an own property of Document.prototype, replaced each time.
        delete (Document.prototype as { hasFocus?: unknown }).hasFocus;
        Object.defineProperty(Document.prototype, 'hasFocus', { value: () => to, configurable: true, writable: true });
        // The workbench's window focus tracker catches every element's focus and blur (capture on the window)
        // and reports only its own transitions: a chat input focused while blurred leaves it "focused", and a
        // window 'focus' event alone then says nothing. The opposite event first (a blur is reported on the
        // next tick) puts it where this event is a transition; both report the new hasFocus().
        window.dispatchEvent(new Event(to ? 'blur' : 'focus'));
        await new Promise((r) => setTimeout(r, 20));
        window.dispatchEvent(new Event(to ? 'focus' : 'blur'));
        await new Promise((r) => setTimeout(r, 20));
      }, focused);
      return { ok: true };
    }
    case 'openUrl': {
      const p = await page.context().newPage();
      await p.goto(req.url, { waitUntil: 'domcontentloaded' }).catch(() => undefined);
      return { ok: true, title: await p.title().catch(() => '') };
    }
    case 'screenshot': {
      const file = join(RESULTS, `${req.name.replace(/[^\w.-]/g, '_')}.png`);
      const target = req.window === 0 ? page : otherWindows.get(page)?.[req.window - 1];
      if (!target) return { ok: false, error: `no window ${req.window}` };
      await target.screenshot({ path: file });
      return { ok: true, file };
    }
    case 'keyboard':
      await page.keyboard.press(req.keys);
      return { ok: true };
    case 'noop':
      return { ok: true, stateDir };
    case 'profile': {
      if (req.op === 'start') {
        const cdp = await page.context().newCDPSession(page);
        profilers.set(page, cdp);
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
        await cdp.send('Profiler.start');
        return { ok: true, startedAt: Date.now() };
      }
      const cdp = profilers.get(page);
      if (!cdp) return { ok: false, error: 'no profile was started' };
      profilers.delete(page);
      const { profile } = await cdp.send('Profiler.stop');
      await cdp.detach();
      const file = join(RESULTS, `${req.name.replace(/[^\w.-]/g, '_')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return { ok: true, file };
    }
    case 'webviewText':
      return { ok: true, found: await webviewShows(page, req.text, req.timeoutMs) };
    case 'pageText':
      return {
        ok: true,
        found: await page
          .getByText(req.text, { exact: false })
          .first()
          .waitFor({ state: 'visible', timeout: req.timeoutMs })
          .then(() => true, () => false),
      };
    case 'openWindow': {
      const other = await page.context().newPage();
      otherWindows.set(page, [...(otherWindows.get(page) ?? []), other]);
      other.on('console', (m) => {
        if (process.env.LIFE_THREAD_VERBOSE) console.log(`[window ${req.folder}] ${m.text()}`);
      });
      await other.goto(testUrl(server, { folder: req.folder, extensionDevelopmentPath: ROOT }), { waitUntil: 'domcontentloaded' });
      await other.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
      return { ok: true };
    }
  }
}

/** Whether any webview's content frame shows `text` within `timeoutMs` (a webview is two frames deep). */
async function webviewShows(page: Page, text: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const frames = page.locator('iframe.webview.ready');
    const n = await frames.count();
    for (let i = 0; i < n; i++) {
      const shown = frames.nth(i).contentFrame().locator('#active-frame').contentFrame().getByText(text, { exact: false });
      if (await shown.first().isVisible().catch(() => false)) return true;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

type Folder = { path: string; name?: string } | { uri: string; name?: string };

/**
 * A suite whose window is not the fixture folder alone exports `folders` from `<suite>/workspace.ts`:
 * the entries of a `.code-workspace` file (`path` or `uri`), given the fixture folder's path and the
 * suite's state folder (or a promise of them: it may build a folder first). The runner writes that
 * file into the state folder and opens it.
 */
async function workspaceFileOf(suite: string, stateDir: string, fixture: string): Promise<string | undefined> {
  const module = join(SUITES_DIR, suite, 'workspace.js');
  if (!existsSync(module)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a suite's own description, found at run time
  const { folders } = require(module) as { folders: (fixture: string, stateDir: string) => Folder[] | Promise<Folder[]> };
  const file = join(stateDir, `${suite}.code-workspace`);
  writeFileSync(file, JSON.stringify({ folders: await folders(fixture, stateDir) }, null, 2));
  return file;
}

async function runPhase(browser: Browser, suite: string, phase: string, files: string[], stateDir: string, workspace: string, workspaceFile?: string): Promise<PhaseResult> {
  const ackDir = join(stateDir, 'acks', phase);
  mkdirSync(ackDir, { recursive: true });
  const phaseFile = join(stateDir, `phase-${phase}.json`);
  writeFileSync(phaseFile, JSON.stringify({ suite, phase, files, ackDir, resultsDir: RESULTS }));
  const prefix = `[${suite}/${phase}]`;
  const server = await startCodeServer({
    stateDir,
    smokeTestDriver: true,
    installExtensions: fixtureExtensions(),
    env: { LIFE_THREAD_TEST_PHASE: phaseFile },
    settings: { 'lifeThread.timeZone': 'Europe/Berlin', 'git.openRepositoryInParentFolders': 'never' },
    log: (l) => {
      if (process.env.LIFE_THREAD_VERBOSE) console.log(`${prefix} server: ${l}`);
    },
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  let passed = 0;
  let failed = 0;
  let closingSeen = false;
  try {
    const result = await new Promise<number>((resolveExit, rejectExit) => {
      const timer = setTimeout(() => rejectExit(new Error(`${prefix} timed out after ${PHASE_TIMEOUT_MS} ms`)), PHASE_TIMEOUT_MS);
      let safety: NodeJS.Timeout | undefined;
      const finish = (code: number) => {
        clearTimeout(timer);
        if (safety) clearTimeout(safety);
        resolveExit(code);
      };
      void page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
      void page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
        const line = formatArgs(args);
        const marker = line.indexOf(RUNNER_MARKER);
        if (marker >= 0) {
          const parsed = runnerRequestSchema.safeParse(JSON.parse(line.slice(marker + RUNNER_MARKER.length)));
          if (!parsed.success) {
            console.error(`${prefix} bad runner request: ${line}`);
            return;
          }
          const req = parsed.data;
          void act(page, req, stateDir, server)
            .catch((err: unknown) => ({ ok: false, error: String(err) }))
            .then((res) => {
              // Written whole, then renamed: the test polls for the file and must never read half of it.
              const ack = join(ackDir, `${req.seq}.json`);
              writeFileSync(`${ack}.part`, JSON.stringify(res));
              renameSync(`${ack}.part`, ack);
            });
          return;
        }
        const m = /^\s*(\d+) passed, (\d+) failed\s*$/m.exec(line);
        if (m) {
          passed = Number(m[1]);
          failed = Number(m[2]);
          closingSeen = true;
          safety = setTimeout(() => finish(failed > 0 ? 1 : 0), 30_000);
          return;
        }
        if (process.env.LIFE_THREAD_VERBOSE || (line.trim() && !NOISE.test(line))) console.log(`${prefix} ${type === 'error' ? 'ERROR ' : ''}${line}`);
      });
      void page.goto(testUrl(server, { folder: workspace, ...(workspaceFile ? { workspace: workspaceFile } : {}), extensionDevelopmentPath: ROOT, extensionTestsPath: join(OUT, 'host', 'index.js') }));
    });
    if (!closingSeen) console.log(`${prefix} no closing line from the host (exit ${result})`);
    if (!closingSeen && result !== 0) failed = Math.max(failed, 1);
    return { exitCode: result, passed, failed };
  } catch (err) {
    console.error(String(err));
    await page.screenshot({ path: join(RESULTS, `host-${suite}-${phase}-timeout.png`) }).catch(() => undefined);
    return { exitCode: 1, passed, failed: failed + 1 };
  } finally {
    await context.close().catch(() => undefined);
    await server.stop();
  }
}

function formatArgs(args: unknown[]): string {
  if (!Array.isArray(args)) return String(args);
  const [first, ...rest] = args;
  if (typeof first === 'string' && /%[sdoOifc]/.test(first)) {
    let i = 0;
    const s = first.replace(/%[sdoOifc]/g, (spec) => {
      if (spec === '%c') {
        i++;
        return '';
      }
      const v = rest[i++];
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
    return [s, ...rest.slice(i).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))].join(' ');
  }
  return args.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ');
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const suites = suitesAvailable().filter((s) => wanted.length === 0 || wanted.includes(s));
  if (suites.length === 0) {
    console.error(`no host suites found under ${SUITES_DIR} (did the build run?)`);
    process.exit(1);
  }
  mkdirSync(RESULTS, { recursive: true });
  let passed = 0;
  let failed = 0;
  let bad = false;
  const t0 = Date.now();
  const browserState = join(RESULTS, 'host', '.browser');
  const browser = await launchBrowser(browserState);
  try {
    for (const suite of suites) {
      const stateDir = join(RESULTS, 'host', suite);
      rmSync(stateDir, { recursive: true, force: true });
      mkdirSync(stateDir, { recursive: true });
      const workspace = join(stateDir, 'workspace');
      cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
      const workspaceFile = await workspaceFileOf(suite, stateDir, workspace);
      for (const { phase, files } of phasesOf(suite)) {
        console.log(`host suite ${suite}, phase ${phase}: ${files.length} file(s)${workspaceFile ? ` in ${workspaceFile}` : ''}`);
        const tPhase = Date.now();
        const r = await runPhase(browser, suite, phase, files, stateDir, workspace, workspaceFile);
        // Each phase's time, so that a slow suite shows in CI's log (README states the parts' times).
        console.log(`host suite ${suite}, phase ${phase}: ${r.passed} passed, ${r.failed} failed in ${((Date.now() - tPhase) / 1000).toFixed(1)} s`);
        passed += r.passed;
        failed += r.failed;
        if (r.exitCode !== 0) bad = true;
        if (r.exitCode !== 0 && r.failed === 0) failed += 1;
      }
    }
  } finally {
    await browser.close().catch(() => undefined);
  }
  console.log(`host suites finished in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(bad || failed > 0 ? 1 : 0);
}

void main().catch((err: unknown) => {
  console.error(err);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
