/**
 * The `when` box's Enter (src/core/time/preview.ts): the instant shown is the one stored, unless the
 * words, read again at Enter, mean another instant (the box stayed open) or the one shown has passed:
 * then the box shows the new instant and the next Enter accepts. Fixed times pass at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onEnter, PREVIEW_TOLERANCE_MS, readPreview } from '../../src/core/time/preview';

const T0 = new Date('2026-07-14T10:04:12.300Z');
const later = (ms: number): Date => new Date(T0.getTime() + ms);

describe('when box: Enter after the preview', () => {
  for (const tz of ['UTC', 'Europe/Berlin', 'America/Los_Angeles']) {
    it(`stores the instant shown when Enter follows within seconds (${tz})`, () => {
      const shown = readPreview('in 20 minutes', tz, 'reminder', T0);
      const out = onEnter(shown, 'in 20 minutes', tz, 'reminder', later(PREVIEW_TOLERANCE_MS - 1000));
      assert.equal(out.kind, 'accept');
      assert.equal(out.kind === 'accept' && out.preview.readAt.getTime(), T0.getTime());
      assert.equal(out.kind === 'accept' && out.preview.parsed.nextRunAt.toISOString(), '2026-07-14T10:24:12.300Z');
    });

    it(`refreshes a relative phrase left open for minutes, then accepts the new instant (${tz})`, () => {
      const shown = readPreview('in 1 minute', tz, 'reminder', T0);
      const t1 = later(2 * 60_000);
      const out = onEnter(shown, 'in 1 minute', tz, 'reminder', t1);
      assert.equal(out.kind, 'refresh');
      if (out.kind !== 'refresh') return;
      assert.equal(out.preview.parsed.nextRunAt.toISOString(), '2026-07-14T10:07:12.300Z');
      assert.match(out.prompt, /^Now Once, Tue 14 Jul .*, in 1 min \(it showed .*\) \u2014 press Enter again to accept\.$/);
      // The next Enter, a second later, takes the refreshed instant.
      const again = onEnter(out.preview, 'in 1 minute', tz, 'reminder', new Date(t1.getTime() + 1000));
      assert.equal(again.kind, 'accept');
      assert.equal(again.kind === 'accept' && again.preview.readAt.getTime(), t1.getTime());
    });

    it(`accepts a fixed time at once however long the box was open (${tz})`, () => {
      for (const words of ['tomorrow at 9', '2026-08-01 09:00', 'every weekday at 09:00', 'cron 0 9 * * 1-5']) {
        const shown = readPreview(words, tz, 'command', T0);
        const out = onEnter(shown, words, tz, 'command', later(3 * 60_000));
        assert.equal(out.kind, 'accept', words);
        assert.equal(out.kind === 'accept' && out.preview.readAt.getTime(), T0.getTime(), words);
      }
    });
  }

  it('refreshes when the instant shown has passed, even within the tolerance', () => {
    const shown = readPreview('in 5 seconds', 'UTC', 'reminder', T0);
    const out = onEnter(shown, 'in 5 seconds', 'UTC', 'reminder', later(7000));
    assert.ok(7000 < PREVIEW_TOLERANCE_MS);
    assert.equal(out.kind, 'refresh');
    assert.match(out.kind === 'refresh' ? out.prompt : '', /it showed 10:04:17 UTC/);
  });

  it('refreshes a relative phrase as soon as it drifts past the tolerance', () => {
    const shown = readPreview('in 30 seconds', 'UTC', 'reminder', T0);
    assert.equal(onEnter(shown, 'in 30 seconds', 'UTC', 'reminder', later(PREVIEW_TOLERANCE_MS - 500)).kind, 'accept');
    assert.equal(onEnter(shown, 'in 30 seconds', 'UTC', 'reminder', later(PREVIEW_TOLERANCE_MS + 500)).kind, 'refresh');
  });

  it('a recurring interval is re-read too: its first run moves with now', () => {
    const shown = readPreview('every 30m', 'UTC', 'command', T0);
    assert.equal(onEnter(shown, 'every 30m', 'UTC', 'command', later(2000)).kind, 'accept');
    assert.equal(onEnter(shown, 'every 30m', 'UTC', 'command', later(PREVIEW_TOLERANCE_MS + 1000)).kind, 'refresh');
  });

  it('says why when the words cannot be read any more (a time of day that passed while the box was open)', () => {
    const shown = readPreview('at 10:05', 'UTC', 'reminder', T0);
    const out = onEnter(shown, 'at 10:05', 'UTC', 'reminder', later(2 * 60_000));
    assert.equal(out.kind, 'invalid');
    assert.match(out.kind === 'invalid' ? out.reason : '', /is in the past/);
  });

  it('words changed without a preview are read at Enter and accepted (what they show is what is stored)', () => {
    const shown = readPreview('in 5 minutes', 'UTC', 'reminder', T0);
    const out = onEnter(shown, 'in 6 minutes', 'UTC', 'reminder', later(60_000));
    assert.equal(out.kind, 'accept');
    assert.equal(out.kind === 'accept' && out.preview.parsed.nextRunAt.toISOString(), '2026-07-14T10:11:12.300Z');
  });
});
