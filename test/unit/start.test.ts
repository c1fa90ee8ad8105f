/**
 * `npm start` while another runs: `node scripts/start.mjs` in a copy of the project whose set-up script is a
 * stand-in (it prints a line and fails), so each case shows whether the start went past its record or stopped
 * at it. A live start is a process whose command line names start.mjs, as `npm start`'s does.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO } from './helpers/cliHarness';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-start-');
const SET_UP_RAN = 'stand-in set-up ran';
const holders: ChildProcess[] = [];
after(() => {
  for (const h of holders) h.kill('SIGKILL');
});

/** A project with the real start scripts and a set-up that says it ran, waits `FAKE_SETUP_SECONDS`, and exits 7. */
function project(): { root: string; record: string } {
  const root = dirs.freshDir();
  fs.mkdirSync(path.join(root, 'scripts'));
  for (const f of ['start.mjs', 'startLock.mjs']) fs.copyFileSync(path.join(REPO, 'scripts', f), path.join(root, 'scripts', f));
  fs.writeFileSync(path.join(root, 'scripts', 'setup-host.sh'), `echo "${SET_UP_RAN}"; sleep "\${FAKE_SETUP_SECONDS:-0}"; exit 7\n`);
  fs.mkdirSync(path.join(root, '.tools', 'start'), { recursive: true });
  return { root, record: path.join(root, '.tools', 'start', 'running.json') };
}

interface Run {
  code: number | null;
  stdout: string;
}

function start(root: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** A long-lived process whose command line ends in start.mjs, like a running `npm start`. */
function liveStart(): number {
  const h = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'scripts/start.mjs'], { stdio: 'ignore' });
  holders.push(h);
  assert.ok(h.pid);
  return h.pid;
}

async function deadPid(): Promise<number> {
  const c = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => c.on('exit', r));
  assert.ok(c.pid);
  return c.pid;
}

describe('npm start: one per checkout', () => {
  it('with no record it claims one, runs the set-up, and removes its record when it ends (here: the set-up fails)', async () => {
    const p = project();
    const r = await start(p.root);
    assert.equal(r.code, 7);
    assert.ok(r.stdout.includes(SET_UP_RAN), r.stdout);
    assert.equal(fs.existsSync(p.record), false);
  });

  it('while one runs, a second prints its URL and pid, exits 0, and leaves its record alone', async () => {
    const p = project();
    const pid = liveStart();
    const url = 'http://127.0.0.1:8080/?folder=%2Fsomewhere%2Fworkspace';
    const record = JSON.stringify({ pid, startedAt: new Date().toISOString(), url, port: 8080 });
    fs.writeFileSync(p.record, record);
    const r = await start(p.root);
    assert.equal(r.code, 0);
    assert.ok(!r.stdout.includes(SET_UP_RAN), r.stdout);
    assert.match(r.stdout, new RegExp(`already running here \\(npm start, pid ${pid}, since .*\\) at:\\n\\n  ${url.replace(/[.?]/g, '\\$&')}\\n`));
    assert.ok(r.stdout.includes(`kill ${pid}`), r.stdout);
    assert.equal(fs.readFileSync(p.record, 'utf8'), record);
  });

  it('while one is still setting up (no URL yet), a second says so with its pid and exits 0', async () => {
    const p = project();
    const pid = liveStart();
    fs.writeFileSync(p.record, JSON.stringify({ pid, startedAt: new Date().toISOString() }));
    const r = await start(p.root);
    assert.equal(r.code, 0);
    assert.ok(!r.stdout.includes(SET_UP_RAN), r.stdout);
    assert.match(r.stdout, new RegExp(`^Another npm start \\(pid ${pid}, since .*\\) is still setting up here`));
  });

  it('a record left by a killed start, by a recycled pid of another program, or a garbled one does not block', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    holders.push(other);
    assert.ok(other.pid);
    for (const content of [JSON.stringify({ pid: await deadPid(), url: 'http://127.0.0.1:8080/' }), JSON.stringify({ pid: other.pid, url: 'http://127.0.0.1:8080/' }), '{"pid": 12', '']) {
      const p = project();
      fs.writeFileSync(p.record, content);
      const r = await start(p.root);
      assert.equal(r.code, 7, `record ${content}: ${r.stdout}`);
      assert.ok(r.stdout.includes(SET_UP_RAN), `record ${content}: ${r.stdout}`);
      assert.equal(fs.existsSync(p.record), false, `record ${content}: removed at the end`);
    }
  });

  it("a killed start's code-server, still serving the same user data, is stopped before the next start; an unrelated process is not", async () => {
    const p = project();
    const userData = path.join(p.root, '.tools', 'start', 'user-data');
    // Stand-ins for code-server: their own process groups, as startCodeServer spawns it.
    const server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', '--user-data-dir', userData], { stdio: 'ignore', detached: true });
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', '--user-data-dir', '/elsewhere/user-data'], { stdio: 'ignore', detached: true });
    holders.push(server, unrelated);
    assert.ok(server.pid && unrelated.pid);
    const serverGone = new Promise((r) => server.on('exit', r));
    const socketDir = path.join(p.root, 'lt-cs-orphan');
    fs.mkdirSync(socketDir);
    fs.writeFileSync(p.record, JSON.stringify({ pid: await deadPid(), url: 'http://127.0.0.1:8080/', serverPid: server.pid, socketDir }));
    const r = await start(p.root);
    assert.match(r.stdout, new RegExp(`^start: stopping the code-server \\(pid ${server.pid}\\) left running by an npm start that was killed\n`));
    assert.equal(r.code, 7);
    assert.ok(r.stdout.includes(SET_UP_RAN), r.stdout);
    await serverGone;
    assert.equal(fs.existsSync(socketDir), false, 'its socket dir is removed');

    const q = project();
    fs.writeFileSync(q.record, JSON.stringify({ pid: await deadPid(), url: 'http://127.0.0.1:8080/', serverPid: unrelated.pid }));
    const again = await start(q.root);
    assert.equal(again.code, 7);
    assert.ok(!again.stdout.includes('stopping the code-server'), again.stdout);
    assert.doesNotThrow(() => process.kill(unrelated.pid ?? 0, 0), 'the unrelated process lives');
  });

  it('two starts at once: one sets up, the other points to it', async () => {
    const p = project();
    const [a, b] = await Promise.all([start(p.root, { FAKE_SETUP_SECONDS: '2' }), start(p.root, { FAKE_SETUP_SECONDS: '2' })]);
    const ran = [a, b].filter((r) => r.stdout.includes(SET_UP_RAN));
    const told = [a, b].filter((r) => /^Another npm start \(pid \d+, since .*\) is still setting up here/.test(r.stdout));
    assert.equal(ran.length, 1, `${a.stdout}\n---\n${b.stdout}`);
    assert.equal(told.length, 1, `${a.stdout}\n---\n${b.stdout}`);
    assert.equal(ran[0]?.code, 7);
    assert.equal(told[0]?.code, 0);
    assert.equal(fs.existsSync(p.record), false);
  });
});
