/**
 * The first five minutes (README "The first five minutes"): the small readings a new user meets — a
 * UTC zone named once, Move's pre-filled `when` that reads back to the same schedule, a
 * confirmation that states the instant.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeInstant, scheduleAsWhen } from '../../src/core/time/describe';
import { parseWhen, whenConfirmation } from '../../src/core/time/when';
import type { Schedule } from '../../src/core/schema';

const NOW = new Date('2026-10-02T14:40:00.000Z');

describe('describeInstant in a UTC zone', () => {
  it('names the zone once: "14:43:26 UTC", not "14:43:26 UTC (14:43:26Z)"', () => {
    const s = describeInstant(new Date('2026-10-02T14:43:26.000Z'), 'UTC', NOW);
    assert.equal(s, 'Fri 2 Oct 14:43:26 UTC, in 3 min');
    assert.equal(describeInstant(new Date('2026-10-02T14:43:26.000Z'), 'Etc/UTC', NOW), 'Fri 2 Oct 14:43:26 UTC, in 3 min');
  });
  it('a zone at offset 0 that is not UTC (London in winter) still shows the UTC reading', () => {
    const s = describeInstant(new Date('2026-12-02T14:43:00.000Z'), 'Europe/London', NOW);
    assert.match(s, /14:43 GMT \(14:43Z\)/);
  });
  it('other zones keep both readings', () => {
    assert.match(describeInstant(new Date('2026-10-02T14:43:00.000Z'), 'Europe/Berlin', NOW), /16:43 CEST \(14:43Z\)/);
  });
});

describe('scheduleAsWhen (Move pre-fills the current when)', () => {
  const cases: [Schedule, string, string][] = [
    [{ kind: 'once', at: '2026-10-03T07:00:00.000Z' }, 'Europe/Berlin', '2026-10-03 09:00'],
    [{ kind: 'once', at: '2026-10-03T07:00:30.000Z' }, 'Europe/Berlin', '2026-10-03 09:00:30'],
    [{ kind: 'every', seconds: 1800, from: '2026-10-01T00:00:00.000Z' }, 'UTC', 'every 30min'],
    [{ kind: 'cron', expr: '0 9 * * 1-5', tz: 'Europe/Berlin' }, 'Europe/Berlin', 'cron 0 9 * * 1-5'],
  ];
  for (const [schedule, tz, words] of cases) {
    it(`${schedule.kind} → "${words}", which reads back to the same schedule`, () => {
      assert.equal(scheduleAsWhen(schedule, tz), words);
      const input = words.startsWith('cron ') ? { cron: words.slice(5) } : { when: words };
      const parsed = parseWhen({ ...input, tz, kind: 'reminder', now: NOW });
      if (schedule.kind === 'once') assert.equal(parsed.nextRunAt.toISOString(), schedule.at);
      else if (schedule.kind === 'every') assert.deepEqual(parsed.schedule.kind === 'every' && parsed.schedule.seconds, schedule.seconds);
      else assert.deepEqual(parsed.schedule, schedule);
    });
  }
});

describe('whenConfirmation (the tools\u2019 confirmation)', () => {
  it('states the resolved instant, then the words given', () => {
    assert.equal(whenConfirmation({ when: 'in 2 minutes' }, 'Europe/Berlin', 'reminder', NOW), 'Once, Fri 2 Oct 16:42 CEST (14:42Z), in 2 min (\u201cin 2 minutes\u201d)');
  });
  it('words it cannot read: the words and why', () => {
    const s = whenConfirmation({ when: '30m' }, 'Europe/Berlin', 'reminder', NOW);
    assert.match(s, /^\u201c30m\u201d \(.*ambiguous/);
  });
});

describe('readablePulse (the feed and @life without a model show a pulse in plain lines)', () => {
  it('a job pulse: the wake text, the job line, the summary, the landing', async () => {
    const { renderPulse } = await import('../../src/core/wake/pulse');
    const pulse = renderPulse(
      { when: 'job.done', text: 'look at the failing tests', jobId: 'j-abc' },
      {
        wakeIds: ['w-1'],
        job: { id: 'j-abc', status: 'failed', exitCode: 1 },
        summary: '2 failing, 5 passing: add() returns the wrong sum',
        landing: { kind: 'code_anchor', anchor: { path: 'src/calc.ts', symbol: 'add', range: { start: { line: 11, character: 0 }, end: { line: 13, character: 0 } }, excerpt: '', excerptHash: '' } } as never,
      },
    );
    const { readablePulse, pulseWords } = await import('../../src/core/wake/pulseWords');
    const text = readablePulse(pulse);
    assert.doesNotMatch(text, /life_wake:/);
    assert.equal(text.split('\n')[0], 'look at the failing tests');
    assert.match(text, /^Job j-abc failed \(exit 1\)$/m);
    assert.match(text, /^Summary: 2 failing, 5 passing: add\(\) returns the wrong sum$/m);
    assert.match(text, /^Landing: src\/calc\.ts L12-L14 \(add\)$/m);
    assert.equal(pulseWords('no block here'), null);
    assert.equal(readablePulse('plain reminder text'), 'plain reminder text');
  });
  it('a timer pulse reads "Timer"', async () => {
    const { renderPulse } = await import('../../src/core/wake/pulse');
    const { readablePulse } = await import('../../src/core/wake/pulseWords');
    assert.equal(readablePulse(renderPulse({ when: 'timer', text: 'check the deploy' }, { wakeIds: ['w-2'] })), 'check the deploy\nTimer');
  });
});

describe('readPastedLanding (Open Landing)', () => {
  it('nothing pasted (a cancelled or empty box) is no landing and no error', async () => {
    const { readPastedLanding } = await import('../../src/core/landing');
    assert.equal(readPastedLanding(undefined, ['vscode']), null);
    assert.equal(readPastedLanding('   ', ['vscode']), null);
  });
  it('a Life Thread link is read once, as a deep link', async () => {
    const { readPastedLanding } = await import('../../src/core/landing');
    assert.deepEqual(readPastedLanding(' vscode://lifethread.life-thread/anchor?topic=t&msg=m-1&start=0&end=3 ', ['vscode']), {
      kind: 'deep_link',
      uri: 'vscode://lifethread.life-thread/anchor?topic=t&msg=m-1&start=0&end=3',
    });
  });
  it('JSON that does not parse is refused naming landing', async () => {
    const { readPastedLanding } = await import('../../src/core/landing');
    assert.throws(() => readPastedLanding('{nope', ['vscode']), /landing: looks like JSON/);
  });
});

describe('readWakeWords (/wake with explicit words, no model)', () => {
  const read = async (p: string) => (await import('../../src/core/wake/wakeWords')).readWakeWords(p, 'Europe/Berlin', NOW);
  it('a timer with a text after a colon or a dash', async () => {
    assert.deepEqual(await read('in 20 minutes: check the deploy'), { when: 'timer', at: 'in 20 minutes', text: 'check the deploy' });
    assert.deepEqual(await read('tomorrow at 9 — read the nightly report'), { when: 'timer', at: 'tomorrow at 9', text: 'read the nightly report' });
  });
  it('a timer alone gets a default text', async () => {
    assert.deepEqual(await read('in 5 minutes'), { when: 'timer', at: 'in 5 minutes', text: 'Timer (in 5 minutes): continue.' });
  });
  it('a job by task name (quoted), terminal or row id', async () => {
    assert.deepEqual(await read('when "npm: test" ends: look at the failures'), { when: 'job.done', job_id: 'npm: test', text: 'look at the failures' });
    assert.deepEqual(await read('when c-abc123 finishes'), { when: 'job.done', job_id: 'c-abc123', text: 'c-abc123 ended: look at the result and continue.' });
  });
  it('presence and the repository', async () => {
    assert.equal((await read("when I'm back: continue the refactor"))?.when, 'presence.online');
    assert.equal((await read('when the repository changes'))?.when, 'scm.changed');
  });
  it('free words are not a wake (null: the model reads those)', async () => {
    assert.equal(await read('remind me sometime about the thing'), null);
    assert.equal(await read(''), null);
    // A recurring phrase is not a wake's instant.
    assert.equal(await read('every 30m'), null);
  });
});
