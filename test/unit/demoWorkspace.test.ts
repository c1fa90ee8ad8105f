/**
 * The demo workspace `npm start` opens: its own repository with a small history, a sample topic that
 * `life-thread topic verify` accepts, and a test task whose output the wake pipeline reads as the demo
 * promises (the summary line, the code locus in src/calc.js, the HTML report).
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoVersion, ensureDemoWorkspace, makeDemoWorkspace } from '../runner/demoWorkspace';
import { ROOT } from '../runner/codeServer';
import { findCodeLocus } from '../../src/core/anchor/locus';
import { findReportPage } from '../../src/core/reportPage';
import { summarize } from '../../src/core/summary';

describe('the demo workspace', () => {
  let base: string;
  let ws: string;
  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'lt-demo-'));
    ws = await makeDemoWorkspace(join(base, 'workspace'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('is its own git repository with three commits and a clean tree', () => {
    const git = (...a: string[]) => execFileSync('git', a, { cwd: ws, encoding: 'utf8' }).trim();
    assert.equal(git('rev-parse', '--show-toplevel'), ws);
    assert.equal(git('rev-list', '--count', 'HEAD'), '3');
    assert.equal(git('status', '--porcelain'), '', 'the sample topic is ignored, nothing else is left over');
    assert.ok(git('ls-files').split('\n').includes('.vscode/tasks.json'));
  });

  it('refuses to overwrite a workspace that exists', async () => {
    await assert.rejects(makeDemoWorkspace(ws), /exists already/);
  });

  it('has a sample topic with an approved pair that `life-thread topic verify` accepts', () => {
    const dir = join(ws, '.life-thread', 'topics', 'main');
    for (const f of ['topic-decisions.json', 'handover-ops.json', 'export.jsonl', 'TopicDecisions.md', 'HandoverOps.md']) assert.ok(existsSync(join(dir, f)), f);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'topic', 'verify', dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /3 anchors of partition 1 stand/);
    const ops = JSON.parse(readFileSync(join(dir, 'handover-ops.json'), 'utf8')) as { repo: { branch: string; head: string; dirty: string[] } };
    assert.equal(ops.repo.branch, 'main');
    assert.equal(ops.repo.head, execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ws, encoding: 'utf8' }).trim(), 'the ops describe the demo at its last commit');
  });

  it('the task "tests" fails with a summary, a stack in src/calc.js and an HTML report, as the wake reads them', () => {
    const tasks = JSON.parse(readFileSync(join(ws, '.vscode', 'tasks.json'), 'utf8')) as { tasks: { label: string; command: string }[] };
    assert.equal(tasks.tasks.find((t) => t.label === 'tests')?.command, 'npm test');
    const r = spawnSync(process.execPath, ['test/run.js'], { cwd: ws, encoding: 'utf8', env: { ...process.env, DEMO_TEST_PAUSE_MS: '5' } });
    assert.equal(r.status, 1);
    const out = r.stdout;
    assert.match(out, /^3 passed, 1 failed \(/m);
    assert.match(summarize(out), /3 passed, 1 failed/);
    const locus = findCodeLocus(out, [ws], { cwd: ws, isFile: existsSync });
    assert.equal(locus?.path, join(ws, 'src', 'calc.js'));
    assert.match(readFileSync(join(ws, 'src', 'calc.js'), 'utf8').split('\n')[(locus?.line ?? 0) - 1] ?? '', /values\.reduce/, 'the locus is the line that throws');
    const report = findReportPage(out, [ws], { cwd: ws, isFile: existsSync });
    assert.equal(report?.path, join(ws, 'reports', 'tests.html'));
    assert.match(readFileSync(join(ws, 'reports', 'tests.html'), 'utf8'), /3 passed<\/span>, <span class="bad">1 failed/);
  });
});

describe("npm start's demo: made once, rebuilt when the demo's version changed", () => {
  let base: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'lt-demo-v-'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('is made when missing, kept while its version is current, and rebuilt (the old one kept aside) when it is not', async () => {
    const ws = join(base, 'workspace');
    assert.deepEqual(await ensureDemoWorkspace(ws, { version: 'v1' }), { action: 'made' });
    assert.equal(readFileSync(`${ws}.version`, 'utf8').trim(), 'v1');
    writeFileSync(join(ws, 'mine.txt'), 'a note the user left');
    assert.deepEqual(await ensureDemoWorkspace(ws, { version: 'v1' }), { action: 'kept' });
    assert.ok(existsSync(join(ws, 'mine.txt')), 'a current demo is left as it is');
    assert.deepEqual(await ensureDemoWorkspace(ws, { version: 'v2' }), { action: 'rebuilt', oldKeptAt: `${ws}.old` });
    assert.equal(existsSync(join(ws, 'mine.txt')), false, 'the demo is made afresh');
    assert.ok(existsSync(join(ws, 'src', 'calc.js')));
    assert.ok(existsSync(join(`${ws}.old`, 'mine.txt')), 'the old demo is kept aside');
    assert.equal(readFileSync(`${ws}.version`, 'utf8').trim(), 'v2');
  });

  it('a demo made before demos had a version is rebuilt', async () => {
    const ws = join(base, 'unversioned');
    await makeDemoWorkspace(ws);
    assert.equal((await ensureDemoWorkspace(ws)).action, 'rebuilt');
    assert.equal(readFileSync(`${ws}.version`, 'utf8').trim(), demoVersion());
  });

  it("the version follows demo/'s files", () => {
    const copy = join(base, 'demo-copy');
    cpSync(join(ROOT, 'demo'), copy, { recursive: true });
    assert.equal(demoVersion(copy), demoVersion());
    writeFileSync(join(copy, 'src', 'calc.js'), `${readFileSync(join(copy, 'src', 'calc.js'), 'utf8')}\n// changed\n`);
    assert.notEqual(demoVersion(copy), demoVersion());
  });
});
