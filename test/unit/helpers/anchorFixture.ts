/** A realistic TypeScript file and the edits code goes through, for the anchor tests (test/unit/anchor*.test.ts). */
import assert from 'node:assert/strict';
import { makeAnchor, resolveAnchorIn, type CodeAnchor } from '../../../src/core/anchor/code';
import { prepareText, type TextRange } from '../../../src/core/anchor/text';
import { type SymbolLocator } from '../../../src/core/anchor/ladder';

export const PATH = '/work/shop/src/cart.ts';

/** One anchor against one text, through the product's path (an index of the text, then the ladder). */
export function resolveAnchor(text: string, anchor: CodeAnchor, locateSymbol?: SymbolLocator): ReturnType<typeof resolveAnchorIn> {
  return resolveAnchorIn(prepareText(text), anchor, locateSymbol);
}

export const CART = `import type { Gateway, Money, Receipt } from './money';

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

export const LOOP = `    for (const item of this.items.values()) {
      cents += item.unitPrice.cents * item.quantity;
    }
`;

export const lines = (text: string): string[] => text.split('\n');
export const lineNo = (text: string, needle: string): number => {
  const i = lines(text).findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `fixture has no line with ${needle}`);
  return i;
};
export const wholeLines = (first: number, count: number): TextRange => ({ start: { line: first, character: 0 }, end: { line: first + count, character: 0 } });

/** The loop in Cart.total as whole lines (ending at the start of the next line). */
export const LOOP_AT = lineNo(CART, 'for (const item of this.items');
export const loopAnchor = (): CodeAnchor => makeAnchor(CART, PATH, wholeLines(LOOP_AT, 3), 'Cart.total', '3f2a9c1d0e');

/** A stand-in for vscode.executeDocumentSymbolProvider on these fixtures: classes and their members by brace counting. */
export function symbolsOf(text: string): SymbolLocator {
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

export const insertAt = (text: string, line: number, added: string[]): string => {
  const ls = lines(text);
  ls.splice(line, 0, ...added);
  return ls.join('\n');
};
export const FORTY = Array.from({ length: 40 }, (_, i) => `export const LIMIT_${i} = ${i * 7 + 3}; // tier ${i}`);
