/**
 * The durable table store: missing, corrupt, BOM, wrong-shape, older and newer files, bad rows,
 * injected disk faults, the lock (stale take-over, wait limit, a lock lost while held), stray temp
 * files, the pulse and ids.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { commandRowSchema, reminderRowSchema, SCHEMA_VERSION, type CommandRow, type ReminderRow } from '../../src/core/schema';
import { nodeFs, type FsSeam } from '../../src/node/fs-seam';
import { faultyFs, type Fault } from './fixtures/faultyFs';
import { newId } from '../../src/node/ids';
import { StoreError, type StoreErrorCode } from '../../src/node/store/errors';
import { readPulse, touchPulse } from '../../src/node/store/pulse';
import { DEFAULT_MAX_FILE_BYTES, Table, type TableOptions } from '../../src/node/store/table';
import { tempDirs } from './helpers/tempDirs';
import { lockState } from '../../src/node/lock';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { ScheduleStore } from '../../src/node/schedule';
import { encodeTable } from './helpers/cliHarness';

const dirs = tempDirs('lt-store-');
const freshDir = dirs.freshDir;

const AT = '2026-10-03T07:00:00.000Z';

function reminder(id: string, over: Record<string, unknown> = {}): ReminderRow & Record<string, unknown> {
  return { id, text: 'hi', schedule: { kind: 'once', at: AT }, tz: 'Europe/Berlin', status: 'pending', nextRunAt: AT, createdAt: '2026-10-01T07:00:00.000Z', ...over };
}

function command(id: string, over: Record<string, unknown> = {}): CommandRow & Record<string, unknown> {
  return { ...reminder(id), text: undefined, command: 'echo hi', cwd: '/tmp', timeoutMinutes: 2, ...over } as CommandRow & Record<string, unknown>;
}

function reminders(dir: string, opts: Partial<TableOptions<ReminderRow>> = {}): Table<ReminderRow> {
  return new Table<ReminderRow>({ dir, name: 'reminders', rowSchema: reminderRowSchema, ...opts });
}

function writeTable(dir: string, content: string | Buffer, name = 'reminders.json'): Buffer {
  const buf = typeof content === 'string' ? Buffer.from(content) : content;
  fs.writeFileSync(path.join(dir, name), buf);
  return buf;
}

function tableText(rows: unknown[], schemaVersion = SCHEMA_VERSION): string {
  return JSON.stringify({ schemaVersion, rows });
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** The store directory's entries, without the lock folder and the digest that every write leaves. */
function listing(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n !== '.locks' && !/^\..*\.json\.sum$/.test(n))
    .sort();
}

async function lockFree(t: Table<ReminderRow>): Promise<boolean> {
  return (await lockState(t.lockFile)).state === 'free';
}

function temps(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'));
}

async function rejectsWith(p: Promise<unknown>, code: StoreErrorCode, ...fragments: (string | RegExp)[]): Promise<StoreError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError '${code}', got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  for (const f of fragments) {
    if (typeof f === 'string') assert.ok(caught.message.includes(f), `message lacks ${JSON.stringify(f)}: ${caught.message}`);
    else assert.match(caught.message, f);
  }
  return caught;
}

const keep = <R>(rows: R[]): { rows: R[]; result: undefined } => ({ rows, result: undefined });
const add =
  <R>(row: R) =>
  (rows: R[]): { rows: R[]; result: undefined } => ({ rows: [...rows, row], result: undefined });

describe('store: missing directory and file', () => {
  it('reads a missing directory as an empty table without creating it', async () => {
    const dir = path.join(dirs.freshPath('missing'), 'deeper');
    const snap = await reminders(dir).read();
    assert.deepEqual(snap, { rows: [], quarantined: [], schemaVersion: SCHEMA_VERSION, state: 'missing' });
    assert.equal(fs.existsSync(dir), false);
  });

  it('creates the directory and an empty table under the lock on the first update', async () => {
    const dir = path.join(dirs.freshPath('missing'), 'deeper');
    const t = reminders(dir);
    const seen = await t.update((rows) => ({ rows, result: rows.length }));
    assert.equal(seen, 0);
    assert.deepEqual(readJson(t.file), { schemaVersion: SCHEMA_VERSION, rows: [] });
    assert.deepEqual(listing(dir), ['reminders.json']);
    assert.equal((await t.read()).state, 'ok');
  });

  it('creates a missing file in an existing directory with the first row', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    await t.update(add(reminder('r-a')));
    assert.deepEqual((await t.read()).rows, [reminder('r-a')]);
    assert.deepEqual(listing(dir), ['reminders.json']);
  });
});

describe('store: a file that does not parse is corrupt and never touched', () => {
  const valid = tableText([reminder('r-a'), reminder('r-b')]);
  const cases: [string, Buffer, string][] = [
    ['empty', Buffer.alloc(0), 'empty'],
    ['NUL-filled', Buffer.alloc(4096), 'NUL'],
    ['truncated', Buffer.from(valid.slice(0, Math.floor(valid.length / 2))), 'not valid JSON'],
    ['trailing garbage', Buffer.from(`${valid}\n}garbage`), 'not valid JSON'],
    ['trailing NULs', Buffer.concat([Buffer.from(valid), Buffer.alloc(64)]), 'not valid JSON'],
    ['not JSON', Buffer.from('hello, world'), 'not valid JSON'],
    ['whitespace only', Buffer.from('  \n\t '), 'whitespace'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'UTF-8'],
  ];
  for (const [label, bytes, fragment] of cases) {
    it(`${label}: read and update refuse, the file stays byte for byte at its path`, async () => {
      const dir = freshDir();
      writeTable(dir, bytes);
      const before = listing(dir);
      const t = reminders(dir);
      await rejectsWith(t.read(), 'corrupt', fragment, t.file, 'untouched');
      let called = false;
      await rejectsWith(
        t.update((rows) => {
          called = true;
          return keep(rows);
        }),
        'corrupt',
        fragment,
      );
      assert.equal(called, false);
      assert.deepEqual(fs.readFileSync(t.file), bytes);
      assert.deepEqual(listing(dir), before, 'not renamed aside, nothing written beside it, lock released');
    });
  }
});

describe('store: invalid UTF-8 in a table the writer laid out is corrupt, never a crash', () => {
  /** A table as the writer lays it out (one row per line), with one byte replaced by 0xff. */
  async function flipped(where: 'header' | 'row' | 'footer'): Promise<{ dir: string; t: Table<ReminderRow>; bytes: Buffer }> {
    const dir = freshDir();
    const t = reminders(dir);
    await t.update(() => ({ rows: [reminder('r-a', { text: 'first row' }), reminder('r-b', { text: 'second row' })], result: undefined }));
    const good = fs.readFileSync(t.file);
    const text = good.toString('latin1');
    const at = where === 'header' ? text.indexOf('rows') : where === 'row' ? text.indexOf('second row') + 3 : text.lastIndexOf(']');
    assert.ok(at > 0);
    const bytes = Buffer.from(good);
    bytes[at] = 0xff;
    return { dir, t, bytes };
  }

  for (const where of ['header', 'row', 'footer'] as const) {
    for (const known of [false, true]) {
      it(`a flipped byte in the ${where}${known ? ', read by a process that knew the table before' : ''}: read and update refuse as corrupt, the file stays byte for byte`, async () => {
        const { dir, t: writer, bytes } = await flipped(where);
        // The incremental reader compares lines with the version it knows; a fresh table parses the file whole.
        const t = known ? writer : reminders(dir);
        fs.writeFileSync(t.file, bytes);
        const before = listing(dir);
        await rejectsWith(t.read(), 'corrupt', t.file, 'untouched');
        await rejectsWith(t.update(keep), 'corrupt', t.file);
        assert.deepEqual(fs.readFileSync(t.file), bytes);
        assert.deepEqual(listing(dir), before);
        assert.ok(await lockFree(t), 'the lock is released');
      });
    }
  }

  it('a pass with a corrupt commands table still claims reminders, then reports the commands file', async () => {
    const dir = freshDir();
    const store = new ScheduleStore({ dir });
    const due = '2026-10-03T07:00:00.000Z';
    await store.reminders.update(() => ({ rows: [reminder('r-due', { schedule: { kind: 'once', at: due }, nextRunAt: due })], result: undefined }));
    const { text: _t, ...row } = command('c-a', { nextRunAt: '2027-10-03T07:00:00.000Z', schedule: { kind: 'once', at: '2027-10-03T07:00:00.000Z' } });
    await store.commands.update(() => ({ rows: [row as CommandRow], result: undefined }));
    await store.pass({ now: new Date('2026-10-01T07:00:00.000Z'), holder: { pid: process.pid, window: 'test' } });
    const bytes = fs.readFileSync(store.commands.file);
    const at = bytes.indexOf('echo hi');
    bytes[at + 1] = 0xfe;
    fs.writeFileSync(store.commands.file, bytes);
    let caught: unknown;
    try {
      await store.pass({ now: new Date('2026-10-03T07:00:01.000Z'), holder: { pid: process.pid, window: 'test' } });
    } catch (e) {
      caught = e;
    }
    const failure = (caught as { failure?: unknown; partial?: { reminders: { claimed: { id: string }[] } } } | undefined);
    assert.ok(failure?.failure instanceof StoreError, String(caught));
    assert.equal(failure.failure.code, 'corrupt');
    assert.ok(failure.failure.message.includes(store.commands.file), failure.failure.message);
    assert.deepEqual(failure.partial?.reminders.claimed.map((c) => c.id), ['r-due']);
    assert.deepEqual(fs.readFileSync(store.commands.file), bytes);
  });
});

describe('store: BOM and wrong shape', () => {
  it('strips a UTF-8 BOM and writes the file back without one', async () => {
    const dir = freshDir();
    writeTable(dir, `\uFEFF${tableText([reminder('r-a')])}`);
    const t = reminders(dir);
    assert.deepEqual((await t.read()).rows, [reminder('r-a')]);
    await t.update(add(reminder('r-b')));
    const bytes = fs.readFileSync(t.file);
    assert.notEqual(bytes[0], 0xef);
    assert.equal((await t.read()).rows.length, 2);
  });

  const shapes: [string, string, string][] = [
    ['rows not an array', JSON.stringify({ schemaVersion: 1, rows: { a: 1 } }), 'rows'],
    ['rows null', JSON.stringify({ schemaVersion: 1, rows: null }), 'rows'],
    ['rows missing', JSON.stringify({ schemaVersion: 1 }), 'rows'],
    ['schemaVersion missing', JSON.stringify({ rows: [] }), 'schemaVersion'],
    ['schemaVersion a string', JSON.stringify({ schemaVersion: '1', rows: [] }), 'schemaVersion'],
    ['schemaVersion fractional', JSON.stringify({ schemaVersion: 1.5, rows: [] }), 'schemaVersion'],
    ['schemaVersion negative', JSON.stringify({ schemaVersion: -1, rows: [] }), 'schemaVersion'],
    ['top level an array', JSON.stringify([reminder('r-a')]), 'top level'],
    ['top level null', 'null', 'top level'],
    ['unknown top-level key', JSON.stringify({ schemaVersion: 1, rows: [], extra: true }), '"extra"'],
    ['top-level __proto__', '{"schemaVersion":1,"rows":[],"__proto__":{"x":1}}', '"__proto__"'],
  ];
  for (const [label, text, field] of shapes) {
    it(`${label}: error names ${field}, the file stays byte-identical`, async () => {
      const dir = freshDir();
      const bytes = writeTable(dir, text);
      const t = reminders(dir);
      await rejectsWith(t.read(), 'shape', field);
      await rejectsWith(t.update(add(reminder('r-z'))), 'shape', field);
      assert.deepEqual(fs.readFileSync(t.file), bytes);
      assert.deepEqual(listing(dir), ['reminders.json']);
    });
  }
});

describe('store: schema versions', () => {
  it('a newer file is an error naming both versions; update leaves it byte-identical', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, JSON.stringify({ schemaVersion: SCHEMA_VERSION + 1, rows: [{ id: 'r-a', future: true }], moreStuff: {} }, null, 2));
    const mtime = fs.statSync(path.join(dir, 'reminders.json')).mtimeMs;
    const t = reminders(dir);
    await rejectsWith(t.read(), 'newer', `schemaVersion ${SCHEMA_VERSION + 1}`, `schemaVersion ${SCHEMA_VERSION}`);
    let called = false;
    await rejectsWith(
      t.update((rows) => {
        called = true;
        return keep(rows);
      }),
      'newer',
    );
    assert.equal(called, false);
    assert.deepEqual(fs.readFileSync(t.file), bytes);
    assert.equal(fs.statSync(t.file).mtimeMs, mtime);
    assert.deepEqual(listing(dir), ['reminders.json']);
  });

  // Version 1 is the first real one; a fake v0 (rows with `message` instead of `text`) exercises the hook.
  const v0Row = (id: string): Record<string, unknown> => {
    const { text, ...rest } = reminder(id);
    return { ...rest, message: text };
  };
  const migrations = {
    0: (rows: unknown[]): unknown[] =>
      rows.map((r) => {
        if (typeof r !== 'object' || r === null || !('message' in r)) return r;
        const { message, ...rest } = r as Record<string, unknown>;
        return { ...rest, text: message };
      }),
  };

  it('an older file reads migrated in memory and stays untouched by a read', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([v0Row('r-a')], 0));
    const snap = await reminders(dir, { migrations }).read();
    assert.equal(snap.schemaVersion, 0);
    assert.deepEqual(snap.rows, [reminder('r-a')]);
    assert.deepEqual(fs.readFileSync(path.join(dir, 'reminders.json')), bytes);
  });

  it('an older file is backed up, then migrated under the lock, idempotently', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([v0Row('r-a'), v0Row('r-b')], 0));
    const t = reminders(dir, { migrations });
    // A no-op update still writes: the migrated table must reach the disk.
    await t.update(keep);
    const backup = path.join(dir, 'reminders.v0.bak.json');
    assert.deepEqual(fs.readFileSync(backup), bytes);
    assert.deepEqual(readJson(t.file), { schemaVersion: SCHEMA_VERSION, rows: [reminder('r-a'), reminder('r-b')] });

    const migrated = fs.readFileSync(t.file);
    await t.update(keep);
    assert.deepEqual(fs.readFileSync(t.file), migrated, 'a second run changes nothing');
    assert.deepEqual(listing(dir), ['reminders.json', 'reminders.v0.bak.json']);

    // A crash after the backup and before the rename: the same v0 file again, the backup already there.
    writeTable(dir, bytes);
    await t.update(keep);
    assert.deepEqual(fs.readFileSync(t.file), migrated);
    assert.deepEqual(listing(dir), ['reminders.json', 'reminders.v0.bak.json']);
    assert.deepEqual(fs.readFileSync(backup), bytes);
  });

  it('a version-1 table (written by the previous release) reads as it is and becomes version 2 on the first write, its v1 bytes backed up', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a')], 1));
    const t = reminders(dir);
    const snap = await t.read();
    assert.equal(snap.schemaVersion, 1);
    assert.deepEqual(snap.rows, [reminder('r-a')]);
    assert.deepEqual(fs.readFileSync(t.file), bytes, 'a read leaves it as it is');
    await t.update(add(reminder('r-b')));
    assert.deepEqual(readJson(t.file), { schemaVersion: 2, rows: [reminder('r-a'), reminder('r-b')] });
    assert.deepEqual(fs.readFileSync(path.join(dir, 'reminders.v1.bak.json')), bytes);
  });

  it('an older file with no migration path is refused and untouched', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([v0Row('r-a')], 0));
    const t = reminders(dir);
    await rejectsWith(t.read(), 'shape', 'no migration from version 0');
    await rejectsWith(t.update(keep), 'shape', 'no migration');
    assert.deepEqual(fs.readFileSync(t.file), bytes);
    assert.deepEqual(listing(dir), ['reminders.json']);
  });
});

describe('store: row validation and quarantine', () => {
  it('a row with an unknown key is quarantined verbatim, the others work, the quarantine file is written at the next update', async () => {
    const dir = freshDir();
    const odd = reminder('r-odd', { colour: 'blue' });
    writeTable(dir, tableText([reminder('r-a'), odd, reminder('r-b')]));
    const t = reminders(dir);
    const snap = await t.read();
    assert.deepEqual(
      snap.rows.map((r) => r.id),
      ['r-a', 'r-b'],
    );
    assert.equal(snap.quarantined.length, 1);
    assert.deepEqual(snap.quarantined[0]?.row, odd);
    assert.match(snap.quarantined[0]?.reason ?? '', /rows\[1\].*r-odd.*colour/);
    assert.equal(fs.existsSync(t.quarantineFile), false, 'a read writes nothing');

    // An update that changes nothing does not write either.
    await t.update(keep);
    assert.equal(fs.existsSync(t.quarantineFile), false);

    await t.update(add(reminder('r-c')));
    assert.deepEqual(
      (await t.read()).rows.map((r) => r.id),
      ['r-a', 'r-b', 'r-c'],
    );
    const q = readJson(t.quarantineFile);
    assert.deepEqual(q, { rows: [odd], reasons: [snap.quarantined[0]?.reason] });
    assert.deepEqual(await t.readQuarantine(), q);

    // The same bad row again (say, a restored backup) is not duplicated; a new one is appended.
    const odd2 = reminder('r-odd2', { extra: 1 });
    writeTable(dir, tableText([reminder('r-a'), odd, odd2]));
    await t.update(add(reminder('r-d')));
    const q2 = await t.readQuarantine();
    assert.deepEqual(q2.rows, [odd, odd2]);
    assert.equal(q2.reasons.length, 2);
    assert.match(q2.reasons[1] ?? '', /r-odd2.*extra/);
  });

  it('invalid values are quarantined with the reason naming the field, and a read never throws on them', async () => {
    const dir = freshDir();
    const bad: [unknown, RegExp][] = [
      [reminder('r-nan', { createdAt: 'NaN' }), /r-nan.*createdAt/],
      [reminder('r-neg', { nextRunAt: -1 }), /r-neg.*nextRunAt/],
      [reminder('r-baddate', { schedule: { kind: 'once', at: '2026-13-45T99:00:00Z' } }), /r-baddate.*schedule\.at/],
      [reminder('r-kind', { schedule: { kind: 'weekly', at: AT } }), /r-kind.*schedule/],
      [reminder('r-notz', { tz: undefined }), /r-notz.*tz/],
      [reminder('r-crontz', { schedule: { kind: 'cron', expr: '0 9 * * *' } }), /r-crontz.*schedule\.tz/],
      [reminder('r-status', { status: 'done' }), /r-status.*status/],
      [{ text: 'no id' }, /rows\[\d+\].*id/],
      ['a string', /rows\[\d+\]/],
      [reminder('bad id'), /bad id.*id/],
    ];
    writeTable(dir, tableText([reminder('r-ok'), ...bad.map(([r]) => r)]));
    const t = reminders(dir);
    const snap = await t.read();
    assert.deepEqual(
      snap.rows.map((r) => r.id),
      ['r-ok'],
    );
    assert.equal(snap.quarantined.length, bad.length);
    bad.forEach(([row, reason], i) => {
      assert.deepEqual(snap.quarantined[i]?.row, JSON.parse(JSON.stringify(row)));
      assert.match(snap.quarantined[i]?.reason ?? '', reason);
    });
  });

  it('command rows: timeoutMinutes 0, 61, 1.5 and "5" are quarantined, 1 and 60 kept', async () => {
    const dir = freshDir();
    const rows = [command('c-one', { timeoutMinutes: 1 }), command('c-zero', { timeoutMinutes: 0 }), command('c-61', { timeoutMinutes: 61 }), command('c-frac', { timeoutMinutes: 1.5 }), command('c-str', { timeoutMinutes: '5' }), command('c-sixty', { timeoutMinutes: 60 })];
    writeTable(dir, tableText(rows), 'schedule-commands.json');
    const t = new Table<CommandRow>({ dir, name: 'schedule-commands', rowSchema: commandRowSchema });
    const snap = await t.read();
    assert.deepEqual(
      snap.rows.map((r) => r.id),
      ['c-one', 'c-sixty'],
    );
    assert.deepEqual(
      snap.quarantined.map((q) => q.reason.match(/id "([^"]+)"/)?.[1]),
      ['c-zero', 'c-61', 'c-frac', 'c-str'],
    );
    for (const q of snap.quarantined) assert.match(q.reason, /timeoutMinutes/);
    await t.update((rs) => ({ rows: rs.slice(0, 1), result: undefined }));
    assert.equal((await t.readQuarantine()).rows.length, 4);
    assert.ok(fs.existsSync(path.join(dir, 'schedule-commands.quarantine.json')));
  });

  it('__proto__ and constructor keys are quarantined and Object.prototype stays untouched', async () => {
    const dir = freshDir();
    const good = JSON.stringify(reminder('r-ok'));
    const withKey = (id: string, extra: string): string => JSON.stringify(reminder(id)).replace(/}$/, `,${extra}}`);
    const text =
      `{"schemaVersion":${SCHEMA_VERSION},"rows":[${good},` +
      `${withKey('r-proto', '"__proto__":{"polluted":"yes","isAdmin":true}')},` +
      `${withKey('r-ctor', '"constructor":{"prototype":{"polluted2":"yes"}}')},` +
      `${JSON.stringify(reminder('r-nested')).replace('"kind":"once"', '"kind":"once","__proto__":{"polluted3":"yes"}')}]}`;
    writeTable(dir, text);
    const t = reminders(dir);
    const snap = await t.read();
    assert.deepEqual(
      snap.rows.map((r) => r.id),
      ['r-ok'],
    );
    assert.deepEqual(
      snap.quarantined.map((q) => q.reason),
      [
        'rows[1] (id "r-proto"): __proto__: forbidden key (it could alter an object prototype)',
        'rows[2] (id "r-ctor"): constructor: forbidden key (it could alter an object prototype)',
        'rows[3] (id "r-nested"): schedule.__proto__: forbidden key (it could alter an object prototype)',
      ],
    );
    await t.update(add(reminder('r-new')));
    const qText = fs.readFileSync(t.quarantineFile, 'utf8');
    assert.ok(qText.includes('"__proto__"') && qText.includes('"constructor"'), 'kept verbatim');
    const q = await t.readQuarantine();
    assert.ok(Object.hasOwn(q.rows[0] as object, '__proto__'));
    await t.update(add(reminder('r-new2')));
    assert.equal((await t.readQuarantine()).rows.length, 3, 'not duplicated');

    const probe: Record<string, unknown> = {};
    for (const k of ['polluted', 'polluted2', 'polluted3', 'isAdmin']) {
      assert.equal(probe[k], undefined);
      assert.equal(Object.hasOwn(Object.prototype, k), false);
    }
  });

  it('a quarantine file broken by hand is kept aside and a new one started', async () => {
    const dir = freshDir();
    const odd = reminder('r-odd', { odd: true });
    writeTable(dir, tableText([reminder('r-a'), odd]));
    writeTable(dir, '{"rows": [oops', 'reminders.quarantine.json');
    const t = reminders(dir);
    await t.update(add(reminder('r-b')));
    assert.deepEqual((await t.readQuarantine()).rows, [odd]);
    const aside = listing(dir).filter((n) => n.startsWith('reminders.quarantine.unreadable-'));
    assert.equal(aside.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, aside[0] ?? ''), 'utf8'), '{"rows": [oops');
  });

  it('duplicate ids: the first is kept, the rest quarantined', async () => {
    const dir = freshDir();
    writeTable(dir, tableText([reminder('r-a', { text: 'first' }), reminder('r-b'), reminder('r-a', { text: 'second' }), reminder('r-a', { text: 'third' })]));
    const t = reminders(dir);
    const snap = await t.read();
    assert.deepEqual(
      snap.rows.map((r) => [r.id, r.text]),
      [
        ['r-a', 'first'],
        ['r-b', 'hi'],
      ],
    );
    assert.deepEqual(
      snap.quarantined.map((q) => q.reason),
      ['rows[2] (id "r-a"): id: duplicate of rows[0], which is kept', 'rows[3] (id "r-a"): id: duplicate of rows[0], which is kept'],
    );
  });
});

describe('store: rows nested thousands of levels deep', () => {
  it('a row 5,000 and one 100,000 levels deep are quarantined verbatim; writes to the table go on; doctor-style reads never overflow', async () => {
    const dir = freshDir();
    const deep = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const text = `{"schemaVersion":${SCHEMA_VERSION},"rows":[${JSON.stringify(reminder('r-ok'))},{"id":"r-deep","junk":${deep(5000)}},{"id":"r-deeper","junk":${deep(100_000)}}]}`;
    writeTable(dir, text);
    const t = reminders(dir);
    const snap = await t.read();
    assert.deepEqual(
      snap.rows.map((r) => r.id),
      ['r-ok'],
    );
    assert.equal(snap.quarantined.length, 2);
    await t.update(add(reminder('r-new')));
    assert.deepEqual(
      (await t.read()).rows.map((r) => r.id),
      ['r-ok', 'r-new'],
    );
    const q = fs.readFileSync(t.quarantineFile, 'utf8');
    assert.ok(q.includes('"r-deep"') && q.includes('"r-deeper"'), 'kept with their ids');
    const back = await t.readQuarantine();
    assert.equal(back.rows.length, 2);
    assert.match(back.reasons.join('\n'), /nested deeper than 32 levels/);
    // The quarantined rows are the very rows found: the nesting is kept to the last level.
    let depth = 0;
    for (let v: unknown = (back.rows[1] as { junk: unknown }).junk; typeof v === 'object' && v !== null; v = (v as { a: unknown }).a) depth++;
    assert.equal(depth, 100_000);
    await t.update(add(reminder('r-again')));
    assert.equal((await t.readQuarantine()).rows.length, 2, 'not quarantined twice');
  });
});

describe('store: size limit', () => {
  it('a huge file is refused before parsing (never read into memory)', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a', { text: 'x'.repeat(4000) })]));
    const reads: string[] = [];
    const spy: FsSeam = { ...nodeFs, readFile: (p) => (reads.push(p), nodeFs.readFile(p)) };
    const t = reminders(dir, { maxFileBytes: 1024, fs: spy });
    await rejectsWith(t.read(), 'too_large', `${bytes.length} bytes`, '1024');
    await rejectsWith(t.update(keep), 'too_large');
    assert.deepEqual(reads, []);
    assert.deepEqual(fs.readFileSync(t.file), bytes);
  });

  it('refuses to write a table it could not read back', async () => {
    const dir = freshDir();
    writeTable(dir, tableText([reminder('r-a')]));
    const before = fs.readFileSync(path.join(dir, 'reminders.json'));
    const t = reminders(dir, { maxFileBytes: 2048 });
    await rejectsWith(t.update(add(reminder('r-big', { text: 'y'.repeat(3000) }))), 'too_large', 'nothing written');
    assert.deepEqual(fs.readFileSync(t.file), before);
    assert.deepEqual(temps(dir), []);
  });

  it('the default limit sits well above a 10,000-row store of ~1 KB rows', async (t) => {
    const dir = freshDir();
    const table = reminders(dir);
    const rows = Array.from({ length: 10_000 }, (_, i) => reminder(`r-${i}`, { text: `${i} ${'z'.repeat(900)}` }));
    await table.update(() => ({ rows, result: undefined }));
    const size = fs.statSync(table.file).size;
    assert.ok(size > 10_000_000 && size * 4 < DEFAULT_MAX_FILE_BYTES, `size ${size}`);
    const started = Date.now();
    await table.update((rs) => ({ rows: rs.map((r) => (r.id === 'r-5' ? { ...r, status: 'fired' as const } : r)), result: undefined }));
    const snap = await table.read();
    assert.equal(snap.rows.length, 10_000);
    assert.equal(snap.rows[5]?.status, 'fired');
    t.diagnostic(`10,000-row table: ${(size / 1e6).toFixed(1)} MB; one update + one read took ${Date.now() - started} ms`);
  });
});

describe('store: update semantics', () => {
  it('returns the result; the same array unchanged skips the write', async () => {
    const dir = freshDir();
    writeTable(dir, tableText([reminder('r-a')]));
    let renames = 0;
    const spy: FsSeam = { ...nodeFs, rename: (a, b) => (renames++, nodeFs.rename(a, b)) };
    const t = reminders(dir, { fs: spy });
    const ino = fs.statSync(t.file).ino;
    assert.equal(await t.update((rows) => ({ rows, result: 'seen' })), 'seen');
    assert.equal(renames, 0);
    assert.equal(fs.statSync(t.file).ino, ino);
    await t.update(add(reminder('r-b')));
    assert.equal(renames, 1);
    assert.notEqual(fs.statSync(t.file).ino, ino, 'replaced by rename, not rewritten in place');
  });

  it('rows pushed into the same array are written, not lost', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    await t.update((rows) => {
      rows.push(reminder('r-pushed'));
      return { rows, result: undefined };
    });
    assert.deepEqual(
      (await t.read()).rows.map((r) => r.id),
      ['r-pushed'],
    );
  });

  it('the rows handed to fn are frozen, so an in-place edit fails loudly instead of vanishing', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a')]));
    const t = reminders(dir);
    await assert.rejects(
      t.update((rows) => {
        const r = rows[0];
        if (r) (r as { status: string }).status = 'fired';
        return keep(rows);
      }),
      TypeError,
    );
    assert.deepEqual(fs.readFileSync(t.file), bytes);
  });

  it('an invalid or duplicate row returned by fn is refused, nothing written', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a')]));
    const t = reminders(dir);
    await rejectsWith(
      t.update((rows) => ({ rows: [...rows, { ...reminder('r-b'), timeoutMinutes: 5 } as ReminderRow], result: undefined })),
      'shape',
      'r-b',
      'timeoutMinutes',
      'nothing written',
    );
    await rejectsWith(t.update((rows) => ({ rows: [...rows, reminder('r-c', { nextRunAt: 'soon' })], result: undefined })), 'shape', 'nextRunAt');
    await rejectsWith(t.update((rows) => ({ rows: [...rows, reminder('r-a', { text: 'again' })], result: undefined })), 'shape', 'duplicate');
    assert.deepEqual(fs.readFileSync(t.file), bytes);
    assert.deepEqual(temps(dir), []);
  });

  it('an error thrown by fn propagates and releases the lock', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a')]));
    const t = reminders(dir, { lockWaitMs: 200 });
    await assert.rejects(
      t.update(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(fs.readFileSync(t.file), bytes);
    assert.ok(await lockFree(t), 'the lock is released');
    await t.update(add(reminder('r-b')));
  });

  it('concurrent updates in one process (one Table and two Tables on the same file) lose nothing', async () => {
    const dir = freshDir();
    const a = reminders(dir);
    const b = reminders(dir);
    const bump = (rows: ReminderRow[]): { rows: ReminderRow[]; result: undefined } => {
      const c = rows.find((r) => r.id === 'r-counter') ?? reminder('r-counter', { text: '0' });
      return { rows: [{ ...c, text: String(Number(c.text) + 1) }], result: undefined };
    };
    await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).update(bump)));
    assert.equal((await a.read()).rows[0]?.text, '30');
  });
});

/**
 * What a table remembers of the version it last read or wrote: a read that finds the same bytes
 * reuses the rows, and an update that changed a few rows rewrites only their lines. Neither may ever
 * hide a change another process made, whatever the file's size, inode and times say.
 */
describe('store: the version a table remembers', () => {
  /** Rewrites the table in place (same inode) and gives it back the very mtime and atime it had. */
  function rewriteInPlaceSameTick(file: string, edit: (text: string) => string): void {
    const st = fs.statSync(file);
    const before = fs.readFileSync(file, 'utf8');
    const after = edit(before);
    assert.notEqual(after, before);
    assert.equal(Buffer.byteLength(after), Buffer.byteLength(before), 'the same size');
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, after, 0, 'utf8');
    fs.closeSync(fd);
    fs.utimesSync(file, st.atime, st.mtime);
    const now = fs.statSync(file);
    assert.equal(now.ino, st.ino, 'the same inode');
    assert.equal(now.size, st.size, 'the same size');
    assert.equal(now.mtimeMs, st.mtimeMs, 'the same mtime');
  }

  it('another process rewrote the table with the same size in the same mtime tick: read, update and a pass all see the change', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    await t.update(() => ({ rows: [reminder('r-a', { text: 'aaaa' }), reminder('r-b')], result: undefined }));
    // Pin the mtime to a whole second, so that giving it back is exact on any file system.
    const pinned = new Date('2026-10-01T07:00:00.000Z');
    fs.utimesSync(t.file, pinned, pinned);
    assert.equal((await t.read()).rows[0]?.text, 'aaaa', 'this version is now the one the table knows');

    rewriteInPlaceSameTick(t.file, (text) => text.replace('"aaaa"', '"bbbb"'));
    assert.equal((await t.read()).rows[0]?.text, 'bbbb', 'a read sees it');
    await t.update((rows) => ({ rows: rows.map((r) => (r.id === 'r-b' ? { ...r, text: 'b2' } : r)), result: undefined }));
    assert.deepEqual(
      (readJson(t.file) as { rows: ReminderRow[] }).rows.map((r) => r.text),
      ['bbbb', 'b2'],
      'the update kept the other process’s change instead of writing its stale copy back',
    );

    // A pass: the row another process made due in place is claimed at the next pass.
    const store = new ScheduleStore({ dir: freshDir() });
    const later = '2099-10-03T07:00:00.000Z';
    const soon = '2026-10-03T07:00:00.000Z';
    await store.reminders.update(() => ({ rows: [reminder('r-x', { schedule: { kind: 'once', at: later }, nextRunAt: later })], result: undefined }));
    fs.utimesSync(store.reminders.file, pinned, pinned);
    const now = new Date('2026-10-03T08:00:00.000Z');
    const holder = { pid: process.pid, window: 'test' };
    assert.equal((await store.pass({ now, holder })).reminders.claimed.length, 0);
    rewriteInPlaceSameTick(store.reminders.file, (text) => text.replaceAll(later, soon));
    assert.deepEqual(
      (await store.pass({ now, holder })).reminders.claimed.map((c) => c.id),
      ['r-x'],
    );
  });

  it('a table replaced by another process (a new inode, the same size and mtime) is read again', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    await t.update(() => ({ rows: [reminder('r-a', { text: 'aaaa' })], result: undefined }));
    const st = fs.statSync(t.file);
    const other = path.join(dir, 'other.tmp.json');
    fs.writeFileSync(other, fs.readFileSync(t.file, 'utf8').replace('"aaaa"', '"cccc"'));
    fs.utimesSync(other, st.atime, st.mtime);
    fs.renameSync(other, t.file);
    assert.equal((await t.read()).rows[0]?.text, 'cccc');
  });

  it('rows changed in place and rows added are spliced in: the file is what a full write gives, and a new reader reads the same rows', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    const rows = Array.from({ length: 50 }, (_, i) => reminder(`r-${i}`, { text: `row ${i}` }));
    await t.update(() => ({ rows, result: undefined }));
    await t.update((rs) => ({
      rows: [...rs.map((r, i) => (i === 0 || i === 17 || i === 49 ? { ...r, text: `changed ${'é'.repeat(i)}` } : r)), reminder('r-new', { text: 'added' })],
      result: undefined,
    }));
    const fresh = await reminders(dir).read();
    assert.equal(fresh.rows.length, 51);
    assert.equal(fresh.rows[17]?.text, `changed ${'é'.repeat(17)}`);
    assert.equal(fresh.rows[50]?.id, 'r-new');
    const expected = encodeTable(fresh.rows.map((r) => JSON.stringify(r)));
    assert.equal(fs.readFileSync(t.file, 'utf8'), expected, 'the writer’s one-row-per-line layout');
    // The same table again (its own version): more changes splice on top of the spliced version.
    await t.update((rs) => ({ rows: rs.map((r) => (r.id === 'r-18' ? { ...r, text: 'again' } : r)), result: undefined }));
    const again = await reminders(dir).read();
    assert.equal(again.rows[18]?.text, 'again');
    assert.equal(fs.readFileSync(t.file, 'utf8'), encodeTable(again.rows.map((r) => JSON.stringify(r))));
  });

  it('an update that renames, moves or duplicates rows takes the full path and is checked as a whole', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    await t.update(() => ({ rows: [reminder('r-a'), reminder('r-b'), reminder('r-c')], result: undefined }));
    const bytes = fs.readFileSync(t.file);
    await rejectsWith(t.update((rs) => ({ rows: [...rs, reminder('r-d'), reminder('r-d')], result: undefined })), 'shape', 'duplicate');
    await rejectsWith(t.update((rs) => ({ rows: [...rs, reminder('r-b', { text: 'again' })], result: undefined })), 'shape', 'duplicate');
    await rejectsWith(t.update((rs) => ({ rows: rs.map((r) => (r.id === 'r-a' ? { ...r, id: 'r-c' } : r)), result: undefined })), 'shape', 'duplicate');
    assert.deepEqual(fs.readFileSync(t.file), bytes, 'nothing written');
    await t.update((rs) => ({ rows: [rs[2], rs[0], { ...rs[1], id: 'r-z' }] as ReminderRow[], result: undefined }));
    assert.deepEqual(
      (await reminders(dir).read()).rows.map((r) => r.id),
      ['r-c', 'r-a', 'r-z'],
    );
  });

  it('reads in flight together while another writer changes the table each get one whole version', async () => {
    const dir = freshDir();
    const rows = (tag: string): ReminderRow[] => Array.from({ length: 300 }, (_, i) => reminder(`r-${i}`, { text: `${tag} ${'x'.repeat(100)}` }));
    const a = reminders(dir);
    const b = reminders(dir);
    await b.update(() => ({ rows: rows('v0'), result: undefined }));
    await a.read();
    const reads: Promise<{ rows: ReminderRow[] }>[] = [];
    for (let v = 1; v <= 6; v++) {
      reads.push(...Array.from({ length: 8 }, () => a.read()));
      await b.update(() => ({ rows: rows(`v${v}`), result: undefined }));
      reads.push(...Array.from({ length: 8 }, () => a.read()));
    }
    for (const snap of await Promise.all(reads)) {
      assert.equal(snap.rows.length, 300);
      const tags = new Set(snap.rows.map((r) => r.text.split(' ')[0]));
      assert.equal(tags.size, 1, `one version per read, got ${[...tags].join(', ')}`);
    }
    assert.equal((await a.read()).rows[0]?.text.split(' ')[0], 'v6');
  });

  it('writes in a burst leave the digest of the last one (a new reader trusts it); a lone write leaves it at once', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    const sumOf = (): string => createHash('sha1').update(fs.readFileSync(t.file)).digest('hex');
    const sumFile = (): string => fs.readFileSync(t.sumFile, 'utf8').trim();
    await t.update(add(reminder('r-a')));
    assert.equal(sumFile(), sumOf(), 'a lone write');
    for (let i = 0; i < 5; i++) await t.update(add(reminder(`r-burst${i}`)));
    await t.flushSum();
    assert.equal(sumFile(), sumOf(), 'the burst’s last version');
    // A digest is only ever the digest of bytes this code validated: never of a file changed since.
    await t.update(add(reminder('r-b')));
    await t.update(add(reminder('r-c')));
    writeTable(dir, fs.readFileSync(t.file, 'utf8').replace('"r-c"', '"r-C"'));
    await t.flushSum();
    assert.notEqual(sumFile(), sumOf());
  });
});

describe('store: injected disk faults', () => {
  const faults: [string, Fault, string][] = [
    ['EROFS creating the temp file', { op: 'open', code: 'EROFS', path: '.tmp' }, 'create temp file'],
    ['ENOSPC writing', { op: 'handle.writeFile', code: 'ENOSPC' }, 'write temp file'],
    ['EIO on fsync', { op: 'handle.sync', code: 'EIO' }, 'fsync temp file'],
    ['EPERM on rename', { op: 'rename', code: 'EPERM' }, 'rename'],
    ['ENOSPC writing the quarantine file', { op: 'handle.writeFile', code: 'ENOSPC', path: 'quarantine' }, 'write temp file'],
  ];
  for (const [label, fault, step] of faults) {
    it(`${label}: a clear io error, the original byte-identical, no temp left, the lock released`, async () => {
      const dir = freshDir();
      const bytes = writeTable(dir, tableText([reminder('r-a'), reminder('r-odd', { odd: 1 })]));
      const rules: Fault[] = [fault];
      const t = reminders(dir, { fs: faultyFs(rules), lockWaitMs: 300 });
      const err = await rejectsWith(t.update(add(reminder('r-b'))), 'io', step, fault.code, 'unchanged');
      assert.ok(err.path.endsWith('.json'), err.path);
      assert.deepEqual(fs.readFileSync(t.file), bytes);
      assert.deepEqual(temps(dir), []);
      assert.ok(await lockFree(t), 'the lock is released');
      assert.equal(fs.existsSync(t.quarantineFile), false);
      rules.length = 0;
      await t.update(add(reminder('r-b')));
      assert.deepEqual(
        (await t.read()).rows.map((r) => r.id),
        ['r-a', 'r-b'],
      );
      assert.equal((await t.readQuarantine()).rows.length, 1);
    });
  }

  it('EROFS on the store directory: a clear io error naming it', async () => {
    const dir = dirs.freshPath('ro');
    const t = reminders(dir, { fs: faultyFs([{ op: 'mkdir', code: 'EROFS' }]) });
    await rejectsWith(t.update(keep), 'io', 'create the store directory', dir, 'EROFS');
  });

  it('EACCES reading the table: io error on read and update', async () => {
    const dir = freshDir();
    writeTable(dir, tableText([]));
    const t = reminders(dir, { fs: faultyFs([{ op: 'readFile', code: 'EACCES' }]) });
    await rejectsWith(t.read(), 'io', 'EACCES', 'reminders.json');
    await rejectsWith(t.update(keep), 'io', 'EACCES');
    assert.ok(await lockFree(t), 'the lock is released');
  });
});

describe('store: stray temp files', () => {
  it('temp files older than a minute are removed at the next update; fresh ones and other tables’ are kept', async () => {
    const dir = freshDir();
    writeTable(dir, tableText([reminder('r-a')]));
    const old = new Date(Date.now() - 120_000);
    const stale = ['.reminders.json.4242.abcdefgh.tmp', '.reminders.quarantine.json.4242.x1.tmp'];
    const kept = ['.reminders.json.4243.freshone.tmp', '.schedule-commands.json.4242.abcdefgh.tmp', 'notes.txt'];
    for (const n of [...stale, ...kept]) fs.writeFileSync(path.join(dir, n), '{"half');
    for (const n of [...stale, kept[1] ?? '']) fs.utimesSync(path.join(dir, n), old, old);
    await reminders(dir).update(keep);
    assert.deepEqual(listing(dir), [...kept, 'reminders.json'].sort());
  });
});

describe('store: lock', () => {
  /** Writes a lock record as another process would have left it. */
  const leaveLock = (t: Table<ReminderRow>, rec: Record<string, unknown>, epoch = 7): void => {
    fs.mkdirSync(t.lockFile, { recursive: true });
    fs.writeFileSync(path.join(t.lockFile, String(epoch)), JSON.stringify({ state: 'held', token: 'tok-other', host: os.hostname(), at: new Date().toISOString(), ...rec }));
  };

  /** A process that is alive (and stopped, like a frozen dispatcher) for as long as the test needs. */
  const stoppedChild = async (): Promise<{ pid: number; end: () => void }> => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    process.kill(child.pid as number, 'SIGSTOP');
    return { pid: child.pid as number, end: () => void child.kill('SIGKILL') };
  };

  it('a lock left by a process that is gone is taken over at once, whatever its age', async () => {
    const dir = freshDir();
    const t = reminders(dir, { lockWaitMs: 2000 });
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => gone.once('exit', r));
    leaveLock(t, { pid: gone.pid });
    const started = Date.now();
    await t.update(add(reminder('r-a')));
    assert.ok(Date.now() - started < 1000);
    assert.ok(await lockFree(t));
    assert.deepEqual(
      (await t.read()).rows.map((r) => r.id),
      ['r-a'],
    );
  });

  it('a lock held by a stopped process is never taken, however old: the waiter gives up with a lock error and writes nothing', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a')]));
    const t = reminders(dir, { lockWaitMs: 1500 });
    const frozen = await stoppedChild();
    try {
      leaveLock(t, { pid: frozen.pid, at: new Date(Date.now() - 24 * 3600_000).toISOString() });
      const err = await rejectsWith(t.update(add(reminder('r-b'))), 'lock', '1500 ms', `process ${frozen.pid}`, 'still alive');
      assert.ok(err.message.includes('nothing was changed'));
      assert.deepEqual(fs.readFileSync(t.file), bytes);
    } finally {
      frozen.end();
    }
  });

  it('a record naming a live pid with another start time (a reused pid) is a dead holder', { skip: process.platform !== 'linux' }, async () => {
    const dir = freshDir();
    const t = reminders(dir, { lockWaitMs: 1000 });
    const frozen = await stoppedChild();
    try {
      leaveLock(t, { pid: frozen.pid, start: '1' });
      await t.update(add(reminder('r-a')));
      assert.equal((await t.read()).rows.length, 1);
    } finally {
      frozen.end();
    }
  });

  it('a lock record that is not JSON is a dead holder; a lower stale number is ignored and the next number is taken', async () => {
    const dir = freshDir();
    const t = reminders(dir, { lockWaitMs: 1000 });
    fs.mkdirSync(t.lockFile, { recursive: true });
    fs.writeFileSync(path.join(t.lockFile, '40'), 'garbage');
    // A process that looked long ago may still link a number far below the top: it decides nothing.
    fs.writeFileSync(path.join(t.lockFile, '3'), JSON.stringify({ state: 'held', token: 'x', pid: process.pid, host: os.hostname(), at: new Date().toISOString() }));
    await t.update(add(reminder('r-a')));
    const top = Math.max(...fs.readdirSync(t.lockFile).filter((n) => /^\d+$/.test(n)).map(Number));
    assert.equal(top, 41);
    assert.ok(await lockFree(t));
  });

  it('a lock held by another Table is not obtained within lockWaitMs → StoreError lock', async () => {
    const dir = freshDir();
    writeTable(dir, tableText([]));
    const holder = reminders(dir);
    let letGo = (): void => undefined;
    const gate = new Promise<void>((r) => (letGo = r));
    let inside = (): void => undefined;
    const entered = new Promise<void>((r) => (inside = r));
    const holding = holder.update(async (rows) => {
      inside();
      await gate;
      return { rows: [...rows, reminder('r-holder')], result: undefined };
    });
    await entered;
    const waiter = reminders(dir, { lockWaitMs: 300 });
    const started = Date.now();
    await rejectsWith(waiter.update(add(reminder('r-waiter'))), 'lock', '300 ms', waiter.lockFile);
    const waited = Date.now() - started;
    assert.ok(waited >= 290 && waited < 1500, `waited ${waited} ms`);
    letGo();
    await holding;
    assert.deepEqual(
      (await waiter.read()).rows.map((r) => r.id),
      ['r-holder'],
    );
  });

  it('an update that takes long keeps its lock: nobody judges a live holder by age', async () => {
    const dir = freshDir();
    const t = reminders(dir);
    const other = reminders(dir, { lockWaitMs: 4000 });
    let second: Promise<void> | undefined;
    await t.update(async (rows) => {
      second = other.update(add(reminder('r-second')));
      await new Promise((r) => setTimeout(r, 2500));
      return { rows: [...rows, reminder('r-slow')], result: undefined };
    });
    await second;
    assert.deepEqual(
      (await t.read()).rows.map((r) => r.id),
      ['r-slow', 'r-second'],
    );
  });

  it('a lock folder removed by a person while held: the write is refused before it happens', async () => {
    const dir = freshDir();
    const bytes = writeTable(dir, tableText([reminder('r-a')]));
    const t = reminders(dir);
    await rejectsWith(
      t.update((rows) => {
        fs.rmSync(t.lockFile, { recursive: true, force: true });
        return { rows: [...rows, reminder('r-b')], result: undefined };
      }),
      'lock',
      'nothing written',
    );
    assert.deepEqual(fs.readFileSync(t.file), bytes);
    await t.update(add(reminder('r-c')));
  });
});

describe('store: pulse and ids', () => {
  it('touchPulse writes reminders.tick; readPulse reads it back; missing → null', async () => {
    const dir = dirs.freshPath('pulse');
    assert.equal(await readPulse(dir), null);
    const before = Date.now();
    await touchPulse(dir);
    const file = path.join(dir, 'reminders.tick');
    assert.match(fs.readFileSync(file, 'utf8'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
    const seen = await readPulse(dir);
    assert.ok(seen && seen.getTime() >= before - 5 && seen.getTime() <= Date.now() + 5);
    assert.ok(Math.abs(fs.statSync(file).mtimeMs - Date.now()) < 5000);
    fs.writeFileSync(file, 'garbled');
    const past = new Date(Date.now() - 600_000);
    fs.utimesSync(file, past, past);
    assert.equal((await readPulse(dir))?.getTime(), fs.statSync(file).mtime.getTime());
  });

  it('touchPulse on a read-only disk: io error naming the file', async () => {
    const dir = freshDir();
    await rejectsWith(touchPulse(dir, faultyFs([{ op: 'writeFile', code: 'EROFS' }])), 'io', 'reminders.tick', 'EROFS');
  });

  it('newId: prefix, 10 base36 characters, valid for the row schemas, unique', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newId('r');
      assert.match(id, /^r-[0-9a-z]{10}$/);
      ids.add(id);
    }
    assert.equal(ids.size, 2000);
    assert.match(newId('c'), /^c-[0-9a-z]{10}$/);
    assert.match(newId('w'), /^w-[0-9a-z]{10}$/);
    assert.ok(reminderRowSchema.safeParse(reminder(newId('r'))).success);
  });
});
