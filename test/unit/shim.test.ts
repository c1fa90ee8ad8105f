/**
 * The store's one CLI entry, `<store>/bin/life-thread` (src/node/shim.ts): the CLI bundle copied into
 * the store runs from there (every verb's bundle, the MCP server too), a newer version is never
 * replaced by an older one, and windows of two versions writing it at once leave the newer one whole.
 * Children of this file (LT_SHIM_CHILD set) are such windows.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { shimPath } from '../../src/core/mcpConfig';
import { parseShimHeader, type ShimRuntime } from '../../src/core/shimText';
import { CLI_BUNDLE_FILES, findRuntime, installShim, readShim } from '../../src/node/shim';
import { REPO, tempStores } from './helpers/cliHarness';

const DIST = path.join(REPO, 'dist');
const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const NODE: ShimRuntime = { kind: 'node', path: process.execPath, version: process.versions.node };

if (process.env.LT_SHIM_CHILD) {
  // A window starting: write the shim of `version` into the store, then say what it found.
  const [store, version] = JSON.parse(process.env.LT_SHIM_CHILD) as [string, string];
  void installShim({ storeDir: store, bundleDir: DIST, version, runtime: NODE }).then(
    (r) => process.stdout.write(`${JSON.stringify({ written: r.written, version: r.shim.version })}\n`),
    (e: unknown) => {
      process.stderr.write(String(e));
      process.exitCode = 1;
    },
  );
} else {
  const stores = tempStores('lt-shim-');

  const run = (store: string, args: string[], input?: string) => spawnSync(shimPath(store), args, { encoding: 'utf8', input, env: { PATH: '/usr/bin:/bin', HOME: store }, timeout: 20_000 });

  describe('the store’s life-thread shim', { concurrency: 2 }, () => {
    it('copies the CLI bundle into the store and runs every part of it from there', async () => {
      const store = stores.freshStore();
      const r = await installShim({ storeDir: store, bundleDir: DIST, version: VERSION, runtime: NODE });
      assert.equal(r.written, true);
      const h = await readShim(store);
      assert.ok(h);
      assert.equal(h.version, VERSION);
      assert.deepEqual(h.runtime, NODE);
      const bundle = path.join(store, 'bin', h.bundle);
      assert.deepEqual(fs.readdirSync(bundle).sort(), [...CLI_BUNDLE_FILES, '.complete'].sort());
      assert.equal(run(store, ['--version']).stdout, `life-thread ${VERSION}\n`);
      // The lean add bundle, the main bundle with chrono's words, and the MCP server: none reaches back into dist/.
      const add = run(store, ['remind', 'add', '--text', 'x', '--when', 'tomorrow at 9', '--tz', 'UTC', '--store', store, '--json']);
      assert.equal(add.status, 0, add.stderr);
      const moved = run(store, ['schedule', 'move', (JSON.parse(add.stdout) as { id: string }).id, '--when', 'next friday at 17:30', '--tz', 'UTC', '--store', store]);
      assert.equal(moved.status, 0, moved.stderr);
      const init = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;
      const mcp = run(store, ['mcp', '--store', store], init);
      assert.match(mcp.stdout, /"serverInfo":\{"name":"life-thread","version":"[^"]+"\}/, mcp.stderr);
      assert.equal((await installShim({ storeDir: store, bundleDir: DIST, version: VERSION, runtime: NODE })).written, false, 'the same build on the same runtime is left as it is');
    });

    it('an older version never replaces a newer one; a newer one replaces an older one and keeps its bundle for the processes still on it', async () => {
      const store = stores.freshStore();
      await installShim({ storeDir: store, bundleDir: DIST, version: '9.0.0', runtime: NODE });
      const older = await installShim({ storeDir: store, bundleDir: DIST, version: '8.9.9', runtime: NODE });
      assert.equal(older.written, false);
      assert.match(older.reason, /newer Life Thread \(9\.0\.0\)/);
      assert.equal((await readShim(store))?.version, '9.0.0');
      assert.equal(fs.readdirSync(path.join(store, 'bin')).filter((n) => n.startsWith('cli-8.9.9')).length, 0, 'nothing of the older one was copied');
      const newer = await installShim({ storeDir: store, bundleDir: DIST, version: '9.1.0', runtime: NODE });
      assert.equal(newer.written, true);
      assert.deepEqual(fs.readdirSync(path.join(store, 'bin')).filter((n) => n.startsWith('cli-')).map((n) => n.split('-')[1]).sort(), ['9.0.0', '9.1.0']);
      assert.equal(run(store, ['--version']).status, 0);
    });

    it('replaces a shim an older Life Thread wrote (no header) and a bundle a killed copy left half done', async () => {
      const store = stores.freshStore();
      fs.mkdirSync(path.join(store, 'bin'));
      fs.writeFileSync(shimPath(store), '#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec /nowhere/node /gone/extension/dist/cli.js "$@"\n', { mode: 0o755 });
      const first = await installShim({ storeDir: store, bundleDir: DIST, version: VERSION, runtime: NODE });
      fs.rmSync(path.join(store, 'bin', first.shim.bundle, 'cli-main.js'));
      fs.rmSync(path.join(store, 'bin', first.shim.bundle, '.complete'));
      const again = await installShim({ storeDir: store, bundleDir: DIST, version: VERSION, runtime: NODE });
      assert.equal(again.written, true);
      assert.ok(fs.existsSync(path.join(store, 'bin', first.shim.bundle, 'cli-main.js')));
      assert.equal(run(store, ['doctor', '--store', store, '--json']).status, 0);
    });

    it('windows of two versions starting at once: the newer shim, whole, and no copy left behind', async () => {
      const store = stores.freshStore();
      const child = (version: string): Promise<{ code: number | null; out: string; err: string }> =>
        new Promise((resolve) => {
          const p = spawn(process.execPath, [__filename], { env: { ...process.env, LT_SHIM_CHILD: JSON.stringify([store, version]) }, stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          p.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
          p.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
          p.on('close', (code) => resolve({ code, out, err }));
        });
      const results = await Promise.all(['1.2.0', '1.3.0', '1.2.0', '1.3.0', '1.2.0', '1.3.0'].map(child));
      for (const r of results) assert.equal(r.code, 0, r.err);
      assert.equal(results.filter((r) => r.out.includes('"written":true') && r.out.includes('"version":"1.3.0"')).length, 1, 'the newer one is written once');
      const text = fs.readFileSync(shimPath(store), 'utf8');
      assert.equal(parseShimHeader(text)?.version, '1.3.0');
      assert.equal(run(store, ['--version']).status, 0);
      assert.deepEqual(fs.readdirSync(path.join(store, 'bin')).filter((n) => n.endsWith('.tmp') || n.startsWith('.life-thread')), []);
    });

    it('the runtime: the first Node ≥ 20 on PATH, else the one given (VS Code’s)', async () => {
      const fallback: ShimRuntime = { kind: 'vscode', path: '/opt/code/code', version: '22.0.0' };
      const old = stores.freshStore();
      fs.writeFileSync(path.join(old, 'node'), '#!/bin/sh\necho 18.19.0\n', { mode: 0o755 });
      assert.deepEqual(await findRuntime(`${old}:/nonexistent`, fallback), fallback, 'Node 18 is too old');
      assert.deepEqual(await findRuntime(undefined, fallback), fallback);
      const real = path.dirname(process.execPath);
      assert.deepEqual(await findRuntime(`relative/dir:${old}:${real}`, fallback), { kind: 'node', path: path.join(real, 'node'), version: process.versions.node });
    });
  });
}
