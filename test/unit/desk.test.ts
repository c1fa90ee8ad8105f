/**
 * The desk against an in-memory FakeTransport: the four prepare outcomes (none,
 * needs_restore, prepared, ok), the start path, the endpoint policy, timeouts (a hanging fake call,
 * and the real transport against a socket that never answers), desk.json round trip and the
 * corrupt / newer file behaviour, and the pure chromiumArgs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ChromeRemoteTransport, CdpPageGoneError, CdpTimeoutError, checkEndpoint, withTimeout, type CdpTarget, type CdpTransport, type CdpVersion } from '../../src/node/cdpTransport';
import { chromiumArgs, type StartChromiumOptions, type StartedChromium } from '../../src/node/desk/chromium';
import { Desk } from '../../src/node/desk/desk';
import { DESK_FILE, DeskFileStore } from '../../src/node/desk/deskFile';
import { evidenceKey, parseEvidenceUri } from '../../src/node/desk/pageUrl';
import type { PrepareOptions } from '../../src/node/desk/prepare';
import { deskAtDelivery } from '../../src/core/wake/pulse';
import { isLoopbackHost } from '../../src/core/loopback';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-desk-');
const freshDir = dirs.freshDir;

type Method = 'version' | 'list' | 'newPage' | 'activate' | 'close' | 'navigate' | 'reload' | 'screenshot';

/** A 1×1 PNG: the signature and enough bytes to look like one. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** An in-memory browser: pages, calls log, and faults on demand. */
class FakeTransport implements CdpTransport {
  pages: CdpTarget[] = [];
  calls: string[] = [];
  active: string | undefined;
  /** Listed but closing: calls on them fail like on a closed page. */
  closing = new Set<string>();
  /** version() rejects like a dead endpoint. */
  dead = false;
  fail = new Map<Method, Error>();
  hang = new Set<Method>();
  private seq = 0;

  constructor(readonly endpoint: string) {}

  private async enter(m: Method, detail = ''): Promise<void> {
    this.calls.push(detail ? `${m} ${detail}` : m);
    if (this.hang.has(m)) await new Promise<never>(() => undefined);
    const err = this.fail.get(m);
    if (err) throw err;
  }

  add(url: string, title = ''): CdpTarget {
    const t = { id: `T${++this.seq}`, type: 'page', url, title };
    this.pages.push(t);
    return t;
  }

  async version(): Promise<CdpVersion> {
    await this.enter('version');
    if (this.dead) throw new Error(`connect ECONNREFUSED ${this.endpoint.replace(/^https?:\/\//, '')}`);
    return { browser: 'Fake/1.0' };
  }
  async list(): Promise<CdpTarget[]> {
    await this.enter('list');
    return this.pages.map((p) => ({ ...p }));
  }
  async newPage(url: string): Promise<CdpTarget> {
    await this.enter('newPage', url);
    const t = this.add(url);
    this.active = t.id;
    return { ...t };
  }
  async activate(id: string): Promise<void> {
    await this.enter('activate', id);
    if (!this.pages.some((p) => p.id === id)) throw new Error(`no page ${id}`);
    this.active = id;
  }
  async close(id: string): Promise<void> {
    await this.enter('close', id);
    this.pages = this.pages.filter((p) => p.id !== id);
  }
  async navigate(id: string, url: string): Promise<void> {
    await this.enter('navigate', `${id} ${url}`);
    const p = this.pages.find((x) => x.id === id);
    if (p) p.url = url;
  }
  async reload(id: string): Promise<void> {
    await this.enter('reload', id);
    if (this.closing.has(id) || !this.pages.some((p) => p.id === id)) throw new CdpPageGoneError(`no page ${id} at ${this.endpoint} (it was closed)`);
  }
  async screenshot(id: string): Promise<Buffer> {
    await this.enter('screenshot', id);
    return PNG;
  }
}

function setup(opts: { callTimeoutMs?: number; startBrowser?: (o: StartChromiumOptions) => Promise<StartedChromium> } = {}) {
  const dir = freshDir();
  const transports = new Map<string, FakeTransport>();
  const transportFor = (endpoint: string) => {
    let t = transports.get(endpoint);
    if (!t) {
      t = new FakeTransport(endpoint);
      transports.set(endpoint, t);
    }
    return t;
  };
  const desk = new Desk({
    storeDir: dir,
    transportFor,
    ...(opts.startBrowser ? { startBrowser: opts.startBrowser } : {}),
    callTimeoutMs: opts.callTimeoutMs ?? 2000,
    now: () => new Date('2026-10-03T07:00:00.000Z'),
  });
  const browser = transportFor('http://127.0.0.1:9222');
  const options = (over: Partial<PrepareOptions> = {}): PrepareOptions => ({
    endpoint: 'http://127.0.0.1:9222',
    allowRemote: false,
    chromiumPath: '',
    chromiumArgs: [],
    profileDir: path.join(dir, 'profile'),
    startAllowed: false,
    ...over,
  });
  return { dir, desk, browser, transportFor, transports, options };
}

describe('Desk.prepare', () => {
  it('none: no endpoint and no chromiumPath — the caller opens the evidence inside VS Code', async () => {
    const { desk, browser, options } = setup();
    const r = await desk.prepare({ id: 'e1', url: 'file:///tmp/report.html' }, options({ endpoint: '' }));
    assert.equal(r.status, 'none');
    assert.match(r.reason ?? '', /lifeThread\.cdp\.endpoint/);
    assert.deepEqual(r.restored, []);
    assert.deepEqual(browser.calls, []);
    assert.ok(r.timings.totalMs >= 0);
  });

  it('none: the default endpoint with no browser there and chromiumPath empty — no desk browser, not a restore', async () => {
    const { desk, browser, options } = setup();
    browser.dead = true;
    const r = await desk.prepare({ id: 'e1', url: 'file:///tmp/report.html' }, options());
    assert.equal(r.status, 'none');
    assert.match(r.reason ?? '', /^no browser answers at http:\/\/127\.0\.0\.1:9222 \(connect ECONNREFUSED 127\.0\.0\.1:9222\) and lifeThread\.cdp\.chromiumPath is empty: no desk browser/);
    assert.deepEqual(browser.calls, ['version']);
    // Pages remembered while there was no browser do not make it a restore either.
    await desk.remember({ key: evidenceKey('e1'), url: 'file:///tmp/report.html', evidenceId: 'e1' });
    assert.equal((await desk.prepare(undefined, options())).status, 'none');
  });

  it('needs_restore: the browser answered earlier in this process and is gone, chromiumPath empty — the reason says so', async () => {
    const { desk, browser, options } = setup();
    assert.equal((await desk.prepare(undefined, options())).status, 'ok');
    browser.dead = true;
    const r = await desk.prepare({ id: 'e1', url: 'file:///tmp/report.html' }, options());
    assert.equal(r.status, 'needs_restore');
    assert.match(r.reason ?? '', /^the browser at http:\/\/127\.0\.0\.1:9222 is not running \(connect ECONNREFUSED 127\.0\.0\.1:9222\) and lifeThread\.cdp\.chromiumPath is empty$/);
  });

  it('needs_restore: the Chromium the desk started (desk.json) is gone and chromiumPath is empty now', async () => {
    const { desk, browser, options, dir, transportFor } = setup();
    browser.dead = true;
    (transportFor('http://127.0.0.1:41234') as FakeTransport).dead = true;
    fs.writeFileSync(path.join(dir, DESK_FILE), JSON.stringify({ schemaVersion: 1, pages: [], chromium: { pid: 4242, endpoint: 'http://127.0.0.1:41234' } }));
    const r = await desk.prepare(undefined, options());
    assert.equal(r.status, 'needs_restore');
    assert.match(r.reason ?? '', /lifeThread\.cdp\.chromiumPath is empty$/);
    const own = await desk.prepare(undefined, options({ endpoint: '', chromiumPath: '' }));
    assert.equal(own.status, 'none', 'nothing configured at all is none, whatever desk.json says');
  });

  it('needs_restore: dead browser, chromiumPath set but starting is not allowed', async () => {
    let starts = 0;
    const { desk, browser, options } = setup({
      startBrowser: async () => {
        starts++;
        throw new Error('must not start');
      },
    });
    browser.dead = true;
    const r = await desk.prepare(undefined, options({ chromiumPath: '/usr/bin/chromium', startAllowed: false }));
    assert.equal(r.status, 'needs_restore');
    assert.match(r.reason ?? '', /is not running .* and starting \/usr\/bin\/chromium is not allowed for this prepare/);
    assert.equal(starts, 0);
  });

  it('starts Chromium when the endpoint is dead and starting is allowed; remembers it in desk.json; a failed start is a reason', async () => {
    let stopped = 0;
    let seen: StartChromiumOptions | undefined;
    const { desk, browser, options, transportFor, dir } = setup({
      startBrowser: async (o) => {
        seen = o;
        return { endpoint: 'http://127.0.0.1:41234', pid: 4242, args: [], stop: async () => void stopped++ };
      },
    });
    browser.dead = true;
    const r = await desk.prepare({ id: 'e1', url: 'https://example.test/report' }, options({ chromiumPath: '/usr/bin/chromium', startAllowed: true, chromiumArgs: ['--lang=en'] }));
    assert.equal(r.status, 'prepared');
    assert.equal(r.endpoint, 'http://127.0.0.1:41234');
    assert.deepEqual(r.started, { pid: 4242 });
    assert.deepEqual(seen?.extraArgs, ['--lang=en']);
    assert.equal(seen?.profileDir, path.join(dir, 'profile'));
    const started = transportFor('http://127.0.0.1:41234') as FakeTransport;
    assert.deepEqual(started.calls.slice(0, 3), ['version', 'list', 'newPage https://example.test/report']);
    const state = JSON.parse(fs.readFileSync(path.join(dir, DESK_FILE), 'utf8')) as { chromium?: unknown };
    assert.deepEqual(state.chromium, { pid: 4242, endpoint: 'http://127.0.0.1:41234' });
    // Next prepare: the configured endpoint is still dead, the desk's own Chromium answers — no new start.
    const again = await desk.prepare({ id: 'e1', url: 'https://example.test/report' }, options({ chromiumPath: '/usr/bin/chromium', startAllowed: true }));
    assert.equal(again.status, 'ok');
    assert.equal(again.started, undefined);
    assert.equal(await desk.stopStarted(), true);
    assert.equal(stopped, 1);

    const failing = setup({ startBrowser: async () => Promise.reject(new Error('Chromium ended with exit code 1')) });
    failing.browser.dead = true;
    const f = await failing.desk.prepare(undefined, failing.options({ chromiumPath: '/opt/nope', startAllowed: true }));
    assert.equal(f.status, 'needs_restore');
    assert.match(f.reason ?? '', /starting \/opt\/nope failed: Chromium ended with exit code 1/);
  });

  it('prepared: restores two remembered pages (one closed, one never open) and opens new evidence', async () => {
    const { desk, browser, options } = setup();
    await desk.remember({ key: 'docs', url: 'http://localhost:8080/docs', title: 'Docs' });
    await desk.remember({ key: 'ci', url: 'https://ci.example.test/run/7', title: 'CI' });
    await desk.remember({ key: 'dash', url: 'https://dash.example.test/' });
    const docs = browser.add('http://localhost:8080/docs', 'Docs');
    browser.add('https://dash.example.test', 'Dash'); // same page, the browser adds the slash
    await browser.close(docs.id); // the user closed it
    browser.calls = [];

    const r = await desk.prepare({ id: 'rep-1', url: 'file:///tmp/work/report.html', title: 'Report' }, options());
    assert.equal(r.status, 'prepared');
    assert.deepEqual(r.restored, ['docs', 'ci']);
    assert.equal(r.evidencePage?.url, 'file:///tmp/work/report.html');
    assert.equal(browser.active, r.evidencePage?.id);
    assert.match(r.thumbnail ?? '', /^data:image\/png;base64,iVBOR/);
    assert.deepEqual(browser.calls, [
      'version',
      'list',
      'newPage http://localhost:8080/docs',
      'newPage https://ci.example.test/run/7',
      'newPage file:///tmp/work/report.html',
      `activate ${r.evidencePage?.id}`,
      `screenshot ${r.evidencePage?.id}`,
    ]);
    const pages = await desk.pages();
    const ev = pages.find((p) => p.key === evidenceKey('rep-1'));
    assert.deepEqual(ev, { key: 'evidence:rep-1', url: 'file:///tmp/work/report.html', title: 'Report', evidenceId: 'rep-1', lastSeenAt: '2026-10-03T07:00:00.000Z' });
    assert.ok(r.timings.connectMs <= r.timings.totalMs);
  });

  it('ok: everything already there — only refresh and activate (and the thumbnail); cdp://evidence/<id> lands on the remembered URL', async () => {
    const { desk, browser, options, dir } = setup();
    await desk.remember({ key: 'docs', url: 'http://localhost:8080/docs' });
    await desk.remember({ key: evidenceKey('rep-1'), url: 'file:///tmp/work/report.html', evidenceId: 'rep-1', title: 'Report' });
    browser.add('http://localhost:8080/docs');
    const rep = browser.add('file:///tmp/work/report.html', 'Report');
    browser.add('chrome://newtab/');
    const thumb = path.join(dir, 'thumbs', 'desk.png');
    const r = await desk.prepare({ id: 'rep-1', url: 'cdp://evidence/rep-1' }, options({ thumbnailPath: thumb }));
    assert.equal(r.status, 'ok', r.reason);
    assert.deepEqual(r.restored, []);
    assert.deepEqual(r.evidencePage, { id: rep.id, url: 'file:///tmp/work/report.html' });
    assert.deepEqual(browser.calls, ['version', 'list', `reload ${rep.id}`, `activate ${rep.id}`, `screenshot ${rep.id}`]);
    assert.equal(r.thumbnail, thumb);
    assert.deepEqual(fs.readFileSync(thumb), PNG);
    assert.equal(browser.active, rep.id);
  });

  it('needs_restore: an unknown cdp://evidence id, a refused scheme, or restoring not allowed', async () => {
    const { desk, browser, options } = setup();
    const r = await desk.prepare({ id: 'nope', url: 'cdp://evidence/nope' }, options());
    assert.equal(r.status, 'needs_restore');
    assert.match(r.reason ?? '', /cdp:\/\/evidence\/nope is not a page the desk remembers/);
    const js = await desk.prepare({ id: 'x', url: 'javascript:alert(1)' }, options());
    assert.equal(js.status, 'needs_restore');
    assert.match(js.reason ?? '', /only http, https and file pages, not javascript:/);
    await assert.rejects(desk.remember({ key: 'bad', url: 'data:text/html,hi' }), /not data:/);
    await desk.remember({ key: 'docs', url: 'http://localhost:8080/docs' });
    browser.calls = [];
    const nr = await desk.prepare(undefined, options({ restoreAllowed: false }));
    assert.equal(nr.status, 'needs_restore');
    assert.match(nr.reason ?? '', /restoring is not allowed: docs/);
    assert.ok(!browser.calls.some((c) => c.startsWith('newPage')));
  });

  it('a page that will not reopen is a warning, the rest of the desk is still prepared', async () => {
    const { desk, browser, options } = setup();
    await desk.remember({ key: 'docs', url: 'http://localhost:8080/docs' });
    browser.fail.set('newPage', new Error('net::ERR_CONNECTION_REFUSED'));
    const r = await desk.prepare(undefined, options());
    assert.equal(r.status, 'ok');
    assert.deepEqual(r.restored, []);
    assert.match(r.reason ?? '', /1 desk page\(s\) could not be restored/);
    assert.match(r.warnings?.join('\n') ?? '', /could not restore docs .*ERR_CONNECTION_REFUSED/);
  });

  it('a hanging transport call times out with a clear error instead of hanging prepare', async () => {
    const { desk, browser, options } = setup({ callTimeoutMs: 150 });
    browser.add('file:///tmp/work/report.html');
    browser.hang.add('reload');
    const t0 = Date.now();
    const r = await desk.prepare({ id: 'rep-1', url: 'file:///tmp/work/report.html' }, options());
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(r.status, 'needs_restore');
    assert.match(r.reason ?? '', /^the desk could not refresh the evidence page \(timed out\): CDP reload T1 at http:\/\/127\.0\.0\.1:9222 did not answer within 150 ms$/);

    const hung = setup({ callTimeoutMs: 150 });
    hung.browser.hang.add('version');
    const v = await hung.desk.prepare(undefined, hung.options());
    assert.equal(v.status, 'needs_restore');
    assert.match(v.reason ?? '', /is not running \(CDP version at http:\/\/127\.0\.0\.1:9222 did not answer within 150 ms\)/);
  });

  it('an evidence page that is closing when listed is skipped for another open copy, or reopened', async () => {
    const { desk, browser, options } = setup();
    const closingCopy = browser.add('file:///tmp/work/report.html');
    const liveCopy = browser.add('file:///tmp/work/report.html');
    browser.closing.add(closingCopy.id);
    browser.calls = [];
    const r = await desk.prepare({ id: 'rep-1', url: 'file:///tmp/work/report.html' }, options());
    assert.equal(r.status, 'ok', r.reason);
    assert.equal(r.evidencePage?.id, liveCopy.id);
    assert.deepEqual(browser.calls.slice(0, 5), ['version', 'list', `reload ${closingCopy.id}`, 'list', `reload ${liveCopy.id}`]);
    // The only copy is closing: the page is opened afresh.
    browser.pages = browser.pages.filter((p) => p.id === closingCopy.id);
    const r2 = await desk.prepare({ id: 'rep-1', url: 'file:///tmp/work/report.html' }, options());
    assert.equal(r2.status, 'prepared', r2.reason);
    assert.notEqual(r2.evidencePage?.id, closingCopy.id);
  });

  it('a screenshot failure is a warning, not a failed prepare', async () => {
    const { desk, browser, options } = setup();
    browser.add('file:///tmp/work/report.html');
    browser.fail.set('screenshot', new Error('Target closed'));
    const r = await desk.prepare({ id: 'rep-1', url: 'file:///tmp/work/report.html' }, options());
    assert.equal(r.status, 'ok');
    assert.equal(r.thumbnail, undefined);
    assert.match(r.warnings?.join('\n') ?? '', /no thumbnail: .*Target closed/);
  });

  it('refuses a remote endpoint unless allowRemote, naming the setting', async () => {
    const { desk, options, transports } = setup();
    const r = await desk.prepare(undefined, options({ endpoint: 'http://10.0.0.5:9222' }));
    assert.equal(r.status, 'needs_restore');
    assert.match(r.reason ?? '', /lifeThread\.cdp\.allowRemote/);
    assert.equal(transports.has('http://10.0.0.5:9222'), false);
    const ok = await desk.prepare(undefined, options({ endpoint: 'http://10.0.0.5:9222', allowRemote: true }));
    assert.equal(ok.status, 'ok');
    assert.equal(ok.endpoint, 'http://10.0.0.5:9222');
  });
});

describe('endpoint policy', () => {
  it('loopback hosts are allowed', () => {
    for (const u of ['http://127.0.0.1:9222', 'http://127.1.2.3:9222', 'http://localhost:9222', 'https://LOCALHOST:9', 'http://[::1]:9222', 'http://[::ffff:127.0.0.1]:9222', 'http://127.1:9222']) {
      const c = checkEndpoint(u, false);
      assert.equal(c.ok, true, u);
    }
    const c = checkEndpoint('http://[::1]:9222/json', false);
    assert.ok(c.ok);
    if (c.ok) assert.deepEqual({ host: c.endpoint.host, port: c.endpoint.port, url: c.endpoint.url }, { host: '::1', port: 9222, url: 'http://[::1]:9222' });
  });

  it('anything else is refused unless allowRemote; non-http is refused always', () => {
    for (const u of ['http://10.0.0.5:9222', 'http://example.com:9222', 'http://128.0.0.1:9222', 'http://localhost.evil.test:9222', 'http://[::2]:9222', 'http://0.0.0.0:9222']) {
      const c = checkEndpoint(u, false);
      assert.equal(c.ok, false, u);
      if (!c.ok) assert.match(c.reason, /set lifeThread\.cdp\.allowRemote to true/);
      assert.equal(checkEndpoint(u, true).ok, true, u);
    }
    for (const u of ['ws://127.0.0.1:9222', 'file:///tmp/x', 'not a url', 'ftp://localhost/']) {
      const c = checkEndpoint(u, true);
      assert.equal(c.ok, false, u);
      if (!c.ok) assert.match(c.reason, /lifeThread\.cdp\.endpoint/);
    }
    assert.equal(isLoopbackHost('127.300.0.1'), false);
  });
});

describe('timeouts of the real transport', () => {
  it('withTimeout rejects with CdpTimeoutError and hands a late value to onLate', async () => {
    let late: number | undefined;
    const slow = new Promise<number>((r) => setTimeout(() => r(7), 80));
    await assert.rejects(withTimeout(slow, 20, 'thing', (v) => (late = v)), (e: unknown) => e instanceof CdpTimeoutError && /thing did not answer within 20 ms/.test(e.message));
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(late, 7);
  });

  it('a socket that accepts but never answers gives a clear error within the timeout', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    try {
      const t = new ChromeRemoteTransport(`http://127.0.0.1:${port}`, { timeoutMs: 200 });
      const t0 = Date.now();
      await assert.rejects(t.version(), new RegExp(`CDP version at http://127\\.0\\.0\\.1:${port} did not answer within 200 ms`));
      await assert.rejects(t.screenshot('X', { maxWidth: 100 }), /CDP list at .* did not answer within 200 ms/);
      assert.ok(Date.now() - t0 < 2000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('a closed port fails at once', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    await new Promise((r) => server.close(r));
    await assert.rejects(new ChromeRemoteTransport(`http://127.0.0.1:${port}`).version(), /ECONNREFUSED/);
  });
});

describe('desk.json', () => {
  it('round trip: remember, update, forget; atomic (no temp files left)', async () => {
    const { desk, dir } = setup();
    assert.deepEqual(await desk.pages(), []);
    await desk.remember({ key: 'a', url: 'http://localhost:1/a', title: 'A' });
    await desk.remember({ key: 'b', url: 'file:///tmp/b.html' });
    await desk.remember({ key: 'a', url: 'http://localhost:1/a2', title: 'A2', evidenceId: 'e-a' });
    const raw = JSON.parse(fs.readFileSync(path.join(dir, DESK_FILE), 'utf8')) as unknown;
    assert.deepEqual(raw, {
      schemaVersion: 1,
      pages: [
        { key: 'b', url: 'file:///tmp/b.html', title: '', lastSeenAt: '2026-10-03T07:00:00.000Z' },
        { key: 'a', url: 'http://localhost:1/a2', title: 'A2', evidenceId: 'e-a', lastSeenAt: '2026-10-03T07:00:00.000Z' },
      ],
    });
    assert.equal(await desk.forget('b'), true);
    assert.equal(await desk.forget('b'), false);
    assert.deepEqual((await desk.pages()).map((p) => p.key), ['a']);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  });

  it('a corrupt file is reported and left alone until a write is needed, then backed up as desk.json.corrupt-<ms>', async () => {
    const { desk, dir, browser, options } = setup();
    const file = path.join(dir, DESK_FILE);
    fs.writeFileSync(file, '{"schemaVersion": 1, "pages": [ oops');
    const store = new DeskFileStore(dir);
    const read = await store.read();
    assert.equal(read.status, 'corrupt');
    assert.match(read.problem ?? '', /is not JSON/);
    assert.deepEqual(await desk.pages(), []);
    // A prepare that needs no write keeps the file byte for byte and says why there are no pages.
    const r = await desk.prepare(undefined, options());
    assert.equal(r.status, 'ok');
    assert.match(r.warnings?.join('\n') ?? '', /is not JSON/);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"schemaVersion": 1, "pages": [ oops');
    // A prepare with new evidence must remember it: the corrupt file moves aside first.
    browser.calls = [];
    const r2 = await desk.prepare({ id: 'e1', url: 'file:///tmp/e1.html' }, options());
    assert.equal(r2.status, 'prepared');
    const backups = fs.readdirSync(dir).filter((f) => /^desk\.json\.corrupt-\d+$/.test(f));
    assert.equal(backups.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, backups[0] ?? ''), 'utf8'), '{"schemaVersion": 1, "pages": [ oops');
    assert.match(r2.warnings?.join('\n') ?? '', /moved to .*desk\.json\.corrupt-\d+/);
    assert.equal((await store.read()).status, 'ok');
    assert.deepEqual((await desk.pages()).map((p) => p.key), ['evidence:e1']);
  });

  it('a file that validates badly (duplicate keys, wrong types) counts as corrupt', async () => {
    const dir = freshDir();
    const store = new DeskFileStore(dir);
    const page = { key: 'a', url: 'http://localhost/', title: '', lastSeenAt: '2026-10-03T07:00:00.000Z' };
    fs.writeFileSync(path.join(dir, DESK_FILE), JSON.stringify({ schemaVersion: 1, pages: [page, page] }));
    const r = await store.read();
    assert.equal(r.status, 'corrupt');
    assert.match(r.problem ?? '', /page keys must be unique/);
    fs.writeFileSync(path.join(dir, DESK_FILE), JSON.stringify({ schemaVersion: 1, pages: [{ ...page, lastSeenAt: 'yesterday' }] }));
    assert.match((await store.read()).problem ?? '', /pages\.0\.lastSeenAt/);
  });

  it('a newer schemaVersion is never rewritten', async () => {
    const { desk, dir } = setup();
    const file = path.join(dir, DESK_FILE);
    fs.writeFileSync(file, JSON.stringify({ schemaVersion: 2, pages: [], extra: true }));
    const r = await new DeskFileStore(dir).read();
    assert.equal(r.status, 'newer');
    assert.match(r.problem ?? '', /schemaVersion 2, newer than this version of Life Thread reads \(1\)/);
    await assert.rejects(desk.remember({ key: 'a', url: 'http://localhost/' }), /schemaVersion 2/);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { schemaVersion: 2, pages: [], extra: true });
  });
});

describe('helpers', () => {
  it('parseEvidenceUri', () => {
    assert.equal(parseEvidenceUri('cdp://evidence/rep-1'), 'rep-1');
    assert.equal(parseEvidenceUri('cdp://evidence/a%20b/'), 'a b');
    assert.equal(parseEvidenceUri('cdp://evidence/'), undefined);
    assert.equal(parseEvidenceUri('cdp://other/x'), undefined);
    assert.equal(parseEvidenceUri('https://evidence/x'), undefined);
    assert.equal(parseEvidenceUri('cdp://evidence/%E0%A4%A'), undefined);
  });

  it('chromiumArgs: --headless=new without a display, --no-sandbox as root, the offline flags, extra args last', () => {
    const base = { profileDir: '/p' };
    const headlessRoot = chromiumArgs({ ...base, display: undefined, isRoot: true, extraArgs: ['--lang=en'] });
    assert.deepEqual(headlessRoot, [
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      '--user-data-dir=/p',
      '--headless=new',
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--lang=en',
    ]);
    const shown = chromiumArgs({ ...base, display: ':0', isRoot: false, port: 9333 });
    assert.ok(!shown.includes('--headless=new'));
    assert.ok(!shown.includes('--no-sandbox'));
    assert.ok(shown.includes('--remote-debugging-port=9333'));
    assert.ok(!chromiumArgs({ ...base, display: undefined, isRoot: false, extraArgs: ['--headless'] }).includes('--headless=new'));
    assert.throws(() => chromiumArgs({ ...base, extraArgs: ['--remote-debugging-address=0.0.0.0'] }), /lifeThread\.cdp\.chromiumArgs may not contain --remote-debugging-address/);
    assert.throws(() => chromiumArgs({ ...base, extraArgs: ['--user-data-dir=/home/me/.config/chromium'] }), /--user-data-dir/);
  });
});

describe('Desk.showPage and the evidence cap', () => {
  it('showPage brings a remembered page to front by its key, keeps its key and title and does not make it evidence', async () => {
    const { desk, browser, options } = setup();
    await desk.remember({ key: 'docs', url: 'http://localhost:8080/docs', title: 'Docs' });
    await desk.remember({ key: evidenceKey('rep-1'), url: 'file:///tmp/work/report.html', evidenceId: 'rep-1' });
    const docs = browser.add('http://localhost:8080/docs', 'Docs v2');
    const rep = browser.add('file:///tmp/work/report.html', 'Report');
    browser.active = rep.id;
    const r = await desk.showPage('docs', options());
    assert.equal(r.status, 'ok', r.reason);
    assert.equal(browser.active, docs.id);
    assert.equal(r.evidencePage?.id, docs.id);
    const pages = await desk.pages();
    assert.deepEqual(pages.map((p) => p.key).sort(), ['docs', 'evidence:rep-1']);
    assert.deepEqual(pages.find((p) => p.key === 'docs'), { key: 'docs', url: 'http://localhost:8080/docs', title: 'Docs', lastSeenAt: '2026-10-03T07:00:00.000Z' }, 'a remembered title is kept');
    const gone = await desk.showPage('nope', options());
    assert.equal(gone.status, 'needs_restore');
    assert.equal(gone.reason, 'the desk remembers no page "nope"');
  });

  it('at most 20 evidence pages are remembered: a new one forgets the one shown longest ago; other pages stay', async () => {
    const { desk, dir, options } = setup();
    const pages = Array.from({ length: 20 }, (_, i) => ({ key: evidenceKey(`e${i}`), url: `file:///tmp/work/e${i}.html`, title: '', evidenceId: `e${i}`, lastSeenAt: '2026-09-01T00:00:00.000Z' }));
    fs.writeFileSync(path.join(dir, DESK_FILE), JSON.stringify({ schemaVersion: 1, pages: [{ key: 'docs', url: 'http://localhost:8080/docs', title: '', lastSeenAt: '2026-01-01T00:00:00.000Z' }, ...pages] }));
    const evidenceKeys = async () => (await desk.pages()).map((p) => p.key).filter((k) => k.startsWith('evidence:'));
    // e1 is shown again: it becomes the newest.
    assert.equal((await desk.prepare({ id: 'e1', url: 'cdp://evidence/e1' }, options())).status, 'prepared');
    assert.equal((await evidenceKeys()).at(-1), evidenceKey('e1'));
    const r = await desk.prepare({ id: 'new', url: 'file:///tmp/work/new.html' }, options());
    assert.equal(r.status, 'prepared', r.reason);
    const keys = await evidenceKeys();
    assert.equal(keys.length, 20);
    assert.ok(!keys.includes(evidenceKey('e0')), 'the evidence page shown longest ago is forgotten');
    assert.ok(keys.includes(evidenceKey('e1')), 'one shown again is kept');
    assert.equal(keys.at(-1), evidenceKey('new'));
    assert.ok((await desk.pages()).some((p) => p.key === 'docs'), 'a page that is not evidence is never dropped by the cap');
  });
});

describe('one page per URL (each run of a job gives its report a new evidence id)', () => {
  it('the same report shown under a new id is one page, the newest id; the older id\'s landing still opens it', async () => {
    const { desk, browser, options } = setup();
    const url = 'file:///tmp/work/report/index.html';
    const first = await desk.prepare({ id: 'job-a-report', url, title: 'report/index.html' }, options());
    assert.equal(first.status, 'prepared', first.reason);
    const second = await desk.prepare({ id: 'job-b-report', url, title: 'report/index.html' }, options());
    assert.equal(second.status, 'ok', 'the page was open: refreshed, not opened again');
    assert.equal(browser.pages.filter((p) => p.url === url).length, 1);
    let pages = await desk.pages();
    assert.deepEqual(
      pages.map((p) => [p.key, p.evidenceId, p.aliases]),
      [['evidence:job-b-report', 'job-b-report', ['job-a-report']]],
    );
    await desk.prepare({ id: 'job-c-report', url, title: 'report/index.html' }, options());
    pages = await desk.pages();
    assert.deepEqual(pages.map((p) => [p.evidenceId, p.aliases]), [['job-c-report', ['job-b-report', 'job-a-report']]]);
    // The oldest run's landing brings the same page to front and keeps it one page under the newest id.
    const other = browser.add('http://localhost:8080/other');
    browser.active = other.id;
    const old = await desk.prepare({ id: 'job-a-report', url: 'cdp://evidence/job-a-report' }, options());
    assert.equal(old.status, 'ok', old.reason);
    assert.equal(browser.pages.find((p) => p.id === browser.active)?.url, url);
    pages = await desk.pages();
    assert.deepEqual(pages.map((p) => [p.evidenceId, p.aliases]), [['job-c-report', ['job-b-report', 'job-a-report']]]);
    // remember() (no browser) merges the same way.
    await desk.remember({ key: evidenceKey('job-d-report'), url, evidenceId: 'job-d-report' });
    pages = await desk.pages();
    assert.deepEqual(pages.map((p) => [p.evidenceId, p.aliases]), [['job-d-report', ['job-c-report', 'job-b-report', 'job-a-report']]]);
  });

  it('a desk.json written with the same URL several times reads as one page and restores one tab', async () => {
    const { desk, dir, browser, options } = setup();
    const url = 'file:///tmp/work/report/index.html';
    const row = (id: string, at: string) => ({ key: evidenceKey(id), url, title: 'report', evidenceId: id, lastSeenAt: at });
    fs.writeFileSync(
      path.join(dir, DESK_FILE),
      JSON.stringify({ schemaVersion: 1, pages: [row('r1', '2026-10-01T00:00:00.000Z'), { key: 'docs', url: 'http://localhost:8080/docs', title: '', lastSeenAt: '2026-10-01T00:00:00.000Z' }, row('r2', '2026-10-02T00:00:00.000Z'), row('r3', '2026-10-03T00:00:00.000Z')] }),
    );
    assert.deepEqual((await desk.pages()).map((p) => [p.key, p.aliases]), [['docs', undefined], ['evidence:r3', ['r2', 'r1']]]);
    const r = await desk.prepare(undefined, options());
    assert.equal(r.status, 'prepared');
    assert.deepEqual(r.restored, ['docs', 'evidence:r3']);
    assert.equal(browser.pages.filter((p) => p.url === url).length, 1);
  });
});

describe('the pulse\'s desk at delivery (deskAtDelivery)', () => {
  it('what the job-finish pipeline did counts; the landing\'s re-prepare adds a restore or a failure', () => {
    assert.equal(deskAtDelivery('prepared', 'ok'), 'prepared', 'the pipeline opened the page; the landing found it there');
    assert.equal(deskAtDelivery('ok', 'ok'), 'ok');
    assert.equal(deskAtDelivery('ok', 'prepared'), 'prepared', 'the page was closed meanwhile and restored');
    assert.equal(deskAtDelivery('prepared', 'needs_restore'), 'needs_restore');
    assert.equal(deskAtDelivery('none', 'prepared'), 'prepared', 'the caller\'s own landing URL: only the landing prepared the desk');
    assert.equal(deskAtDelivery(undefined, 'ok'), 'ok');
  });
});
