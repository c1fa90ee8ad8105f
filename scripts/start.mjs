// `npm start`: builds, sets up the test host if needed, and serves the IDE (code-server) on 127.0.0.1
// with Life Thread installed and a demo workspace open. Prints the URL; Ctrl+C stops it cleanly.
// While one runs, another `npm start` in the same checkout prints the first one's URL and pid and exits 0.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { claimStart } from './startLock.mjs';

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
if (!existsSync(workspace)) cpSync(join(root, 'demo'), workspace, { recursive: true });
const wantedPort = Number(process.env.PORT || process.env.LIFE_THREAD_PORT || 8080);
const port = await isFree(wantedPort) ? wantedPort : await freePort();

serverStarting = true;
server = await startCodeServer({
  stateDir,
  port,
  installExtensions: [ownExtension()],
  settings: { 'git.openRepositoryInParentFolders': 'never' },
  log: (l) => { if (process.env.LIFE_THREAD_VERBOSE) console.log(l); },
});
serverStarting = false;
if (stopping) {
  await server.stop();
  process.exit(130);
}
const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
claim.publish({ url, port, workspace });
console.log(`\nLife Thread is running in VS Code (code-server) at:\n\n  ${url}\n\nDemo workspace: ${workspace}\nStore: ${join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread')}\nPress Ctrl+C to stop.`);

server.process.once('exit', (code) => {
  if (!stopping) {
    console.error(`code-server exited (${code})`);
    process.exit(1);
  }
});

async function isFree(p) {
  const net = await import('node:net');
  return new Promise((res) => {
    const s = net.createServer();
    s.once('error', () => res(false));
    s.listen(p, '127.0.0.1', () => s.close(() => res(true)));
  });
}
