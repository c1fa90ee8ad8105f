/**
 * CodeAnchor re-resolution (design §4): a realistic TypeScript file edited in the ways code moves —
 * lines inserted above, the symbol moved, renamed, re-indented, duplicated, deleted, the file cut
 * short, CRLF line endings — and the ladder exact → symbol → excerpt → orphaned says which step found
 * the excerpt and why. Also the hash, the schema and the `#L10-L20` fragments of deep links as the landing reads them.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import { parseDeepLink } from '../../src/core/landing';
import {
  AnchorIndexCache,
  codeAnchorSchema,
  formatRange,
  hashExcerpt,
  makeAnchor,
  normalizeWhitespace,
  prepareText,
  rangeSchema,
  resolveAnchorIn,
  textIn,
  type CodeAnchor,
  type SymbolLocator,
  type TextRange,
} from '../../src/core/codeAnchor';

const PATH = '/work/shop/src/cart.ts';

/** One anchor against one text, through the product's path (an index of the text, then the ladder). */
function resolveAnchor(text: string, anchor: CodeAnchor, locateSymbol?: SymbolLocator): ReturnType<typeof resolveAnchorIn> {
  return resolveAnchorIn(prepareText(text), anchor, locateSymbol);
}

const CART = `import type { Gateway, Money, Receipt } from './money';

export interface LineItem {
  sku: string;
  quantity: number;
  unitPrice: Money;
}

export class Cart {
  private readonly items = new Map<string, LineItem>();

  constructor(private readonly currency: string) {}

  add(item: LineItem): void {
    const existing = this.items.get(item.sku);
    if (existing) {
      existing.quantity += item.quantity;
      return;
    }
    this.items.set(item.sku, { ...item });
  }

  remove(sku: string): boolean {
    return this.items.delete(sku);
  }

  total(): Money {
    let cents = 0;
    for (const item of this.items.values()) {
      cents += item.unitPrice.cents * item.quantity;
    }
    return { cents, currency: this.currency };
  }
}

export class Checkout {
  constructor(private readonly cart: Cart) {}

  async pay(gateway: Gateway): Promise<Receipt> {
    const amount = this.cart.total();
    if (amount.cents <= 0) throw new Error('nothing to pay');
    const receipt = await gateway.charge(amount);
    return receipt;
  }
}
`;

const LOOP = `    for (const item of this.items.values()) {
      cents += item.unitPrice.cents * item.quantity;
    }
`;

const lines = (text: string): string[] => text.split('\n');
const lineNo = (text: string, needle: string): number => {
  const i = lines(text).findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `fixture has no line with ${needle}`);
  return i;
};
const wholeLines = (first: number, count: number): TextRange => ({ start: { line: first, character: 0 }, end: { line: first + count, character: 0 } });

/** The loop in Cart.total as whole lines (ending at the start of the next line). */
const LOOP_AT = lineNo(CART, 'for (const item of this.items');
const loopAnchor = (): CodeAnchor => makeAnchor(CART, PATH, wholeLines(LOOP_AT, 3), 'Cart.total', '3f2a9c1d0e');

/** A stand-in for vscode.executeDocumentSymbolProvider on these fixtures: classes and their members by brace counting. */
function symbolsOf(text: string): SymbolLocator {
  const ls = lines(text.replace(/\r\n/g, '\n'));
  const table = new Map<string, TextRange>();
  const close = (from: number, indent: number): TextRange => {
    let depth = 0;
    for (let i = from; i < ls.length; i++) {
      for (const ch of ls[i] ?? '') {
        if (ch === '{') depth++;
        if (ch === '}') depth--;
      }
      if (depth === 0) return { start: { line: from, character: indent }, end: { line: i, character: (ls[i] ?? '').length } };
    }
    return { start: { line: from, character: indent }, end: { line: ls.length - 1, character: 0 } };
  };
  let cls = '';
  let clsIndent = -1;
  ls.forEach((l, i) => {
    const c = /^(\s*)(?:export )?class (\w+)/.exec(l);
    if (c) {
      cls = c[2] ?? '';
      clsIndent = (c[1] ?? '').length;
      table.set(cls, close(i, clsIndent));
      return;
    }
    const m = /^(\s*)(?:(?:async|private|public|static|readonly) )*(\w+)\(.*\{\s*$/.exec(l);
    if (m && cls && (m[1] ?? '').length === clsIndent + 2) table.set(`${cls}.${m[2] ?? ''}`, close(i, (m[1] ?? '').length));
  });
  return (symbolPath) => table.get(symbolPath);
}

const insertAt = (text: string, line: number, added: string[]): string => {
  const ls = lines(text);
  ls.splice(line, 0, ...added);
  return ls.join('\n');
};
const FORTY = Array.from({ length: 40 }, (_, i) => `export const LIMIT_${i} = ${i * 7 + 3}; // tier ${i}`);

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

describe('formatRange and the deep links #L10-L20 it writes', () => {
  /** The lines a `file://` deep link names, as the landing reads them (1-based, inclusive), as a whole-line range. */
  const linesOf = (fragment: string): TextRange => {
    const link = parseDeepLink(`file://${PATH}#${fragment}`, ['vscode']);
    assert.equal(link.kind, 'file');
    if (link.kind !== 'file' || link.startLine === undefined) throw new Error(`no lines in ${fragment}`);
    return wholeLines(link.startLine - 1, (link.endLine ?? link.startLine) - link.startLine + 1);
  };

  it('formats 1-based inclusive lines, and the landing reads them back', () => {
    assert.equal(formatRange({ start: { line: 11, character: 4 }, end: { line: 13, character: 7 } }), 'L12-L14');
    assert.equal(formatRange(wholeLines(11, 3)), 'L12-L14');
    assert.equal(formatRange({ start: { line: 4, character: 2 }, end: { line: 4, character: 9 } }), 'L5');
    assert.equal(formatRange(wholeLines(4, 1)), 'L5');
    assert.equal(formatRange(wholeLines(4, 0)), 'L5');
    for (const f of ['L1', 'L12-L14', 'L100-L250', 'L3']) assert.equal(formatRange(linesOf(f)), f);
    const anchor = loopAnchor();
    assert.deepEqual(linesOf(formatRange(anchor.range)), anchor.range);
  });

  it('the landing refuses L0, reversed and non-numeric fragments', () => {
    for (const bad of ['L0', 'L0-L3', 'L20-L10', 'Lx', 'L10-', 'L10-Lx', '10', 'L1.5', 'L-3', 'L1-L2-L3', 'L99999999999', 'l10']) {
      assert.throws(() => parseDeepLink(`file://${PATH}#${bad}`, ['vscode']), InputError, bad);
    }
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
