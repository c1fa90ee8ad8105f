/**
 * The anchor ladder (src/core/anchor/ladder.ts) on a realistic TypeScript file edited in the ways code
 * moves — lines inserted above, the symbol moved, renamed, re-indented, duplicated, deleted, the file
 * cut short, CRLF line endings — says which step found the excerpt and why.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeAnchorSchema, makeAnchor, resolveAnchorIn, type CodeAnchor } from '../../src/core/anchor/code';
import { normalizeWhitespace, prepareText, textIn } from '../../src/core/anchor/text';
import { type SymbolLocator } from '../../src/core/anchor/ladder';
import { PATH, resolveAnchor, CART, LOOP, lines, lineNo, wholeLines, LOOP_AT, loopAnchor, symbolsOf, insertAt, FORTY } from './helpers/anchorFixture';

describe('resolveAnchor: the ladder exact → symbol → excerpt → orphaned', () => {
  it('unchanged file → exact, healed is the anchor', () => {
    const a = loopAnchor();
    assert.equal(a.excerpt, LOOP);
    const r = resolveAnchor(CART, a, symbolsOf(CART));
    assert.equal(r.step, 'exact');
    assert.deepEqual(r.range, a.range);
    assert.deepEqual(r.healed, a);
    assert.match(r.reason, /stands at the stored range L29-L31/);
  });

  it('40 lines inserted above → excerpt without a symbol locator, symbol with one (symbol comes first)', () => {
    const edited = insertAt(CART, 2, FORTY);
    const a = loopAnchor();
    const want = wholeLines(LOOP_AT + 40, 3);
    const plain = resolveAnchor(edited, a);
    assert.equal(plain.step, 'excerpt');
    assert.deepEqual(plain.range, want);
    assert.match(plain.reason, /no longer holds the excerpt/);
    assert.match(plain.reason, /no symbol provider to find Cart\.total/);
    assert.match(plain.reason, /moved from L29-L31 to L69-L71/);
    const withSymbols = resolveAnchor(edited, a, symbolsOf(edited));
    assert.equal(withSymbols.step, 'symbol');
    assert.deepEqual(withSymbols.range, want);
    assert.match(withSymbols.reason, /found once inside symbol Cart\.total \(L67-L73\)/);
    assert.equal(textIn(prepareText(edited), withSymbols.range), LOOP);
  });

  it('the symbol moved to another place in the file → symbol with the locator, excerpt without', () => {
    // Cart moves below Checkout.
    const ls = lines(CART);
    const from = lineNo(CART, 'export class Cart');
    const to = lineNo(CART, 'export class Checkout');
    const cart = ls.slice(from, to);
    const edited = [...ls.slice(0, from), ...ls.slice(to, -1), '', ...cart].join('\n');
    const at = lineNo(edited, 'for (const item of this.items');
    assert.notEqual(at, LOOP_AT);
    const a = loopAnchor();
    const s = resolveAnchor(edited, a, symbolsOf(edited));
    assert.equal(s.step, 'symbol');
    assert.deepEqual(s.range, wholeLines(at, 3));
    const e = resolveAnchor(edited, a);
    assert.equal(e.step, 'excerpt');
    assert.deepEqual(e.range, wholeLines(at, 3));
  });

  it('the symbol renamed (locator finds nothing) → excerpt, the reason names the missing symbol', () => {
    const edited = insertAt(CART.replace('  total(): Money {', '  sum(): Money {'), 1, ['// totals are in cents']);
    const r = resolveAnchor(edited, loopAnchor(), symbolsOf(edited));
    assert.equal(r.step, 'excerpt');
    assert.deepEqual(r.range, wholeLines(LOOP_AT + 1, 3));
    assert.match(r.reason, /symbol Cart\.total not found/);
  });

  it('re-indented and reformatted whitespace → excerpt (whitespace-tolerant), whole lines kept', () => {
    // Everything wrapped in a namespace (two more spaces) and the body re-spaced.
    const body = CART.replace('cents += item.unitPrice.cents * item.quantity;', 'cents  +=  item.unitPrice.cents *\titem.quantity;   ')
      .split('\n')
      .map((l) => (l ? `  ${l}` : l))
      .join('\n');
    const edited = `export namespace Shop {\n${body}}\n`;
    const a = loopAnchor();
    const r = resolveAnchor(edited, a);
    assert.equal(r.step, 'excerpt');
    assert.deepEqual(r.range, wholeLines(LOOP_AT + 1, 3));
    const got = textIn(prepareText(edited), r.range);
    assert.equal(normalizeWhitespace(got ?? ''), normalizeWhitespace(LOOP));
    assert.match(got ?? '', /^ {6}for \(const item/);
    assert.match(r.reason, /ignoring whitespace/);
    // With symbols the same text is found inside Cart.total, tolerant of whitespace too.
    const s = resolveAnchor(edited, a, symbolsOf(edited));
    assert.equal(s.step, 'symbol');
    assert.deepEqual(s.range, r.range);
  });

  it('a mid-line excerpt keeps its exact characters when it moves', () => {
    const line = lineNo(CART, "throw new Error('nothing to pay')");
    const col = (lines(CART)[line] ?? '').indexOf("new Error('nothing to pay')");
    const range = { start: { line, character: col }, end: { line, character: col + "new Error('nothing to pay')".length } };
    const a = makeAnchor(CART, PATH, range, 'Checkout.pay');
    const edited = insertAt(CART, 0, ['// header', '']).replace("if (amount.cents <= 0) throw new Error", 'if (amount.cents === 0) throw new Error');
    const r = resolveAnchor(edited, a);
    assert.equal(r.step, 'excerpt');
    assert.deepEqual(r.range, { start: { line: line + 2, character: col + 1 }, end: { line: line + 2, character: col + 1 + a.excerpt.length } });
    assert.equal(textIn(prepareText(edited), r.range), a.excerpt);
  });

  it('the excerpt duplicated elsewhere → not excerpt (ambiguous); with the locator the copy inside the symbol wins', () => {
    const copy = ['export function sumItems(items: Iterable<LineItem>): number {', '  let cents = 0;', '  const self = { items: new Map<string, LineItem>() };', '  void self;', '  return cents;', '}', ''];
    // The copy carries the loop verbatim (same indentation) so it is a true duplicate.
    copy.splice(4, 0, ...LOOP.slice(0, -1).split('\n'));
    const edited = insertAt(CART, lineNo(CART, 'export class Cart'), copy);
    const a = loopAnchor();
    const plain = resolveAnchor(edited, a);
    assert.equal(plain.step, 'orphaned');
    assert.match(plain.reason, /found 2 times in the file \(L13, L\d+\), ambiguous/);
    assert.deepEqual(plain.range, a.range);
    assert.deepEqual(plain.healed, a);
    const withSymbols = resolveAnchor(edited, a, symbolsOf(edited));
    assert.equal(withSymbols.step, 'symbol');
    const inCart = lineNo(edited, 'total(): Money') + 2;
    assert.deepEqual(withSymbols.range, wholeLines(inCart, 3));
  });

  it('two copies inside the symbol itself → ambiguous there too → orphaned', () => {
    const edited = CART.replace(LOOP, `${LOOP}${LOOP}`);
    const r = resolveAnchor(edited, makeAnchor(CART, PATH, wholeLines(LOOP_AT + 1, 1), 'Cart.total'), symbolsOf(edited));
    // The stored line still holds it, so exact wins...
    assert.equal(r.step, 'exact');
    const shifted = insertAt(edited, 0, ['// x']);
    const s = resolveAnchor(shifted, makeAnchor(CART, PATH, wholeLines(LOOP_AT + 1, 1), 'Cart.total'), symbolsOf(shifted));
    assert.equal(s.step, 'orphaned');
    assert.match(s.reason, /found 2 times inside symbol Cart\.total .*ambiguous/);
    assert.match(s.reason, /found 2 times in the file/);
  });

  it('inside the symbol, an exact copy does not win over a re-indented original: both count, so ambiguous', () => {
    const reindented = LOOP.replace(/^ {4}/gm, '\t\t');
    const edited = insertAt(CART.replace(LOOP, `${reindented}${LOOP}`), 0, ['// x']);
    const r = resolveAnchor(edited, loopAnchor(), symbolsOf(edited));
    assert.equal(r.step, 'orphaned');
    assert.match(r.reason, /found 2 times inside symbol Cart\.total \(L28-L37\) \(L30, L33\), ambiguous/);
    // One copy only, re-indented: found ignoring whitespace; verbatim: found exactly.
    const only = insertAt(CART.replace(LOOP, reindented), 0, ['// x']);
    assert.match(resolveAnchor(only, loopAnchor(), symbolsOf(only)).reason, /found once inside symbol Cart\.total \(L28-L34\) ignoring whitespace, moved from L29-L31 to L30-L32/);
    const shifted = insertAt(CART, 0, ['// x']);
    assert.match(resolveAnchor(shifted, loopAnchor(), symbolsOf(shifted)).reason, /found once inside symbol Cart\.total \(L28-L34\) exactly/);
    assert.match(resolveAnchor(shifted, loopAnchor()).reason, /found once in the file exactly, moved from L29-L31 to L30-L32/);
  });

  it('the excerpt deleted → orphaned, the reason says it is not found', () => {
    const edited = CART.replace(LOOP, '    const cents = sum(this.items.values());\n');
    const a = loopAnchor();
    const r = resolveAnchor(edited, a, symbolsOf(edited));
    assert.equal(r.step, 'orphaned');
    assert.match(r.reason, /no longer holds the excerpt/);
    assert.match(r.reason, /not inside symbol Cart\.total/);
    assert.match(r.reason, /not found in the file, even ignoring whitespace/);
    assert.deepEqual(r.range, a.range);
    assert.deepEqual(r.healed, a);
  });

  it('the file shortened below the range → orphaned, range clamped to the file', () => {
    const edited = lines(CART).slice(0, 10).join('\n');
    const a = loopAnchor();
    const r = resolveAnchor(edited, a);
    assert.equal(r.step, 'orphaned');
    assert.match(r.reason, /the file has 10 lines, shorter than the stored range L29-L31/);
    assert.match(r.reason, /not found in the file/);
    const last = lines(edited)[9] ?? '';
    assert.deepEqual(r.range, { start: { line: 9, character: last.length }, end: { line: 9, character: last.length } });
    assert.deepEqual(r.healed.range, a.range, 'an orphan keeps its stored range for when the file comes back');
  });

  it('a range that runs past the end of its line → not exact; found elsewhere by the excerpt step', () => {
    const a = loopAnchor();
    const odd: CodeAnchor = { ...a, range: { start: { line: 1, character: 0 }, end: { line: 1, character: 50 } } };
    const r = resolveAnchor(CART, odd);
    assert.equal(r.step, 'excerpt');
    assert.match(r.reason, /runs past the end of its line/);
    assert.deepEqual(r.range, a.range);
  });

  it('CRLF file vs LF anchor, and a CRLF-made anchor vs an LF file', () => {
    const crlf = CART.replace(/\n/g, '\r\n');
    const a = loopAnchor();
    assert.equal(resolveAnchor(crlf, a).step, 'exact');
    const fromCrlf = makeAnchor(crlf, PATH, wholeLines(LOOP_AT, 3), 'Cart.total');
    assert.equal(fromCrlf.excerpt, LOOP, 'the excerpt is stored with LF line endings');
    assert.equal(fromCrlf.excerptHash, a.excerptHash);
    assert.equal(resolveAnchor(CART, fromCrlf).step, 'exact');
    // An anchor whose excerpt itself has CRLF (written by another tool) compares the same.
    const rawCrlf: CodeAnchor = { ...a, excerpt: LOOP.replace(/\n/g, '\r\n') };
    assert.equal(resolveAnchor(CART, rawCrlf).step, 'exact');
    // Moved in a CRLF file: characters are those of the line, not counting \r.
    const moved = insertAt(CART, 2, FORTY).replace(/\n/g, '\r\n');
    const r = resolveAnchor(moved, a, symbolsOf(moved));
    assert.equal(r.step, 'symbol');
    assert.deepEqual(r.range, wholeLines(LOOP_AT + 40, 3));
    // Old Mac line endings (lone \r) end lines too.
    assert.equal(resolveAnchor(CART.replace(/\n/g, '\r'), a).step, 'exact');
  });

  it('the healed anchor has the new range; the original is kept as given', () => {
    const a = loopAnchor();
    const before = structuredClone(a);
    const edited = insertAt(CART, 2, FORTY);
    const r = resolveAnchor(edited, a);
    assert.equal(r.original, a);
    assert.deepEqual(a, before, 'the input is not modified');
    assert.deepEqual(r.healed, { ...before, range: wholeLines(LOOP_AT + 40, 3) });
    assert.equal(r.healed.excerpt, a.excerpt);
    assert.equal(r.healed.excerptHash, a.excerptHash);
    assert.equal(r.healed.commit, '3f2a9c1d0e');
    assert.ok(codeAnchorSchema.safeParse(r.healed).success);
    // Healing is idempotent: the healed anchor resolves exactly.
    assert.equal(resolveAnchor(edited, r.healed).step, 'exact');
  });

  it('a failing or misleading symbol locator does not stop the ladder', () => {
    const edited = insertAt(CART, 2, FORTY);
    const a = loopAnchor();
    const throws: SymbolLocator = () => {
      throw new Error('provider not ready');
    };
    const t = resolveAnchor(edited, a, throws);
    assert.equal(t.step, 'excerpt');
    assert.match(t.reason, /looking up symbol Cart\.total failed: provider not ready/);
    const wrong: SymbolLocator = () => ({ start: { line: 0, character: 0 }, end: { line: 5, character: 0 } });
    const w = resolveAnchor(edited, a, wrong);
    assert.equal(w.step, 'excerpt');
    assert.match(w.reason, /not inside symbol Cart\.total \(L1-L5\)/);
    const beyond: SymbolLocator = () => ({ start: { line: 500, character: 0 }, end: { line: 900, character: 0 } });
    assert.equal(resolveAnchor(edited, a, beyond).step, 'excerpt');
  });

  it('an anchor without a symbol skips the symbol step', () => {
    const a = makeAnchor(CART, PATH, wholeLines(LOOP_AT, 3));
    assert.equal(a.symbol, '');
    const r = resolveAnchor(insertAt(CART, 2, FORTY), a, () => assert.fail('no lookup for an empty symbol'));
    assert.equal(r.step, 'excerpt');
    assert.doesNotMatch(r.reason, /symbol/);
  });

  it('a whitespace-only excerpt is only ever found exactly', () => {
    const blank = lineNo(CART, 'private readonly items') + 1;
    const src = CART.replace('\n\n  constructor', '\n    \n  constructor');
    const a = makeAnchor(src, PATH, wholeLines(blank, 1));
    assert.equal(a.excerpt, '    \n');
    assert.equal(resolveAnchor(src, a).step, 'exact');
    const r = resolveAnchor(insertAt(src, 0, ['// x']), a);
    assert.equal(r.step, 'orphaned');
    assert.match(r.reason, /only whitespace/);
  });

  it('prepareText once, resolveAnchorIn many: same answers as resolveAnchor', () => {
    const edited = insertAt(CART, 2, FORTY);
    const index = prepareText(edited);
    const loc = symbolsOf(edited);
    const anchors = [
      loopAnchor(),
      makeAnchor(CART, PATH, wholeLines(lineNo(CART, 'remove(sku'), 3), 'Cart.remove'),
      makeAnchor(CART, PATH, wholeLines(lineNo(CART, 'async pay('), 6), 'Checkout.pay'),
      makeAnchor(CART, PATH, wholeLines(0, 1)),
    ];
    for (const a of anchors) {
      const one = resolveAnchor(edited, a, loc);
      const many = resolveAnchorIn(index, a, loc);
      assert.deepEqual(many, one);
      assert.notEqual(many.step, 'orphaned', many.reason);
      assert.equal(normalizeWhitespace(textIn(index, many.range) ?? ''), normalizeWhitespace(a.excerpt));
    }
  });

  it('prepareText maps whitespace-collapsed offsets back to the original', () => {
    const idx = prepareText('  a \t b  \r\n\r\n\tc  d\n');
    assert.equal(idx.ws, 'a b\n\nc d\n');
    assert.equal(idx.lf, '  a \t b  \n\n\tc  d\n');
    assert.deepEqual([...idx.wsToLf], [2, 3, 6, 9, 10, 12, 13, 15, 16, 17]);
    assert.deepEqual([...idx.lineStarts], [0, 10, 11, 17]);
  });

  it('the whitespace-tolerant index agrees with normalizeWhitespace and maps every character back', () => {
    const rand = (() => {
      let x = 12345;
      return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
    })();
    const alphabet = ['a', 'b', '(', '}', ' ', ' ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u2003', '\ufeff', '\u2028', 'é', '😀'];
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: Math.floor(rand() * 60) }, () => alphabet[Math.floor(rand() * alphabet.length)] ?? '').join('');
      const idx = prepareText(text);
      assert.equal(idx.ws, normalizeWhitespace(text), JSON.stringify(text));
      assert.equal(idx.wsToLf.length, idx.ws.length + 1);
      assert.equal(idx.wsToLf[idx.ws.length], idx.lf.length);
      let prev = -1;
      for (let j = 0; j < idx.ws.length; j++) {
        const o = idx.wsToLf[j] ?? -1;
        assert.ok(o > prev, 'the map increases');
        prev = o;
        const c = idx.ws[j];
        if (c === ' ') assert.match(idx.lf[o] ?? '', /^[^\S\n]$/);
        else assert.equal(idx.lf[o], c);
        if (c === '\n') assert.equal(idx.wsLineStarts[lines(idx.lf.slice(0, o + 1)).length - 1], j + 1);
      }
    }
  });
});

