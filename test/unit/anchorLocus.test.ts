/** findCodeLocus: the first failure location inside the workspace that a job's output names. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCodeLocus, type CodeLocus } from '../../src/core/anchor/locus';

const WS = '/home/u/shop';
const ESC = '\x1b';

function at(path: string, line: number, column: number | undefined, recogniser: CodeLocus['recogniser']): CodeLocus {
  return { path, line, ...(column !== undefined ? { column } : {}), recogniser };
}

describe('findCodeLocus: each tool’s failure format', () => {
  it('V8 stacks: the first frame in the workspace, past node_modules and node:internal', () => {
    const out = [
      'TypeError: Cannot read properties of undefined',
      '    at Object.get (node:internal/util:12:3)',
      `    at parse (${WS}/node_modules/qs/lib/parse.js:40:11)`,
      `    at Cart.total (${WS}/src/cart.ts:12:5)`,
      `    at Context.<anonymous> (${WS}/test/cart.test.ts:30:7)`,
    ].join('\n');
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/cart.ts`, 12, 5, 'stack'));
    // Anonymous frames, ESM file URLs, async frames.
    assert.deepEqual(findCodeLocus(`    at async Promise.all (index 0)\n    at file://${WS}/src/a.mjs:3:9\n`, [WS]), at(`${WS}/src/a.mjs`, 3, 9, 'stack'));
    assert.deepEqual(findCodeLocus(`    at async run (file://${WS}/src/my%20file.mjs:4:1)\n`, [WS]), at(`${WS}/src/my file.mjs`, 4, 1, 'stack'));
  });

  it('jest and mocha print frames relative to the project: resolved against the folder (or the job’s cwd)', () => {
    const jest = '  ● cart › totals\n\n    > 12 |     expect(total).toBe(3);\n\n      at Object.toBe (__tests__/cart.test.js:12:19)\n';
    assert.deepEqual(findCodeLocus(jest, [WS]), at(`${WS}/__tests__/cart.test.js`, 12, 19, 'stack'));
    assert.deepEqual(findCodeLocus(jest, ['/other', WS], { cwd: `${WS}/packages/web` }), at(`${WS}/packages/web/__tests__/cart.test.js`, 12, 19, 'stack'));
  });

  it('node:test TAP stacks (no "at") and the uncaught-error header', () => {
    const tap = `  stack: |-\n    TestContext.<anonymous> (${WS}/test/a.test.js:12:12)\n    Test.runInAsyncScope (node:async_hooks:206:9)\n`;
    assert.deepEqual(findCodeLocus(tap, [WS]), at(`${WS}/test/a.test.js`, 12, 12, 'stack'));
    // The header alone (no stack) is still a place, found by the generic recogniser.
    assert.deepEqual(findCodeLocus(`${WS}/src/cli.js:5\n    throw e;\n    ^\n`, [WS]), at(`${WS}/src/cli.js`, 5, undefined, 'line'));
  });

  it('vitest frames, with or without a function name', () => {
    const out = ' FAIL  test/q.test.js > reads\nURIError: URI malformed\n ❯ parseQuery src/q.js:17:34\n ❯ test/q.test.js:5:20\n';
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/q.js`, 17, 34, 'vitest'));
  });

  it('tsc, plain and pretty', () => {
    assert.deepEqual(findCodeLocus("src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n", [WS]), at(`${WS}/src/a.ts`, 12, 5, 'tsc'));
    const pretty = `${ESC}[96msrc/a.ts${ESC}[0m:${ESC}[93m3${ESC}[0m:${ESC}[93m7${ESC}[0m - ${ESC}[91merror${ESC}[0m${ESC}[90m TS2322: ${ESC}[0mType…\n\nFound 1 error in src/a.ts${ESC}[90m:3${ESC}[0m\n`;
    assert.deepEqual(findCodeLocus(pretty, [WS]), at(`${WS}/src/a.ts`, 3, 7, 'tsc'));
  });

  it('eslint stylish: the first error, a warning only when nothing else failed', () => {
    const out = `\n${WS}/src/a.js\n  1:1  warning  Unexpected console statement  no-console\n\n${WS}/src/b.js\n  7:35  error  'x' is not defined  no-undef\n\n✖ 2 problems (1 error, 1 warning)\n`;
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/b.js`, 7, 35, 'eslint'));
    const warnings = `\n${WS}/src/a.js\n  1:1  warning  Unexpected console statement  no-console\n\n✖ 1 problem (0 errors, 1 warning)\n`;
    assert.deepEqual(findCodeLocus(warnings, [WS]), at(`${WS}/src/a.js`, 1, 1, 'eslint'));
  });

  it('pytest: the deepest entry of the first failure that is the user’s code', () => {
    const out = [
      '___________________________ test_unit_price ___________________________',
      'tests/test_price.py:20: in test_unit_price',
      '    assert unit_price(10, 0) == 0',
      'src/price.py:11: in unit_price',
      '    return total / quantity',
      '/usr/lib/python3/dist-packages/x.py:3: in helper',
      'E   ZeroDivisionError: division by zero',
      '___________________________ test_other ___________________________',
      'tests/test_price.py:30: AssertionError',
      '=========================== short test summary info ============================',
    ].join('\n');
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/price.py`, 11, undefined, 'pytest'));
    // --tb=line: one line per failure, no sections.
    assert.deepEqual(findCodeLocus(`${WS}/src/price.py:11: ZeroDivisionError: division by zero\n${WS}/tests/t.py:24: assert 5 == 10\n`, [WS]), at(`${WS}/src/price.py`, 11, undefined, 'pytest'));
  });

  it('Python tracebacks: the most recent call inside the workspace', () => {
    const out = `Traceback (most recent call last):\n  File "${WS}/main.py", line 3, in <module>\n    run()\n  File "${WS}/app/run.py", line 8, in run\n    json.loads(x)\n  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads\nValueError: bad\n`;
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/app/run.py`, 8, undefined, 'python'));
  });

  it('go test: a bare file name lands in its package’s folder', () => {
    const out = '--- FAIL: TestRemove (0.00s)\n    store_test.go:18: want an error\nFAIL\nFAIL\texample.com/shop/internal/store\t0.01s\nFAIL\n';
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/internal/store/store_test.go`, 18, undefined, 'go'));
    // With a file check, the reading that exists wins (a module whose path does not end in the folder's name).
    const other = '    store_test.go:18: want an error\nFAIL\tgithub.com/acme/api/store\t0.01s\n';
    assert.deepEqual(findCodeLocus(other, [WS], { isFile: (p) => p === `${WS}/store/store_test.go` }), at(`${WS}/store/store_test.go`, 18, undefined, 'go'));
    assert.deepEqual(findCodeLocus(other, [WS]), at(`${WS}/store_test.go`, 18, undefined, 'go'));
    // Compiler errors and goroutine frames.
    assert.deepEqual(findCodeLocus('# example.com/shop/store\nstore/store.go:9:2: undefined: x\n', [WS]), at(`${WS}/store/store.go`, 9, 2, 'go'));
    assert.deepEqual(findCodeLocus(`panic: boom\n\ngoroutine 1 [running]:\nruntime.f()\n\t/usr/lib/go/src/runtime/panic.go:884 +0x212\nmain.g()\n\t${WS}/main.go:15 +0x1d\n`, [WS]), at(`${WS}/main.go`, 15, undefined, 'go'));
  });

  it('cargo: errors and panics, not warnings (unless nothing else)', () => {
    const out = 'warning: unused variable: `x`\n  --> src/lib.rs:3:9\n\nerror[E0308]: mismatched types\n --> src/lib.rs:8:24\n';
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/lib.rs`, 8, 24, 'cargo'));
    assert.deepEqual(findCodeLocus("thread 'tests::a' (12) panicked at src/lib.rs:34:9:\nassertion failed\n", [WS]), at(`${WS}/src/lib.rs`, 34, 9, 'cargo'));
    assert.deepEqual(findCodeLocus("thread 'main' panicked at 'explicit panic', src/main.rs:2:5\n", [WS]), at(`${WS}/src/main.rs`, 2, 5, 'cargo'));
  });

  it('playwright: the stack beats the test’s declaration in the header', () => {
    const out = `  1) [chromium] › tests/a.spec.ts:17:1 › buys ──────\n\n    Error: expect(locator).toHaveText(expected) failed\n        at ${WS}/tests/a.spec.ts:20:40\n`;
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/tests/a.spec.ts`, 20, 40, 'stack'));
    assert.deepEqual(findCodeLocus('  1) [chromium] › tests/a.spec.ts:17:1 › buys ──────\n    Error: browser closed\n', [WS]), at(`${WS}/tests/a.spec.ts`, 17, 1, 'playwright'));
  });
});

describe('findCodeLocus: adversarial input', () => {
  it('nothing inside the workspace → undefined', () => {
    assert.equal(findCodeLocus('    at f (/elsewhere/src/a.js:1:1)\n    at node:internal/main:3:4\n', [WS]), undefined);
    assert.equal(findCodeLocus(`    at f (${WS}-old/src/a.js:1:1)\n`, [WS]), undefined, 'a sibling folder sharing a prefix');
    assert.equal(findCodeLocus('    at f (../../outside.js:1:1)\n', [WS]), undefined, 'a relative path escaping the folder');
    assert.equal(findCodeLocus(`    at f (${WS}/src/a.js:0:1)\n`, [WS]), undefined, 'line 0');
    assert.equal(findCodeLocus('    at f (http://localhost:3000/app.js:1:1)\n    at g (webpack:///src/a.js:2:2)\n', [WS]), undefined);
    assert.equal(findCodeLocus('all good\n3 passed, 0 failed\n', [WS]), undefined);
    assert.equal(findCodeLocus('src/a.ts(1,1): error TS1005\n', []), undefined, 'no workspace folder');
    assert.equal(findCodeLocus('Found 1 error in src/index.ts:3\n', [WS]), undefined, 'prose before a colon is not a path');
  });

  it('ANSI codes inside a frame', () => {
    const out = `      ${ESC}[2mat Object.toEqual (${ESC}[22m${ESC}[2m${ESC}[0m${ESC}[36m__tests__/cart.test.js${ESC}[39m${ESC}[0m${ESC}[2m:23:39)${ESC}[22m\r\n`;
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/__tests__/cart.test.js`, 23, 39, 'stack'));
  });

  it('Windows paths: backslashes, drive-letter case, file URLs; answered in the folder’s own style', () => {
    const ws = 'C:\\Users\\me\\shop';
    assert.deepEqual(findCodeLocus('    at f (c:\\users\\me\\shop\\src\\a.js:12:5)\n', [ws]), at('C:\\Users\\me\\shop\\src\\a.js', 12, 5, 'stack'));
    assert.deepEqual(findCodeLocus('    at f (C:\\Users\\me\\shop\\node_modules\\x\\i.js:1:1)\n    at file:///C:/Users/me/shop/src/b.mjs:3:4\n', [ws]), at('C:\\Users\\me\\shop\\src\\b.mjs', 3, 4, 'stack'));
    assert.deepEqual(findCodeLocus('src\\a.ts(4,2): error TS2304: Cannot find name.\n', [ws]), at('C:\\Users\\me\\shop\\src\\a.ts', 4, 2, 'tsc'));
    assert.deepEqual(findCodeLocus('C:\\Users\\me\\shop\\src\\a.c:9:1: error: expected ;\n', [ws]), at('C:\\Users\\me\\shop\\src\\a.c', 9, 1, 'line'));
    assert.equal(findCodeLocus('    at f (D:\\Users\\me\\shop\\src\\a.js:1:1)\n', [ws]), undefined);
    assert.equal(findCodeLocus('    at f (C:\\Users\\me\\shop\\src\\a.js:1:1)\n', [WS]), undefined, 'a Windows path is never inside a POSIX folder');
  });

  it('paths with spaces and parentheses in the folder', () => {
    const ws = '/home/u/my projects/shop (copy)';
    assert.deepEqual(findCodeLocus(`    at Cart.total (${ws}/src/cart.js:3:1)\n`, [ws]), at(`${ws}/src/cart.js`, 3, 1, 'stack'));
    assert.deepEqual(findCodeLocus(`    at ${ws}/src/cart.js:4:2\n`, [ws]), at(`${ws}/src/cart.js`, 4, 2, 'stack'));
    assert.deepEqual(findCodeLocus(`\n${ws}/src/cart.js\n  5:3  error  boom  no-undef\n`, [ws]), at(`${ws}/src/cart.js`, 5, 3, 'eslint'));
  });

  it('several folders: the one the path lies in; a trailing separator on a folder is fine', () => {
    assert.deepEqual(findCodeLocus('    at f (/w/api/src/a.js:2:3)\n', ['/w/web/', '/w/api/']), at('/w/api/src/a.js', 2, 3, 'stack'));
    // A relative path with several folders: the first reading that exists, else the first folder.
    const rel = '    at f (src/a.js:2:3)\n';
    assert.deepEqual(findCodeLocus(rel, ['/w/web', '/w/api'], { isFile: (p) => p === '/w/api/src/a.js' }), at('/w/api/src/a.js', 2, 3, 'stack'));
    assert.deepEqual(findCodeLocus(rel, ['/w/web', '/w/api']), at('/w/web/src/a.js', 2, 3, 'stack'));
    assert.equal(findCodeLocus(rel, ['/w/web', '/w/api'], { isFile: () => false }), undefined);
  });

  it('huge lines are skipped, not matched; the first failure after them is still found', () => {
    const huge = `    at f (${WS}/src/${'a'.repeat(200_000)}.js:1:1)`;
    const out = `${huge}\n${'x'.repeat(3_000_000)}\n    at g (${WS}/src/b.js:2:2)\n`;
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/b.js`, 2, 2, 'stack'));
  });

  it('the first failure in the output wins over later ones of any tool', () => {
    const out = `src/a.ts(3,1): error TS1005: ';' expected.\n    at f (${WS}/src/b.js:2:2)\n`;
    assert.deepEqual(findCodeLocus(out, [WS]), at(`${WS}/src/a.ts`, 3, 1, 'tsc'));
  });
});
