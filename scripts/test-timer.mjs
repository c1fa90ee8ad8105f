// `npm run test:timer`: the OS timer for real (test/timer/): Debian's cron daemon with a throw-away
// user's crontab, and systemd-analyze on the systemd units. Installs what it needs with apt-get when
// it is missing, as scripts/setup-host.sh does (as root, or with sudo); the tests themselves need no
// network. About 3 minutes, most of it waiting for cron's minute. Ends with one closing line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const sudo = process.getuid?.() === 0 ? [] : ['sudo'];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  return r.status ?? 1;
}

function finish(passed, failed, why) {
  if (why) console.log(`test:timer: ${why}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || why ? 1 : 0);
}

// What the tests need, by the file that shows it is there, and the Debian package that brings it.
const need = [
  ['/usr/sbin/cron', 'cron'],
  ['/usr/bin/systemd-analyze', 'systemd'],
].filter(([file]) => !existsSync(file)).map(([, pkg]) => pkg);
if (need.length > 0) {
  console.log(`test:timer: installing ${need.join(', ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (...args) => {
    const argv = [...sudo, 'apt-get', ...args];
    return run(argv[0], argv.slice(1), { env });
  };
  const install = () => apt('install', '-y', '--no-install-recommends', ...need);
  // Without the package lists (a fresh machine) the install fails; they are fetched only then.
  if (install() !== 0 && (apt('update') !== 0 || install() !== 0)) finish(0, 1, `could not install ${need.join(', ')}`);
}

// .ci/run builds once and runs this beside test:chaos: two builds writing dist/ at once could tear a bundle.
if (!process.env.LIFE_THREAD_TEST_BUILT && run('node', ['scripts/build.mjs']) !== 0) finish(0, 1, 'the build failed');
mkdirSync(join(root, 'test-results'), { recursive: true });
const dir = join(root, 'out', 'test', 'timer');
const files = readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => join('out', 'test', 'timer', f));
const t0 = Date.now();
const r = spawnSync('node', ['--test', '--test-concurrency=1', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${join(root, 'test-results', 'timer.tap')}`, ...files], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
console.log(`test:timer: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
let tap = '';
try {
  tap = readFileSync(join(root, 'test-results', 'timer.tap'), 'utf8');
} catch {
  // no report: counted as a failure below
}
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
finish(count('pass'), count('fail') + (r.status !== 0 && count('fail') === 0 ? 1 : 0));
