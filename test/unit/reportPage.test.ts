/**
 * findReportPage over outputs as the tools print them: the report folders and files of playwright,
 * pytest-cov, coverage.py, pytest-html, Gradle, mochawesome, Sphinx, Allure, cargo, vitest, scripts'
 * "Coverage report at …" lines, and the addresses dev servers announce (vite, webpack-dev-server,
 * Next.js, Python's http.server). The real outputs of the summary corpus name no report: none is found
 * in them, and the real playwright output with its own report hint appended finds the report folder.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findReportPage } from '../../src/core/reportPage';
import { loadCorpus } from './helpers/summaryCorpus';

const SHOP = '/home/dev/shop';
const ESC = '\x1b[';

describe('findReportPage: report files and folders', () => {
  it('playwright: "To open last HTML report run: npx playwright show-report" is the playwright-report folder of the cwd', () => {
    const real = loadCorpus().find((o) => o.file === 'playwright-html-fail-color.log');
    assert.ok(real);
    // What the html reporter adds off CI (playwright's onExit): a blank line, the hint, the command in cyan.
    const hint = `\nTo open last HTML report run:\n${ESC}36m\n  npx playwright show-report\n${ESC}39m\n`;
    const r = findReportPage(real.text + hint, [real.workspace], { cwd: real.workspace });
    assert.deepEqual(r, {
      url: 'file:///home/dev/shop-e2e/playwright-report/index.html',
      path: '/home/dev/shop-e2e/playwright-report/index.html',
      line: real.text.split('\n').length + 3,
      recogniser: 'playwright',
    });
    assert.equal(findReportPage(real.text, [real.workspace]), undefined, 'the same output without the hint names no report');
  });

  it('playwright: a report folder of its own, pnpm exec, and the hint on one line', () => {
    const own = findReportPage('  52 passed (17m)\n\nTo open last HTML report run:\n  npx playwright show-report test-reports/html-report\n', [SHOP]);
    assert.equal(own?.path, `${SHOP}/test-reports/html-report/index.html`);
    const pnpm = findReportPage('To open last HTML report run:\n\n  pnpm exec playwright show-report --port 9400\n', [SHOP]);
    assert.equal(pnpm?.path, `${SHOP}/playwright-report/index.html`, 'a flag is not the folder');
    const oneLine = findReportPage('  24 passed (23.3s)\n\nTo open last HTML report run:  npx playwright show-report\n', [SHOP]);
    assert.equal(oneLine?.recogniser, 'playwright');
  });

  it('pytest-cov "Coverage HTML written to dir htmlcov" and coverage.py "Wrote HTML report to htmlcov/index.html"', () => {
    const pytestCov = [
      '---------- coverage: platform linux, python 3.11.7-final-0 -----------',
      'Name                          Stmts   Miss  Cover',
      '-------------------------------------------------',
      'src/pricing/discount.py          12      2    83%',
      '-------------------------------------------------',
      'TOTAL                            12      2    83%',
      'Coverage HTML written to dir htmlcov',
      '',
      '=================== 2 failed, 4 passed, 1 skipped in 0.31s ===================',
    ].join('\n');
    assert.deepEqual(findReportPage(pytestCov, [SHOP]), { url: `file://${SHOP}/htmlcov/index.html`, path: `${SHOP}/htmlcov/index.html`, line: 7, recogniser: 'pytest-cov' });
    const coveragePy = 'Name    Stmts   Miss  Cover\n---------------------------\nTOTAL     208      0   100%\n\nWrote HTML report to htmlcov/index.html\n';
    assert.equal(findReportPage(coveragePy, [SHOP])?.path, `${SHOP}/htmlcov/index.html`);
  });

  it('pytest-html and Gradle print file:// URLs; the docs URL on a pytest warning line is not a report', () => {
    const pytestHtml = [
      '-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html',
      `------------- Generated html report: file://${SHOP}/reports/report.html -------------`,
      '=========================== short test summary info ============================',
      'FAILED tests/test_cart.py::test_total - assert 12 == 13',
    ].join('\n');
    const r = findReportPage(pytestHtml, [SHOP]);
    assert.equal(r?.path, `${SHOP}/reports/report.html`);
    assert.equal(r?.line, 2);
    const gradle = [
      'CartTest > totals() FAILED',
      '    org.opentest4j.AssertionFailedError at CartTest.java:21',
      '',
      '3 tests completed, 1 failed',
      '',
      'FAILURE: Build failed with an exception.',
      '',
      '* What went wrong:',
      "Execution failed for task ':test'.",
      `> There were failing tests. See the report at: file://${SHOP}/build/reports/tests/test/index.html`,
    ].join('\n');
    assert.equal(findReportPage(gradle, [SHOP])?.url, `file://${SHOP}/build/reports/tests/test/index.html`);
    // Gradle's relative form (`file:` without slashes) reads against the cwd.
    assert.equal(findReportPage('> There were failing tests. See the report at: file:build/reports/tests/index.html', [SHOP])?.path, `${SHOP}/build/reports/tests/index.html`);
  });

  it('scripts\' "Coverage report at …" lines, nyc/istanbul lcov-report paths, mochawesome, cargo doc', () => {
    assert.equal(findReportPage(`Coverage report at: ${SHOP}/coverage/lcov-report/index.html\n`, [SHOP])?.path, `${SHOP}/coverage/lcov-report/index.html`);
    assert.equal(findReportPage('All files |   83.33 |       50 |     100 |   83.33 |\nCoverage report at coverage/lcov-report\n', [SHOP])?.path, `${SHOP}/coverage/lcov-report/index.html`);
    const mochawesome = `[mochawesome] Report JSON saved to ${SHOP}/mochawesome-report/mochawesome.json\n\n[mochawesome] Report HTML saved to ${SHOP}/mochawesome-report/mochawesome.html\n`;
    assert.equal(findReportPage(mochawesome, [SHOP])?.path, `${SHOP}/mochawesome-report/mochawesome.html`);
    const cargoDoc = ` Documenting shop v0.1.0 (${SHOP})\n    Finished \`dev\` profile [unoptimized + debuginfo] target(s) in 1.02s\n   Generated ${SHOP}/target/doc/shop/index.html\n`;
    assert.equal(findReportPage(cargoDoc, [SHOP])?.path, `${SHOP}/target/doc/shop/index.html`);
  });

  it('Sphinx, Allure, cargo llvm-cov and vitest\'s html reporter name a folder: its index.html', () => {
    assert.equal(findReportPage('build succeeded.\n\nThe HTML pages are in _build/html.\n', [SHOP])?.path, `${SHOP}/_build/html/index.html`);
    assert.equal(findReportPage('Report successfully generated to allure-report\n', [SHOP])?.path, `${SHOP}/allure-report/index.html`);
    assert.equal(findReportPage('    Finished report saved to target/llvm-cov/html\n', [SHOP])?.path, `${SHOP}/target/llvm-cov/html/index.html`);
    assert.equal(findReportPage('    Finished report saved to lcov.info\n', [SHOP]), undefined, 'a report that is not HTML');
    const vitest = ` Test Files  1 failed (1)\n      Tests  3 failed | 3 passed (6)\n HTML  Report is generated\n       You can run npx vite preview --outDir html to see the test results.\n`;
    assert.equal(findReportPage(vitest, [SHOP])?.recogniser, 'vitest');
    assert.equal(findReportPage(vitest, [SHOP])?.path, `${SHOP}/html/index.html`);
  });

  it('a path with spaces (absolute or quoted) and a Windows workspace', () => {
    const spaced = '/home/dev/my projects/web-utils';
    assert.equal(findReportPage(`Wrote HTML report to ${spaced}/htmlcov/index.html\n`, [spaced])?.url, 'file:///home/dev/my%20projects/web-utils/htmlcov/index.html');
    assert.equal(findReportPage(`report written to "coverage/html report/index.html"\n`, [spaced])?.path, `${spaced}/coverage/html report/index.html`);
    const win = 'C:\\Users\\dev\\shop';
    const r = findReportPage('TOTAL     208      0   100%\r\nWrote HTML report to htmlcov\\index.html\r\n', [win]);
    assert.equal(r?.path, 'C:\\Users\\dev\\shop\\htmlcov\\index.html');
    assert.equal(r?.url, 'file:///C:/Users/dev/shop/htmlcov/index.html');
  });

  it('relative paths read against the job\'s cwd first; isFile passes over readings that do not exist', () => {
    const out = 'Wrote HTML report to htmlcov/index.html\n';
    assert.equal(findReportPage(out, [SHOP], { cwd: `${SHOP}/packages/web` })?.path, `${SHOP}/packages/web/htmlcov/index.html`);
    assert.equal(findReportPage(out, [SHOP], { cwd: `${SHOP}/packages/web`, isFile: (p) => p === `${SHOP}/htmlcov/index.html` })?.path, `${SHOP}/htmlcov/index.html`);
    assert.equal(findReportPage(out, [SHOP], { isFile: () => false }), undefined);
  });

  it('only inside the workspace: other folders, escapes with .., dependencies and no workspace at all are passed over', () => {
    assert.equal(findReportPage('See the report at: file:///etc/reports/index.html', [SHOP]), undefined);
    assert.equal(findReportPage('Wrote HTML report to ../other-project/htmlcov/index.html', [SHOP]), undefined);
    assert.equal(findReportPage(`Wrote HTML report to ${SHOP}/node_modules/some-lib/coverage/index.html`, [SHOP]), undefined);
    assert.equal(findReportPage('Wrote HTML report to htmlcov/index.html', []), undefined);
    assert.equal(findReportPage('Wrote HTML report to ~/htmlcov/index.html', [SHOP], { isFile: () => false }), undefined);
  });

  it('the last report printed wins over an earlier one; an announced report over an .html mentioned in passing', () => {
    const out = [
      '> Task :app:lintReportDebug',
      `Wrote HTML report to file://${SHOP}/app/build/reports/lint-results-debug.html`,
      '> Task :app:testDebugUnitTest FAILED',
      `> There were failing tests. See the report at: file://${SHOP}/app/build/reports/tests/testDebugUnitTest/index.html`,
      '  ✓ renders public/landing.html (12 ms)',
    ].join('\n');
    assert.equal(findReportPage(out, [SHOP])?.path, `${SHOP}/app/build/reports/tests/testDebugUnitTest/index.html`);
    assert.equal(findReportPage(`Copied public/landing.html; see ${SHOP}/site/index.html.`, [SHOP])?.path, `${SHOP}/site/index.html`, 'on one line, the later one');
    // An .html mentioned in passing is still a page when nothing else is named.
    assert.deepEqual(findReportPage('  ✓ renders public/landing.html (12 ms)\n', [SHOP]), { url: `file://${SHOP}/public/landing.html`, path: `${SHOP}/public/landing.html`, line: 1, recogniser: 'path' });
  });

  it('a line that says a file is missing names no report', () => {
    assert.equal(findReportPage(`Error: ENOENT: no such file or directory, open '${SHOP}/dist/index.html'\n`, [SHOP]), undefined);
  });
});

describe('findReportPage: servers on this machine', () => {
  it('vite (coloured, the port in bold) and Next.js: the Local address', () => {
    const vite = `\n  ${ESC}32m${ESC}1mVITE${ESC}22m v5.4.2${ESC}39m  ${ESC}2mready in ${ESC}0m${ESC}1m312${ESC}22m${ESC}2m${ESC}0m ms${ESC}22m\n\n  ${ESC}32m➜${ESC}39m  ${ESC}1mLocal${ESC}22m:   ${ESC}36mhttp://localhost:${ESC}1m5173${ESC}22m/${ESC}39m\n  ${ESC}32m➜${ESC}39m  ${ESC}1mNetwork${ESC}22m${ESC}2m: use ${ESC}22m${ESC}1m--host${ESC}22m${ESC}2m to expose${ESC}22m\n`;
    assert.deepEqual(findReportPage(vite, [SHOP]), { url: 'http://localhost:5173/', line: 4, recogniser: 'server' });
    const next = '  ▲ Next.js 14.2.3\n  - Local:        http://localhost:3000\n  - Network:      http://192.168.1.20:3000\n\n ✓ Ready in 1840ms\n';
    assert.equal(findReportPage(next, [SHOP])?.url, 'http://localhost:3000/');
  });

  it('webpack-dev-server: the loopback address, not the network one; IPv6 loopback is understood', () => {
    const wds = [
      '<i> [webpack-dev-server] Project is running at:',
      '<i> [webpack-dev-server] Loopback: http://localhost:8080/, http://[::1]:8080/',
      '<i> [webpack-dev-server] On Your Network (IPv4): http://192.168.1.10:8080/',
      '<i> [webpack-dev-server] Content not from webpack is served from \'/home/dev/shop/public\' directory',
    ].join('\n');
    assert.equal(findReportPage(wds, [SHOP])?.url, 'http://localhost:8080/');
    assert.equal(findReportPage('<i> [webpack-dev-server] Loopback: http://[::1]:8080/\n', [SHOP])?.url, 'http://[::1]:8080/');
  });

  it('Python\'s http.server on every interface is opened on loopback; a playwright report being served', () => {
    assert.equal(findReportPage('Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...\n', [SHOP])?.url, 'http://127.0.0.1:8000/');
    assert.equal(findReportPage('\n  Serving HTML report at http://localhost:9323. Press Ctrl+C to quit.\n', [SHOP])?.url, 'http://localhost:9323/');
  });

  it('a report file beats a server printed earlier (playwright\'s webServer)', () => {
    const out = '[WebServer]   ➜  Local:   http://localhost:5173/\nRunning 4 tests using 1 worker\n  2 failed\n  2 passed (6.1s)\n\nTo open last HTML report run:\n\n  npx playwright show-report\n';
    assert.equal(findReportPage(out, [SHOP])?.recogniser, 'playwright');
    assert.equal(findReportPage(out, [SHOP], { isFile: () => false })?.url, 'http://localhost:5173/', 'without the report file, the server');
  });

  it('not taken: other machines, a URL mentioned in a failure, a URL a line does not announce, https pages ending .html', () => {
    assert.equal(findReportPage('Server started at <http://192.168.1.3:54829/>. Press <Ctrl+C> to exit\n', [SHOP]), undefined);
    assert.equal(findReportPage('    Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:3000/\n', [SHOP]), undefined);
    assert.equal(findReportPage('GET http://localhost:3000/api/cart 500 12ms\n', [SHOP]), undefined);
    assert.equal(findReportPage('See https://example.com/docs/report.html for the format\n', [SHOP]), undefined);
  });
});

describe('findReportPage over the summary corpus', () => {
  it('no real output of the corpus names a report (no false positives in 48 outputs)', () => {
    const corpus = loadCorpus();
    assert.ok(corpus.length >= 30);
    for (const o of corpus) assert.equal(findReportPage(o.text, [o.workspace], { cwd: o.workspace }), undefined, o.file);
  });
});
