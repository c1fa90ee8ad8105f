/**
 * The systemd units `service install --kind systemd --dry-run` prints pass `systemd-analyze verify`
 * (README "Keep time while VS Code is closed"), for a store path with a space, `%`, `$` and quotes.
 * systemd-analyze checks them without a running systemd; `npm run test:timer` installs it when missing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI } from '../unit/helpers/cliHarness';

const roots: string[] = [];
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function verify(files: string[], env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const r = spawnSync('systemd-analyze', ['--user', 'verify', ...files], { encoding: 'utf8', env, timeout: 60_000 });
  return { status: r.status, stderr: `${r.stderr}${r.error ? String(r.error) : ''}` };
}

describe('systemd units of the OS timer', () => {
  it('pass systemd-analyze verify as written; a broken one does not', { skip: process.platform !== 'linux' ? 'systemd units are Linux only' : false }, () => {
    assert.equal(spawnSync('systemd-analyze', ['--version']).error, undefined, 'systemd-analyze is missing: npm run test:timer installs it (Debian package systemd)');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lt-systemd-'));
    roots.push(root);
    const home = path.join(root, 'home');
    const runtimeDir = path.join(root, 'run');
    fs.mkdirSync(home);
    fs.mkdirSync(runtimeDir, { mode: 0o700 });
    const store = path.join(root, "a dir", `50% $HOME's "store"`);
    fs.mkdirSync(path.join(store, 'logs'), { recursive: true });
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_RUNTIME_DIR: runtimeDir };
    const r = spawnSync(process.execPath, [CLI, 'service', 'install', '--kind', 'systemd', '--dry-run', '--json', '--store', store], { encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as { files: { path: string; text: string }[] };
    assert.equal(plan.files.length, 2);
    for (const f of plan.files) {
      assert.ok(f.path.startsWith(path.join(home, '.config', 'systemd', 'user')), f.path);
      assert.equal(fs.existsSync(f.path), false, 'a dry run writes nothing');
      fs.mkdirSync(path.dirname(f.path), { recursive: true });
      fs.writeFileSync(f.path, f.text);
    }
    const paths = plan.files.map((f) => f.path);
    const good = verify(paths, env);
    assert.equal(good.status, 0, good.stderr);
    const ours = good.stderr.split('\n').filter((l) => l.includes('life-thread-'));
    assert.deepEqual(ours, [], 'no complaint about our units');

    // The check is real: a timer without a valid schedule is refused.
    const timer = paths.find((p) => p.endsWith('.timer')) ?? '';
    fs.writeFileSync(timer, fs.readFileSync(timer, 'utf8').replace(/^OnCalendar=.*$/m, 'OnCalendar=every minute please'));
    assert.notEqual(verify(paths, env).status, 0);
  });
});
