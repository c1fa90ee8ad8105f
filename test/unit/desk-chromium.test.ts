/**
 * The desk against the real Debian Chromium (/usr/bin/chromium, or LIFE_THREAD_CHROMIUM), headless,
 * one browser at a time, each in its own temp profile with its own HOME/TMPDIR: start, remember two
 * file:// pages, close one, prepare with a report page as evidence (prepared: the closed page back,
 * the report open and in front, a PNG thumbnail), prepare again (ok), stop (no process left). Also the
 * desk starting Chromium by itself when the endpoint is dead.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ChromeRemoteTransport } from '../../src/node/cdpTransport';
import { startChromium, type StartedChromium } from '../../src/node/desk/chromium';
import { processGroupAlive } from '../../src/node/desk/chromiumProcesses';
import { Desk } from '../../src/node/desk/desk';
import type { PrepareOptions } from '../../src/node/desk/prepare';

const CHROMIUM = process.env.LIFE_THREAD_CHROMIUM || '/usr/bin/chromium';
const missing = fs.existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium, or set LIFE_THREAD_CHROMIUM)`;

let root = '';
let running: StartedChromium | undefined;
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lt-desk-chromium-'));
});
after(async () => {
  if (running) await running.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function page(name: string, body: string): string {
  const file = path.join(root, 'pages', `${name}.html`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `<!doctype html><title>${name}</title><body style="font:20px sans-serif;background:#fff"><h1>${name}</h1><p>${body}</p></body>`);
  return pathToFileURL(file).href;
}

/** Processes whose command line mentions `needle` (the profile dir), zombies excluded. */
function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) continue;
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(needle)) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function pngInfo(buf: Buffer): { width: number; height: number } {
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(buf.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('desk on a real Chromium', { skip: missing }, () => {
  it('startChromium → remember, close one, prepare (prepared) → prepare (ok) → stop leaves nothing', async () => {
    const profileDir = path.join(root, 'profile-1');
    const t0 = Date.now();
    const started = await startChromium({ chromiumPath: CHROMIUM, profileDir, display: undefined });
    running = started;
    const startMs = Date.now() - t0;
    assert.match(started.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(started.args.includes('--headless=new'), 'no display → --headless=new');
    if (process.getuid?.() === 0) assert.ok(started.args.includes('--no-sandbox'), 'root → --no-sandbox');
    assert.ok(started.args.includes(`--user-data-dir=${profileDir}`));
    assert.ok(fs.existsSync(path.join(profileDir, '.desk-env', 'home')), 'its own HOME under the profile');

    const transport = new ChromeRemoteTransport(started.endpoint);
    assert.match((await transport.version()).browser, /Chrom/);
    const desk = new Desk({ storeDir: path.join(root, 'store-1') });
    const notesUrl = page('notes', 'the notes page');
    const logUrl = page('log', 'the build log');
    const reportUrl = page('report', 'REPORT: 3 passed, 1 failed');
    const notes = await transport.newPage(notesUrl);
    const log = await transport.newPage(logUrl);
    await desk.remember({ key: 'notes', url: notesUrl, title: 'notes' });
    await desk.remember({ key: 'log', url: logUrl, title: 'log' });
    await transport.close(log.id);
    assert.ok(!(await transport.list()).some((t) => t.url === logUrl));

    const thumbnailPath = path.join(root, 'store-1', 'desk-thumbnail.png');
    const options: PrepareOptions = {
      endpoint: started.endpoint,
      allowRemote: false,
      chromiumPath: '',
      chromiumArgs: [],
      profileDir,
      startAllowed: false,
      thumbnailPath,
    };
    const r = await desk.prepare({ id: 'rep-1', url: reportUrl, title: 'Report' }, options);
    assert.equal(r.status, 'prepared', r.reason);
    assert.deepEqual(r.restored, ['log']);
    assert.equal(r.warnings, undefined);
    const targets = await transport.list();
    const report = targets.find((t) => t.url === reportUrl);
    assert.ok(report, 'report page open');
    assert.equal(r.evidencePage?.id, report.id);
    const restoredLog = targets.find((t) => t.url === logUrl);
    assert.ok(restoredLog, 'closed page restored');
    assert.ok(targets.some((t) => t.id === notes.id), 'the open page was left alone');
    assert.equal(targets.filter((t) => t.url === notesUrl).length, 1, 'no duplicate of an open page');
    // In front: the report page is the visible one, the others hidden.
    assert.equal(await transport.evaluate(report.id, 'document.visibilityState'), 'visible');
    assert.equal(await transport.evaluate(notes.id, 'document.visibilityState'), 'hidden');
    assert.equal(await transport.evaluate(restoredLog.id, 'document.visibilityState'), 'hidden');
    assert.equal(await transport.evaluate(report.id, 'document.querySelector("p").textContent'), 'REPORT: 3 passed, 1 failed');
    assert.equal(r.thumbnail, thumbnailPath);
    const png = fs.readFileSync(thumbnailPath);
    const info = pngInfo(png);
    assert.ok(png.length > 1000, `thumbnail is ${png.length} bytes`);
    assert.ok(info.width > 100 && info.width <= 480, `thumbnail is ${info.width}×${info.height}`);

    // Bring another page to front, then prepare again with the landing URI: everything is there.
    await transport.activate(notes.id);
    assert.equal(await transport.evaluate(report.id, 'document.visibilityState'), 'hidden');
    const again = await desk.prepare({ id: 'rep-1', url: 'cdp://evidence/rep-1' }, options);
    assert.equal(again.status, 'ok', again.reason);
    assert.deepEqual(again.restored, []);
    assert.equal(again.evidencePage?.id, report.id);
    assert.equal(await transport.evaluate(report.id, 'document.visibilityState'), 'visible');
    assert.equal((await transport.list()).length, targets.length, 'no page opened the second time');
    // Evidence whose file is gone: a clear reason, and no blank tab left behind.
    const before = (await transport.list()).length;
    const gone = await desk.prepare({ id: 'rep-gone', url: pathToFileURL(path.join(root, 'pages', 'deleted.html')).href }, options);
    assert.equal(gone.status, 'needs_restore');
    assert.match(gone.reason ?? '', /could not open the evidence page \(failed\): navigation to file:.*deleted\.html failed: net::ERR_FILE_NOT_FOUND/);
    assert.equal((await transport.list()).length, before);
    console.log(`# chromium start ${startMs} ms; prepare ${r.timings.totalMs} ms (connect ${r.timings.connectMs}); again ${again.timings.totalMs} ms; thumbnail ${png.length} bytes ${info.width}×${info.height}`);

    await started.stop();
    running = undefined;
    assert.equal(processGroupAlive(started.pid), false);
    assert.deepEqual(processesMentioning(profileDir), []);
    await assert.rejects(transport.version(), /ECONNREFUSED/);
    const dead = await desk.prepare({ id: 'rep-1', url: 'cdp://evidence/rep-1' }, options);
    assert.equal(dead.status, 'needs_restore');
    assert.match(dead.reason ?? '', /is not running .*lifeThread\.cdp\.chromiumPath is empty/);
  });

  it('the desk starts Chromium itself when the endpoint is dead and starting is allowed', async () => {
    const profileDir = path.join(root, 'profile-2');
    const desk = new Desk({ storeDir: path.join(root, 'store-2') });
    const reportUrl = page('report-2', 'second report');
    const options: PrepareOptions = {
      endpoint: 'http://127.0.0.1:9', // discard port: nothing listens
      allowRemote: false,
      chromiumPath: CHROMIUM,
      chromiumArgs: ['--window-size=1024,768'],
      profileDir,
      startAllowed: true,
    };
    const r = await desk.prepare({ id: 'rep-2', url: reportUrl }, options);
    try {
      assert.equal(r.status, 'prepared', r.reason);
      assert.ok(r.started?.pid);
      assert.match(r.endpoint ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(r.thumbnail ?? '', /^data:image\/png;base64,/);
      assert.ok(desk.started?.args.includes('--window-size=1024,768'));
      // The next prepare finds the desk's own Chromium through desk.json: no second start.
      const again = await desk.prepare({ id: 'rep-2', url: 'cdp://evidence/rep-2' }, options);
      assert.equal(again.status, 'ok', again.reason);
      assert.equal(again.started, undefined);
    } finally {
      await desk.stopStarted();
    }
    assert.equal(processGroupAlive(r.started?.pid ?? 0), false);
    assert.deepEqual(processesMentioning(profileDir), []);
    assert.equal((await desk.pages()).length, 1);
  });

  it('a profile at a long path (a deep home or checkout) starts: the sockets live in a short temp dir, removed at stop', async () => {
    const profileDir = path.join(root, 'home-of-someone-with-a-long-name', '.config', 'Code', 'User', 'globalStorage', 'lifethread.life-thread', 'desk-profile');
    const socketDirs = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('lt-chromium-'));
    const before = socketDirs();
    const started = await startChromium({ chromiumPath: CHROMIUM, profileDir, display: undefined });
    running = started;
    assert.match((await new ChromeRemoteTransport(started.endpoint).version()).browser, /Chrom/);
    assert.equal(socketDirs().length, before.length + 1, 'one socket dir while it runs');
    await started.stop();
    running = undefined;
    assert.deepEqual(socketDirs(), before, 'the socket dir is removed at stop');
  });

  it('a Chromium path that does not exist gives a clear error', async () => {
    await assert.rejects(
      startChromium({ chromiumPath: path.join(root, 'no-such-chromium'), profileDir: path.join(root, 'profile-3'), display: undefined }),
      /lifeThread\.cdp\.chromiumPath: cannot start .*no-such-chromium: spawn .* ENOENT/,
    );
  });
});
