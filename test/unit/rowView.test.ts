/**
 * How rows read (sidebar, panel, List, tool and CLI answers): the last-fact line and its tone, the row
 * view and the answer sentence, for pending, running, delivered, missed and finished command rows,
 * all in the owner's zone at a fixed `now`. Also the tools' input parsing (field names in errors).
 */
import assert from 'node:assert/strict';
import { runNow } from '../../src/core/dispatch';
import { describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import { rowViewSchema } from '../../src/shared/protocol';
import { factLine, rowSentence, rowView } from '../../src/core/rowView';
import { commandRowSchema, reminderRowSchema, type CommandRow, type Fact, type ReminderRow, type ScheduleRow } from '../../src/core/schema';
import { parseToolInput, remindInputSchema, required, scheduleInputSchema } from '../../src/core/toolInputs';

// Fri 2 Oct 2026, 12:00 CEST.
const NOW = new Date('2026-10-02T10:00:00.000Z');
const TZ = 'Europe/Berlin';
const CREATED = '2026-10-01T08:00:00.000Z';

function reminder(over: Partial<ReminderRow> = {}): ReminderRow {
  const row: ReminderRow = {
    id: 'r-standup1',
    text: 'Stand up and stretch',
    schedule: { kind: 'once', at: '2026-10-02T12:14:00.000Z' },
    tz: TZ,
    status: 'pending',
    nextRunAt: '2026-10-02T12:14:00.000Z',
    createdAt: CREATED,
    ...over,
  };
  reminderRowSchema.parse(row);
  return row;
}

function command(over: Partial<CommandRow> = {}): CommandRow {
  const row: CommandRow = {
    id: 'c-nightly1',
    command: 'npm test --silent',
    cwd: '/home/dev/project',
    timeoutMinutes: 2,
    schedule: { kind: 'cron', expr: '0 9 * * 1-5', tz: TZ },
    tz: TZ,
    status: 'pending',
    nextRunAt: '2026-10-05T07:00:00.000Z',
    createdAt: CREATED,
    ...over,
  };
  commandRowSchema.parse(row);
  return row;
}

/** A finished one-shot reminder fired at 08:00Z (10:00 CEST), two hours before NOW. */
const firedReminder = (fact: Fact): ReminderRow => reminder({ status: 'fired', nextRunAt: null, firedAt: '2026-10-02T08:00:00.000Z', fact });
/** A recurring command that last ran at 07:00:03Z (09:00:03 CEST). */
const ranCommand = (fact: Fact, over: Partial<CommandRow> = {}): CommandRow => command({ firedAt: '2026-10-02T07:00:03.000Z', fact, ...over });

const FIRED_AT = 'Fri 2 Oct 10:00 CEST (08:00Z), 2 h ago';
const RAN_AT = 'Fri 2 Oct 09:00:03 CEST (07:00:03Z), 3 h ago';

const claim = { token: 'tok12345678', pid: 4242, window: 'w-session-1', heartbeatAt: '2026-10-02T09:59:30.000Z', scheduledFor: '2026-10-02T09:58:00.000Z' };

describe('pending rows', () => {
  it('once: no fact, when in words with the zone and UTC, the sentence names the next run in UTC and the zone', () => {
    const row = reminder();
    assert.deepEqual(factLine(row, NOW), { text: '', tone: 'none' });
    assert.deepEqual(rowView(row, NOW), {
      id: 'r-standup1',
      kind: 'reminder',
      title: 'Stand up and stretch',
      when: 'Once, Fri 2 Oct 14:14 CEST (12:14Z), in 2 h 14 min',
      status: 'pending',
      lastFact: '',
      factTone: 'none',
      hasLog: false,
    });
    assert.equal(rowSentence(row, NOW), 'Reminder r-standup1 — Once, Fri 2 Oct 14:14 CEST (12:14Z), in 2 h 14 min (next run 2026-10-02T12:14:00.000Z UTC; zone Europe/Berlin).');
  });

  it('every 30 min: the spacing and the next run', () => {
    const row = reminder({ schedule: { kind: 'every', seconds: 1800, from: '2026-10-02T08:00:00.000Z' }, nextRunAt: '2026-10-02T10:30:00.000Z' });
    assert.equal(rowView(row, NOW).when, 'Every 30 min, next Fri 2 Oct 12:30 CEST (10:30Z), in 30 min');
    assert.equal(rowSentence(row, NOW), 'Reminder r-standup1 — Every 30 min, next Fri 2 Oct 12:30 CEST (10:30Z), in 30 min (next run 2026-10-02T10:30:00.000Z UTC; zone Europe/Berlin).');
  });

  it('cron in an explicit zone, a command: kind command, the command line as title, hasLog passed through', () => {
    const row = command();
    const view = rowView(row, NOW, true);
    assert.equal(view.kind, 'command');
    assert.equal(view.title, 'npm test --silent');
    assert.equal(view.when, "Cron '0 9 * * 1-5' (Europe/Berlin), next Mon 5 Oct 09:00 CEST (07:00Z), in 2 days 21 h");
    assert.equal(view.hasLog, true);
    assert.equal(view.status, 'pending');
    assert.equal(rowSentence(row, NOW), "Command c-nightly1 — Cron '0 9 * * 1-5' (Europe/Berlin), next Mon 5 Oct 09:00 CEST (07:00Z), in 2 days 21 h (next run 2026-10-05T07:00:00.000Z UTC; zone Europe/Berlin).");
  });

  it('the year is shown when the instant is in another year than now', () => {
    const row = reminder({ schedule: { kind: 'once', at: '2027-01-04T08:00:00.000Z' }, nextRunAt: '2027-01-04T08:00:00.000Z' });
    assert.match(rowView(row, NOW).when, /^Once, Mon 4 Jan 2027 09:00 CET \(08:00Z\), in \d+ days$/);
  });

  it('a zone west of UTC reads in that zone, with the UTC date when it differs', () => {
    const row = reminder({ tz: 'America/New_York', schedule: { kind: 'once', at: '2026-10-03T02:30:00.000Z' }, nextRunAt: '2026-10-03T02:30:00.000Z' });
    assert.equal(rowView(row, NOW).when, 'Once, Fri 2 Oct 22:30 EDT (Sat 3 Oct 02:30Z), in 16 h 30 min');
  });

  it(
    'after run_now a one-shot reads as due now, not at its original time',
    () => {
      const row = runNow(reminder(), NOW).row;
      assert.ok(rowView(row, NOW).when.includes('12:00 CEST (10:00Z)'), rowView(row, NOW).when);
    },
  );
});

describe('running rows', () => {
  it('a claimed one-shot reminder: running since firedAt, tone running, status running', () => {
    const row = reminder({ status: 'fired', nextRunAt: null, firedAt: '2026-10-02T09:58:00.000Z', fact: { lateMs: 0 }, claim });
    assert.deepEqual(factLine(row, NOW), { text: 'running since Fri 2 Oct 11:58 CEST (09:58Z), 2 min ago', tone: 'running' });
    const view = rowView(row, NOW);
    assert.equal(view.status, 'running');
    assert.equal(view.factTone, 'running');
    assert.equal(view.when, 'Fired Fri 2 Oct 11:58 CEST (09:58Z), 2 min ago');
    assert.equal(rowSentence(row, NOW), 'Reminder r-standup1 — fired (zone Europe/Berlin); last: running since Fri 2 Oct 11:58 CEST (09:58Z), 2 min ago.');
  });

  it('a claimed recurring command keeps its schedule as when, status running, and its previous fact is not shown', () => {
    const row = command({ firedAt: '2026-10-02T09:58:00.000Z', fact: { lateMs: 0 }, claim, runningTimeoutMinutes: 2 });
    const view = rowView(row, NOW);
    assert.equal(view.status, 'running');
    assert.equal(view.lastFact, 'running since Fri 2 Oct 11:58 CEST (09:58Z), 2 min ago');
    assert.match(view.when, /^Cron '0 9 \* \* 1-5'/);
  });

  it('a claim without firedAt falls back to the heartbeat', () => {
    const row = reminder({ claim: { ...claim, heartbeatAt: '2026-10-02T09:59:40.000Z' } });
    assert.equal(factLine(row, NOW).text, 'running since Fri 2 Oct 11:59:40 CEST (09:59:40Z), under a minute ago');
  });
});

describe('reminder facts', () => {
  it('delivered: when and via, tone ok', () => {
    const row = firedReminder({ delivered: true, via: 'feed', lateMs: 0 });
    assert.deepEqual(factLine(row, NOW), { text: `delivered ${FIRED_AT} via feed`, tone: 'ok' });
    const view = rowView(row, NOW);
    assert.equal(view.status, 'fired');
    assert.equal(view.when, `Fired ${FIRED_AT}`);
    assert.equal(rowSentence(row, NOW), `Reminder r-standup1 — fired (zone Europe/Berlin); last: delivered ${FIRED_AT} via feed.`);
  });

  it('delivered late (catch-up): the lateness when at least a minute; under a minute it is not shown', () => {
    assert.equal(factLine(firedReminder({ delivered: true, lateMs: 95 * 60_000 }), NOW).text, `delivered ${FIRED_AT}, 95 min late`);
    assert.equal(factLine(firedReminder({ delivered: true, lateMs: 5 * 3600_000 }), NOW).text, `delivered ${FIRED_AT}, 5 h late`);
    assert.equal(factLine(firedReminder({ delivered: true, lateMs: 59_000 }), NOW).text, `delivered ${FIRED_AT}`);
  });

  it('delivered as written because no model is connected: a normal state, short, not an error', () => {
    const row = firedReminder({ delivered: true, via: 'feed', error: 'no language model is available (install Copilot, or set lifeThread.openai.baseUrl for an OpenAI-compatible endpoint)' });
    assert.deepEqual(factLine(row, NOW), { text: `delivered as written (no model) ${FIRED_AT}`, tone: 'ok' });
  });

  it('delivered with a turn error (the text delivered as written): the reason, tone error', () => {
    const row = firedReminder({ delivered: true, via: 'feed', error: 'the turn failed: rate limited' });
    assert.deepEqual(factLine(row, NOW), { text: `delivered ${FIRED_AT} via feed (turn failed: the turn failed: rate limited)`, tone: 'error' });
  });

  it('a recurring reminder with missed runs says how many', () => {
    const row = reminder({ schedule: { kind: 'every', seconds: 3600, from: '2026-10-01T00:00:00.000Z' }, nextRunAt: '2026-10-02T11:00:00.000Z', firedAt: '2026-10-02T08:00:00.000Z', fact: { delivered: true, lateMs: 0, missedRuns: 3 } });
    assert.equal(factLine(row, NOW).text, `delivered ${FIRED_AT}, 3 missed runs`);
    assert.equal(factLine({ ...row, fact: { delivered: true, missedRuns: 1 } }, NOW).text, `delivered ${FIRED_AT}, 1 missed run`);
  });

  it('not delivered: the reason (or "unknown reason"), tone error', () => {
    assert.deepEqual(factLine(firedReminder({ delivered: false, error: 'the window running it (pid 4242) stopped before recording a fact', interrupted: true }), NOW), {
      text: `not delivered at ${FIRED_AT}: the window running it (pid 4242) stopped before recording a fact`,
      tone: 'error',
    });
    assert.equal(factLine(firedReminder({ delivered: false }), NOW).text, `not delivered at ${FIRED_AT}: unknown reason`);
  });

  it('fired with no delivery fact yet (only the claim-time fact): fired at, tone none', () => {
    assert.deepEqual(factLine(firedReminder({ lateMs: 0 }), NOW), { text: `fired ${FIRED_AT}`, tone: 'none' });
  });

  it('missed one-shot: the reason, tone error; when "Missed"; the sentence says missed', () => {
    const row = reminder({
      status: 'missed',
      nextRunAt: null,
      firedAt: '2026-10-02T08:00:00.000Z',
      fact: { lateMs: 13 * 3600_000, missedRuns: 1, error: 'missed: 13 h late, past the 12 h catch-up limit' },
    });
    assert.deepEqual(factLine(row, NOW), { text: 'missed (missed: 13 h late, past the 12 h catch-up limit)', tone: 'error' });
    const view = rowView(row, NOW);
    assert.equal(view.when, 'Missed');
    assert.equal(view.status, 'missed');
    assert.equal(rowSentence(row, NOW), 'Reminder r-standup1 — missed (zone Europe/Berlin); last: missed (missed: 13 h late, past the 12 h catch-up limit).');
    assert.equal(factLine({ ...row, fact: { lateMs: 13 * 3600_000 } }, NOW).text, 'missed (past the catch-up limit)');
  });

  it(
    'a recurring row that missed its runs past the limit before it ever ran shows the missed runs',
    () => {
      const row = command({ fact: { lateMs: 2 * 3600_000, missedRuns: 2 } });
      assert.match(factLine(row, NOW).text, /2 missed runs/);
    },
  );
});

describe('command facts', () => {
  it('exit 0: exit code, when, duration, tone ok', () => {
    const row = ranCommand({ exitCode: 0, durationMs: 1200, lateMs: 3000 });
    const f = factLine(row, NOW);
    assert.equal(f.tone, 'ok');
    assert.ok(f.text.startsWith(`exit 0 at ${RAN_AT}`), f.text);
    assert.ok(f.text.endsWith(' 1 s'), f.text);
    assert.ok(!f.text.includes('late'), 'lateness under a minute is not shown');
    assert.equal(rowView(row, NOW).status, 'pending');
  });

  it('exit 3: tone error, the duration and the lateness', () => {
    const f = factLine(ranCommand({ exitCode: 3, durationMs: 95_000, lateMs: 4 * 60_000 }), NOW);
    assert.equal(f.tone, 'error');
    assert.ok(f.text.startsWith(`exit 3 at ${RAN_AT}`), f.text);
    assert.ok(f.text.includes('2 min'), f.text);
    assert.ok(f.text.endsWith(', 4 min late'), f.text);
  });

  it('killed by a signal without an exit code: the signal, tone error', () => {
    const f = factLine(ranCommand({ exitCode: null, signal: 'SIGKILL', durationMs: 10 }), NOW);
    assert.equal(f.tone, 'error');
    assert.ok(f.text.startsWith(`exit SIGKILL at ${RAN_AT}`), f.text);
  });

  it('timed out: the timeout in minutes, tone error', () => {
    const row = ranCommand({ exitCode: null, signal: 'SIGTERM', timedOut: true, durationMs: 120_000, error: 'timed out after 2 min; the process group was killed' });
    assert.deepEqual(factLine(row, NOW), { text: `timed out after 2 min; the process group was killed (at ${RAN_AT})`, tone: 'error' });
    assert.equal(rowSentence(row, NOW), `Command c-nightly1 — Cron '0 9 * * 1-5' (Europe/Berlin), next Mon 5 Oct 09:00 CEST (07:00Z), in 2 days 21 h (next run 2026-10-05T07:00:00.000Z UTC; zone Europe/Berlin); last: timed out after 2 min; the process group was killed (at ${RAN_AT}).`);
  });

  it(
    'timed out after a move changed the timeout: names the timeout the run had',
    () => {
      const row = ranCommand({ exitCode: null, signal: 'SIGTERM', timedOut: true, durationMs: 300_000, error: 'timed out after 5 min; the process group was killed' }, { timeoutMinutes: 10 });
      const text = factLine(row, NOW).text;
      assert.ok(text.includes('5 min') && !text.includes('10 min'), text);
    },
  );

  it('interrupted: the reason, tone error', () => {
    const row = ranCommand({ interrupted: true, error: 'this window restarted before the run recorded a fact', lateMs: 0 });
    assert.deepEqual(factLine(row, NOW), { text: `interrupted at ${RAN_AT}: this window restarted before the run recorded a fact`, tone: 'error' });
    // An interrupted run that also carries an exit code still reads as interrupted.
    assert.match(factLine(ranCommand({ interrupted: true, exitCode: 143, error: 'stopped before it ended (window closed)' }), NOW).text, /^interrupted at /);
  });

  it('error without an exit code (could not start): the reason, tone error, lateness kept', () => {
    const row = ranCommand({ exitCode: null, durationMs: 3, error: 'working directory /home/dev/gone does not exist', lateMs: 2 * 60_000 });
    assert.deepEqual(factLine(row, NOW), { text: `error at ${RAN_AT}: working directory /home/dev/gone does not exist, 2 min late`, tone: 'error' });
    assert.equal(factLine(ranCommand({ error: 'spawn failed' }), NOW).text, `error at ${RAN_AT}: spawn failed`);
  });

  it('a missed command one-shot', () => {
    const row = command({
      schedule: { kind: 'once', at: '2026-10-02T07:00:00.000Z' },
      status: 'missed',
      nextRunAt: null,
      firedAt: '2026-10-02T09:30:00.000Z',
      fact: { lateMs: 150 * 60_000, missedRuns: 1, error: 'missed: 2.5 h late, past the 60 min catch-up limit' },
    });
    assert.deepEqual(factLine(row, NOW), { text: 'missed (missed: 2.5 h late, past the 60 min catch-up limit)', tone: 'error' });
    assert.equal(rowView(row, NOW).when, 'Missed');
  });
});

describe('tool inputs', () => {
  const inputError = (field: string, reason?: RegExp) => (err: unknown): boolean => {
    assert.ok(err instanceof InputError, `expected an InputError, got ${String(err)}`);
    assert.equal(err.field, field);
    if (reason) assert.match(err.reason, reason);
    assert.ok(err.message.startsWith(`${field}: `), err.message);
    return true;
  };

  it('valid remind and schedule inputs parse as given', () => {
    assert.deepEqual(parseToolInput(remindInputSchema, { action: 'add', text: 'stretch', when: 'in 20 minutes', tz: TZ }), { action: 'add', text: 'stretch', when: 'in 20 minutes', tz: TZ });
    assert.deepEqual(parseToolInput(scheduleInputSchema, { action: 'add_command', command: 'make', cron: '*/5 * * * *', timeout_minutes: 5 }), { action: 'add_command', command: 'make', cron: '*/5 * * * *', timeout_minutes: 5 });
  });

  it('an unknown key → InputError naming the key', () => {
    assert.throws(() => parseToolInput(remindInputSchema, { action: 'add', text: 'x', delay_seconds: 60 }), inputError('delay_seconds', /not a field of this tool/));
    // camelCase where the tool wants snake_case is an unknown key too.
    assert.throws(() => parseToolInput(scheduleInputSchema, { action: 'move', id: 'c-1', timeoutMinutes: 5 }), inputError('timeoutMinutes'));
  });

  it('a value outside the enum → names action', () => {
    assert.throws(() => parseToolInput(remindInputSchema, { action: 'delete', id: 'r-1' }), inputError('action'));
    assert.throws(() => parseToolInput(scheduleInputSchema, { action: 'add' }), inputError('action'));
    assert.throws(() => parseToolInput(remindInputSchema, { text: 'no action' }), inputError('action'));
  });

  it('a wrong type or a text too long names the field', () => {
    assert.throws(() => parseToolInput(remindInputSchema, { action: 'add', text: 42 }), inputError('text'));
    assert.throws(() => parseToolInput(remindInputSchema, { action: 'add', tz: 'x'.repeat(65) }), inputError('tz'));
  });

  it('input that is not an object → field input', () => {
    assert.throws(() => parseToolInput(remindInputSchema, null), inputError('input'));
    assert.throws(() => parseToolInput(remindInputSchema, 'add a reminder'), inputError('input'));
  });

  it('timeout_minutes: the schema takes 1 to 60 and refuses 0 / 61 / 1.5 / "5" / null / NaN / -3 naming the field and the value (the JSON Schema says integer 1–60 too)', () => {
    const input = (t: unknown): unknown => ({ action: 'add_command', command: 'make', when: 'in 5 minutes', timeout_minutes: t });
    assert.equal(parseToolInput(scheduleInputSchema, input(undefined)).timeout_minutes, undefined);
    assert.equal(parseToolInput(scheduleInputSchema, input(1)).timeout_minutes, 1);
    assert.equal(parseToolInput(scheduleInputSchema, input(60)).timeout_minutes, 60);
    for (const bad of [0, 61, 1.5, '5', null, Number.NaN, -3]) {
      assert.throws(() => parseToolInput(scheduleInputSchema, input(bad)), inputError('timeout_minutes', /whole number of minutes from 1 to 60/), `value ${String(bad)}`);
    }
    assert.throws(() => parseToolInput(scheduleInputSchema, input('5')), (err: unknown) => err instanceof InputError && err.reason.endsWith('got "5"'));
    assert.throws(() => parseToolInput(scheduleInputSchema, input(61)), inputError('timeout_minutes', /got 61$/));
  });

  it('required() names the field and why; returns present values, including 0 and false', () => {
    assert.throws(() => required(undefined, 'text', 'to add a reminder'), inputError('text', /^is required to add a reminder$/));
    assert.throws(() => required(null, 'id', 'to remove'), inputError('id', /is required to remove/));
    assert.throws(() => required('   ', 'command', 'for add_command'), inputError('command'));
    assert.equal(required('stretch', 'text', 'x'), 'stretch');
    assert.equal(required(0, 'n', 'x'), 0);
    assert.equal(required(false, 'b', 'x'), false);
  });
});

// Every row built here satisfies the row schemas (checked in the builders); make that visible.
it('the fixture rows satisfy the row schemas and their views the protocol', () => {
  const rows: ScheduleRow[] = [reminder(), command(), firedReminder({ delivered: true }), ranCommand({ exitCode: 0 }), reminder({ claim })];
  for (const r of rows) {
    assert.ok(('command' in r ? commandRowSchema : reminderRowSchema).safeParse(r).success, r.id);
    assert.ok(rowViewSchema.safeParse(rowView(r, NOW)).success, `the view of ${r.id} satisfies the protocol`);
  }
});
