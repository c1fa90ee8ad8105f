/**
 * The symbol a CodeAnchor records for a line: the innermost named declaration, never a body's locals or
 * an anonymous callback (the demo's failing line used to be named "Calculator.average.total.values.reduce() callback").
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { symbolPathAt, type SymbolNode } from '../../src/core/anchor/symbolPath';

const K = { Class: 4, Method: 5, Property: 6, Constructor: 8, Function: 11, Variable: 12, Constant: 13, Namespace: 2 };
const sym = (name: string, kind: number, start: number, end: number, children: SymbolNode[] = []): SymbolNode => ({ name, kind, range: { start: { line: start }, end: { line: end } }, children });

/** What TypeScript's provider answers for the demo's src/calc.js (0-based lines). */
const calc: SymbolNode[] = [
  sym('Calculator', K.Class, 3, 26, [
    sym('constructor', K.Constructor, 4, 6),
    sym('add', K.Method, 8, 10),
    sym('average', K.Method, 17, 20, [sym('total', K.Variable, 18, 18, [sym('values.reduce() callback', K.Function, 18, 18)])]),
    sym('round', K.Method, 22, 25, [sym('f', K.Constant, 23, 23)]),
  ]),
  sym('module.exports', K.Variable, 28, 28),
];

describe('symbolPathAt', () => {
  it('names the enclosing method, not its locals or the callback on the line', () => {
    assert.equal(symbolPathAt(calc, 18), 'Calculator.average');
    assert.equal(symbolPathAt(calc, 23), 'Calculator.round');
  });

  it('names the class between its members, and nothing outside any declaration', () => {
    assert.equal(symbolPathAt(calc, 12), 'Calculator');
    assert.equal(symbolPathAt(calc, 1), undefined);
  });

  it('a top-level constant holding a function is named; a symbol named by a description is not', () => {
    const tree = [sym('handler', K.Constant, 0, 5, [sym('<function>', K.Function, 0, 5)]), sym('describe() callback', K.Function, 7, 12, [sym('helper', K.Function, 8, 9)])];
    assert.equal(symbolPathAt(tree, 3), 'handler');
    assert.equal(symbolPathAt(tree, 8), undefined);
  });

  it('goes down through namespaces and classes to a member', () => {
    const tree = [sym('Outer', K.Namespace, 0, 20, [sym('Inner', K.Class, 2, 18, [sym('run', K.Method, 4, 8), sym('#state', K.Property, 10, 10)])])];
    assert.equal(symbolPathAt(tree, 5), 'Outer.Inner.run');
    assert.equal(symbolPathAt(tree, 10), 'Outer.Inner.#state');
  });
});
