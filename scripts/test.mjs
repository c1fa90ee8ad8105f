// `npm test`: set up the host tools, build, type-check, lint, unit tests (plain Node), the host suites
// (inside a real VS Code extension host) and the browser-driven UI test; ends with one closing line.
// Usage: node scripts/test.mjs [unit|host|e2e|static] ...   (no argument: everything)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const only = new Set(process.argv.slice(2));
const want = (step) => only.size === 0 || only.has(step);
let passed = 0;
let failed = 0;
const failures = [];
// Titles of failed tests, printed again at the end: CI keeps only the tail of a long run's output.
const failedTests = new Set();

function files(dir, re) {
  let out = [];
  let names = [];
  try { names = readdirSync(dir); } catch { return out; }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out = out.concat(files(p, re));
    else if (re.test(n)) out.push(p);
  }
  return out.sort();
}

/** Runs a command, streams its output, and returns its exit code and output. */
function run(label, cmd, args, opts = {}) {
  return new Promise((resolve) => {
    console.log(`\n── ${label} ──`);
    const t0 = Date.now();
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' }, ...opts });
    let output = '';
    const onData = (b) => { const s = b.toString(); output += s; process.stdout.write(s); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => {
      console.log(`── ${label}: ${code === 0 ? 'ok' : `exit ${code}`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      resolve({ code: code ?? 1, output });
    });
  });
}

function countTap(output) {
  const p = /^# pass (\d+)$/m.exec(output);
  const f = /^# fail (\d+)$/m.exec(output);
  return { p: p ? Number(p[1]) : 0, f: f ? Number(f[1]) : 0 };
}

function countPlain(output) {
  const all = [...output.matchAll(/^(\d+) passed, (\d+) failed$/gm)];
  const last = all.at(-1);
  return last ? { p: Number(last[1]), f: Number(last[2]) } : { p: 0, f: 0 };
}

function record(label, code, counts) {
  passed += counts.p;
  failed += counts.f;
  if (code !== 0) {
    failures.push(label);
    if (counts.f === 0) failed += 1; // a step that failed without a counted test still fails the run
  }
}

/** Mocha's `[suite/phase]   1) title` (host suites), TAP's `not ok 3 - title` (browser tests) and the spec reporter's `✖ title (12ms)` (unit). */
function noteFailedTests(output) {
  for (const m of output.matchAll(/^(\[[^\]\s]+\])\s+\d+\) (.+)$/gm)) failedTests.add(`${m[1]} ${m[2].trim()}`);
  for (const m of output.matchAll(/^\s*not ok \d+ - (.+)$/gm)) failedTests.add(m[1].trim());
  for (const m of output.matchAll(/^\s*✖ (.+?) \(\d[\d.]*ms\)$/gm)) failedTests.add(m[1].trim());
}

async function step(label, cmd, args, counter) {
  const { code, output } = await run(label, cmd, args);
  noteFailedTests(output);
  record(label, code, counter ? counter(output) : { p: 0, f: 0 });
  return code;
}

mkdirSync(join(root, 'test-results'), { recursive: true });
const needsHost = want('host') || want('e2e');
if (needsHost && (await step('set up the test host', 'bash', ['scripts/setup-host.sh'])) !== 0) finish();
if ((await step('build', 'node', ['scripts/build.mjs'])) !== 0) finish();
if (want('static')) {
  await step('type-check', 'npx', ['tsc', '-p', '.']);
  await step('type-check webview', 'npx', ['tsc', '-p', 'webview']);
  await step('type-check test tools', 'npx', ['tsc', '-p', 'test']);
  await step('lint', 'npx', ['eslint', '--max-warnings', '0', '.']);
  await step('import cycles', 'node', ['scripts/import-cycles.mjs']);
  await step('unused code (knip --production)', 'npx', ['knip', '--production']);
}
if (want('unit')) {
  const unit = files(join(root, 'out', 'test', 'unit'), /\.test\.js$/).map((f) => relative(root, f));
  // Two files at a time: node --test's default on a 2-core machine is one, and most unit files wait on
  // child processes and timers rather than the CPU.
  await step(`unit tests (${unit.length} files, node --test)`, 'node', ['--test', '--test-concurrency=2', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${join(root, 'test-results', 'unit.tap')}`, ...unit], () => {
    return countTapFile(join(root, 'test-results', 'unit.tap'));
  });
}
if (want('host')) await step('host suites (real VS Code extension host)', 'node', ['out/test/runner/host.js'], countPlain);
if (want('e2e')) {
  const e2e = files(join(root, 'out', 'test', 'e2e'), /\.test\.js$/).map((f) => relative(root, f));
  await step('browser UI test (Chromium + code-server)', 'node', ['--test', '--test-concurrency=1', ...e2e], countTap);
}
finish();

function countTapFile(path) {
  try {
    return countTap(readFileSync(path, 'utf8'));
  } catch {
    return { p: 0, f: 0 };
  }
}

function finish() {
  console.log('');
  if (failedTests.size) console.log(`failed tests:\n${[...failedTests].map((t) => `  ${t}`).join('\n')}`);
  if (failures.length) console.log(`failed steps: ${failures.join('; ')}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failures.length || failed ? 1 : 0);
}
