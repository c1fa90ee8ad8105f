// `npm start`: builds, sets up the test host if needed, and serves the IDE (code-server) on 127.0.0.1
// with Life Thread installed and a demo workspace open. Prints the URL; Ctrl+C stops it cleanly.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const sh = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
sh('bash', ['scripts/setup-host.sh']);
sh('node', ['scripts/build.mjs']);

const require = createRequire(import.meta.url);
const { startCodeServer, freePort } = require(join(root, 'out/test/runner/codeServer.js'));
const { ownExtension } = require(join(root, 'out/test/runner/install.js'));

const stateDir = join(root, '.tools', 'start');
const workspace = join(stateDir, 'workspace');
if (!existsSync(workspace)) {
  mkdirSync(stateDir, { recursive: true });
  cpSync(join(root, 'demo'), workspace, { recursive: true });
  // Its own repository, so the demo's Handover ops describe the demo, not the project around it.
  const git = (...args) => spawnSync('git', ['-c', 'user.name=Life Thread demo', '-c', 'user.email=demo@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, stdio: 'ignore' });
  if (git('init', '-q').status === 0) {
    git('add', '-A');
    git('commit', '-q', '-m', 'Life Thread demo workspace');
  }
}
const wantedPort = Number(process.env.PORT || process.env.LIFE_THREAD_PORT || 8080);
const port = await isFree(wantedPort) ? wantedPort : await freePort();

const server = await startCodeServer({
  stateDir,
  port,
  installExtensions: [ownExtension()],
  settings: { 'git.openRepositoryInParentFolders': 'never' },
  log: (l) => { if (process.env.LIFE_THREAD_VERBOSE) console.log(l); },
});
const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
console.log(`\nLife Thread is running in VS Code (code-server) at:\n\n  ${url}\n\nDemo workspace: ${workspace}\nStore: ${join(server.userDataDir, 'User', 'globalStorage', 'lifethread.life-thread')}\nPress Ctrl+C to stop.`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping…');
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
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
