/**
 * One-line summaries of run logs: the summary line of common test runners, compilers and linters in
 * realistic output, else the last meaningful line, cut short.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summarize } from '../../src/core/summary';

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
    assert.equal(summarize(log), 'mocha: 12 passed, 1 failed, 2 pending');
    assert.equal(summarize('\n  3 passing (5ms)\n\n'), 'mocha: 3 passed, 0 failed');
  });

  it('node:test, TAP and spec reporters', () => {
    const tap = 'ok 2 - fireCommandRow\n  ---\n  ...\n1..2\n# tests 20\n# suites 2\n# pass 19\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 14085.85\n';
    assert.equal(summarize(tap), 'node:test: 19 passed, 1 failed');
    const spec = '✔ reads (2ms)\n✖ writes (3ms)\nℹ tests 5\nℹ suites 1\nℹ pass 4\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 140.8\n\n✖ failing tests:\n';
    assert.equal(summarize(spec), 'node:test: 4 passed, 1 failed');
    // The total is said only where the stated counts leave something out.
    assert.equal(summarize('# tests 6\n# suites 0\n# pass 4\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n'), 'node:test: 4 passed, 1 failed (6 tests)');
  });

  it('jest and vitest', () => {
    const jest = ' FAIL  src/a.test.ts\n  ● a › works\n\nTest Suites: 1 failed, 3 passed, 4 total\nTests:       1 failed, 12 passed, 13 total\nSnapshots:   0 total\nTime:        2.345 s\nRan all test suites.\n';
    assert.equal(summarize(jest), 'jest: 12 passed, 1 failed; 1 suite failed');
    // A suite that fails to load counts no failed test: the suite count says it.
    assert.equal(summarize('Test Suites: 1 failed, 1 passed, 2 total\nTests:       3 passed, 3 total\n'), 'jest: 3 passed, 0 failed; 1 suite failed');
    const vitest = ' ❯ src/a.test.ts (3 tests | 1 failed) 5ms\n\n Test Files  1 failed | 3 passed (4)\n      Tests  1 failed | 12 passed (13)\n   Start at  10:00:00\n   Duration  1.23s (transform 20ms, setup 0ms)\n';
    assert.equal(summarize(vitest), 'vitest: 12 passed, 1 failed; 1 file failed');
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
    assert.equal(summarize(log), 'pytest: 12 passed, 1 failed');
    assert.equal(summarize('==== 5 passed, 1 warning in 0.12s ====\n'), 'pytest: 5 passed, 0 failed, 1 warning');
    assert.equal(summarize('============================ no tests ran in 0.01s =============================\n'), 'pytest: no tests ran');
  });

  it('go test', () => {
    const log = '--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL\nFAIL\texample.com/m/parse\t0.004s\nok  \texample.com/m/store\t0.012s\nok  \texample.com/m/time\t(cached)\nFAIL\n';
    assert.equal(summarize(log), 'go test: 1 failed; packages: 2 ok, 1 FAIL (example.com/m/parse)');
    assert.equal(summarize('ok  \texample.com/m\t0.3s\n'), 'go test: packages: 1 ok');
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
    assert.equal(summarize(log), 'cargo test: 6 passed, 1 failed, 1 ignored');
  });

  it('tsc', () => {
    const one = "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n3 const x: number = 'a';\n        ~\n\n\nFound 1 error in src/a.ts:3\n\n";
    assert.equal(summarize(one), 'tsc: 1 error in src/a.ts:3');
    // Off a terminal tsc prints no closing line: its diagnostics are counted.
    assert.equal(summarize("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/b.ts(1,1): error TS1005: ';' expected.\nsrc/a.ts(9,2): error TS2304: Cannot find name 'x'.\n"), 'tsc: 3 errors in 2 files');
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
    assert.equal(summarize(`${ESC}[31m✖ 1 problem (1 error, 0 warnings)${ESC}[39m`), 'eslint: 1 problem (1 error, 0 warnings)');
    assert.equal(summarize(`  0 passing (3ms)\n${ESC}[1m${ESC}[31m  2 failing${ESC}[0m\n`), 'mocha: 0 passed, 2 failed');
    const long = `${'x'.repeat(18)}😀${'y'.repeat(50)}`;
    const s = summarize(long, 20);
    assert.equal(s, `${'x'.repeat(18)}…`);
    assert.ok(summarize('z'.repeat(500)).length <= 160);
  });

  it('playwright, the plain closing line, a compile error, an uncaught error', () => {
    const pw = '  2 failed\n    [chromium] › a.spec.ts:3:1 › one\n    [chromium] › a.spec.ts:9:1 › two\n  1 flaky\n    [chromium] › b.spec.ts:2:1 › three\n  1 skipped\n  7 passed (12.5s)\n';
    assert.equal(summarize(pw), 'playwright: 7 passed, 2 failed, 1 flaky, 1 skipped');
    assert.equal(summarize('checking…\nunit: 3 passed, 1 failed, 2 skipped\n'), 'unit: 3 passed, 1 failed, 2 skipped');
    assert.equal(summarize('error: could not compile `ledger` (lib) due to 1 previous error\n'), 'cargo: could not compile ledger (lib): 1 error');
    const uncaught = '/p/src/a.js:3\n    throw new TypeError(\'bad\');\n    ^\n\nTypeError: bad\n    at f (/p/src/a.js:3:11)\n\nNode.js v20.20.2\n';
    assert.equal(summarize(uncaught), 'node: TypeError: bad');
    assert.equal(summarize('2 failed, 4 passed, 1 skipped in 1.75s\n'), 'pytest: 4 passed, 2 failed, 1 skipped');
  });

  it('a line too long to be a summary is not read as one', () => {
    const long = `  ${'9'.repeat(500)} passing (1ms)\n`;
    assert.equal(summarize(`  2 passing (1ms)\n${long}`), 'mocha: 2 passed, 0 failed');
  });

  it('takes the latest summary when several tools ran', () => {
    const log = "Found 0 errors.\n\n> mocha\n\n  4 passing (10ms)\n";
    assert.equal(summarize(log), 'mocha: 4 passed, 0 failed');
  });
});
