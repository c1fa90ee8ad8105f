/**
 * A job's 100 MB log: the finish pipeline reads only its tail, finds the summary there and renders a
 * pulse under the cap, with memory bounded (this file runs in its own process, so the peak RSS
 * measured here is this case's).
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LOG_TAIL_BYTES, PULSE_MAX_CHARS } from '../../src/core/wake/contract';
import { jobStatus } from '../../src/core/wake/jobStatus';
import { renderPulse, summaryFromLogTail } from '../../src/core/wake/pulse';
import { readLogTail } from '../../src/node/wakes';
import { tempDirs } from './helpers/tempDirs';

const LOG_BYTES = 100 * 1024 * 1024;
/** A reader that held the whole log would add at least the log's size to the peak. */
const PEAK_GROWTH_MAX_MB = 32;

const dirs = tempDirs('lt-logtail-');

function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

describe('a 100 MB job log', () => {
  it('only its tail is read: the summary is found, the pulse stays under the cap, memory stays bounded', async () => {
    const file = join(dirs.freshDir(), 'job.log');
    const fd = openSync(file, 'w');
    const line = '    ✔ store › reads a row and writes it back (3ms)\n';
    const chunk = Buffer.from(line.repeat(Math.floor((1 << 20) / Buffer.byteLength(line))));
    try {
      let written = 0;
      while (written < LOG_BYTES) written += writeSync(fd, chunk);
      writeSync(fd, '\n  4211 passing (2m)\n  3 failing\n\n  1) store › writes:\n     Error: EACCES\n');
    } finally {
      closeSync(fd);
    }
    const before = peakRssMb();
    const tail = await readLogTail(file);
    const summary = summaryFromLogTail(tail.text, { truncated: tail.truncated });
    const pulse = renderPulse(
      { text: 'The full suite finished. '.repeat(400), when: 'job.done', jobId: 'npm test' },
      { job: { status: jobStatus(1), exitCode: 1 }, summary, landing: { kind: 'deep_link', uri: `file://${file}` }, desk: 'none' },
    );
    const growth = peakRssMb() - before;

    assert.equal(tail.truncated, true);
    assert.ok(tail.size > LOG_BYTES);
    assert.ok(tail.text.length <= LOG_TAIL_BYTES, `tail ${tail.text.length}`);
    assert.equal(summary, 'mocha: 4211 passed, 3 failed');
    assert.ok(pulse.length <= PULSE_MAX_CHARS, `pulse ${pulse.length}`);
    assert.match(pulse, /summary: "mocha: 4211 passed, 3 failed"/);
    assert.ok(growth < PEAK_GROWTH_MAX_MB, `peak RSS grew ${growth.toFixed(1)} MB reading a ${LOG_BYTES / 2 ** 20} MB log`);
  });
});
