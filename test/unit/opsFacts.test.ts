/**
 * Handover ops' open items and first moves, from facts: a real store directory holding
 * reminders, command rows (one whose last run failed, one running now, one of another workspace) and
 * wakes (one of this topic, one of another, one fired), read through the store classes as the
 * extension reads them, plus running tasks, the last run's summary, TopicDecisions' Next and the
 * uncommitted files.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureOf, insideFolders, opsFacts, type OpsFactsInput } from '../../src/core/opsFacts';
import { ScheduleStore } from '../../src/node/schedule';
import { WakeStore } from '../../src/node/wakes';
import { writeTable } from './helpers/cliHarness';
import { tempDirs } from './helpers/tempDirs';

const NOW = new Date('2026-10-02T10:00:00.000Z');
const TZ = 'Europe/Berlin';
const WS = '/home/dev/project';
const CREATED = '2026-10-01T08:00:00.000Z';
const dirs = tempDirs('lt-opsfacts-');

function storeRows(): { reminders: unknown[]; commands: unknown[]; wakes: unknown[] } {
  return {
    reminders: [
      { id: 'r-here', text: 'check the nightly build', schedule: { kind: 'once', at: '2026-10-02T12:00:00.000Z' }, tz: TZ, status: 'pending', nextRunAt: '2026-10-02T12:00:00.000Z', createdAt: CREATED, destination: { folder: WS } },
      { id: 'r-elsewhere', text: 'water the plants', schedule: { kind: 'once', at: '2026-10-02T12:00:00.000Z' }, tz: TZ, status: 'pending', nextRunAt: '2026-10-02T12:00:00.000Z', createdAt: CREATED, destination: { folder: '/home/dev/other' } },
      { id: 'r-done', text: 'already delivered', schedule: { kind: 'once', at: '2026-10-02T08:00:00.000Z' }, tz: TZ, status: 'fired', nextRunAt: null, firedAt: '2026-10-02T08:00:00.000Z', createdAt: CREATED, fact: { delivered: true } },
    ],
    commands: [
      {
        id: 'c-tests',
        command: 'npm test',
        cwd: WS,
        timeoutMinutes: 5,
        schedule: { kind: 'every', seconds: 1800, from: CREATED },
        tz: TZ,
        status: 'pending',
        nextRunAt: '2026-10-02T10:30:00.000Z',
        firedAt: '2026-10-02T09:30:00.000Z',
        createdAt: CREATED,
        fact: { exitCode: 1, durationMs: 41_000 },
      },
      {
        id: 'c-build',
        command: 'npm run build',
        cwd: `${WS}/packages/app`,
        timeoutMinutes: 10,
        schedule: { kind: 'once', at: '2026-10-02T09:55:00.000Z' },
        tz: TZ,
        status: 'fired',
        nextRunAt: null,
        firedAt: '2026-10-02T09:55:00.000Z',
        createdAt: CREATED,
        claim: { token: 'tok-12345678', pid: 4242, window: 'w1', heartbeatAt: '2026-10-02T09:59:30.000Z', scheduledFor: '2026-10-02T09:55:00.000Z' },
      },
      {
        id: 'c-other',
        command: 'make deploy',
        cwd: '/srv/elsewhere',
        timeoutMinutes: 2,
        schedule: { kind: 'once', at: '2026-10-02T09:00:00.000Z' },
        tz: TZ,
        status: 'fired',
        nextRunAt: null,
        firedAt: '2026-10-02T09:00:00.000Z',
        createdAt: CREATED,
        fact: { exitCode: 2 },
      },
    ],
    wakes: [
      { id: 'w-mine', text: 'read the test report', when: 'job.done', jobId: 'c-tests', threadId: 'demo', status: 'pending', nextRunAt: null, createdAt: CREATED, tz: TZ },
      { id: 'w-theirs', text: 'not ours', when: 'scm.changed', threadId: 'other-topic', status: 'pending', nextRunAt: null, createdAt: CREATED, tz: TZ },
      { id: 'w-fired', text: 'done already', when: 'timer', status: 'fired', nextRunAt: null, firedAt: '2026-10-02T09:00:00.000Z', createdAt: CREATED, tz: TZ },
    ],
  };
}

async function fromStore(over: Partial<OpsFactsInput> = {}): Promise<ReturnType<typeof opsFacts>> {
  const dir = dirs.freshDir();
  const rows = storeRows();
  writeTable(dir, 'reminders', rows.reminders);
  writeTable(dir, 'schedule-commands', rows.commands);
  writeTable(dir, 'wakes', rows.wakes);
  const schedule = new ScheduleStore({ dir });
  const wakes = new WakeStore({ dir });
  const [r, c, w] = await Promise.all([schedule.listReminders(), schedule.listCommands(), wakes.read()]);
  assert.deepEqual([r.quarantined.length, c.quarantined.length, w.quarantined.length], [0, 0, 0], 'the fixture rows are valid rows of today\u2019s store');
  return opsFacts({
    topic: 'demo',
    folders: [WS],
    reminders: r.rows,
    commands: c.rows,
    wakes: w.rows,
    tasks: ['watch'],
    summaries: { 'c-tests': 'mocha: 12 passing, 1 failing' },
    next: ['Wire the dispatcher to the store', 'TODO: where the cycle goes next'],
    dirty: ['src/a.ts'],
    now: NOW,
    tz: TZ,
    ...over,
  });
}

describe('opsFacts: open items and first moves from the store', () => {
  it('lists the failing last run, the running job and task, this workspace\u2019s rows and this topic\u2019s wakes', async () => {
    const { openItems } = await fromStore();
    assert.deepEqual(openItems, [
      'failing: command c-tests `npm test` — last run failed (exit 1: mocha: 12 passing, 1 failing)',
      'scheduled: command c-tests `npm test`, next Fri 2 Oct 12:30 CEST (10:30Z), in 30 min',
      'running: command c-build `npm run build` since Fri 2 Oct 11:55 CEST (09:55Z), 5 min ago',
      'running: task `watch`',
      'reminder r-here “check the nightly build”, next Fri 2 Oct 14:00 CEST (12:00Z), in 2 h',
      'wake w-mine when c-tests ends: “read the test report”',
    ]);
  });

  it('first moves: re-run what failed, wait for what runs, then Next (placeholders skipped), then the uncommitted files', async () => {
    const { firstMoves } = await fromStore();
    assert.deepEqual(firstMoves, [
      're-run `npm test` — last run failed (exit 1: mocha: 12 passing, 1 failing)',
      'wait for `npm run build` (command c-build) to end — it is running',
      'wait for task `watch` to end — it is running',
      'Wire the dispatcher to the store',
      'look at the 1 uncommitted file before building on them: src/a.ts',
    ]);
  });

  it('with nothing open, only Next', async () => {
    const r = opsFacts({ topic: 'demo', folders: [WS], reminders: [], commands: [], wakes: [], tasks: [], next: ['Ship it'], now: NOW, tz: TZ });
    assert.deepEqual(r, { openItems: [], firstMoves: ['Ship it'] });
  });

  it('a row that names neither a topic nor a folder is kept; one that names another is left out', () => {
    const base = { status: 'pending', nextRunAt: null, when: 'presence.online' };
    const r = opsFacts({
      topic: 'demo',
      folders: [`file://${WS}`],
      reminders: [],
      commands: [],
      wakes: [
        { ...base, id: 'w-plain', text: 'plain' },
        { ...base, id: 'w-owned', text: 'owned here', owner: { folders: [`file://${WS}`] } },
        { ...base, id: 'w-owned-else', text: 'owned elsewhere', owner: { folders: ['file:///srv/x'] } },
        { ...base, id: 'w-held', text: 'held', status: 'held' },
      ],
      tasks: [],
      next: [],
      now: NOW,
      tz: TZ,
    });
    assert.deepEqual(
      r.openItems.map((i) => i.split(' ')[1]),
      ['w-plain', 'w-owned', 'w-held'],
    );
    assert.match(r.openItems[2] ?? '', /\(held\)/);
  });

  it('failureOf reads exit codes, timeouts, interruptions and spawn errors', () => {
    assert.equal(failureOf({ exitCode: 0 }), undefined);
    assert.equal(failureOf(undefined), undefined);
    assert.equal(failureOf({ exitCode: 3 }, '1 failed'), 'failed (exit 3: 1 failed)');
    assert.equal(failureOf({ timedOut: true, exitCode: null }), 'timed out');
    assert.equal(failureOf({ interrupted: true, error: 'the window closed' }), 'was interrupted (the window closed)');
    assert.equal(failureOf({ error: 'spawn bash ENOENT' }), 'could not run: spawn bash ENOENT');
  });

  it('insideFolders takes paths and file URIs, and a sibling with a common prefix is outside', () => {
    assert.equal(insideFolders('/home/dev/project/src', ['/home/dev/project']), true);
    assert.equal(insideFolders('/home/dev/project', ['file:///home/dev/project/']), true);
    assert.equal(insideFolders('/home/dev/project-old', ['/home/dev/project']), false);
  });
});
