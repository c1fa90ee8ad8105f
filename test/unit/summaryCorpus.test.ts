/**
 * The summary corpus (test/fixtures/summaries): for each real output, the pulse's summary (as the
 * job-finish pipeline makes it, from the log's tail) states the counts the tool printed, and the code
 * locus is the first failure inside the workspace.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCodeLocus } from '../../src/core/anchor/locus';
import { summaryFromLogTail } from '../../src/core/wake/pulse';
import { countsInSummary, hasRightCounts, loadCorpus } from './helpers/summaryCorpus';

const corpus = loadCorpus();
const TOOLS = ['mocha', 'node:test', 'jest', 'vitest', 'pytest', 'go test', 'cargo test', 'tsc', 'eslint', 'playwright'];

describe('summary corpus', () => {
  it('holds at least 30 outputs: every tool, coloured ones, and failures naming file:line', () => {
    assert.ok(corpus.length >= 30, `${corpus.length}`);
    for (const tool of TOOLS) {
      const of = corpus.filter((o) => o.tool === tool);
      assert.ok(of.length >= 2, `${tool}: ${of.length}`);
      assert.ok(of.some((o) => o.locus !== null), `${tool} has a failure with a location`);
    }
    assert.ok(corpus.filter((o) => o.text.includes('\x1b[')).length >= 10, 'coloured output');
    assert.ok(corpus.some((o) => /\r(?!\n)/.test(o.text)), 'a line rewritten by a carriage return');
  });

  for (const o of corpus) {
    it(`${o.file}: summary and counts`, () => {
      const summary = summaryFromLogTail(o.text);
      assert.equal(summary, o.summary);
      assert.ok(hasRightCounts(summary, o.counts), `${JSON.stringify(Object.fromEntries(countsInSummary(summary)))} vs ${JSON.stringify(o.counts)}`);
    });

    it(`${o.file}: code locus`, () => {
      const want = o.locus === null ? undefined : { ...o.locus, path: `${o.workspace}/${o.locus.path}` };
      assert.deepEqual(findCodeLocus(o.text, [o.workspace]), want);
      // With a file check that knows only the expected file, the answer is the same.
      assert.deepEqual(findCodeLocus(o.text, [o.workspace], { isFile: (p) => p === want?.path }), want);
      // Another workspace, where none of these files exist, gets no place from this output.
      assert.equal(findCodeLocus(o.text, ['/somewhere/else'], { isFile: () => false }), undefined);
    });
  }
});
