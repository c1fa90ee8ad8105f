// What the sidebar and the status bar print: a held wake's reason once (src/host/wakeViews.ts), a
// window whose dispatcher has not passed yet "starting" with no overdue time (src/core/health.ts).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { dispatcherHealth, statusBarWords } from '../../src/core/health';
import { nextRunWords } from '../../src/core/time/describe';
import { HELD_WORDS, type WakeRow } from '../../src/core/wake/row';
import { wakeRowViews } from '../../src/host/wakeViews';

const NOW = new Date('2026-10-03T10:00:00Z');

function row(over: Partial<WakeRow>): WakeRow {
  return { id: 'w-held1', text: 'look at the tests', when: 'job.done', jobId: 'tests', status: 'pending', nextRunAt: null, createdAt: NOW.toISOString(), ...over } as WakeRow;
}

describe('the sidebar words of a wake', () => {
  for (const reason of ['paused', 'cap', 'busy', 'unreachable'] as const) {
    it(`prints a wake held (${reason}) with its reason exactly once`, () => {
      const [v] = wakeRowViews([row({ status: 'held', heldReason: reason, heldAt: NOW.toISOString() })], NOW, 'UTC', reason === 'paused');
      assert.ok(v);
      const shown = `${v.title}\n${v.when}\n${v.lastFact}`;
      const words = HELD_WORDS[reason];
      assert.equal(shown.split(words).length - 1, 1, shown);
      assert.equal(shown.split('held:').length - 1, 1, shown);
    });
  }

  it('prints a pending wake with its condition, and the pause once while paused', () => {
    const [v] = wakeRowViews([row({})], NOW, 'UTC', true);
    assert.ok(v);
    assert.match(v.when, /tests/);
    assert.equal(`${v.when}\n${v.lastFact}`.split('paused').length - 1, 1);
  });
});

describe('the status bar words', () => {
  it('says only "starting" before the first pass, even with a run that looks overdue', () => {
    const starting = dispatcherHealth({ lastPassAt: null, ownDispatcher: true }, NOW);
    const w = statusBarWords(starting, nextRunWords(NOW.getTime() - 2 * 60_000, NOW));
    assert.equal(w.words, 'starting');
    assert.doesNotMatch(w.words, /ago/);
  });

  it('names the next run and the state once the dispatcher passed', () => {
    const healthy = dispatcherHealth({ lastPassAt: new Date(NOW.getTime() - 3000) }, NOW);
    assert.equal(statusBarWords(healthy, nextRunWords(NOW.getTime() + 5 * 60_000, NOW)).words, 'next in 5 min · healthy');
    assert.equal(statusBarWords(healthy, nextRunWords(NOW.getTime() - 60_000, NOW)).words, 'due now · healthy');
  });

  it('makes one statement while wakes are paused', () => {
    const paused = dispatcherHealth({ lastPassAt: new Date(NOW.getTime() - 3000), paused: true, ownDispatcher: true }, NOW);
    assert.equal(paused.line, 'Wakes paused · dispatcher healthy');
    assert.equal(statusBarWords(paused, 'nothing scheduled').words, 'nothing scheduled · paused');
  });
});
