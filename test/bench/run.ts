/**
 * `npm run bench`: runs the benchmarks (pure ones in this process, host ones inside the real VS Code
 * host), then prints one table and writes test-results/bench.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../runner/codeServer';
import { meetsTarget, readAllFigures } from './figures';

const RESULTS = join(ROOT, 'test-results');
const parts = join(RESULTS, 'bench-parts');
rmSync(parts, { recursive: true, force: true });
mkdirSync(parts, { recursive: true });

let failed = false;
const pure = join(ROOT, 'out', 'test', 'bench', 'pure');
const only = process.argv.slice(2);
if (existsSync(pure)) {
  for (const f of readdirSync(pure).filter((n) => n.endsWith('.bench.js')).sort()) {
    if (only.length && !only.some((o) => f.includes(o))) continue;
    console.log(`── ${f}`);
    const r = spawnSync(process.execPath, ['--expose-gc', join(pure, f)], { stdio: 'inherit', env: { ...process.env, LIFE_THREAD_RESULTS: RESULTS } });
    if (r.status !== 0) failed = true;
  }
}
const hostSuites = join(ROOT, 'out', 'test', 'bench', 'host', 'suites');
const hostWanted = existsSync(hostSuites) ? readdirSync(hostSuites).filter((s) => !only.length || only.includes(s)) : [];
if (hostWanted.length) {
  console.log('── host benchmarks (real VS Code extension host)');
  const r = spawnSync(process.execPath, [join(ROOT, 'out', 'test', 'runner', 'host.js'), ...hostWanted], {
    stdio: 'inherit',
    // idle_store_writes_per_hour counts for 15 minutes of real time: longer than a test phase may take.
    env: { LIFE_THREAD_PHASE_TIMEOUT_MS: String(30 * 60_000), ...process.env, LIFE_THREAD_SUITES_DIR: hostSuites },
  });
  if (r.status !== 0) failed = true;
}

const figures = readAllFigures(RESULTS);
writeFileSync(join(RESULTS, 'bench.json'), JSON.stringify(figures, null, 2) + '\n');
const rows = Object.entries(figures).map(([name, f]) => {
  const verdict = f.target === undefined ? '' : meetsTarget(f) ? 'meets target' : 'MISSES target';
  // The bench judges every target: a miss fails the run.
  if (!meetsTarget(f)) failed = true;
  return [name, `${f.value} ${f.unit}`, f.target === undefined ? '' : `${f.better === 'higher' ? '≥' : '≤'} ${f.target} ${f.unit}`, f.baseline === undefined ? '' : `${f.baseline} ${f.unit}`, verdict];
});
const header = ['figure', 'value', 'target', 'baseline', ''];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
for (const r of rows) console.log(fmt(r));
console.log(`\nwrote ${join(RESULTS, 'bench.json')}`);
process.exit(failed ? 1 : 0);
