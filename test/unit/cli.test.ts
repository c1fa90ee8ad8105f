/**
 * The `life-thread` CLI as a user runs it: `node dist/cli.js` in a child process against a temporary
 * store, the clock fixed with --now. Covers every verb and flag, every exit code and error field,
 * the --json contract (stdout only JSON, stderr exactly { error: { field, reason } }), the nested-job
 * guard, dispatch --once and doctor.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { acquireLock } from '../../src/node/lock';
import { commandRowSchema, reminderRowSchema, type CommandRow, type ReminderRow } from '../../src/core/schema';
import { CLI, REPO, baseEnv, pool, runCli, tempStores, writeTable, type CliResult, type RunOpts } from './helpers/cliHarness';

const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const NOW = '2026-10-03T04:46:00.000Z';
const ms = (iso: string, plusMs: number): string => new Date(Date.parse(iso) + plusMs).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;

const stores = tempStores('lt-cli-');
const freshStore = stores.freshStore;

function cli(args: string[], opts: RunOpts = {}): Promise<CliResult> {
  return runCli(args, { ...opts, cwd: opts.cwd ?? stores.root() });
}

/** Runs with --json, expects exit 0, an empty stderr and stdout that is one JSON value. */
async function json(args: string[], opts: RunOpts = {}): Promise<unknown> {
  const r = await cli([...args, '--json'], opts);
  assert.equal(r.code, 0, `${args.join(' ')} → ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.equal(r.stderr, '', `${args.join(' ')}: stderr not empty`);
  return JSON.parse(r.stdout) as unknown;
}

/** Runs with --json, expects `code`, nothing on stdout, and exactly { error: { field, reason } } on stderr. */
async function fails(args: string[], code: number, field: string, opts: RunOpts = {}): Promise<string> {
  const r = await cli([...args, '--json'], opts);
  const label = `${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
  assert.equal(r.code, code, label);
  assert.equal(r.stdout, '', label);
  const err = JSON.parse(r.stderr) as { error: { field: string; reason: string } };
  assert.deepEqual(Object.keys(err), ['error'], label);
  assert.deepEqual(Object.keys(err.error).sort(), ['field', 'reason'], label);
  assert.equal(err.error.field, field, label);
  assert.equal(typeof err.error.reason, 'string');
  assert.ok(err.error.reason.length > 0);
  return err.error.reason;
}

async function ok(args: string[], opts: RunOpts = {}): Promise<string> {
  const r = await cli(args, opts);
  assert.equal(r.code, 0, `${args.join(' ')} → ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.equal(r.stderr, '');
  return r.stdout;
}

function asReminder(v: unknown): ReminderRow {
  return reminderRowSchema.parse(v);
}

function asCommand(v: unknown): CommandRow {
  return commandRowSchema.parse(v);
}

function asArray(v: unknown): unknown[] {
  assert.ok(Array.isArray(v), `expected an array, got ${JSON.stringify(v)}`);
  return v;
}

describe('life-thread CLI', { concurrency: 2 }, () => {
  it('help, -h, --help anywhere and --version: usage or version, exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['remind', '--help'], ['schedule', 'move', 'c-x', '-h']]) {
      const out = await ok(args);
      assert.match(out, /^Usage:/m, args.join(' '));
      for (const verb of ['remind add', 'remind list', 'remind remove', 'schedule add-command', 'schedule list', 'schedule remove', 'schedule move', 'schedule run-now', 'schedule log', 'dispatch --once', 'doctor']) {
        assert.ok(out.includes(`life-thread ${verb}`), `usage names ${verb}`);
      }
      assert.match(out, /Exit codes: 0 ok, 2 bad input, 3 /);
    }
    assert.equal(await ok(['--version']), `life-thread ${VERSION}\n`);
    assert.deepEqual(await json(['--version']), { version: VERSION });
    const usage = (await json(['--help'])) as { usage: string };
    assert.match(usage.usage, /^Usage:/m);
  });

  it('--store, else LIFE_THREAD_STORE, else exit 2 on field store', async () => {
    const dir = freshStore();
    await fails(['remind', 'list'], 2, 'store');
    const human = await cli(['remind', 'list']);
    assert.equal(human.code, 2);
    assert.match(human.stderr, /^life-thread: store: .*LIFE_THREAD_STORE.*\n$/);
    assert.equal(human.stdout, '');
    const added = asReminder(await json(['remind', 'add', '--text', 'via env', '--when', 'in 1 hour', '--now', NOW], { env: { LIFE_THREAD_STORE: dir } }));
    const listed = asArray(await json(['--store', dir, 'remind', 'list']));
    assert.deepEqual(listed.map((r) => asReminder(r).id), [added.id]);
  });

  it('remind add: words in the owner zone, the answer in that zone and UTC, naming the zone; --json prints the row', async () => {
    const dir = freshStore();
    const out = await ok(['remind', 'add', '--store', dir, '--text', 'standup', '--when', '2026-10-03 09:00', '--tz', 'Europe/Berlin', '--now', NOW]);
    assert.match(out, /^Added r-[a-z0-9]+: Once, Sat 3 Oct 09:00 CEST \(07:00Z\), in 2 h 14 min \(zone Europe\/Berlin\)\n$/);

    // Global flags anywhere on the line, --flag=value too.
    const first = await cli(['--json', `--now=${NOW}`, 'remind', '--tz', 'Europe/Berlin', 'add', '--text', 'tea', '--when', 'in 20 minutes', `--store=${dir}`]);
    assert.equal(first.code, 0, first.stderr);
    const row = asReminder(JSON.parse(first.stdout));
    assert.match(row.id, /^r-/);
    assert.equal(row.text, 'tea');
    assert.equal(row.tz, 'Europe/Berlin');
    assert.equal(row.status, 'pending');
    assert.equal(row.nextRunAt, ms(NOW, 20 * MIN));
    assert.deepEqual(row.schedule, { kind: 'once', at: ms(NOW, 20 * MIN) });
    assert.equal(row.createdAt, NOW);

    const every = asReminder(await json(['remind', 'add', '--store', dir, '--text', 'water', '--when', 'every weekday at 09:00', '--tz', 'Europe/Berlin', '--now', NOW]));
    assert.equal(every.schedule.kind, 'cron');
    assert.equal(every.nextRunAt, '2026-10-05T07:00:00.000Z');
  });

  it('--cron without --tz takes LIFE_THREAD_TZ, else the system zone, and says so', async () => {
    const dir = freshStore();
    const env = { LIFE_THREAD_TZ: 'America/New_York' };
    const out = await ok(['remind', 'add', '--store', dir, '--text', 'x', '--cron', '0 9 * * *', '--now', NOW], { env });
    assert.match(out, /Cron '0 9 \* \* \*' \(America\/New_York\), next Sat 3 Oct 09:00 EDT \(13:00Z\).*\(zone America\/New_York, source: env \(LIFE_THREAD_TZ\), as no --tz was given\)\n$/);
    const row = asReminder(await json(['remind', 'add', '--store', dir, '--text', 'x', '--cron', '0 9 * * *', '--now', NOW], { env }));
    assert.deepEqual(row.schedule, { kind: 'cron', expr: '0 9 * * *', tz: 'America/New_York' });
    assert.equal(row.tz, 'America/New_York');
    const sys = await ok(['remind', 'add', '--store', dir, '--text', 'x', '--cron', '0 9 * * *', '--now', NOW]);
    assert.match(sys, /\(zone UTC, source: system \(this machine's zone\), as no --tz was given\)\n$/);
    const flagWins = asReminder(await json(['remind', 'add', '--store', dir, '--text', 'x', '--cron', '0 9 * * *', '--tz', 'Asia/Tokyo', '--now', NOW], { env }));
    assert.equal(flagWins.tz, 'Asia/Tokyo');
  });

  it('schedule add-command records the cwd and the timeout; lists are split by kind and name the zone', async () => {
    const dir = freshStore();
    const work = fs.mkdtempSync(path.join(stores.root(), 'work-'));
    const c = asCommand(await json(['schedule', 'add-command', '--store', dir, '--command', 'echo hi', '--when', 'in 5 minutes', '--now', NOW], { cwd: work }));
    assert.match(c.id, /^c-/);
    assert.equal(c.cwd, work);
    assert.equal(c.timeoutMinutes, 2);
    assert.equal(c.nextRunAt, ms(NOW, 5 * MIN));
    const c2 = asCommand(await json(['schedule', 'add-command', '--store', dir, '--command', 'make', '--cron', '*/1 * * * *', '--tz', 'UTC', '--timeout-minutes', '60', '--now', NOW]));
    assert.equal(c2.timeoutMinutes, 60);
    const human = await ok(['schedule', 'add-command', '--store', dir, '--command', 'true', '--when', 'in 1 hour', '--timeout-minutes', '1', '--tz', 'Europe/Berlin', '--now', NOW]);
    assert.match(human, /^Added c-[a-z0-9]+: Once, Sat 3 Oct 07:46 CEST \(05:46Z\), in 1 h; runs in .* with a 1 min timeout \(zone Europe\/Berlin\)\n$/);
    const r = asReminder(await json(['remind', 'add', '--store', dir, '--text', 'r', '--when', 'in 1 hour', '--now', NOW]));

    const commands = asArray(await json(['schedule', 'list', '--store', dir])).map(asCommand);
    assert.equal(commands.length, 3);
    assert.ok(commands.every((x) => x.id.startsWith('c-')));
    const reminders = asArray(await json(['remind', 'list', '--store', dir])).map(asReminder);
    assert.deepEqual(reminders.map((x) => x.id), [r.id]);
    const text = await ok(['schedule', 'list', '--store', dir, '--now', NOW, '--tz', 'Asia/Tokyo']);
    assert.match(text, /^3 scheduled commands \(times in zone Asia\/Tokyo\)/);
    assert.ok(text.includes(c.id) && text.includes('`echo hi`'));
    assert.match(await ok(['remind', 'list', '--store', freshStore()]), /^No reminders \(times in zone UTC, source: system \(this machine's zone\)/);
  });

  it('remove, move and run-now take r- and c- ids; remind remove refuses a command id', async () => {
    const dir = freshStore();
    const base = ['--store', dir, '--now', NOW];
    const r = asReminder(await json(['remind', 'add', ...base, '--text', 'a', '--when', 'in 1 hour']));
    const r2 = asReminder(await json(['remind', 'add', ...base, '--text', 'b', '--when', 'in 1 hour']));
    const c = asCommand(await json(['schedule', 'add-command', ...base, '--command', 'true', '--when', 'in 1 hour']));

    const movedR = asReminder(await json(['schedule', 'move', r.id, ...base, '--when', 'in 3 hours', '--tz', 'Europe/Berlin']));
    assert.equal(movedR.id, r.id);
    assert.equal(movedR.text, 'a');
    assert.equal(movedR.nextRunAt, ms(NOW, 3 * HOUR));
    assert.equal(movedR.tz, 'Europe/Berlin');
    const movedC = asCommand(await json(['schedule', 'move', c.id, ...base, '--cron', '30 6 * * *', '--tz', 'UTC', '--timeout-minutes', '9']));
    assert.deepEqual(movedC.schedule, { kind: 'cron', expr: '30 6 * * *', tz: 'UTC' });
    assert.equal(movedC.nextRunAt, '2026-10-03T06:30:00.000Z');
    assert.equal(movedC.timeoutMinutes, 9);
    const human = await ok(['schedule', 'move', c.id, ...base, '--when', 'tomorrow at 9', '--tz', 'Europe/Berlin']);
    assert.match(human, new RegExp(`^Moved ${c.id}: Once, Sun 4 Oct 09:00 CEST \\(07:00Z\\), in 1 day 2 h \\(zone Europe/Berlin\\)\\n$`));
    await fails(['schedule', 'move', r.id, ...base, '--when', 'in 2 hours', '--timeout-minutes', '5'], 2, 'timeout-minutes');

    const later = ms(NOW, 10 * MIN);
    const now = asCommand(await json(['schedule', 'run-now', c.id, '--store', dir, '--now', later]));
    assert.equal(now.nextRunAt, later);
    assert.equal(now.status, 'pending');
    assert.match(await ok(['schedule', 'run-now', r.id, '--store', dir, '--now', later]), new RegExp(`^${r.id} is due now, .*next dispatcher pass.*\\(zone UTC`));

    await fails(['remind', 'remove', c.id, '--store', dir], 2, 'id');
    const removed = asReminder(await json(['remind', 'remove', r2.id, '--store', dir]));
    assert.equal(removed.id, r2.id);
    assert.equal(asCommand(await json(['schedule', 'remove', c.id, '--store', dir])).id, c.id);
    assert.match(await ok(['schedule', 'remove', r.id, '--store', dir, '--now', NOW]), new RegExp(`^Removed ${r.id} "a" \\(was: .*\\) \\(zone UTC`));
    assert.deepEqual(await json(['remind', 'list', '--store', dir]), []);
    assert.deepEqual(await json(['schedule', 'list', '--store', dir]), []);
    await fails(['schedule', 'remove', c.id, '--store', dir], 2, 'id');
  });

  it('a recurring row keeps its cadence after run-now; move and run-now of a running row say the change applies after the run', async () => {
    const dir = freshStore();
    const row = asCommand(await json(['schedule', 'add-command', '--store', dir, '--now', NOW, '--command', 'true', '--cron', '0 * * * *', '--tz', 'UTC']));
    assert.equal(row.nextRunAt, '2026-10-03T05:00:00.000Z');
    await json(['schedule', 'run-now', row.id, '--store', dir, '--now', NOW]);
    const fired = asArray(await json(['dispatch', '--once', '--store', dir, '--now', ms(NOW, 1000)]));
    assert.equal(fired.length, 1);
    const after = asCommand(asArray(await json(['schedule', 'list', '--store', dir]))[0]);
    assert.equal(after.nextRunAt, '2026-10-03T05:00:00.000Z');
    assert.equal(after.fact?.exitCode, 0);

    const running: CommandRow = {
      id: 'c-running1',
      command: 'sleep 100',
      cwd: stores.root(),
      timeoutMinutes: 2,
      runningTimeoutMinutes: 2,
      schedule: { kind: 'once', at: NOW },
      tz: 'UTC',
      status: 'fired',
      nextRunAt: null,
      firedAt: NOW,
      fact: { lateMs: 0 },
      claim: { token: 'tok-running-1', pid: 999_999, window: 'w-other', heartbeatAt: NOW, scheduledFor: NOW },
      createdAt: NOW,
    };
    writeTable(dir, 'schedule-commands', [running]);
    const human = await ok(['schedule', 'move', running.id, '--store', dir, '--now', NOW, '--when', 'in 2 hours', '--timeout-minutes', '7']);
    assert.match(human, /it is running now, so the change applies after the run/);
    const moved = asCommand(asArray(await json(['schedule', 'list', '--store', dir]))[0]);
    assert.equal(moved.claim?.token, 'tok-running-1');
    assert.equal(moved.runningTimeoutMinutes, 2);
    assert.equal(moved.timeoutMinutes, 7);
    assert.match(await ok(['schedule', 'run-now', running.id, '--store', dir, '--now', NOW]), /the change applies after the run/);
    const j = asCommand(await json(['schedule', 'run-now', running.id, '--store', dir, '--now', NOW]));
    assert.equal(j.claim?.token, 'tok-running-1');
  });

  it('dispatch --once --json: one array; a recurring row that missed runs fires once for the latest; late past the limit is missed; commands run with facts and logs', async () => {
    const dir = freshStore();
    const work = fs.mkdtempSync(path.join(stores.root(), 'work-'));
    const t0 = '2026-10-03T10:00:00.000Z';
    const base = ['--store', dir, '--tz', 'UTC'];
    const hourly = asReminder(await json(['remind', 'add', ...base, '--now', t0, '--text', 'hourly', '--cron', '0 * * * *']));
    const once = asReminder(await json(['remind', 'add', ...base, '--now', t0, '--text', 'once\nline two', '--when', 'in 2 hours']));
    const stale = asReminder(await json(['remind', 'add', ...base, '--now', '2026-10-02T10:00:00.000Z', '--text', 'stale', '--when', 'in 1 hour']));
    const good = asCommand(await json(['schedule', 'add-command', ...base, '--now', t0, '--command', 'echo hello from $LIFE_THREAD_JOB; pwd', '--when', 'in 4 hours'], { cwd: work }));
    const bad = asCommand(await json(['schedule', 'add-command', ...base, '--now', t0, '--command', 'echo oops >&2; exit 3', '--when', 'in 4 hours']));
    const lateCmd = asCommand(await json(['schedule', 'add-command', ...base, '--now', t0, '--command', 'true', '--when', 'in 1 hour']));
    const future = asReminder(await json(['remind', 'add', ...base, '--now', t0, '--text', 'future', '--when', 'in 9 hours']));

    const at = '2026-10-03T14:30:00.000Z';
    const out = asArray(await json(['dispatch', '--once', '--store', dir, '--now', at]));
    const byId = new Map(out.map((e) => [(e as { id: string }).id, e as Record<string, unknown>]));
    assert.deepEqual([...byId.keys()].sort(), [hourly.id, once.id, good.id, bad.id].sort());
    assert.equal(out.length, 4);
    for (const e of out) {
      const keys = Object.keys(e as object);
      for (const k of keys) assert.ok(['id', 'scheduledFor', 'firedAt', 'lateMs', 'delivered', 'text', 'fact'].includes(k), `unexpected key ${k}`);
    }
    assert.deepEqual(byId.get(hourly.id), {
      id: hourly.id,
      scheduledFor: '2026-10-03T14:00:00.000Z',
      firedAt: at,
      lateMs: 30 * MIN,
      delivered: true,
      text: 'hourly',
      fact: { lateMs: 30 * MIN, missedRuns: 3, delivered: true, via: 'cli' },
    });
    assert.deepEqual(byId.get(once.id), {
      id: once.id,
      scheduledFor: '2026-10-03T12:00:00.000Z',
      firedAt: at,
      lateMs: 150 * MIN,
      delivered: true,
      text: 'once\nline two',
      fact: { lateMs: 150 * MIN, delivered: true, via: 'cli' },
    });
    const g = byId.get(good.id);
    assert.equal(g?.scheduledFor, '2026-10-03T14:00:00.000Z');
    assert.equal(g?.lateMs, 30 * MIN);
    assert.equal((g?.fact as { exitCode?: number }).exitCode, 0);
    assert.equal((byId.get(bad.id)?.fact as { exitCode?: number }).exitCode, 3);

    const reminders = new Map(asArray(await json(['remind', 'list', '--store', dir])).map((r) => [asReminder(r).id, asReminder(r)]));
    assert.equal(reminders.get(stale.id)?.status, 'missed');
    assert.equal(reminders.get(hourly.id)?.status, 'pending');
    assert.equal(reminders.get(hourly.id)?.nextRunAt, '2026-10-03T15:00:00.000Z');
    assert.equal(reminders.get(hourly.id)?.claim, undefined);
    assert.equal(reminders.get(once.id)?.status, 'fired');
    assert.deepEqual(reminders.get(once.id)?.fact, { lateMs: 150 * MIN, delivered: true, via: 'cli' });
    assert.equal(reminders.get(future.id)?.status, 'pending');
    const commands = new Map(asArray(await json(['schedule', 'list', '--store', dir])).map((r) => [asCommand(r).id, asCommand(r)]));
    // Default command limit 1 h: 3 h 30 min late is missed, not run.
    assert.equal(commands.get(lateCmd.id)?.status, 'missed');
    assert.equal(commands.get(good.id)?.fact?.exitCode, 0);
    assert.equal(commands.get(bad.id)?.fact?.exitCode, 3);
    assert.equal(commands.get(good.id)?.claim, undefined);

    const log = (await json(['schedule', 'log', good.id, '--store', dir])) as { id: string; log: string };
    assert.deepEqual(Object.keys(log).sort(), ['id', 'log']);
    assert.equal(log.id, good.id);
    assert.ok(log.log.includes(`hello from ${good.id}`), log.log);
    assert.ok(log.log.includes(work), log.log);
    const human = await ok(['schedule', 'log', bad.id, '--store', dir, '--now', at]);
    assert.match(human, new RegExp(`^Run log of ${bad.id}, last run .*\\(zone UTC`));
    assert.ok(human.includes('oops'));
    assert.deepEqual(await json(['schedule', 'log', lateCmd.id, '--store', dir]), { id: lateCmd.id, log: null });
    assert.ok(fs.existsSync(path.join(dir, 'logs', `${good.id}.log`)));
    await json(['schedule', 'remove', good.id, '--store', dir]);
    assert.equal(fs.existsSync(path.join(dir, 'logs', `${good.id}.log`)), false);
    await fails(['schedule', 'log', good.id, '--store', dir], 2, 'id');

    // A second pass finds nothing due; the fired one-shot is cleaned after 24 h.
    assert.deepEqual(await json(['dispatch', '--once', '--store', dir, '--now', ms(at, 1000)]), []);
    await json(['dispatch', '--once', '--store', dir, '--now', ms(at, 25 * HOUR), '--reminder-max-lateness-hours', '0.5']);
    const left = asArray(await json(['remind', 'list', '--store', dir])).map((r) => asReminder(r).id);
    assert.equal(left.includes(once.id), false);
    assert.equal(left.includes(stale.id), false);
    assert.ok(left.includes(hourly.id));
  });

  it('dispatch --once in words prints reminders and names the zone; limits come from flags; without --once exit 2', async () => {
    const dir = freshStore();
    const t0 = '2026-10-03T10:00:00.000Z';
    const r = asReminder(await json(['remind', 'add', '--store', dir, '--now', t0, '--text', 'call mum', '--when', 'in 10 minutes']));
    const c = asCommand(await json(['schedule', 'add-command', '--store', dir, '--now', t0, '--command', 'true', '--when', 'in 10 minutes']));
    const at = '2026-10-03T11:40:00.000Z';
    // 1 h 30 min late: past a 1 h reminder limit, within a 2 h command limit.
    const out = await ok(['dispatch', '--once', '--store', dir, '--now', at, '--tz', 'Europe/Berlin', '--reminder-max-lateness-hours', '1', '--command-max-lateness-hours', '2']);
    assert.match(out, new RegExp(`Missed ${r.id}: due Sat 3 Oct 12:10 CEST \\(10:10Z\\)`));
    assert.match(out, new RegExp(`Command ${c.id} \`true\`: exit 0`));
    assert.match(out, /Pass at Sat 3 Oct 13:40 CEST \(11:40Z\): 0 reminders delivered, 1 command run, 1 missed, 0 cleaned \(zone Europe\/Berlin\)\n$/);

    const r2 = asReminder(await json(['remind', 'add', '--store', dir, '--now', at, '--text', 'stretch\nand breathe', '--when', 'in 1 minute']));
    const out2 = await ok(['dispatch', '--once', '--store', dir, '--now', ms(at, MIN)]);
    assert.ok(out2.includes(`Reminder ${r2.id}:\n  stretch\n  and breathe\n`), out2);
    assert.match(out2, /1 reminder delivered/);

    await fails(['dispatch', '--store', dir], 2, 'once');
    await fails(['dispatch', '--once', '--store', dir, '--reminder-max-lateness-hours', 'soon'], 2, 'reminder-max-lateness-hours');
    await fails(['dispatch', '--once', '--store', dir, '--command-max-lateness-hours', '0'], 2, 'command-max-lateness-hours');
  });

  it('dispatch --once stopped by SIGTERM kills its running command group and records it as interrupted (exit 143)', async () => {
    const dir = freshStore();
    const c = asCommand(await json(['schedule', 'add-command', '--store', dir, '--now', NOW, '--command', 'sleep 30; echo never', '--when', 'in 1 minute']));
    const child = spawn(process.execPath, [CLI, 'dispatch', '--once', '--json', '--store', dir, '--now', ms(NOW, MIN)], { cwd: stores.root(), env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout += d));
    child.stderr.on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const jobPids = (): number[] =>
      fs
        .readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return fs.readFileSync(`/proc/${p}/environ`, 'latin1').split('\0').includes(`LIFE_THREAD_JOB=${c.id}`);
          } catch {
            return false;
          }
        })
        .map(Number);
    const deadline = Date.now() + 15_000;
    while (jobPids().length === 0) {
      assert.ok(Date.now() < deadline, `the job never started; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGTERM');
    assert.equal(await exited, 143, stderr);
    const err = JSON.parse(stderr) as { error: { field: string; reason: string } };
    assert.equal(err.error.field, 'interrupted');
    const out = asArray(JSON.parse(stdout));
    assert.equal(out.length, 1);
    const entry = out[0] as { id: string; fact: { interrupted?: boolean; error?: string } };
    assert.equal(entry.id, c.id);
    assert.equal(entry.fact.interrupted, true);
    assert.match(entry.fact.error ?? '', /SIGTERM/);
    assert.deepEqual(jobPids(), []);
    const row = asCommand(asArray(await json(['schedule', 'list', '--store', dir]))[0]);
    assert.equal(row.claim, undefined);
    assert.equal(row.fact?.interrupted, true);
  });

  it('exit 2 for every kind of bad input, with the field the caller used', async () => {
    const dir = freshStore();
    const base = ['--store', dir, '--now', NOW];
    const r = asReminder(await json(['remind', 'add', ...base, '--text', 'x', '--when', 'in 1 hour']));
    const addR = (...more: string[]): string[] => ['remind', 'add', ...base, '--text', 'x', ...more];
    const addC = (...more: string[]): string[] => ['schedule', 'add-command', ...base, '--command', 'true', ...more];
    const cases: [string[], string, RunOpts?][] = [
      [addR('--when', 'in 1 hour', '--tz', 'Europe/Berlinn'), 'tz'],
      [addR('--when', 'in 1 hour', '--tz', 'GMT+2'), 'tz'],
      [addR('--when', 'in 1 hour', '--tz', ''), 'tz'],
      [addR('--when', 'in 1 hour'), 'tz', { env: { LIFE_THREAD_TZ: 'Mars/Olympus' } }],
      [addR('--cron', '61 2 * * *'), 'cron'],
      [addR('--cron', '* * * *'), 'cron'],
      [addR('--cron', '0 0 30 2 *'), 'cron'],
      [addR('--cron', '*/5 * * * *'), 'cron'],
      [addR('--when', 'yesterday at 9'), 'when'],
      [addR('--when', '2026-10-03T04:00:00Z'), 'when'],
      [addR('--when', 'blurb o clock'), 'when'],
      [addR('--when', '30m'), 'when'],
      [addR('--when', 'in 1 hour', '--cron', '0 9 * * *'), 'when'],
      [addR(), 'when'],
      [addR('--when'), 'when'],
      [addC('--when', 'in 1 hour', '--timeout-minutes', '0'), 'timeout-minutes'],
      [addC('--when', 'in 1 hour', '--timeout-minutes', '61'), 'timeout-minutes'],
      [addC('--when', 'in 1 hour', '--timeout-minutes', '1.5'), 'timeout-minutes'],
      [addC('--when', 'in 1 hour', '--timeout-minutes', '5x'), 'timeout-minutes'],
      [['schedule', 'move', 'c-nosuchrow', ...base, '--when', 'in 1 hour'], 'id'],
      [['schedule', 'run-now', 'r-nosuchrow', ...base], 'id'],
      [['schedule', 'remove', 'not-an-id', ...base], 'id'],
      [['schedule', 'remove', ...base], 'id'],
      [['schedule', 'log', 'c-nosuchrow', ...base], 'id'],
      [['schedule', 'log', r.id, ...base], 'id'],
      [['remind', 'add', ...base, '--when', 'in 1 hour'], 'text'],
      [['remind', 'add', ...base, '--text', '  ', '--when', 'in 1 hour'], 'text'],
      [['schedule', 'add-command', ...base, '--when', 'in 1 hour'], 'command'],
      [['frobnicate', ...base], 'command'],
      [['remind', 'frob', ...base], 'command'],
      [['remind', ...base], 'command'],
      [['remind', 'list', 'extra', ...base], 'command'],
      [['wake', 'add', '--text', 'x', ...base], 'delay-seconds'],
      [['wake', 'frob', ...base], 'command'],
      [['remind', 'list', '--bogus', ...base], 'bogus'],
      [['remind', 'list', '--when', 'in 1 hour', ...base], 'when'],
      [['remind', 'list', '--json=yes', ...base], 'json'],
      [['remind', 'list', '--tz', 'UTC', '--tz', 'UTC', ...base], 'tz'],
      [['remind', 'list', '--now', 'yesterday', '--store', dir], 'now'],
      [['remind', 'list', '--now', '2026-10-03T04:46:00', '--store', dir], 'now'],
    ];
    await pool(cases.map(([args, field, opts]) => () => fails(args, 2, field, opts)));
    // Nothing above reached the table.
    assert.deepEqual(asArray(await json(['remind', 'list', '--store', dir])).map((x) => asReminder(x).id), [r.id]);
    assert.deepEqual(await json(['schedule', 'list', '--store', dir]), []);
  });

  it('the nested-job guard lets --allow-nested through and leaves other verbs alone', async () => {
    const dir = freshStore();
    const env = { LIFE_THREAD_JOB: 'c-parentjob' };
    const reason = await fails(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'x', '--when', 'in 1 hour'], 2, 'nested', { env });
    assert.match(reason, /c-parentjob/);
    assert.match(reason, /--allow-nested/);
    const r = asReminder(await json(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'x', '--when', 'in 1 hour', '--allow-nested'], { env }));
    asCommand(await json(['schedule', 'add-command', '--allow-nested', '--store', dir, '--now', NOW, '--command', 'true', '--when', 'in 1 hour'], { env }));
    assert.equal(asArray(await json(['remind', 'list', '--store', dir], { env })).length, 1);
    await json(['schedule', 'run-now', r.id, '--store', dir, '--now', NOW], { env });
    await fails(['remind', 'list', '--allow-nested', '--store', dir], 2, 'allow-nested');
  });

  it('errors without --json: one line "life-thread: <field>: <reason>" on stderr, nothing on stdout', async () => {
    const dir = freshStore();
    const r = await cli(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'x', '--when', 'yesterday at 9', '--tz', 'Europe/Berlin']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^life-thread: when: is in the past: Fri 2 Oct 09:00 CEST \(07:00Z\), .* ago\n$/);
    const t = await cli(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'x', '--when', 'in 1 hour', '--timeout-minutes', '5']);
    assert.equal(t.code, 2);
    assert.match(t.stderr, /^life-thread: timeout-minutes: is not a flag of 'remind add'/);
  });

  it('exit 3: a corrupt table and a newer schemaVersion are left byte-identical; every verb refuses', async () => {
    const dir = freshStore();
    const garbage = Buffer.from('{"schemaVersion":2,"rows":[ {"id": "r-abc" trailing garbage \u0000\n');
    fs.writeFileSync(path.join(dir, 'reminders.json'), garbage);
    const file = path.join(dir, 'reminders.json');
    const verbs: string[][] = [
      ['remind', 'add', '--text', 'x', '--when', 'in 1 hour'],
      ['remind', 'list'],
      ['remind', 'remove', 'r-abc'],
      ['schedule', 'run-now', 'r-abc'],
      ['dispatch', '--once'],
      ['doctor'],
    ];
    const reasons = await pool(verbs.map((v) => () => fails([...v, '--store', dir, '--now', NOW], 3, 'store')));
    for (const reason of reasons) assert.ok(reason.includes(file), reason);
    assert.ok(fs.readFileSync(file).equals(garbage));
    const human = await cli(['remind', 'list', '--store', dir]);
    assert.equal(human.code, 3);
    assert.ok(human.stderr.startsWith(`life-thread: store: ${file} is not valid JSON`), human.stderr);
    assert.equal(human.stderr.trim().split('\n').length, 1);
    // Not renamed aside, not quarantined, no pulse.
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f !== 'schedule-commands.json' && f !== '.locks' && f !== '.schedule-commands.json.sum'),
      ['reminders.json'],
    );

    const dir2 = freshStore();
    const newer = Buffer.from(`${JSON.stringify({ schemaVersion: 3, rows: [{ id: 'c-fromthefuture', newField: true }] }, null, 2)}\n`);
    const file2 = path.join(dir2, 'schedule-commands.json');
    fs.writeFileSync(file2, newer);
    const reasons2 = await pool(
      [['schedule', 'add-command', '--command', 'true', '--when', 'in 1 hour'], ['schedule', 'list'], ['schedule', 'move', 'c-fromthefuture', '--when', 'in 2 hours'], ['dispatch', '--once'], ['doctor']].map(
        (v) => () => fails([...v, '--store', dir2, '--now', NOW], 3, 'store'),
      ),
    );
    for (const reason of reasons2) assert.match(reason, /schemaVersion 3, newer than this code's schemaVersion 2/);
    assert.ok(fs.readFileSync(file2).equals(newer));
    // The other table still works.
    asReminder(await json(['remind', 'add', '--store', dir2, '--now', NOW, '--text', 'x', '--when', 'in 1 hour']));
    assert.ok(fs.readFileSync(file2).equals(newer));
  });

  it('exit 3: a flipped byte (invalid UTF-8) in the header, a row or the footer of a table is corrupt for every verb; the file stays byte-identical', async () => {
    for (const where of ['header', 'row', 'footer'] as const) {
      const dir = freshStore();
      asReminder(await json(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'first reminder', '--when', 'in 1 hour']));
      asReminder(await json(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'second reminder', '--when', 'in 2 hours']));
      const file = path.join(dir, 'reminders.json');
      const bytes = fs.readFileSync(file);
      const text = bytes.toString('latin1');
      bytes[where === 'header' ? text.indexOf('rows') : where === 'row' ? text.indexOf('second reminder') + 2 : text.lastIndexOf(']')] = 0xff;
      fs.writeFileSync(file, bytes);
      const verbs: string[][] = [['remind', 'add', '--text', 'x', '--when', 'in 1 hour'], ['remind', 'list'], ['dispatch', '--once'], ['doctor']];
      const reasons = await pool(verbs.map((v) => () => fails([...v, '--store', dir, '--now', NOW], 3, 'store')));
      for (const reason of reasons) assert.ok(reason.includes(file) && /UTF-8|not valid JSON/.test(reason), `${where}: ${reason}`);
      const human = await cli(['remind', 'list', '--store', dir]);
      assert.equal(human.code, 3, `${where}: ${human.stderr}`);
      assert.equal(human.stderr.trim().split('\n').length, 1, `one line, no stack: ${human.stderr}`);
      assert.ok(!/TypeError|at .*\.js:\d+/.test(human.stderr), human.stderr);
      assert.ok(fs.readFileSync(file).equals(bytes), `${where}: left byte-identical`);
    }
  });

  it('dispatch --once with one unreadable table fires what the other claimed, reports it, then exits 3', async () => {
    const dir = freshStore();
    const r = asReminder(await json(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'still delivered', '--when', 'in 1 minute']));
    const broken = Buffer.from('\u0000\u0000\u0000\u0000');
    const file = path.join(dir, 'schedule-commands.json');
    fs.writeFileSync(file, broken);
    const res = await cli(['dispatch', '--once', '--json', '--store', dir, '--now', ms(NOW, MIN)]);
    assert.equal(res.code, 3);
    const fired = asArray(JSON.parse(res.stdout));
    assert.deepEqual(fired.map((e) => (e as { id: string }).id), [r.id]);
    const err = JSON.parse(res.stderr) as { error: { field: string; reason: string } };
    assert.equal(err.error.field, 'store');
    assert.ok(err.error.reason.includes(file) && err.error.reason.includes('NUL'), err.error.reason);
    assert.ok(fs.readFileSync(file).equals(broken));
    assert.equal(asReminder(asArray(await json(['remind', 'list', '--store', dir]))[0]).fact?.delivered, true);
    // No pulse: a dispatcher that cannot read a table is not healthy.
    assert.equal(fs.existsSync(path.join(dir, 'reminders.tick')), false);
  });

  it('exit 3 when the lock is not obtained in time (held by another process); then it works', async () => {
    const dir = freshStore();
    const table = path.join(dir, 'reminders.json');
    const lockDir = path.join(dir, '.locks', 'reminders.json');
    const held = await acquireLock(lockDir, { waitMs: 1000 });
    const release = (): Promise<void> => held.release();
    let released = false;
    try {
      const env = { LIFE_THREAD_LOCK_WAIT_MS: '1500' };
      const started = Date.now();
      const reason = await fails(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'x', '--when', 'in 1 hour'], 3, 'store', { env });
      const waited = Date.now() - started;
      assert.match(reason, /could not obtain the lock/);
      assert.ok(reason.includes(lockDir), reason);
      assert.ok(reason.includes(`process ${process.pid}`), reason);
      assert.ok(reason.includes(`nothing was changed in ${table}`), reason);
      assert.ok(waited >= 1500, `gave up after ${waited} ms`);
      const human = await cli(['dispatch', '--once', '--store', dir, '--now', NOW], { env });
      assert.equal(human.code, 3);
      assert.match(human.stderr, /^life-thread: store: could not obtain the lock .*reminders\.json within 1500 ms/);
      // Reading needs no lock.
      assert.deepEqual(await json(['remind', 'list', '--store', dir]), []);
      await release();
      released = true;
      asReminder(await json(['remind', 'add', '--store', dir, '--now', NOW, '--text', 'x', '--when', 'in 1 hour'], { env }));
    } finally {
      if (!released) await release();
    }
  });

  it('doctor: health from the pulse, store path, schema versions, quarantined rows, next runs; --json shape', async () => {
    const dir = freshStore();
    const t0 = '2026-10-03T10:00:00.000Z';
    const never = (await json(['doctor', '--store', dir, '--now', t0])) as Record<string, unknown>;
    assert.deepEqual(never, {
      healthy: false,
      lastPassAt: null,
      storeDir: dir,
      schemaVersions: { code: 2, reminders: null, 'schedule-commands': null, wakes: null },
      quarantined: [],
      nextRuns: [],
      wakes: { total: 0, pending: 0, held: 0, delivering: 0, fired: 0, missed: 0, cancelled: 0, nextTimerAt: null },
      locks: { reminders: { state: 'free' }, 'schedule-commands': { state: 'free' }, wakes: { state: 'free' } },
      timer: null,
    });
    assert.match(await ok(['doctor', '--store', dir, '--now', t0]), /^Dispatcher: STALLED: no pass recorded yet/);

    const a = asReminder(await json(['remind', 'add', '--store', dir, '--now', t0, '--text', 'a', '--when', 'in 2 hours']));
    const c = asCommand(await json(['schedule', 'add-command', '--store', dir, '--now', t0, '--command', 'true', '--when', 'in 1 hour']));
    await json(['dispatch', '--once', '--store', dir, '--now', t0]);
    const fresh = (await json(['doctor', '--store', dir, '--now', ms(t0, 119_000)])) as {
      healthy: boolean;
      lastPassAt: string;
      schemaVersions: unknown;
      nextRuns: { id: string; kind: string; nextRunAt: string; running: boolean; description: string }[];
    };
    assert.equal(fresh.healthy, true);
    assert.equal(fresh.lastPassAt, t0);
    assert.deepEqual(fresh.schemaVersions, { code: 2, reminders: 2, 'schedule-commands': 2, wakes: null });
    assert.deepEqual(
      fresh.nextRuns.map((n) => [n.id, n.kind, n.nextRunAt, n.running]),
      [
        [c.id, 'command', ms(t0, HOUR), false],
        [a.id, 'reminder', ms(t0, 2 * HOUR), false],
      ],
    );
    const stale = (await json(['doctor', '--store', dir, '--now', ms(t0, 121_000)])) as { healthy: boolean };
    assert.equal(stale.healthy, false);
    const human = await ok(['doctor', '--store', dir, '--now', ms(t0, 20_000), '--tz', 'Europe/Berlin']);
    assert.match(human, /^Dispatcher: healthy: last pass Sat 3 Oct 12:00 CEST \(10:00Z\), under a minute ago\n/);
    assert.ok(human.includes(`Store: ${dir}\n`));
    assert.ok(human.includes('Schema versions: code 2; reminders.json 2; schedule-commands.json 2'));
    assert.ok(human.includes(`${c.id}  Once, Sat 3 Oct 13:00 CEST (11:00Z)`));
    assert.match(human, /Times in zone Europe\/Berlin\n$/);
    assert.match(await ok(['doctor', '--store', dir, '--now', ms(t0, 600_000)]), /^Dispatcher: STALLED: last pass/);

    // A row with an unknown key is reported while still in the table, and after the next write from the quarantine file.
    const raw = JSON.parse(fs.readFileSync(path.join(dir, 'reminders.json'), 'utf8')) as { schemaVersion: number; rows: unknown[] };
    raw.rows.push({ ...a, id: 'r-oddone', colour: 'blue' });
    fs.writeFileSync(path.join(dir, 'reminders.json'), JSON.stringify(raw));
    type Q = { table: string; movedAside: boolean; reason: string; row: { id: string } };
    const before = (await json(['doctor', '--store', dir, '--now', t0])) as { quarantined: Q[] };
    assert.equal(before.quarantined.length, 1);
    assert.equal(before.quarantined[0]?.table, 'reminders');
    assert.equal(before.quarantined[0]?.movedAside, false);
    assert.equal(before.quarantined[0]?.row.id, 'r-oddone');
    assert.match(before.quarantined[0]?.reason ?? '', /colour/);
    assert.match(await ok(['remind', 'list', '--store', dir, '--now', t0]), /1 row of this table failed validation/);
    await json(['remind', 'add', '--store', dir, '--now', t0, '--text', 'b', '--when', 'in 3 hours']);
    const afterWrite = (await json(['doctor', '--store', dir, '--now', t0])) as { quarantined: Q[] };
    assert.equal(afterWrite.quarantined.length, 1);
    assert.equal(afterWrite.quarantined[0]?.movedAside, true);
    assert.match(await ok(['doctor', '--store', dir, '--now', t0]), /Quarantined: 1 row\n {2}reminders\.quarantine\.json: .*colour/);
  });

  it('loads only what a verb needs: --help and a bad command only dist/cli.js, adds dist/cli-add.js, chrono only for the phrases that need it', () => {
    const dir = freshStore();
    /** The dist/ files a run of the CLI loaded, and its exit code. */
    const loaded = (args: string[]): { files: string[]; code: number | null } => {
      const probe = `process.on('exit', () => process.stderr.write('\\n' + JSON.stringify(Object.keys(require.cache)))); require(${JSON.stringify(CLI)});`;
      const r = spawnSync(process.execPath, ['-e', probe, '--', 'cli.js', ...args], { env: baseEnv({ LIFE_THREAD_TZ: 'UTC' }), encoding: 'utf8' });
      const last = r.stderr.trim().split('\n').pop() ?? '[]';
      const files = (JSON.parse(last) as string[]).filter((f) => f.startsWith(path.join(REPO, 'dist'))).map((f) => path.basename(f));
      return { files: files.sort(), code: r.status };
    };
    assert.deepEqual(loaded(['--help']), { files: ['cli.js'], code: 0 });
    assert.deepEqual(loaded(['--version']), { files: ['cli.js'], code: 0 });
    assert.deepEqual(loaded(['remind', 'ad']), { files: ['cli.js'], code: 2 });
    assert.deepEqual(loaded(['remind', 'add', '--text', 'x', '--when', 'in 20 minutes', '--colour', 'blue']), { files: ['cli.js'], code: 2 });
    assert.deepEqual(loaded(['remind', 'add', '--store', dir, '--text', 'x', '--when', 'in 20 minutes']), { files: ['cli-add.js', 'cli.js'], code: 0 });
    assert.deepEqual(loaded(['schedule', 'add-command', '--store', dir, '--command', 'true', '--cron', '0 9 * * 1-5']), { files: ['cli-add.js', 'cli.js'], code: 0 });
    assert.deepEqual(loaded(['remind', 'add', '--store', dir, '--text', 'x', '--when', 'October 3rd 2099 at 9am']), { files: ['cli-add.js', 'cli-chrono.js', 'cli.js'], code: 0 });
    assert.deepEqual(loaded(['remind', 'list', '--store', dir]), { files: ['cli-main.js', 'cli.js'], code: 0 });
  });

  it('doctor names each table lock: free, held by a live process, or abandoned by one that is gone', async () => {
    const dir = freshStore();
    await json(['remind', 'add', '--store', dir, '--text', 'a', '--when', 'in 2 hours']);
    // A lock left by a process that died holding it (its pid no longer runs).
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const lockDir = path.join(dir, '.locks', 'reminders.json');
    const at = new Date().toISOString();
    fs.writeFileSync(path.join(lockDir, '999999999'), JSON.stringify({ state: 'held', token: 'tok-abandoned', pid: gone, host: os.hostname(), at }));
    const held = await acquireLock(path.join(dir, '.locks', 'schedule-commands.json'), { waitMs: 1000 });
    try {
      type L = { state: string; holder?: { pid: number; host: string; at: string } };
      const doc = (await json(['doctor', '--store', dir])) as { locks: Record<string, L> };
      assert.deepEqual(doc.locks.reminders, { state: 'abandoned', holder: { pid: gone, host: os.hostname(), at } });
      assert.equal(doc.locks['schedule-commands']?.state, 'held');
      assert.equal(doc.locks['schedule-commands']?.holder?.pid, process.pid);
      assert.deepEqual(doc.locks.wakes, { state: 'free' });
      const human = await ok(['doctor', '--store', dir, '--tz', 'UTC']);
      assert.match(human, new RegExp(`\\nLocks: reminders\\.json abandoned by pid ${gone} on \\S+ since .*\\(its process is gone; the next writer takes the lock over\\); schedule-commands\\.json held by pid ${process.pid} .*; wakes\\.json free\\n`));
    } finally {
      await held.release();
    }
    // The next writer takes the abandoned lock over, and doctor then reports it free.
    await json(['remind', 'add', '--store', dir, '--text', 'b', '--when', 'in 3 hours']);
    const after = (await json(['doctor', '--store', dir])) as { locks: Record<string, { state: string }> };
    assert.deepEqual(after.locks, { reminders: { state: 'free' }, 'schedule-commands': { state: 'free' }, wakes: { state: 'free' } });
  });

  it('--json output is one JSON document for every verb, even with many rows', async () => {
    const dir = freshStore();
    const rows: ReminderRow[] = Array.from({ length: 400 }, (_, i) => ({
      id: `r-bulk${i}`,
      text: `reminder ${i} ${'x'.repeat(200)}`,
      schedule: { kind: 'once', at: ms(NOW, HOUR) },
      tz: 'UTC',
      status: 'pending',
      nextRunAt: ms(NOW, HOUR),
      createdAt: NOW,
    }));
    writeTable(dir, 'reminders', rows);
    const list = asArray(await json(['remind', 'list', '--store', dir]));
    assert.equal(list.length, 400);
    const r = await cli(['--json', 'dispatch', '--store', dir, '--now', ms(NOW, HOUR + 1000), '--once']);
    assert.equal(r.code, 0, r.stderr);
    const fired = asArray(JSON.parse(r.stdout));
    assert.equal(fired.length, 400);
    assert.ok(fired.every((e) => (e as { delivered?: boolean }).delivered === true));
  });
});
