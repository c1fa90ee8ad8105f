/**
 * A wake's `landing`: read from a tool call or the CLI's text, and
 * made into a LandingRef where the wake is set — a code anchor takes its excerpt from the file then.
 * A wake's thread is a topic name.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { hashExcerpt } from '../../src/core/anchor/code';
import { InputError } from '../../src/core/errors';
import { parseLandingInput, parseWakeInput } from '../../src/core/wake/contract';
import { landingFromInput } from '../../src/node/landingInput';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-landing-');
const NOW = new Date('2026-10-03T07:00:00.000Z');

function failsOn(fn: () => unknown, field: string): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.field, field, e.message);
    return e.reason;
  }
  assert.fail(`expected InputError on ${field}`);
}

describe('landing input', () => {
  it('a uri, an anchor object, or the CLI’s text (a URI or JSON)', () => {
    assert.deepEqual(parseLandingInput({ uri: 'file:///w/a.ts#L3' }), { kind: 'uri', uri: 'file:///w/a.ts#L3' });
    assert.deepEqual(parseLandingInput({ path: 'src/a.ts', start_line: 3, end_line: 5, symbol: 'A.b' }), { kind: 'anchor', path: 'src/a.ts', symbol: 'A.b', startLine: 3, endLine: 5 });
    assert.deepEqual(parseLandingInput('cdp://evidence/job-1'), { kind: 'uri', uri: 'cdp://evidence/job-1' });
    assert.deepEqual(parseLandingInput('{"path":"/w/a.ts","start_line":1,"end_line":1}'), { kind: 'anchor', path: '/w/a.ts', startLine: 1, endLine: 1 });
  });

  it('bad input names the field and the reason', () => {
    assert.match(failsOn(() => parseLandingInput('{"path":', 'landing'), 'landing'), /not valid JSON/);
    failsOn(() => parseLandingInput({ path: 'a', start_line: 0, end_line: 1 }), 'landing.start_line');
    failsOn(() => parseLandingInput({ path: 'a', start_line: 1.5, end_line: 2 }), 'landing.start_line');
    assert.match(failsOn(() => parseLandingInput({ path: 'a', start_line: 9, end_line: 3 }), 'landing.end_line'), /before start_line/);
    failsOn(() => parseLandingInput({ uri: 'x', extra: 1 }), 'landing');
    failsOn(() => parseLandingInput(42), 'landing');
    // Through the wake contract, with the caller's field names.
    failsOn(() => parseWakeInput({ text: 'x', delay_seconds: 5, landing: { path: 'a' } }, { now: NOW, tz: 'UTC' }), 'landing.start_line');
    const w = parseWakeInput({ text: 'x', delay_seconds: 5, landing: { uri: 'file:///w/a.ts' } }, { now: NOW, tz: 'UTC' });
    assert.equal(w.kind === 'wake' ? w.landing?.kind : undefined, 'uri');
  });

  it('thread_id is a topic name', () => {
    const ok = parseWakeInput({ text: 'x', delay_seconds: 5, thread_id: 'release-2.1' }, { now: NOW, tz: 'UTC' });
    assert.equal(ok.kind === 'wake' ? ok.threadId : undefined, 'release-2.1');
    assert.match(failsOn(() => parseWakeInput({ text: 'x', delay_seconds: 5, thread_id: '../etc' }, { now: NOW, tz: 'UTC' }), 'thread_id'), /topic name/);
    failsOn(() => parseWakeInput({ text: 'x', delay_seconds: 5, thread_id: 'a b' }, { now: NOW, tz: 'UTC', fieldNames: { thread_id: 'thread' } }), 'thread');
  });

  it('an anchor takes its excerpt and hash from the file as it is when the wake is set; a deep link is checked', async () => {
    const dir = dirs.freshDir();
    const file = path.join(dir, 'calc.ts');
    fs.writeFileSync(file, 'export function add(a: number, b: number) {\n  return a - b;\n}\n');
    const ref = await landingFromInput({ kind: 'anchor', path: 'calc.ts', startLine: 2, endLine: 2 }, { cwd: dir, uriSchemes: ['vscode'], symbolAt: async () => 'add' });
    assert.equal(ref.kind, 'code_anchor');
    if (ref.kind !== 'code_anchor') return;
    assert.deepEqual([ref.anchor.path, ref.anchor.symbol, ref.anchor.excerpt, ref.anchor.range], [file, 'add', '  return a - b;', { start: { line: 1, character: 0 }, end: { line: 1, character: 15 } }]);
    assert.equal(ref.anchor.excerptHash, hashExcerpt('  return a - b;'));
    await assert.rejects(landingFromInput({ kind: 'anchor', path: 'calc.ts', startLine: 2, endLine: 9 }, { cwd: dir, uriSchemes: [] }), (e: unknown) => e instanceof InputError && e.field === 'landing.end_line');
    await assert.rejects(landingFromInput({ kind: 'anchor', path: 'missing.ts', startLine: 1, endLine: 1 }, { cwd: dir, uriSchemes: [] }), (e: unknown) => e instanceof InputError && e.field === 'landing.path');
    assert.deepEqual(await landingFromInput({ kind: 'uri', uri: `file://${file}#L2` }, { cwd: dir, uriSchemes: ['vscode'] }), { kind: 'deep_link', uri: `file://${file}#L2` });
    await assert.rejects(landingFromInput({ kind: 'uri', uri: 'javascript:alert(1)' }, { cwd: dir, uriSchemes: ['vscode'] }), (e: unknown) => e instanceof InputError && e.field === 'landing.uri');
  });
});
