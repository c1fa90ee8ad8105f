/** stripControl: terminal output → the plain text a terminal would show, line by line. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stripControl } from '../../src/core/controlCodes';
import { corpusDir } from './helpers/summaryCorpus';

const ESC = '\x1b';
const BEL = '\x07';

describe('stripControl', () => {
  it('removes colours (SGR), keeping newlines, tabs and text', () => {
    assert.equal(stripControl(`${ESC}[1m${ESC}[31m  2 failing${ESC}[0m\n\tok ${ESC}[38;5;196mred${ESC}[39m\n`), '  2 failing\n\tok red\n');
    assert.equal(stripControl('plain\n\nlines'), 'plain\n\nlines');
    assert.equal(stripControl(''), '');
  });

  it('removes OSC strings ended by BEL or ST: titles, hyperlinks, shell-integration marks', () => {
    assert.equal(stripControl(`${ESC}]0;npm test${BEL}${ESC}]633;C${BEL}out${ESC}]633;D;1${BEL}\n`), 'out\n');
    assert.equal(stripControl(`see ${ESC}]8;;file:///p/a.ts${ESC}\\a.ts${ESC}]8;;${ESC}\\ here`), 'see a.ts here');
    // A broken OSC (no terminator) ends at the line's end instead of swallowing the rest of the log.
    assert.equal(stripControl(`a${ESC}]0;title\nb\n`), 'a\nb\n');
  });

  it('removes other escapes (charset, DCS, private modes, 8-bit CSI) and stray control characters', () => {
    assert.equal(stripControl(`${ESC}[31mFAILED${ESC}(B${ESC}[m`), 'FAILED');
    assert.equal(stripControl(`${ESC}[?25l${ESC}[?2026hx${ESC}[?2026l${ESC}7${ESC}8`), 'x');
    assert.equal(stripControl(`${ESC}Pq#0;2;0;0;0${ESC}\\after`), 'after');
    assert.equal(stripControl('\x9b31mred\x9b0m \x00nul\x07bell\x7fdel'), 'red nulbelldel');
    assert.equal(stripControl(`end${ESC}`), 'end');
    assert.equal(stripControl(`${ESC}[`), '');
  });

  it('keeps the last state of a line rewritten by carriage returns (progress bars)', () => {
    assert.equal(stripControl('Downloading  10%\rDownloading  55%\rDownloading 100%\ndone\n'), 'Downloading 100%\ndone\n');
    // A shorter rewrite leaves the old tail, as the terminal shows it, unless the line was erased.
    assert.equal(stripControl('building 3/10\rok'), 'okilding 3/10');
    assert.equal(stripControl(`building 3/10\r${ESC}[Kok`), 'ok');
    assert.equal(stripControl(`building 3/10${ESC}[2K${ESC}[1Gok`), 'ok');
    assert.equal(stripControl(`⠙${ESC}[1G${ESC}[0K⠹${ESC}[1G${ESC}[0Kready\n`), 'ready\n');
    // CRLF (a pty's line end) is a line end, not a rewrite; a CR at the very end changes nothing.
    assert.equal(stripControl('a\r\nb\r\r\nc\r'), 'a\nb\nc');
  });

  it('follows backspace, cursor left/right and cursor-up redraws', () => {
    assert.equal(stripControl('abc\b\bX'), 'aXc');
    assert.equal(stripControl(`12345${ESC}[3DX`), '12X45');
    assert.equal(stripControl(`ab${ESC}[3Cc`), 'ab   c');
    // jest's status line: printed under the results, then erased and overwritten by the next result.
    const jest = `PASS a.test.js\r\n\r\n RUNS  b.test.js\r\n\r${ESC}[K\r${ESC}[1A\r${ESC}[K\r${ESC}[1AFAIL b.test.js\r\n`;
    assert.equal(stripControl(jest), 'PASS a.test.js\nFAIL b.test.js\n\n');
    // Cursor-up never goes above the first line.
    assert.equal(stripControl(`one${ESC}[9Atwo`), 'onetwo');
    // …nor more than a screenful (200 rows) back: older rows are settled text.
    const lines = Array.from({ length: 300 }, (_, i) => `L${i}`);
    const expected = [...lines.slice(0, 100), 'Z100', ...lines.slice(101), ''].join('\n');
    assert.equal(stripControl(`${lines.join('\n')}\n${ESC}[999AZ`), expected);
    // Going up and down between rows (a hostile redraw loop) keeps every row's last state.
    assert.equal(stripControl(`xxx\n${`a\r${ESC}[1Ab\r${ESC}[1B`.repeat(20_000)}`), 'bxx\na');
    assert.equal(stripControl(`xx\n${`a${ESC}[1Ab${ESC}[1B`.repeat(3)}`), 'xb b b\na a a');
  });

  it('a hostile cursor move pads at most 1000 columns; a huge line and many rewrites come through', () => {
    assert.equal(stripControl(`x${ESC}[99999999Gy`).length, 1001);
    const big = `${'✔ case (1ms)\r'.repeat(20_000)}\n${'z'.repeat(2_000_000)}`;
    assert.equal(stripControl(big), `✔ case (1ms)\n${'z'.repeat(2_000_000)}`);
  });

  it('turns the corpus captured in a pty into what the terminal showed', () => {
    const raw = readFileSync(join(corpusDir(), 'jest-tty-fail.log'), 'utf8');
    const plain = stripControl(raw);
    const control = [...plain].filter((c) => (c < ' ' && c !== '\t' && c !== '\n') || c === '\x7f');
    assert.deepEqual(control, [], 'no control characters left');
    assert.doesNotMatch(plain, /RUNS/, 'the status lines jest erased are gone');
    assert.match(plain, /^Tests: {7}2 failed, 1 skipped, 5 passed, 8 total$/m);
    assert.match(plain, /^ {6}at Object\.toEqual \(__tests__\/cart\.test\.js:23:39\)$/m);
  });
});
