/**
 * One-line summaries of run logs: the summary line of common test runners, compilers and linters in
 * realistic output, else the last meaningful line, cut short.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripAnsi, summarize } from '../../src/core/summary';

const ESC = String.fromCharCode(27);

describe('summarize', () => {
  it('mocha', () => {
    const log = [
      '> life-thread@0.1.0 test',
      '> mocha',
      '',
      '  store',
      '    ✔ reads (40ms)',
      '    1) writes',
      '',
      '',
      '  12 passing (340ms)',
      '  1 failing',
      '  2 pending',
      '',
      '  1) store',
      '       writes:',
      '     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
      '      at Context.<anonymous> (test/store.test.js:20:12)',
      '',
    ].join('\n');
    assert.equal(summarize(log), 'mocha: 12 passing, 1 failing, 2 pending');
    assert.equal(summarize('\n  3 passing (5ms)\n\n'), 'mocha: 3 passing');
  });

  it('node:test, TAP and spec reporters', () => {
    const tap = 'ok 2 - fireCommandRow\n  ---\n  ...\n1..2\n# tests 20\n# suites 2\n# pass 19\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 14085.85\n';
    assert.equal(summarize(tap), 'node:test: 1 failed, 19 passed of 20');
    const spec = '✔ reads (2ms)\n✖ writes (3ms)\nℹ tests 5\nℹ suites 1\nℹ pass 4\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 140.8\n\n✖ failing tests:\n';
    assert.equal(summarize(spec), 'node:test: 1 failed, 4 passed of 5');
  });

  it('jest and vitest', () => {
    const jest = ' FAIL  src/a.test.ts\n  ● a › works\n\nTest Suites: 1 failed, 3 passed, 4 total\nTests:       1 failed, 12 passed, 13 total\nSnapshots:   0 total\nTime:        2.345 s\nRan all test suites.\n';
    assert.equal(summarize(jest), 'jest: tests 1 failed, 12 passed, 13 total');
    const vitest = ' ❯ src/a.test.ts (3 tests | 1 failed) 5ms\n\n Test Files  1 failed | 3 passed (4)\n      Tests  1 failed | 12 passed (13)\n   Start at  10:00:00\n   Duration  1.23s (transform 20ms, setup 0ms)\n';
    assert.equal(summarize(vitest), 'vitest: tests 1 failed, 12 passed (13 total)');
  });

  it('pytest', () => {
    const log = [
      '============================= test session starts ==============================',
      'collected 13 items',
      '',
      'test_x.py .F..........                                                  [100%]',
      '=========================== short test summary info ============================',
      'FAILED test_x.py::test_b - assert 1 == 2',
      '========================= 1 failed, 12 passed in 0.30s =========================',
    ].join('\n');
    assert.equal(summarize(log), 'pytest: 1 failed, 12 passed in 0.30s');
    assert.equal(summarize('==== 5 passed, 1 warning in 0.12s ====\n'), 'pytest: 5 passed, 1 warning in 0.12s');
    assert.equal(summarize('============================ no tests ran in 0.01s =============================\n'), 'pytest: no tests ran in 0.01s');
  });

  it('go test', () => {
    const log = '--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL\nFAIL\texample.com/m/parse\t0.004s\nok  \texample.com/m/store\t0.012s\nok  \texample.com/m/time\t(cached)\nFAIL\n';
    assert.equal(summarize(log), 'go test: 2 ok, 1 FAIL (example.com/m/parse)');
    assert.equal(summarize('ok  \texample.com/m\t0.3s\n'), 'go test: 1 ok');
  });

  it('cargo test', () => {
    const log = [
      'running 3 tests',
      'test tests::a ... ok',
      'test tests::b ... FAILED',
      'test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
      '',
      'running 4 tests',
      'test result: ok. 4 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s',
      '',
      'error: test failed, to rerun pass `--lib`',
    ].join('\n');
    assert.equal(summarize(log), 'cargo test: FAILED, 6 passed, 1 failed, 1 ignored');
  });

  it('tsc', () => {
    const one = "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n3 const x: number = 'a';\n        ~\n\n\nFound 1 error in src/a.ts:3\n\n";
    assert.equal(summarize(one), 'tsc: 1 error');
    assert.equal(summarize('x\nFound 3 errors in 2 files.\n\nErrors  Files\n     2  src/a.ts:3\n     1  src/b.ts:9\n'), 'tsc: 3 errors in 2 files');
  });

  it('eslint', () => {
    const log = "/home/u/p/src/a.ts\n  3:7  error  'x' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 3 problems (2 errors, 1 warning)\n  1 error and 0 warnings potentially fixable with the `--fix` option.\n\n";
    assert.equal(summarize(log), 'eslint: 3 problems (2 errors, 1 warning)');
  });

  it('falls back to the last meaningful line, skipping rules, the cut marker and the trailer', () => {
    assert.equal(summarize('building...\nmake: *** [Makefile:3: all] Error 2\n-----\n\n'), 'make: *** [Makefile:3: all] Error 2');
    assert.equal(summarize('a\n… [cut 123 characters] …\n\n[life-thread] exit code 2 after 0.10 s\n'), 'a');
    assert.equal(summarize(''), '');
  });

  it('strips colours and cuts long lines on a code-point boundary', () => {
    assert.equal(stripAnsi(`${ESC}[31m✖ 1 problem (1 error, 0 warnings)${ESC}[39m`), '✖ 1 problem (1 error, 0 warnings)');
    assert.equal(summarize(`${ESC}[1m${ESC}[31m  2 failing${ESC}[0m\n`), 'mocha: 2 failing');
    const long = `${'x'.repeat(18)}😀${'y'.repeat(50)}`;
    const s = summarize(long, 20);
    assert.equal(s, `${'x'.repeat(18)}…`);
    assert.ok(summarize('z'.repeat(500)).length <= 160);
  });

  it('takes the latest summary when several tools ran', () => {
    const log = "Found 0 errors.\n\n> mocha\n\n  4 passing (10ms)\n";
    assert.equal(summarize(log), 'mocha: 4 passing');
  });
});
