// `npm start`: builds, sets up the test host if needed, and serves the IDE (code-server) on 127.0.0.1
// with Life Thread installed and a demo workspace open. Prints the URL; Ctrl+C stops it cleanly.
// While one runs, another `npm start` in the same checkout prints the first one's URL and pid and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { claimStart, isLive } from './startLock.mjs';

const root = new URL('..', import.meta.url).pathname;
const stateDir = join(root, '.tools', 'start');
mkdirSync(stateDir, { recursive: true });
const claim = claimStart(join(stateDir, 'running.json'));
if (!claim.claimed) {
  const { pid, url, startedAt } = claim.holder;
  const since = startedAt ? `, since ${new Date(startedAt).toLocaleString()}` : '';
  if (url) console.log(`Life Thread is already running here (npm start, pid ${pid}${since}) at:\n\n  ${url}\n\nStop it with Ctrl+C in its terminal, or: kill ${pid}`);
  else console.log(`Another npm start (pid ${pid}${since}) is still setting up here; its terminal prints the URL when ready. Stop it with: kill ${pid}`);
  process.exit(0);
}
process.on('exit', claim.release);
const userDataDir = join(stateDir, 'user-data');
const orphan = claim.stale?.serverPid;
// A killed npm start leaves its code-server (its own process group) serving the same user data: stop it first.
if (Number.isInteger(orphan) && isLive(orphan, (args) => args.includes(userDataDir))) {
  console.log(`start: stopping the code-server (pid ${orphan}) left running by an npm start that was killed`);
  await stopGroup(orphan);
  const socketDir = claim.stale.socketDir;
  if (typeof socketDir === 'string' && /^\/.*\/lt-cs-[^/]+$/.test(socketDir)) rmSync(socketDir, { recursive: true, force: true });
}
let server;
let serverStarting = false;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  if (serverStarting) return; // stopped as soon as it answers, below
  if (!server) process.exit(130);
  console.log('\nstopping…');
  await server.stop();
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);

const sh = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
sh('bash', ['scripts/setup-host.sh']);
sh('node', ['scripts/build.mjs']);

const require = createRequire(import.meta.url);
const { startCodeServer, freePort } = require(join(root, 'out/test/runner/codeServer.js'));
const { ownExtension } = require(join(root, 'out/test/runner/install.js'));

const workspace = join(stateDir, 'workspace');
{
  // Its own repository with a small history and a sample topic, so the demo's Handover ops describe the demo, not the project around it.
  const { ensureDemoWorkspace } = require(join(root, 'out/test/runner/demoWorkspace.js'));
  const demo = await ensureDemoWorkspace(workspace);
  if (demo.action === 'rebuilt') console.log(`start: the demo changed since ${workspace} was made: made it afresh (the old one is at ${demo.oldKeptAt})`);
}
const wantedPort = Number(process.env.PORT || process.env.LIFE_THREAD_PORT || 8080);
const port = await isFree(wantedPort) ? wantedPort : await freePort();

serverStarting = true;
console.log(`start: starting code-server on 127.0.0.1:${port}…`);
const t0 = Date.now();
const waiting = setInterval(() => console.log(`start: starting code-server, ${Math.round((Date.now() - t0) / 1000)} s (waiting for it to answer)`), 10_000);
server = await startCodeServer({
  stateDir,
  port,
  installExtensions: [ownExtension()],
  settings: { 'git.openRepositoryInParentFolders': 'never', ...deskSettings() },
  log: (l) => { if (process.env.LIFE_THREAD_VERBOSE) console.log(l); },
});
serverStarting = false;
clearInterval(waiting);
if (stopping) {
  await server.stop();
  process.exit(130);
}
const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
claim.publish({ url, port, workspace, serverPid: server.process.pid, socketDir: server.socketDir });
console.log(`\nLife Thread is running in VS Code (code-server) at:\n\n  ${url}\n\nDemo workspace: ${workspace}\nStore: ${join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread')}\nPress Ctrl+C to stop.`);

server.process.once('exit', (code) => {
  if (!stopping) {
    console.error(`code-server exited (${code})`);
    process.exit(1);
  }
});

/**
 * The desk works in the demo: Life Thread starts Debian's Chromium (installed by setup-host.sh), headless,
 * so the panel's thumbnail shows its pages. A chromiumPath the user set in the demo's settings is kept.
 */
function deskSettings() {
  const chromium = '/usr/bin/chromium';
  let own = {};
  try {
    own = JSON.parse(readFileSync(join(userDataDir, 'User', 'settings.json'), 'utf8'));
  } catch {
    // no settings yet
  }
  if (typeof own === 'object' && own !== null && 'lifeThread.cdp.chromiumPath' in own) return {};
  return existsSync(chromium) ? { 'lifeThread.cdp.chromiumPath': chromium } : {};
}

/** SIGTERM to the process group, SIGKILL after 5 s. */
async function stopGroup(pgid) {
  const signal = (s) => {
    try {
      process.kill(-pgid, s);
      return true;
    } catch {
      return false;
    }
  };
  signal('SIGTERM');
  for (let waited = 0; waited < 5000; waited += 100) {
    if (!signal(0)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  signal('SIGKILL');
}

async function isFree(p) {
  const net = await import('node:net');
  return new Promise((res) => {
    const s = net.createServer();
    s.once('error', () => res(false));
    s.listen(p, '127.0.0.1', () => s.close(() => res(true)));
  });
}
