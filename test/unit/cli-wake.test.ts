/**
 * The `wake` verbs of the `life-thread` CLI end to end: `node dist/cli.js wake …` in a
 * child process against a temporary store with the clock fixed by --now. Rows as JSON, exit codes
 * (0, 2 bad input, 3 store unreadable), error fields as the user typed them (`delay-seconds`, `at`,
 * `on`, `job-id`, `text`, `cancel-token`), `dispatch --once` never firing a wake, and doctor's count.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import { pool, runCli, tempStores, type CliResult } from './helpers/cliHarness';

const NOW = '2026-10-03T07:00:00.000Z'; // Saturday, 09:00 in Europe/Berlin
const at = (plusMs: number): string => new Date(Date.parse(NOW) + plusMs).toISOString();

const stores = tempStores('lt-cli-wake-');
const freshStore = stores.freshStore;

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { cwd: stores.root(), env });
}

async function json(args: string[], env: Record<string, string> = {}): Promise<unknown> {
  const r = await cli([...args, '--json'], env);
  assert.equal(r.code, 0, `${args.join(' ')} → ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout) as unknown;
}

async function fails(args: string[], code: number, field: string, env: Record<string, string> = {}): Promise<string> {
  const r = await cli([...args, '--json'], env);
  const label = `${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  assert.equal(r.code, code, label);
  assert.equal(r.stdout, '', label);
  const err = JSON.parse(r.stderr) as { error: { field: string; reason: string } };
  assert.deepEqual(Object.keys(err), ['error'], label);
  assert.deepEqual(Object.keys(err.error).sort(), ['field', 'reason'], label);
  assert.equal(err.error.field, field, label);
  assert.ok(err.error.reason.length > 0);
  return err.error.reason;
}

function asWake(v: unknown): WakeRow {
  return wakeRowSchema.parse(v);
}

function asWakes(v: unknown): WakeRow[] {
  assert.ok(Array.isArray(v), `expected an array, got ${JSON.stringify(v)}`);
  return v.map(asWake);
}

describe('life-thread wake', { concurrency: 2 }, () => {
  it('add (timer, at, job.done, presence, scm), list and cancel: rows as camelCase JSON', async () => {
    const dir = freshStore();
    const g = ['--store', dir, '--now', NOW, '--tz', 'Europe/Berlin'];
    const t = asWake(await json(['wake', 'add', '--text', 'check the build', '--delay-seconds', '300', ...g]));
    assert.match(t.id, /^w-[a-z0-9]{10}$/);
    assert.deepEqual(
      { text: t.text, when: t.when, status: t.status, nextRunAt: t.nextRunAt, createdAt: t.createdAt, tz: t.tz },
      { text: 'check the build', when: 'timer', status: 'pending', nextRunAt: at(300_000), createdAt: NOW, tz: 'Europe/Berlin' },
    );
    const w = asWake(await json(['wake', 'add', '--text', 'stand-up', '--at', 'tomorrow at 9', ...g]));
    assert.equal(w.nextRunAt, '2026-10-04T07:00:00.000Z');
    const timerExplicit = asWake(await json(['wake', 'add', '--text', 'x', '--on', 'timer', '--at', '2026-10-03T08:00:00Z', ...g]));
    assert.equal(timerExplicit.nextRunAt, '2026-10-03T08:00:00.000Z');
    const j = asWake(await json(['wake', 'add', '--text', 'tests done', '--on', 'job.done', '--job-id', 'npm test', '--thread', 'topic-7', '--cancel-token', 'k1', ...g]));
    assert.deepEqual({ when: j.when, jobId: j.jobId, threadId: j.threadId, cancelToken: j.cancelToken, nextRunAt: j.nextRunAt }, {
      when: 'job.done',
      jobId: 'npm test',
      threadId: 'topic-7',
      cancelToken: 'k1',
      nextRunAt: null,
    });
    assert.equal(j.window, undefined, 'the CLI watches no job');
    const p = asWake(await json(['wake', 'add', '--text', 'welcome back', '--on', 'presence.online', '--cancel-token', 'k1', ...g]));
    const s = asWake(await json(['wake', 'add', '--text', 'repo moved', '--on', 'scm.changed', ...g]));
    assert.deepEqual([p.when, p.nextRunAt, s.when], ['presence.online', null, 'scm.changed']);

    const listed = asWakes(await json(['wake', 'list', '--store', dir]));
    assert.deepEqual(listed, [t, w, timerExplicit, j, p, s]);

    const removed = asWakes(await json(['wake', 'cancel', 'k1', '--store', dir]));
    // Cancelled rows stay listed for a day, saying so.
    assert.deepEqual(
      removed.map((r) => ({ ...r, cancelledAt: undefined })),
      [j, p].map((r) => ({ ...r, status: 'cancelled', cancelledAt: undefined })),
    );
    for (const r of removed) assert.ok(Number.isFinite(Date.parse(r.cancelledAt ?? '')));
    assert.deepEqual(
      asWakes(await json(['wake', 'list', '--store', dir])).map((r) => [r.id, r.status]),
      [t, w, timerExplicit, j, p, s].map((r) => [r.id, r === j || r === p ? 'cancelled' : 'pending']),
    );
    assert.match(await fails(['wake', 'cancel', 'k1', '--store', dir], 2, 'cancel-token'), /no longer waiting/);
    assert.match(await fails(['wake', 'cancel', 'nope', '--store', dir], 2, 'cancel-token'), /no wake holds/);
    // A wake added by the CLI records the CLI as its owner, with its working directory.
    assert.equal(t.owner?.kind, 'cli');
    assert.equal(t.owner?.folders, undefined);
  });

  it('human output names the zone and says only the extension fires wakes', async () => {
    const dir = freshStore();
    const add = await cli(['wake', 'add', '--text', 'x', '--delay-seconds', '3600', '--cancel-token', 'kk', '--store', dir, '--now', NOW, '--tz', 'Europe/Berlin']);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /^Added w-[a-z0-9]{10}: wakes at Sat 3 Oct 10:00 CEST \(08:00Z\), in 1 h; cancel with 'life-thread wake cancel kk'\. It wakes @life in VS Code, or prints with 'life-thread wait w-[a-z0-9]{10}' \(zone Europe\/Berlin\)\n$/);
    const list = await cli(['wake', 'list', '--store', dir, '--now', NOW, '--tz', 'Europe/Berlin']);
    assert.match(list.stdout, /^1 wake \(times in zone Europe\/Berlin; fired by the VS Code extension or life-thread wait\)\nw-[a-z0-9]{10} {2}pending {2}timer {2}at Sat 3 Oct 10:00 CEST/);
    const cancel = await cli(['wake', 'cancel', 'kk', '--store', dir]);
    assert.match(cancel.stdout, /^Cancelled 1 wake holding 'kk': w-[a-z0-9]{10}\n$/);
    const after = await cli(['wake', 'list', '--store', dir]);
    assert.match(after.stdout, /^1 wake .*\nw-[a-z0-9]{10} {2}cancelled {2}timer {2}cancelled /);
    assert.match(await fails(['wake', 'cancel', 'nope', '--store', dir], 2, 'cancel-token'), /no wake holds/);
  });

  it('bad input: exit 2 with the field as typed; nothing is written', async () => {
    const dir = freshStore();
    const g = ['--store', dir, '--now', NOW];
    const add = (...rest: string[]): string[] => ['wake', 'add', ...rest, ...g];
    const cases: [string[], string, Record<string, string>?][] = [
      [add('--delay-seconds', '60'), 'text'],
      [add('--text', '  ', '--delay-seconds', '60'), 'text'],
      [add('--text', 'x'), 'delay-seconds'],
      [add('--text', 'x', '--delay-seconds', '60', '--at', 'in 1 hour'), 'delay-seconds'],
      [add('--text', 'x', '--delay-seconds', '0'), 'delay-seconds'],
      [add('--text', 'x', '--delay-seconds', '2592001'), 'delay-seconds'],
      [add('--text', 'x', '--delay-seconds', '1.5'), 'delay-seconds'],
      [add('--text', 'x', '--delay-seconds', '5s'), 'delay-seconds'],
      [add('--text', 'x', '--delay-seconds', '-3'), 'delay-seconds'],
      [add('--text', 'x', '--at', 'every 30m'), 'at'],
      [add('--text', 'x', '--at', 'every weekday at 09:00'), 'at'],
      [add('--text', 'x', '--at', '2026-10-02 09:00'), 'at'],
      [add('--text', 'x', '--at', '30m'), 'at'],
      [add('--text', 'x', '--at', 'in 40 days'), 'at'],
      [add('--text', 'x', '--at', 'blurb'), 'at'],
      [add('--text', 'x', '--on', 'job.finished'), 'on'],
      [add('--text', 'x', '--on', 'job.done'), 'job-id'],
      [add('--text', 'x', '--on', 'job.done', '--job-id', 'terminal:'), 'job-id'],
      [add('--text', 'x', '--delay-seconds', '5', '--job-id', 'npm test'), 'job-id'],
      [add('--text', 'x', '--on', 'job.done', '--job-id', 'b', '--delay-seconds', '5'), 'delay-seconds'],
      [add('--text', 'x', '--on', 'presence.online', '--at', 'in 5 minutes'), 'at'],
      [add('--text', 'x', '--delay-seconds', '5', '--cancel-token', 'k'.repeat(101)), 'cancel-token'],
      [add('--text', 'x', '--delay-seconds', '5', '--thread', 't'.repeat(201)), 'thread'],
      [add('--text', 'x', '--delay-seconds', '5', '--tz', 'Mars/Base'), 'tz'],
      [add('--text', 'x', '--delay-seconds', '5', '--when', 'in 1 hour'), 'when'],
      [add('--text', 'x', '--delay-seconds', '5', '--payload', '{}'), 'payload'],
      [add('--cancel-token', 'k1'), 'text'],
      [add('--text', 'x', '--delay-seconds', '5'), 'nested', { LIFE_THREAD_JOB: 'c-parentjob' }],
      [['wake', 'add', '--text', 'x', '--delay-seconds', '5', '--now', NOW], 'store'],
      [['wake', 'cancel', ...g], 'cancel-token'],
      [['wake', 'cancel', 'a', 'b', ...g], 'command'],
      [['wake', 'list', 'extra', ...g], 'command'],
      [['wake', 'list', '--text', 'x', ...g], 'text'],
      [['wake', 'frob', ...g], 'command'],
      [['wake', ...g], 'command'],
    ];
    await pool(cases.map(([args, field, env]) => () => fails(args, 2, field, env)));
    assert.deepEqual(await json(['wake', 'list', '--store', dir]), []);
    assert.equal(fs.existsSync(path.join(dir, 'wakes.json')), false);
    // --allow-nested lets a job add a wake.
    asWake(await json(['wake', 'add', '--text', 'x', '--delay-seconds', '5', '--allow-nested', ...g], { LIFE_THREAD_JOB: 'c-parentjob' }));
  });

  it('a wakes.json that cannot be read: exit 3 (store), left untouched', async () => {
    const dir = freshStore();
    const file = path.join(dir, 'wakes.json');
    fs.writeFileSync(file, '{ not json');
    await fails(['wake', 'list', '--store', dir], 3, 'store');
    await fails(['wake', 'add', '--text', 'x', '--delay-seconds', '5', '--store', dir], 3, 'store');
    await fails(['wake', 'cancel', 'k', '--store', dir], 3, 'store');
    fs.writeFileSync(file, JSON.stringify({ schemaVersion: 99, rows: [] }));
    assert.match(await fails(['wake', 'list', '--store', dir], 3, 'store'), /99/);
    assert.equal(fs.readFileSync(file, 'utf8'), JSON.stringify({ schemaVersion: 99, rows: [] }));
  });

  it('dispatch --once never fires a wake; doctor counts wakes', async () => {
    const dir = freshStore();
    const w = asWake(await json(['wake', 'add', '--text', 'due soon', '--delay-seconds', '5', '--store', dir, '--now', NOW]));
    await json(['wake', 'add', '--text', 'job', '--on', 'job.done', '--job-id', 'build', '--store', dir, '--now', NOW]);
    assert.deepEqual(await json(['dispatch', '--once', '--store', dir, '--now', at(60_000)]), []);
    const after = asWakes(await json(['wake', 'list', '--store', dir]));
    assert.deepEqual(after.map((r) => [r.id, r.status, r.claim]), [
      [w.id, 'pending', undefined],
      [after[1]?.id, 'pending', undefined],
    ]);
    const doc = (await json(['doctor', '--store', dir, '--now', at(60_000)])) as { wakes: unknown; schemaVersions: Record<string, unknown>; quarantined: unknown[] };
    assert.deepEqual(doc.wakes, { total: 2, pending: 2, held: 0, delivering: 0, fired: 0, missed: 0, cancelled: 0, nextTimerAt: at(5000) });
    assert.equal(doc.schemaVersions.wakes, 2);
    const human = await cli(['doctor', '--store', dir, '--now', at(60_000)]);
    assert.match(human.stdout, /\nRows: 0 reminders, 0 commands, 2 wakes\nWakes: 2 pending, 0 held, 0 delivering, 0 fired, 0 missed, 0 cancelled; next timer .* \(fired by the extension, or by life-thread wait \/ mcp for wakes set outside it\)\n/);
    // A bad wake row is quarantined like any table's.
    const file = path.join(dir, 'wakes.json');
    const table = JSON.parse(fs.readFileSync(file, 'utf8')) as { schemaVersion: number; rows: unknown[] };
    table.rows.push({ id: 'w-bad', text: 'x', when: 'timer', status: 'pending', nextRunAt: null, createdAt: NOW, colour: 'red' });
    fs.writeFileSync(file, JSON.stringify(table));
    const q = (await json(['doctor', '--store', dir])) as { quarantined: { table: string }[]; wakes: { total: number } };
    assert.deepEqual(q.quarantined.map((x) => x.table), ['wakes']);
    assert.equal(q.wakes.total, 2);
  });

  it('help names the wake verbs and says dispatch --once does not fire wakes', async () => {
    const r = await cli(['--help']);
    assert.equal(r.code, 0);
    for (const verb of [
      'life-thread wake add --text T (--delay-seconds N | --at W | --on job.done --job-id ID | --on presence.online | --on scm.changed) [--thread T] [--cancel-token K]',
      'life-thread wake list',
      'life-thread wake cancel K',
    ]) {
      assert.ok(r.stdout.includes(verb), `usage names ${verb}`);
    }
    assert.match(r.stdout, /'dispatch --once' never fires them/);
    assert.doesNotMatch(r.stdout, /not available yet/);
  });
});

describe('wait: a code-anchor landing is re-found when the pulse is printed (no symbol step outside a window)', () => {
  it('code moved below: the pulse names step excerpt and the range now; code gone: step orphaned', async () => {
    const store = stores.freshStore();
    const ws = fs.mkdtempSync(path.join(stores.root(), 'ws-'));
    const file = path.join(ws, 'calc.ts');
    fs.writeFileSync(file, 'export function sub(a: number, b: number): number {\n  // the bug: this adds\n  return a + b;\n}\n');
    const add = async (text: string): Promise<string> => {
      const r = await runCli(['--store', store, '--json', 'wake', 'add', '--text', text, '--delay-seconds', '1', '--landing', JSON.stringify({ path: file, start_line: 2, end_line: 3 })], { cwd: ws });
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { id: string }).id;
    };
    const moved = await add('MOVED');
    fs.writeFileSync(file, `${'// new\n'.repeat(5)}${fs.readFileSync(file, 'utf8')}`);
    const text = await runCli(['--store', store, 'wait', moved, '--timeout', '10'], { cwd: ws });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /landing: \{ kind: code_anchor, path: "[^"]+calc\.ts", lines: "L7-L8", step: excerpt \}/);

    const gone = await add('GONE');
    fs.writeFileSync(file, 'export {};\n');
    const json = await runCli(['--store', store, '--json', 'wait', gone, '--timeout', '10'], { cwd: ws });
    assert.equal(json.code, 0, json.stderr);
    const landing = (JSON.parse(json.stdout) as { life_wake: { landing: { step: string } } }).life_wake.landing;
    assert.equal(landing.step, 'orphaned');
  });
});
