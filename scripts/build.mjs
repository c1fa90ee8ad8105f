// Builds the bundles of the extension (host, CLI, the webviews) and the compiled tests.
// Usage: node scripts/build.mjs [--production] [--watch]
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, readdirSync, statSync, chmodSync } from 'node:fs';
import { join, relative } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const root = new URL('..', import.meta.url).pathname;

function filesUnder(dir, pattern) {
  const abs = join(root, dir);
  let names;
  try { names = readdirSync(abs); } catch { return []; }
  const out = [];
  for (const name of names) {
    const p = join(abs, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(join(dir, name), pattern));
    else if (pattern.test(name)) out.push(join(dir, name));
  }
  return out;
}

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', absWorkingDir: root };
const nodeCommon = { ...common, platform: 'node', format: 'cjs', target: 'node20' };

/** Leaves src/core/time/chronoParse.ts out of a CLI bundle: its lazy require loads dist/cli-chrono.js instead. */
const chronoApart = {
  name: 'chrono-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/chronoParse$/ }, () => ({ path: './cli-chrono.js', external: true }));
  },
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  // What VS Code activates: a small boot that registers proxies for every contribution and loads
  // dist/main.js after activate() returns. The banner stamps the start of its evaluation, so
  // activation_ms covers loading too.
  { ...nodeCommon, entryPoints: ['src/host/boot.ts'], outfile: 'dist/extension.js', external: ['vscode', './main.js'], banner: { js: 'globalThis.__lifeThreadLoadStart = performance.now();' } },
  { ...nodeCommon, entryPoints: ['src/host/extension.ts'], outfile: 'dist/main.js', external: ['vscode'], banner: { js: 'globalThis.__lifeThreadMainStart = performance.now();' } },
  // The CLI: a small entry (help, version, routing) that loads the bundle holding the verb it runs;
  // chrono-node, which only some `when` phrases need, is a file of its own that they require.
  { ...nodeCommon, entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { ...nodeCommon, entryPoints: ['src/cli/addVerbs.ts'], outfile: 'dist/cli-add.js', plugins: [chronoApart] },
  { ...nodeCommon, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', plugins: [chronoApart] },
  { ...nodeCommon, entryPoints: ['src/core/time/chronoParse.ts'], outfile: 'dist/cli-chrono.js' },
  // What VS Code runs after Life Thread is uninstalled (package.json `vscode:uninstall`): removes its OS timers.
  { ...nodeCommon, entryPoints: ['src/cli/uninstall.ts'], outfile: 'dist/uninstall.js' },
  // The MCP server and its SDK, loaded only by `life-thread mcp` so other verbs start without them.
  { ...nodeCommon, entryPoints: ['src/node/mcp/server.ts'], outfile: 'dist/mcp.js' },
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js' },
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['webview/desk.ts'], outfile: 'dist/desk.js' },
];

if (!production) {
  const tests = { ...nodeCommon, sourcemap: 'inline', packages: 'external', outbase: '.', outdir: 'out', external: ['vscode'] };
  const entries = [
    ...filesUnder('test/unit', /\.test\.ts$/),
    ...filesUnder('test/timer', /\.test\.ts$/),
    ...filesUnder('test/agents', /\.ts$/),
    ...filesUnder('test/host', /\.ts$/),
    ...filesUnder('test/runner', /\.ts$/),
    ...filesUnder('test/e2e', /\.ts$/),
    ...filesUnder('test/bench', /\.ts$/),
    ...filesUnder('test/fixtures', /\.ts$/).filter((f) => !f.includes('/workspace/')),
  ];
  if (entries.length) builds.push({ ...tests, entryPoints: entries });
}

function copyMedia() {
  mkdirSync(join(root, 'dist/media'), { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) {
    cpSync(join(root, 'node_modules/@vscode/codicons/dist', f), join(root, 'dist/media', f));
  }
}

if (watch) {
  copyMedia();
  for (const b of builds) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
  console.log('watching…');
} else {
  const t0 = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  copyMedia();
  chmodSync(join(root, 'dist/cli.js'), 0o755);
  console.log(`build: ${builds.length} bundles in ${Date.now() - t0} ms${production ? ' (production)' : ''} → ${relative(process.cwd(), join(root, 'dist')) || 'dist'}`);
}
