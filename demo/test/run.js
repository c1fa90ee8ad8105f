// The demo's test run (the task "tests"): four checks, about 1.5 s each so there is time to ask to be
// woken, a summary line ("3 passed, 1 failed"), a stack naming src/calc.js, and an HTML report.
const { mkdirSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { Calculator } = require('../src/calc');

const root = join(__dirname, '..');
const calc = new Calculator();
const checks = [
  ['add', () => expect(calc.add(0.1, 0.2), 0.3)],
  ['percent', () => expect(calc.percent(200, 15), 30)],
  ['average of three', () => expect(calc.average([1, 2, 6]), 3)],
  ['average of nothing is 0', () => expect(calc.average([]), 0)],
];
const pause = Number(process.env.DEMO_TEST_PAUSE_MS ?? 1500);

function expect(actual, wanted) {
  if (actual !== wanted) throw new Error(`expected ${wanted}, got ${actual}`);
}

/** A stack with paths relative to the workspace, as test runners print them. */
function stackOf(err) {
  return String(err.stack)
    .split('\n')
    .filter((l) => !l.includes('node:internal'))
    .map((l) => l.split(root + '/').join(''))
    .join('\n');
}

(async () => {
  const started = Date.now();
  const results = [];
  console.log(`running ${checks.length} tests…`);
  for (const [i, [name, fn]] of checks.entries()) {
    await new Promise((r) => setTimeout(r, pause));
    const t0 = Date.now();
    try {
      fn();
      results.push({ name, ok: true, ms: Date.now() - t0 });
      console.log(`  [${i + 1}/${checks.length}] ✓ ${name}`);
    } catch (err) {
      const stack = stackOf(err);
      results.push({ name, ok: false, ms: Date.now() - t0, stack });
      console.log(`  [${i + 1}/${checks.length}] ✗ ${name}\n${stack.replace(/^/gm, '    ')}`);
    }
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const report = join(root, 'reports', 'tests.html');
  mkdirSync(join(root, 'reports'), { recursive: true });
  writeFileSync(report, html(results, passed, failed, seconds));
  console.log(`\n${passed} passed, ${failed} failed (${seconds} s)`);
  console.log(`HTML report written to ${relative(process.cwd(), report)}`);
  process.exit(failed ? 1 : 0);
})();

function html(results, passed, failed, seconds) {
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const rows = results
    .map((r) => `<tr class="${r.ok ? 'ok' : 'fail'}"><td>${r.ok ? '✓' : '✗'}</td><td>${esc(r.name)}</td><td>${r.ok ? '' : `<pre>${esc(r.stack)}</pre>`}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Demo tests: ${passed} passed, ${failed} failed</title>
<style>
body { font: 15px system-ui, sans-serif; margin: 2rem; color: #222; }
h1 { font-size: 1.4rem; } .sum { font-size: 1.1rem; margin-bottom: 1rem; }
.sum .bad { color: #b3261e; font-weight: 600; } .sum .good { color: #1b6e20; font-weight: 600; }
table { border-collapse: collapse; width: 100%; } td { border-bottom: 1px solid #ddd; padding: .4rem .6rem; vertical-align: top; }
tr.fail td { background: #fdecea; } tr.ok td:first-child { color: #1b6e20; } tr.fail td:first-child { color: #b3261e; }
pre { margin: 0; font-size: 13px; white-space: pre-wrap; }
</style></head>
<body><h1>Demo tests</h1>
<p class="sum"><span class="good">${passed} passed</span>, <span class="${failed ? 'bad' : 'good'}">${failed} failed</span> in ${seconds} s · ${esc(new Date().toISOString())}</p>
<table>${rows}</table>
</body></html>
`;
}
