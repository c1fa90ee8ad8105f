/**
 * Paths in the pulse the window sends (src/core/wake/pulsePaths.ts, src/core/wake/pulse.ts): a file
 * inside a workspace folder is named relative to it (`src/calc.js`; with several folders the folder's
 * name leads), the evidence beside a code anchor too; a file outside every folder keeps its absolute
 * path, and no folders (a pulse outside a window) changes nothing.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeAnchor } from '../../src/core/anchor/code';
import { fileLink } from '../../src/core/anchor/links';
import { findCodeLocus } from '../../src/core/anchor/locus';
import { pathRulesOf } from '../../src/core/folderUri';
import { readOutput, renderPulse, type PulseEvent } from '../../src/core/wake/pulse';
import { anchorPathWords, evidenceWords, linkWords, workspaceRelative } from '../../src/core/wake/pulsePaths';
import { pulseWords } from '../../src/core/wake/pulseWords';
import { ROOT } from '../runner/codeServer';

const posix = pathRulesOf('linux');

describe('the pulse of a failing demo task names workspace paths', () => {
  let base: string;
  let ws: string;
  let event: PulseEvent;
  const wake = { text: 'the demo tests ended: find the failing test and fix it', when: 'job.done' as const, jobId: 'tests' };

  before(() => {
    base = mkdtempSync(join(tmpdir(), 'lt-pulse-paths-'));
    ws = join(base, 'home', 'someone', 'projects', 'demo-workspace');
    cpSync(join(ROOT, 'demo'), ws, { recursive: true });
    const r = spawnSync(process.execPath, ['test/run.js'], { cwd: ws, encoding: 'utf8', env: { ...process.env, DEMO_TEST_PAUSE_MS: '0' } });
    assert.equal(r.status, 1, r.stderr);
    const out = readOutput(r.stdout);
    const locus = findCodeLocus(out.text, [ws], { cwd: ws, isFile: existsSync });
    assert.ok(locus, 'the demo names a code locus');
    const text = readFileSync(locus.path, 'utf8');
    const line = locus.line - 1;
    const anchor = makeAnchor(text, locus.path, { start: { line, character: 0 }, end: { line, character: (text.split('\n')[line] ?? '').length } }, 'Calculator.average');
    const evidence = fileLink(join(ws, '.life-thread', 'evidence', 'w-a1b2c3d4.log'), (out.summaryLine ?? 0) + 6);
    event = { job: { status: 'failed', exitCode: 1 }, summary: out.summary, landing: { kind: 'code_anchor', anchor, evidence }, landingStep: 'exact', desk: 'none', wakeIds: ['w-a1b2c3d4'] };
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('one folder: src/calc.js and .life-thread/evidence/…#L…, never an absolute path', () => {
    const pulse = renderPulse(wake, event, { folders: [{ name: 'demo-workspace', path: ws }], rules: posix });
    assert.match(pulse, /\n {2}landing: \{ kind: code_anchor, path: "src\/calc\.js", symbol: "Calculator\.average", lines: "L19-L19", step: exact \}\n/, pulse);
    assert.match(pulse, /\n {2}evidence: "\.life-thread\/evidence\/w-a1b2c3d4\.log#L\d+"\n/, pulse);
    assert.doesNotMatch(pulse, new RegExp(base.replace(/[/.\\^$*+?()[\]{}|]/g, '\\$&')), 'no absolute path');
    assert.doesNotMatch(pulse, /"\/|file:/, 'no absolute path');
    assert.equal(pulseWords(pulse)?.landing, 'src/calc.js L19-L19 (Calculator.average)');
  });

  it('two folders: the folder\u2019s name leads', () => {
    const other = join(base, 'elsewhere', 'api');
    const pulse = renderPulse(wake, event, { folders: [{ name: 'api', path: other }, { name: 'demo-workspace', path: ws }], rules: posix });
    assert.match(pulse, /path: "demo-workspace\/src\/calc\.js"/, pulse);
    assert.match(pulse, /evidence: "demo-workspace\/\.life-thread\/evidence\/w-a1b2c3d4\.log#L\d+"/, pulse);
    assert.doesNotMatch(pulse, /"\//, pulse);
  });

  it('a file outside every folder, and a pulse outside a window, keep the absolute path', () => {
    const pulse = renderPulse(wake, event, { folders: [{ name: 'api', path: join(base, 'elsewhere', 'api') }], rules: posix });
    assert.match(pulse, new RegExp(`path: "${join(ws, 'src', 'calc.js').replace(/[/.]/g, '\\$&')}"`), pulse);
    assert.equal(renderPulse(wake, event, { rules: posix }), renderPulse(wake, event, { folders: [], rules: posix }));
    assert.match(renderPulse(wake, event), /evidence: "\/.+\/\.life-thread\/evidence\/w-a1b2c3d4\.log#L\d+"/);
  });
});

describe('workspace paths', () => {
  const one = [{ name: 'ws', path: '/home/a/ws' }];
  const two = [{ name: 'ws', path: '/home/a/ws' }, { name: 'lib', path: '/home/a/ws/packages/lib' }];

  it('relative to the innermost folder; the folder itself, a sibling sharing a prefix, and `..` escapes are not inside', () => {
    assert.equal(workspaceRelative('/home/a/ws/src/calc.js', one, posix), 'src/calc.js');
    assert.equal(workspaceRelative('/home/a/ws/./src/../src/calc.js', one, posix), 'src/calc.js');
    assert.equal(workspaceRelative('/home/a/ws', one, posix), undefined);
    assert.equal(workspaceRelative('/home/a/ws2/calc.js', one, posix), undefined);
    assert.equal(workspaceRelative('/home/a/ws/../b/calc.js', one, posix), undefined);
    assert.equal(workspaceRelative('/home/a/ws/packages/lib/x.ts', two, posix), 'lib/x.ts');
    assert.equal(workspaceRelative('/home/a/ws/src/y.ts', two, posix), 'ws/src/y.ts');
  });

  it('on Windows: case folded, backslashes, drive letters in file links', () => {
    const win = pathRulesOf('win32');
    const f = [{ name: 'ws', path: 'C:\\Users\\a\\ws' }];
    assert.equal(workspaceRelative('c:\\users\\a\\ws\\src\\Calc.js', f, win), 'src/Calc.js');
    assert.deepEqual(linkWords('file:///C:/Users/a/ws/src/calc.js#L3', f, win), { key: 'path', value: 'src/calc.js#L3' });
  });

  it('deep links: a file inside is a path with its lines; outside, or not a file, stays a URI', () => {
    assert.deepEqual(linkWords('file:///home/a/ws/src/a%20b.js#L16', one, posix), { key: 'path', value: 'src/a b.js#L16' });
    assert.deepEqual(linkWords('file:///store/evidence/j.log#L4-L6', one, posix), { key: 'uri', value: 'file:///store/evidence/j.log#L4-L6' });
    assert.deepEqual(linkWords('cdp://evidence/job-1-report', one, posix), { key: 'uri', value: 'cdp://evidence/job-1-report' });
    assert.deepEqual(linkWords('file:///home/a/ws/src/a.js?x=1', one, posix), { key: 'uri', value: 'file:///home/a/ws/src/a.js?x=1' });
    assert.equal(evidenceWords('file:///store/evidence/j.log#L4', one, posix), '/store/evidence/j.log#L4');
    assert.equal(evidenceWords('cdp://evidence/job-1-report', one, posix), 'cdp://evidence/job-1-report');
    assert.equal(anchorPathWords('/elsewhere/a.ts', one, posix), '/elsewhere/a.ts');
  });

  it('a deep-link landing in the pulse: `path:` inside a folder, `uri:` otherwise, and read back for people', () => {
    const inside = renderPulse({ text: 'x', when: 'job.done', jobId: 't' }, { landing: { kind: 'deep_link', uri: 'file:///home/a/ws/.life-thread/evidence/w-1.log#L16' } }, { folders: one, rules: posix });
    assert.match(inside, /\n {2}landing: \{ kind: deep_link, path: "\.life-thread\/evidence\/w-1\.log#L16" \}/);
    assert.equal(pulseWords(inside)?.landing, '.life-thread/evidence/w-1.log#L16');
    const outside = renderPulse({ text: 'x', when: 'job.done', jobId: 't' }, { landing: { kind: 'deep_link', uri: 'file:///store/logs/j-1.log#L2' } }, { folders: one, rules: posix });
    assert.match(outside, /\n {2}landing: \{ kind: deep_link, uri: "file:\/\/\/store\/logs\/j-1\.log#L2" \}/);
  });
});
