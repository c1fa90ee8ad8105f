/**
 * One reading of a finished job's output for every job (src/node/jobArtifacts.ts): the code locus of a
 * failure and the report page it names, kept on the wake's fact by a `life-thread run` (the real CLI) and
 * a command row that end outside a window, beside the landing on the log — but never beside a caller's
 * own landing, and no locus for a job that did not fail.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { parseWakeInput, type NewWake } from '../../src/core/wake/contract';
import { triggerCommandWakes } from '../../src/node/commandWakes';
import { outputFindings, readLocusWords } from '../../src/node/jobArtifacts';
import { holderFor } from '../../src/node/liveness';
import { WakeStore } from '../../src/node/wakes';
import { REPO, runCli, tempStores } from './helpers/cliHarness';

const { freshStore } = tempStores('lt-artifacts-');
const me = holderFor('cli');

/** A copy of the demo workspace (a failing test with a stack into src/calc.js and an HTML report). */
function demoCopy(): string {
  const dir = join(freshStore(), 'demo');
  cpSync(join(REPO, 'demo'), dir, { recursive: true });
  return dir;
}

/** The demo's output as its runner prints it (paths relative to the demo), and the report it names. */
function demoOutput(dir: string): string {
  mkdirSync(join(dir, 'reports'), { recursive: true });
  writeFileSync(join(dir, 'reports', 'tests.html'), '<!doctype html><title>r</title>');
  return 'running 4 tests…\n  [4/4] ✗ average of nothing is 0\n    Error: expected 0, got NaN\n        at Calculator.average (src/calc.js:19:31)\n        at Array.<anonymous> (test/run.js:13:52)\n\n3 passed, 1 failed (0.0 s)\nHTML report written to reports/tests.html\n[life-thread] exit code 1 after 0.10 s\n';
}

function onJob(id: string): NewWake {
  const p = parseWakeInput({ text: `after ${id}`, when: 'job.done', job_id: id }, { now: new Date(), tz: 'UTC' });
  if (p.kind !== 'wake') throw new Error('not a wake');
  return p;
}

describe('a job\u2019s output read once for every job', () => {
  it('outputFindings: the failing line as path:line and the report page, read against the job\u2019s folder; no locus when the job did not fail', () => {
    const dir = demoCopy();
    const output = demoOutput(dir);
    const failed = outputFindings(output, { cwd: dir, failed: true });
    assert.equal(failed.locus, `${join(dir, 'src', 'calc.js')}:19`);
    assert.deepEqual(readLocusWords(failed.locus ?? ''), { path: join(dir, 'src', 'calc.js'), line: 19 });
    assert.equal(failed.report, pathToFileURL(join(dir, 'reports', 'tests.html')).href);
    const passed = outputFindings(output, { cwd: dir, failed: false });
    assert.deepEqual(passed, { report: failed.report }, 'a report is shown whatever the status, a locus only for a failure');
    // A place outside the job's folder is not taken, nor anything without a folder.
    assert.deepEqual(outputFindings(output, { cwd: join(dir, 'test'), failed: true }), {});
    assert.deepEqual(outputFindings(output, { failed: true }), {});
    assert.equal(readLocusWords('no line here'), undefined);
  });

  it('a command row that ran outside a window: its wake keeps the locus and the report beside the landing on its log; a caller\u2019s landing keeps neither', async () => {
    const dir = demoCopy();
    const store = new WakeStore({ dir: freshStore() });
    const plain = await store.add(onJob('c-demo'), { now: new Date(Date.now() - 1000) });
    const own = await store.add(onJob('c-demo'), { now: new Date(Date.now() - 1000), landing: { kind: 'deep_link', uri: pathToFileURL(join(dir, 'README.md')).href } });
    mkdirSync(join(store.dir, 'logs'));
    writeFileSync(join(store.dir, 'logs', 'c-demo.log'), demoOutput(dir));
    await triggerCommandWakes(store, store.dir, [{ id: 'c-demo', kind: 'ran', fact: { exitCode: 1, durationMs: 100 }, endedAt: Date.now(), cwd: dir }], me);
    const row = await store.get(plain.id);
    assert.equal(row?.fact?.locus, `${join(dir, 'src', 'calc.js')}:19`);
    assert.equal(row?.fact?.report, pathToFileURL(join(dir, 'reports', 'tests.html')).href);
    assert.match(row?.landing?.kind === 'deep_link' ? row.landing.uri : '', /logs\/c-demo\.log#L7$/);
    const mine = await store.get(own.id);
    assert.equal(mine?.status, 'held');
    assert.deepEqual([mine?.fact?.locus, mine?.fact?.report], [undefined, undefined]);
    assert.match(mine?.landing?.kind === 'deep_link' ? mine.landing.uri : '', /README\.md$/);
  });

  it('life-thread run in the demo: the demo\u2019s failing npm test leaves its wake held with the locus in src/calc.js and the HTML report', async () => {
    const dir = demoCopy();
    const store = freshStore();
    const r = await runCli(['run', '--json', '--store', store, '--wake', 'the tests ended', '--', 'npm', 'test'], { cwd: dir, env: { DEMO_TEST_PAUSE_MS: '0', NPM_CONFIG_UPDATE_NOTIFIER: 'false' } });
    assert.equal(r.code, 1, r.stderr);
    const { wakeId } = JSON.parse(r.stderr.split('\n')[0] ?? '') as { wakeId: string };
    const row = await new WakeStore({ dir: store }).get(wakeId);
    assert.deepEqual([row?.status, row?.fact?.jobStatus], ['held', 'failed']);
    assert.match(row?.fact?.summary ?? '', /^3 passed, 1 failed \(\d+\.\d s\)$/);
    assert.equal(row?.fact?.locus, `${join(dir, 'src', 'calc.js')}:19`);
    assert.equal(row?.fact?.report, pathToFileURL(join(dir, 'reports', 'tests.html')).href);
    assert.equal(row?.desk, 'none');
  });

  it('a command row the OS timer runs (dispatch --once --commands-only) in the demo: its wake keeps the locus and the report the same way', async () => {
    const dir = demoCopy();
    const store = freshStore();
    const cli = (args: string[]) => runCli(['--json', '--store', store, ...args], { cwd: dir, env: { NPM_CONFIG_UPDATE_NOTIFIER: 'false' } });
    const added = await cli(['schedule', 'add-command', '--command', 'DEMO_TEST_PAUSE_MS=0 npm test', '--when', 'in 1 second', '--tz', 'UTC']);
    assert.equal(added.code, 0, added.stderr);
    const rowId = (JSON.parse(added.stdout) as { id: string }).id;
    const set = await cli(['wake', 'add', '--text', 'the nightly tests ended', '--on', 'job.done', '--job-id', rowId]);
    assert.equal(set.code, 0, set.stderr);
    const wakeId = (JSON.parse(set.stdout) as { id: string }).id;
    await new Promise((r) => setTimeout(r, 1500));
    const pass = await cli(['dispatch', '--once', '--commands-only']);
    assert.equal(pass.code, 0, pass.stderr);
    const row = await new WakeStore({ dir: store }).get(wakeId);
    assert.deepEqual([row?.status, row?.fact?.jobStatus], ['held', 'failed']);
    assert.equal(row?.fact?.locus, `${join(dir, 'src', 'calc.js')}:19`);
    assert.equal(row?.fact?.report, pathToFileURL(join(dir, 'reports', 'tests.html')).href);
  });
});
