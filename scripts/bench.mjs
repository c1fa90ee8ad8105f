// `npm run bench`: set up the host, build, and run test/bench (see test/bench/run.ts).
import { spawnSync } from 'node:child_process';
const root = new URL('..', import.meta.url).pathname;
for (const [cmd, args] of [['bash', ['scripts/setup-host.sh']], ['node', ['scripts/build.mjs']], ['node', ['out/test/bench/run.js', ...process.argv.slice(2)]]]) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
