/**
 * The capped log builder: under the cap nothing changes; over it the head and tail are kept, the cut
 * is marked with the exact count, the result is at most the cap (exactly it for ASCII), chunking does
 * not change the result, and surrogate pairs are never split.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capText, cutMarker, LOG_MAX_CHARS, LogCap } from '../../src/core/logcap';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function parse(log: string): { head: string; cut: number; tail: string } {
  const m = /\n… \[cut (\d+) characters\] …\n/.exec(log);
  assert.ok(m);
  return { head: log.slice(0, m.index), cut: Number(m[1]), tail: log.slice(m.index + m[0].length) };
}

/** A tiny deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('LogCap', () => {
  it('keeps text under the cap as it is', () => {
    const cap = new LogCap(100);
    cap.push('hello ');
    cap.push('world');
    assert.equal(cap.toString(), 'hello world');
    assert.equal(capText('x'.repeat(100), 100), 'x'.repeat(100));
  });

  it('cuts the middle, marks the exact count and fills the cap exactly', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join('');
    const out = capText(text, 1000);
    assert.equal(out.length, 1000);
    const { head, cut, tail } = parse(out);
    assert.equal(head.length, 250);
    assert.ok(text.startsWith(head));
    assert.ok(text.endsWith(tail));
    assert.equal(head.length + cut + tail.length, text.length);
  });

  it('defaults to 32,000 characters including the marker', () => {
    const cap = new LogCap();
    for (let i = 0; i < 1000; i++) cap.push('y'.repeat(1000));
    const out = cap.toString();
    assert.equal(LOG_MAX_CHARS, 32_000);
    assert.equal(out.length, 32_000);
    assert.equal(parse(out).cut, 1_000_000 - 32_000 + cutMarker(968_000).length);
  });

  it('gives the same result however the stream is chunked', () => {
    const r = rng(7);
    const text = Array.from({ length: 3000 }, (_, i) => `row ${i} ${'z'.repeat(Math.floor(r() * 40))}\n`).join('');
    const whole = capText(text, 2000);
    for (let trial = 0; trial < 20; trial++) {
      const cap = new LogCap(2000);
      let at = 0;
      while (at < text.length) {
        const n = 1 + Math.floor(r() * (r() < 0.1 ? 5000 : 300));
        cap.push(text.slice(at, at + n));
        at += n;
      }
      assert.equal(cap.toString(), whole);
    }
  });

  it('never splits a surrogate pair at the head or the tail cut', () => {
    const r = rng(11);
    const alphabet = ['a', 'é', '😀', '𝄞', '\n', '中'];
    for (let trial = 0; trial < 200; trial++) {
      let text = '';
      const n = 200 + Math.floor(r() * 600);
      for (let i = 0; i < n; i++) text += alphabet[Math.floor(r() * alphabet.length)];
      const max = 64 + Math.floor(r() * 200);
      const cap = new LogCap(max);
      let at = 0;
      while (at < text.length) {
        // Chunks never end inside a pair here: the runner's decoder hands over whole code points.
        let end = Math.min(text.length, at + 1 + Math.floor(r() * 50));
        const c = text.charCodeAt(end - 1);
        if (c >= 0xd800 && c <= 0xdbff) end++;
        cap.push(text.slice(at, end));
        at = end;
      }
      const out = cap.toString();
      assert.ok(out.length <= max, `${out.length} > ${max}`);
      assert.ok(out.length >= max - 2, `${out.length} is well under ${max}`);
      assert.ok(!LONE_SURROGATE.test(out), JSON.stringify(out));
      if (text.length > max) {
        const { head, cut, tail } = parse(out);
        assert.ok(text.startsWith(head));
        assert.ok(text.endsWith(tail));
        assert.equal(head.length + cut + tail.length, text.length);
      } else {
        assert.equal(out, text);
      }
    }
  });

  it('holds bounded memory for a long stream', () => {
    const cap = new LogCap(1000);
    const chunk = 'q'.repeat(65_536);
    for (let i = 0; i < 2000; i++) cap.push(chunk);
    assert.equal(cap.length, 2000 * 65_536);
    const out = cap.toString();
    assert.equal(out.length, 1000);
    assert.equal(parse(out).cut, 2000 * 65_536 - (1000 - cutMarker(2000 * 65_536).length));
  });

  it('applies a lengthening transform before the cut: still within the cap, one marker', () => {
    const grow = (t: string): string => t.replace(/pw=\w+/g, 'pw=[REDACTED]');
    const text = Array.from({ length: 4000 }, (_, i) => `pw=${i % 10} line ${i}\n`).join('');
    const cap = new LogCap(1000);
    cap.push(text);
    const out = cap.render(grow);
    assert.ok(out.length <= 1000 && out.length >= 998, `${out.length}`);
    assert.equal(out.match(/… \[cut \d+ characters\] …/g)?.length, 1);
    assert.ok(!/pw=\d/.test(out));
    assert.ok(out.endsWith('pw=[REDACTED] line 3999\n'));
    // Under the cap the transform sees the whole text at once (nothing split between head and tail).
    const small = new LogCap(100);
    small.push('a'.repeat(20));
    small.push('pw=secret');
    assert.equal(small.render(grow), `${'a'.repeat(20)}pw=[REDACTED]`);
    // A text that fits before the transform but not after is cut.
    const edge = new LogCap(100);
    edge.push('pw=1 '.repeat(20));
    assert.ok(edge.render(grow).length <= 100);
    assert.equal(cap.toString(), capText(text, 1000));
  });

  it('rejects a cap too small to hold the marker', () => {
    assert.throws(() => new LogCap(10), RangeError);
  });
});
