/**
 * Evidence of a job a wake waits on: plain text with secrets
 * redacted, the summary line found for the landing even when redaction changes the line count, and
 * retention of 7 days and 50 MB per folder, oldest first; a window's evidence in its workspace's
 * continuity folder, never committed.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readOutput } from '../../src/core/wake/pulse';
import { execFileSync } from 'node:child_process';
import { copyEvidence, ensureEvidenceDir, pruneEvidence, pruneEvidenceEvery, storeEvidenceDir, workspaceEvidenceDir, writeEvidence } from '../../src/node/evidence';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-evidence-');
const job = { source: 'task', jobId: 'tests', exitCode: 1, endedAt: Date.parse('2026-10-03T07:00:00Z'), commandLine: 'npm test' };

describe('evidence files', () => {
  it('plain text: colours and progress redraws gone, secrets redacted, the landing on the summary line', async () => {
    const store = dirs.freshDir();
    const raw = [
      '\u001b[32m✔ adds\u001b[39m',
      'Downloading 10%\rDownloading 100%',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEpAIBAAKCAQEA1',
      'MIIEpAIBAAKCAQEA2',
      '-----END RSA PRIVATE KEY-----',
      'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      '\u001b[31m# pass 3\u001b[39m',
      '# fail 1',
      'done',
    ].join('\n');
    const out = readOutput(raw, { truncated: false });
    assert.equal(out.summary, 'node:test: 3 passed, 1 failed');
    const ev = await writeEvidence(store, 'job-a', job, out.text, out.summaryLine);
    const text = fs.readFileSync(ev.path, 'utf8');
    assert.ok(!text.includes('\u001b'), 'no control codes');
    assert.doesNotMatch(text, /ghp_abcdefghijklmnopqrstuvwxyz|MIIEpAIBAAKCAQEA/);
    assert.match(text, /Downloading 100%/);
    assert.doesNotMatch(text, /Downloading 10%/);
    assert.match(text, /^# task tests\n# command: npm test\n# exit code: 1\n/);
    const lines = text.split('\n');
    assert.ok(ev.focusLine !== undefined);
    assert.equal(lines[(ev.focusLine ?? 0) - 1], '# fail 1', 'the landing line is the summary line (node:test states it on its fail line), after redaction joined the key lines');
    assert.ok(!text.includes('\uE000'), 'the focus mark never reaches the file');
  });

  it('a secret on the command line or in the summary line is redacted in the header and in the pulse summary', async () => {
    const raw = ['building', 'login failed: token=ghp_abcdefghijklmnopqrstuvwxyz0123456789'].join('\n');
    const out = readOutput(raw, { truncated: false });
    assert.equal(out.summary, 'login failed: token=[REDACTED]', 'the summary goes to the model and into wakes.json');
    assert.doesNotMatch(out.text, /ghp_abcdefghijklmnopqrstuvwxyz/);
    const commandLine = "curl -s -u bob:hunter2secret https://api.example.com --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \\\n  -H 'Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123'";
    const ev = await writeEvidence(dirs.freshDir(), 'job-s', { ...job, source: 'terminal', jobId: 'terminal:bash', commandLine }, out.text, out.summaryLine);
    const text = fs.readFileSync(ev.path, 'utf8');
    assert.doesNotMatch(text, /ghp_abcdefghijklmnopqrstuvwxyz|sk-proj-abcdefghij|hunter2secret/);
    assert.match(text, /^# terminal terminal:bash\n# command: curl -s -u bob:\[REDACTED\]@?|^# terminal terminal:bash\n# command: curl /);
    assert.match(text, /--token=\[REDACTED\]/);
    const lines = text.split('\n');
    assert.equal(lines[4], '', 'the command line stays one header line');
    assert.equal(lines[(ev.focusLine ?? 0) - 1], 'login failed: token=[REDACTED]');
  });

  it('empty output says so; no summary line means no focus', async () => {
    const ev = await writeEvidence(dirs.freshDir(), 'job-b', { ...job, exitCode: undefined }, '', undefined);
    assert.match(fs.readFileSync(ev.path, 'utf8'), /exit code: unknown\n# ended: 2026-10-03T07:00:00\.000Z\n\n\(the job printed nothing that could be read\)\n$/);
    assert.equal(ev.focusLine, undefined);
  });

  it('retention: older than 7 days goes, then the oldest until 50 MB', async () => {
    const dir = path.join(dirs.freshDir(), 'evidence');
    fs.mkdirSync(dir, { recursive: true });
    const now = Date.parse('2026-10-10T00:00:00Z');
    const file = (name: string, mb: number, ageDays: number): string => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, Buffer.alloc(mb * 1024 * 1024, 'x'));
      const t = new Date(now - ageDays * 86_400_000);
      fs.utimesSync(p, t, t);
      return p;
    };
    const old = file('old.log', 1, 8);
    const a = file('a.log', 20, 3);
    const b = file('b.log', 20, 2);
    const c = file('c.log', 20, 1);
    const removed = await pruneEvidence(dir, now);
    assert.deepEqual(removed.sort(), [old, a].sort());
    assert.deepEqual(fs.readdirSync(dir).sort(), ['b.log', 'c.log']);
    assert.ok(fs.existsSync(b) && fs.existsSync(c));
  });
});

describe('evidence in the workspace', () => {
  const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

  it('lives in <continuity folder>/evidence beside a .gitignore of *: a repository that does not ignore the folder sees nothing new', async () => {
    const ws = dirs.freshDir();
    git(ws, 'init', '-q');
    fs.writeFileSync(path.join(ws, '.gitignore'), 'node_modules/\n');
    git(ws, 'add', '.gitignore');
    git(ws, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'start');
    const dir = workspaceEvidenceDir(ws, '.life-thread');
    assert.equal(dir, path.join(ws, '.life-thread', 'evidence'));
    await ensureEvidenceDir(dir);
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\*$/m);
    const ev = await writeEvidence(dir, 'w-a1', job, '# fail 1\n', 0);
    assert.equal(ev.path, path.join(dir, 'w-a1.log'));
    const log = path.join(dirs.freshDir(), 'j-1.log');
    fs.writeFileSync(log, 'line 1\nline 2\n');
    assert.equal(await copyEvidence(log, dir, 'w-b2'), path.join(dir, 'w-b2.log'));
    assert.equal(fs.readFileSync(path.join(dir, 'w-b2.log'), 'utf8'), 'line 1\nline 2\n');
    assert.equal(git(ws, 'status', '--porcelain', '--untracked-files=all'), '', 'nothing to commit');
    // A .gitignore someone emptied is written again; one that already ignores everything is left as it is.
    fs.writeFileSync(path.join(dir, '.gitignore'), '');
    await ensureEvidenceDir(dir);
    assert.equal(git(ws, 'status', '--porcelain', '--untracked-files=all'), '');
    fs.writeFileSync(path.join(dir, '.gitignore'), '# mine\n*\n');
    await ensureEvidenceDir(dir);
    assert.equal(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), '# mine\n*\n');
  });

  it('a folder that cannot be written throws (the window then writes to the store)', async () => {
    const ws = dirs.freshDir();
    fs.writeFileSync(path.join(ws, '.life-thread'), 'a file where the folder would be');
    await assert.rejects(ensureEvidenceDir(workspaceEvidenceDir(ws, '.life-thread')));
  });

  it('pruned after 7 days by the periodic pass (injected clock and timers), its .gitignore kept', async () => {
    const ws = dirs.freshDir();
    const dir = workspaceEvidenceDir(ws, '.life-thread');
    await ensureEvidenceDir(dir);
    const store = storeEvidenceDir(dirs.freshDir());
    fs.mkdirSync(store, { recursive: true });
    const start = Date.parse('2026-10-01T00:00:00Z');
    const made = (d: string, name: string): string => {
      const p = path.join(d, name);
      fs.writeFileSync(p, 'x\n');
      fs.utimesSync(p, new Date(start), new Date(start));
      return p;
    };
    const a = made(dir, 'w-a.log');
    const s = made(store, 'job-s.log');
    fs.utimesSync(path.join(dir, '.gitignore'), new Date(start), new Date(start));
    let clock = start + 6 * 86_400_000;
    const queued: (() => void)[] = [];
    const timers = { setTimeout: (fn: () => void) => queued.push(fn), clearTimeout: () => undefined };
    const errors: unknown[] = [];
    const stop = pruneEvidenceEvery(() => [dir, store], (e) => errors.push(e), timers, () => clock);
    const pass = async (): Promise<void> => {
      queued.shift()?.();
      await new Promise((r) => setTimeout(r, 50));
    };
    await pass();
    assert.ok(fs.existsSync(a) && fs.existsSync(s), 'six days old: kept');
    clock = start + 7 * 86_400_000 + 60_000;
    await pass();
    assert.equal(fs.existsSync(a), false, 'past 7 days: pruned in the workspace');
    assert.equal(fs.existsSync(s), false, 'and in the store');
    assert.ok(fs.existsSync(path.join(dir, '.gitignore')), 'the .gitignore stays');
    assert.deepEqual(errors, []);
    stop();
  });
});
