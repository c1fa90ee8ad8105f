/** Links (src/core/anchor/links.ts): the `#L10-L20` fragments of deep links, as written and as the landing reads them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import { parseDeepLink } from '../../src/core/landing';
import { formatRange } from '../../src/core/anchor/links';
import { type TextRange } from '../../src/core/anchor/text';
import { PATH, wholeLines, loopAnchor } from './helpers/anchorFixture';

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

