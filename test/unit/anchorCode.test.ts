/** CodeAnchors (src/core/anchor/code.ts): the excerpt's hash, the schema, and the index a document version keeps. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import { AnchorIndexCache, codeAnchorSchema, hashExcerpt, makeAnchor } from '../../src/core/anchor/code';
import { rangeSchema } from '../../src/core/anchor/text';
import { PATH, CART, wholeLines, loopAnchor } from './helpers/anchorFixture';

describe('hashExcerpt and the schema', () => {
  it('the hash is stable under CRLF and trailing whitespace, not under content or indentation', () => {
    const base = hashExcerpt('let a = 1;\nlet b = 2;\n');
    assert.equal(base, createHash('sha256').update('let a = 1;\nlet b = 2;\n').digest('hex'));
    assert.equal(hashExcerpt('let a = 1;  \r\nlet b = 2;\t\r\n'), base);
    assert.equal(hashExcerpt('let a = 1;\rlet b = 2; \n'), base);
    assert.notEqual(hashExcerpt('let a = 1;\nlet b = 3;\n'), base);
    assert.notEqual(hashExcerpt('  let a = 1;\nlet b = 2;\n'), base);
    assert.match(base, /^[0-9a-f]{64}$/);
  });

  it('makeAnchor makes a valid anchor; the schema rejects bad ones', () => {
    const a = loopAnchor();
    assert.deepEqual(codeAnchorSchema.parse(a), a);
    assert.equal(hashExcerpt(a.excerpt), a.excerptHash);
    assert.ok(codeAnchorSchema.safeParse({ ...a, path: 'C:\\shop\\src\\cart.ts' }).success);
    assert.ok(codeAnchorSchema.safeParse({ ...a, commit: undefined }).success);
    const bad: [string, unknown][] = [
      ['relative path', { ...a, path: 'src/cart.ts' }],
      ['empty excerpt', { ...a, excerpt: '' }],
      ['long excerpt', { ...a, excerpt: 'x'.repeat(4001) }],
      ['hash not hex', { ...a, excerptHash: 'A'.repeat(64) }],
      ['short hash', { ...a, excerptHash: 'ab12' }],
      ['commit not hex', { ...a, commit: 'main' }],
      ['unknown key', { ...a, note: 'x' }],
      ['negative line', { ...a, range: { start: { line: -1, character: 0 }, end: { line: 1, character: 0 } } }],
      ['reversed range', { ...a, range: { start: { line: 5, character: 0 }, end: { line: 4, character: 0 } } }],
      ['fractional char', { ...a, range: { start: { line: 1, character: 0.5 }, end: { line: 4, character: 0 } } }],
      ['no symbol', { ...a, symbol: undefined }],
    ];
    for (const [what, v] of bad) assert.equal(codeAnchorSchema.safeParse(v).success, false, what);
    assert.notEqual(hashExcerpt(`${a.excerpt}x`), a.excerptHash);
    assert.ok(rangeSchema.safeParse(wholeLines(2, 0)).success, 'an empty range is a valid range');
  });

  it('makeAnchor refuses ranges outside the text, empty ranges and excerpts over 4000 characters', () => {
    const throwsOn = (fn: () => unknown, re: RegExp) =>
      assert.throws(fn, (e: unknown) => e instanceof InputError && e.field === 'range' && re.test(e.reason));
    throwsOn(() => makeAnchor(CART, PATH, wholeLines(200, 2)), /outside the text/);
    throwsOn(() => makeAnchor(CART, PATH, { start: { line: 3, character: 0 }, end: { line: 3, character: 99 } }), /outside the text/);
    throwsOn(() => makeAnchor(CART, PATH, wholeLines(3, 0)), /empty/);
    throwsOn(() => makeAnchor(CART, PATH, { start: { line: 3, character: 0 }, end: { line: 2, character: 0 } }), /before its start/);
    const big = Array.from({ length: 100 }, (_, i) => `const value${i} = ${'x'.repeat(60)};`).join('\n');
    throwsOn(() => makeAnchor(big, PATH, wholeLines(0, 90)), /at most 4000/);
    assert.throws(() => makeAnchor(CART, 'src/cart.ts', wholeLines(0, 1)), (e: unknown) => e instanceof InputError && e.field === 'path');
  });
});

describe('AnchorIndexCache: the index a document version keeps', () => {
  it('indexes a version once, again after a change or a close, and keeps the last N documents', () => {
    let reads = 0;
    const doc = (key: string, version: number, text: string) => ({ key, version, getText: () => (reads++, text) });
    const cache = new AnchorIndexCache(2);
    const text = 'class A {\n  run() {\n    return 1;\n  }\n}\n';
    const anchor = makeAnchor(text, '/w/a.ts', { start: { line: 2, character: 0 }, end: { line: 2, character: 13 } }, 'A.run');
    assert.equal(cache.resolve(doc('a', 1, text), anchor).step, 'exact');
    assert.equal(cache.resolve(doc('a', 1, text), anchor).step, 'exact');
    assert.equal(reads, 1, 'the second anchor of the version reuses the index');
    const moved = `// a\n// b\n${text}`;
    const r = cache.resolve(doc('a', 2, moved), anchor);
    assert.equal(reads, 2, 'a new version is indexed again');
    assert.equal(r.step, 'excerpt');
    assert.equal(r.range.start.line, 4);
    // Closed and opened again, the document counts versions from 1: the old index must not serve it.
    cache.forget('a');
    assert.equal(cache.resolve(doc('a', 1, moved), anchor).range.start.line, 4);
    assert.equal(reads, 3);
    cache.indexOf(doc('b', 1, text));
    cache.indexOf(doc('c', 1, text));
    cache.indexOf(doc('a', 1, moved));
    assert.equal(reads, 6, 'only the last 2 documents are kept');
  });
});
