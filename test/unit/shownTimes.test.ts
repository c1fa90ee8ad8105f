/**
 * A tool's confirmation shows an instant; the call the user allows later stores that instant
 * (src/core/time/shownTimes.ts, used by src/node/tools/scheduleTools.ts). If it passed while the
 * confirmation waited, nothing is stored and the answer gives the new instant.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAsShown, ShownTimes } from '../../src/core/time/shownTimes';
import { whenConfirmation } from '../../src/core/time/when';
import { ScheduleStore } from '../../src/node/schedule';
import { remindTool, scheduleTool, type ScheduleToolHost } from '../../src/node/tools/scheduleTools';
import { tempDirs } from './helpers/tempDirs';

const T0 = new Date('2026-07-14T14:23:38.000Z');
const later = (ms: number): Date => new Date(T0.getTime() + ms);
const dirs = tempDirs('lt-shown-');

function host(dir: string, now: () => Date): ScheduleToolHost {
  return { store: new ScheduleStore({ dir }), now, zone: () => ({ timeZone: 'Europe/Berlin', source: 'setting', ignored: [] }), health: () => 'Dispatcher healthy', cwd: () => ({ dir }), envPath: undefined };
}

describe('shown times: kept by tool and input until the call', () => {
  it('gives back the instant of the confirmation for the same input, once, whatever the order of its fields', () => {
    const shown = new ShownTimes();
    shown.remember('lifethread_remind', { action: 'add', text: 'x', when: 'in 2 minutes' }, T0);
    assert.equal(shown.take('lifethread_remind', { action: 'add', text: 'y', when: 'in 2 minutes' }, later(1000)), undefined, 'another text is another call');
    assert.equal(shown.take('lifethread_schedule', { action: 'add', text: 'x', when: 'in 2 minutes' }, later(1000)), undefined, 'another tool');
    assert.equal(shown.take('lifethread_remind', { when: 'in 2 minutes', text: 'x', action: 'add' }, later(120_000))?.toISOString(), T0.toISOString());
    assert.equal(shown.take('lifethread_remind', { action: 'add', text: 'x', when: 'in 2 minutes' }, later(121_000)), undefined, 'used up');
  });

  it('two confirmations of the same input are taken oldest first; one left unanswered for hours is forgotten', () => {
    const shown = new ShownTimes();
    const input = { action: 'add', text: 'x', when: 'in 5 minutes' };
    shown.remember('t', input, T0);
    shown.remember('t', input, later(30_000));
    assert.equal(shown.take('t', input, later(60_000))?.getTime(), T0.getTime());
    assert.equal(shown.take('t', input, later(60_000))?.getTime(), later(30_000).getTime());
    shown.remember('t', input, T0);
    assert.equal(shown.take('t', input, later(7 * 3600_000)), undefined);
  });
});

describe('readAsShown: the instant the confirmation showed, or nothing', () => {
  for (const tz of ['UTC', 'Europe/Berlin', 'Pacific/Chatham']) {
    it(`"in 2 minutes" allowed 1 min 57 s later is stored at the instant shown, not read again (${tz})`, () => {
      const r = readAsShown({ when: 'in 2 minutes', tz, kind: 'reminder' }, T0, later(117_000));
      assert.equal(r.kind, 'store');
      assert.equal(r.kind === 'store' && r.parsed.nextRunAt.toISOString(), later(120_000).toISOString());
      assert.equal(r.kind === 'store' && r.readAt.getTime(), T0.getTime());
    });

    it(`"in 2 minutes" allowed after the instant shown stores nothing and gives the new instant (${tz})`, () => {
      const r = readAsShown({ when: 'in 2 minutes', tz, kind: 'reminder' }, T0, later(125_000));
      assert.equal(r.kind, 'passed');
      if (r.kind !== 'passed') return;
      assert.equal(r.shown.nextRunAt.toISOString(), later(120_000).toISOString());
      assert.ok(!('reason' in r.fresh));
      assert.equal('reason' in r.fresh ? '' : r.fresh.nextRunAt.toISOString(), later(245_000).toISOString());
    });
  }

  it('without a confirmation the words are read when the call runs', () => {
    const r = readAsShown({ when: 'in 2 minutes', tz: 'UTC', kind: 'reminder' }, undefined, later(60_000));
    assert.equal(r.kind === 'store' && r.parsed.nextRunAt.toISOString(), later(180_000).toISOString());
  });

  it('a fixed time that passed while the confirmation waited says why it cannot be read now', () => {
    const r = readAsShown({ when: '2026-07-14T14:24:00Z', tz: 'UTC', kind: 'reminder' }, T0, later(60_000));
    assert.equal(r.kind, 'passed');
    assert.ok(r.kind === 'passed' && 'reason' in r.fresh, JSON.stringify(r));
  });
});

describe('the remind and schedule tools store the confirmed instant', () => {
  it('remind add stores the instant its confirmation showed', async () => {
    const dir = dirs.freshDir();
    const input = { action: 'add', text: 'stretch', when: 'in 2 minutes' } as const;
    const confirmation = whenConfirmation(input, 'Europe/Berlin', 'reminder', T0);
    assert.match(confirmation, /\(14:25:38Z\), in 2 min/, 'the confirmation shows the instant that is stored');
    const out = await remindTool(input, host(dir, () => later(117_000)), { shownAt: T0 });
    const row = JSON.parse(out.slice(out.indexOf('\n{') + 1)) as { nextRunAt: string };
    assert.equal(row.nextRunAt, later(120_000).toISOString());
    assert.equal((await new ScheduleStore({ dir }).listReminders()).rows.length, 1);
  });

  it('remind add allowed after the instant shown stores nothing and answers with the new instant', async () => {
    const dir = dirs.freshDir();
    const out = await remindTool({ action: 'add', text: 'stretch', when: 'in 2 minutes' }, host(dir, () => later(150_000)), { shownAt: T0 });
    assert.match(out, /^Nothing was stored: the time the confirmation showed, .*, passed before the call was allowed\./);
    assert.match(out, /now means Once, /);
    const json = JSON.parse(out.slice(out.lastIndexOf('\n') + 1)) as { stored: boolean; shown: string; now: string };
    assert.deepEqual(json, { stored: false, shown: later(120_000).toISOString(), now: later(270_000).toISOString() });
    assert.equal((await new ScheduleStore({ dir }).listReminders()).rows.length, 0);
  });

  it('schedule add_command and move store the confirmed instant too', async () => {
    const dir = dirs.freshDir();
    const h = host(dir, () => later(100_000));
    const out = await scheduleTool({ action: 'add_command', command: 'true', when: 'in 3 minutes' }, h, { shownAt: T0 });
    const row = JSON.parse(out.slice(out.indexOf('\n{') + 1)) as { id: string; nextRunAt: string };
    assert.equal(row.nextRunAt, later(180_000).toISOString());
    const moved = await scheduleTool({ action: 'move', id: row.id, when: 'in 10 minutes' }, h, { shownAt: later(30_000) });
    assert.equal((JSON.parse(moved.slice(moved.indexOf('\n{') + 1)) as { nextRunAt: string }).nextRunAt, later(630_000).toISOString());
    const passed = await scheduleTool({ action: 'move', id: row.id, when: 'in 1 minute' }, h, { shownAt: T0 });
    assert.match(passed, /^Nothing was stored/);
    assert.equal((await h.store.get(row.id))?.nextRunAt, later(630_000).toISOString(), 'the row keeps its time');
  });
});
