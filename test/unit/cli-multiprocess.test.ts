/**
 * Several `life-thread dispatch --once` processes on one store at once, with other CLI processes
 * adding, moving to now and removing rows while they claim: every due row fires exactly once across
 * all outputs and keeps its fact; no edit is lost.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { commandRowSchema, reminderRowSchema, type CommandRow, type Fact, type ReminderRow } from '../../src/core/schema';
import { runCli, tempStores, writeTable, type CliResult } from './helpers/cliHarness';

const T = '2026-10-03T12:00:00.000Z';
const at = (offsetMs: number): string => new Date(Date.parse(T) + offsetMs).toISOString();
const SEC = 1000;
const HOUR = 3600 * SEC;

const stores = tempStores('lt-cli-mp-');
const freshStore = stores.freshStore;
type Result = CliResult;

function cli(args: string[]): Promise<CliResult> {
  return runCli(args, { cwd: stores.root() });
}

async function jsonOk(args: string[]): Promise<unknown> {
  const r = await cli([...args, '--json']);
  assert.equal(r.code, 0, `${args.join(' ')} → ${r.code}: ${r.stderr}`);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout) as unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function reminder(id: string, due: string): ReminderRow {
  return { id, text: `text of ${id}`, schedule: { kind: 'once', at: due }, tz: 'UTC', status: 'pending', nextRunAt: due, createdAt: at(-HOUR) };
}

function command(id: string, cmd: string, due: string, cwd: string): CommandRow {
  return { id, command: cmd, cwd, timeoutMinutes: 1, schedule: { kind: 'once', at: due }, tz: 'UTC', status: 'pending', nextRunAt: due, createdAt: at(-HOUR) };
}

interface Entry {
  id: string;
  scheduledFor: string;
  firedAt: string;
  lateMs: number;
  delivered?: boolean;
  text?: string;
  fact?: Fact;
  recorded?: boolean;
}

function entries(r: Result): Entry[] {
  assert.equal(r.code, 0, `${r.args.join(' ')} → ${r.code}: ${r.stderr}`);
  assert.equal(r.stderr, '');
  const v: unknown = JSON.parse(r.stdout);
  assert.ok(Array.isArray(v));
  return v as Entry[];
}

function readRows<R>(dir: string, name: string, parse: (v: unknown) => R): R[] {
  const file = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')) as { schemaVersion: number; rows: unknown[] };
  assert.equal(file.schemaVersion, 2);
  return file.rows.map(parse);
}

describe('life-thread CLI across processes', () => {
  it('5 concurrent dispatch --once on 300 reminders + 50 commands, with adds, run-nows and removes racing: each row fires once, nothing lost', async (t) => {
    const dir = freshStore();
    const work = fs.mkdtempSync(path.join(stores.root(), 'work-'));
    // Due times spread over the 150 s before T; the dispatchers' clocks differ by less than the 120 s heartbeat limit.
    const dueR = Array.from({ length: 300 }, (_, i) => reminder(`r-due${String(i).padStart(3, '0')}`, at(-150 * SEC + i * 500)));
    const dueC = Array.from({ length: 50 }, (_, i) => command(`c-due${String(i).padStart(2, '0')}`, i % 2 === 0 ? 'true' : 'exit 3', at(-150 * SEC + i * 3 * SEC), work));
    const futR = Array.from({ length: 40 }, (_, i) => reminder(`r-fut${String(i).padStart(2, '0')}`, at(5 * HOUR)));
    const futC = Array.from({ length: 10 }, (_, i) => command(`c-fut${i}`, 'true', at(5 * HOUR), work));
    writeTable(dir, 'reminders', [...dueR, ...futR]);
    writeTable(dir, 'schedule-commands', [...dueC, ...futC]);

    const started = Date.now();
    const clocks = [-100, -75, -50, -25, 0].map((s) => at(s * SEC));
    const dispatchers = clocks.map(async (now, i) => {
      await sleep(i * 150);
      return cli(['dispatch', '--once', '--json', '--store', dir, '--now', now]);
    });

    const added: string[] = [];
    const removed: string[] = [];
    const ranNow: string[] = [];
    const editors = [
      (async () => {
        for (let k = 0; k < 6; k++) {
          const row = reminderRowSchema.parse(await jsonOk(['remind', 'add', '--store', dir, '--now', T, '--text', `added ${k}`, '--when', 'in 2 hours']));
          added.push(row.id);
        }
      })(),
      (async () => {
        for (let k = 0; k < 3; k++) {
          const row = commandRowSchema.parse(await jsonOk(['schedule', 'add-command', '--store', dir, '--now', T, '--command', 'true', '--when', 'in 3 hours']));
          added.push(row.id);
          const id = `r-fut${String(k).padStart(2, '0')}`;
          await jsonOk(['remind', 'remove', id, '--store', dir]);
          removed.push(id);
        }
      })(),
      (async () => {
        for (let k = 0; k < 3; k++) {
          const c = `c-fut${k}`;
          await jsonOk(['schedule', 'remove', c, '--store', dir]);
          removed.push(c);
          const r = `r-fut${20 + k}`;
          await jsonOk(['schedule', 'run-now', r, '--store', dir, '--now', at(-10 * SEC)]);
          ranNow.push(r);
        }
      })(),
    ];
    const results = await Promise.all(dispatchers);
    await Promise.all(editors);
    const elapsed = Date.now() - started;

    const seen = new Map<string, Entry>();
    for (const r of results) {
      for (const e of entries(r)) {
        assert.equal(seen.has(e.id), false, `${e.id} fired twice`);
        assert.notEqual(e.recorded, false, `${e.id}: fact not recorded`);
        seen.set(e.id, e);
      }
    }
    const dueIds = [...dueR, ...dueC].map((r) => r.id);
    for (const id of dueIds) assert.ok(seen.has(id), `${id} never fired`);
    for (const id of seen.keys()) assert.ok(dueIds.includes(id) || ranNow.includes(id), `${id} fired but was not due`);

    const reminders = new Map(readRows(dir, 'reminders', (v) => reminderRowSchema.parse(v)).map((r) => [r.id, r]));
    const commands = new Map(readRows(dir, 'schedule-commands', (v) => commandRowSchema.parse(v)).map((r) => [r.id, r]));
    for (const r of dueR) {
      const row = reminders.get(r.id);
      assert.equal(row?.status, 'fired', r.id);
      assert.equal(row?.claim, undefined, r.id);
      assert.equal(row?.fact?.delivered, true, r.id);
      assert.equal(row?.fact?.via, 'cli', r.id);
      assert.equal(typeof row?.fact?.lateMs, 'number', r.id);
      assert.equal(seen.get(r.id)?.text, r.text);
    }
    for (const c of dueC) {
      const row = commands.get(c.id);
      assert.equal(row?.status, 'fired', c.id);
      assert.equal(row?.claim, undefined, c.id);
      assert.equal(row?.fact?.exitCode, c.command === 'true' ? 0 : 3, c.id);
      assert.equal(seen.get(c.id)?.fact?.exitCode, c.command === 'true' ? 0 : 3, c.id);
      assert.ok(fs.existsSync(path.join(dir, 'logs', `${c.id}.log`)), `${c.id} has a log`);
    }
    for (const id of added) assert.ok(reminders.has(id) || commands.has(id), `added ${id} is lost`);
    assert.equal(added.length, 9);
    for (const id of removed) assert.ok(!reminders.has(id) && !commands.has(id), `removed ${id} came back`);
    for (const id of ranNow) {
      const row = reminders.get(id);
      if (seen.has(id)) assert.equal(row?.fact?.delivered, true, id);
      else assert.equal(row?.nextRunAt, at(-10 * SEC), `${id}: run-now lost`);
    }
    for (const r of futR) {
      if (removed.includes(r.id) || ranNow.includes(r.id)) continue;
      assert.equal(reminders.get(r.id)?.nextRunAt, r.nextRunAt, r.id);
    }
    assert.equal(reminders.size, 300 + 40 - 3 + 6);
    assert.equal(commands.size, 50 + 10 - 3 + 3);
    assert.equal(fs.existsSync(path.join(dir, 'reminders.quarantine.json')), false);
    const perProcess = results.map((r) => entries(r).length);
    t.diagnostic(`${seen.size} fired by 5 dispatchers (${perProcess.join('/')}) beside 21 edits in ${elapsed} ms`);
  });

  it('4 concurrent dispatch --once on the real clock: 40 reminders and 10 commands due a minute ago fire once each', async (t) => {
    const dir = freshStore();
    const work = fs.mkdtempSync(path.join(stores.root(), 'work-'));
    const due = new Date(Date.now() - 60 * SEC).toISOString();
    const rs = Array.from({ length: 40 }, (_, i) => reminder(`r-now${i}`, due));
    const cs = Array.from({ length: 10 }, (_, i) => command(`c-now${i}`, `echo ${i}`, due, work));
    writeTable(dir, 'reminders', rs);
    writeTable(dir, 'schedule-commands', cs);
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 4 }, () => cli(['dispatch', '--once', '--json', '--store', dir])));
    const ids = results.flatMap((r) => entries(r).map((e) => e.id));
    assert.equal(ids.length, 50);
    assert.deepEqual([...new Set(ids)].sort(), [...rs, ...cs].map((r) => r.id).sort());
    for (const c of cs) {
      const log = (await jsonOk(['schedule', 'log', c.id, '--store', dir])) as { id: string; log: string };
      assert.ok(log.log.startsWith(`${c.id.slice(5)}\n`), log.log);
    }
    const doctor = (await jsonOk(['doctor', '--store', dir])) as { healthy: boolean };
    assert.equal(doctor.healthy, true);
    t.diagnostic(`50 rows by 4 dispatchers in ${Date.now() - started} ms`);
  });
});
