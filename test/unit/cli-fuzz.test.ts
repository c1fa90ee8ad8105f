/**
 * Bounded input: random --when / --cron / --tz / --now
 * for `remind add`, `schedule add-command` and `schedule move`, run through the CLI's own `main()`
 * in this process. Whatever the input: exit 0, 2 or 3 (never 1), with --json stderr is exactly one
 * `{ error: { field, reason } }` naming a flag, an accepted time lies within ±100 years of the
 * clock, and the table files always parse and hold only valid rows. Seeded, so a failure repeats.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { z } from 'zod';
import { commandRowSchema, reminderRowSchema, type ScheduleRow } from '../../src/core/schema';
import { SUPPORTED_SPAN_MS } from '../../src/core/time/limits';
import { seededRandom } from './helpers/random';

// In RAM where there is one: this test is about input, not durability, and each accepted call fsyncs twice.
let root = '';
let seq = 0;
before(() => {
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  root = fs.mkdtempSync(path.join(base, 'lt-cli-fuzz-'));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));
const freshDir = (): string => {
  const d = path.join(root, `t${++seq}`);
  fs.mkdirSync(d);
  return d;
};
const DAY = 24 * 3600_000;
const YEAR = 365.25 * DAY;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => {
  const x = xs[Math.floor(rng() * xs.length)];
  if (x === undefined) throw new Error('pick from an empty list');
  return x;
};
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

const HUGE = ['73000', '99999', '99999999', '99999999999', '2147483648', '99999999999999999999', '9'.repeat(40), '9'.repeat(330), '1e9', '0', '0.0001', '1.5'];
const NUMBERS = ['1', '2', '5', '10', '20', '30', '59', '90', 'an', 'a', 'half an', 'one', 'twenty', ...HUGE];
const UNITS = ['seconds', 's', 'sec', 'minutes', 'min', 'm', 'hours', 'h', 'hr', 'days', 'd', 'weeks', 'w', 'wk', 'fortnights', 'years', 'ms', ''];
const TIMES = ['9', '09:00', '9am', '9 am', '12pm', '12am', '0:00', '23:59', '24:00', '2:30', '02:30', '01:30', '3:00', 'noon', 'midnight', '13pm', '9:60', "9 o'clock", '9:00:30'];
const DAY_SETS = ['every day', 'daily', 'every weekday', 'weekdays', 'weekends', 'mondays', 'every mon-fri', 'every monday and friday', 'every sunday', 'every month on the 31st', 'every month on the 0th', 'each weekend day', 'every fri, sat'];
const ONCE_DAYS = ['today', 'tomorrow', 'the day after tomorrow', 'next friday', 'friday', 'yesterday', 'in 3 days', 'in 9999 days', 'on monday', 'this sunday'];
const ODD = ['明天 9点', 'in 2 ⏰', 'in ５ minutes', 'ｅｖｅｒｙ 30m', 'in 5\u200b minutes', 'in 5 minutes\u0000', '\u202ein 5 minutes', 'e\u0301very 30m', '🙂', '\ud800', 'in -5 minutes', 'every -1 days', 'in NaN days', 'in Infinity seconds', 'every 0 s', '30m', 'now', 'never'];
const DST_WALL = ['2026-03-29 02:30', '2026-10-25 02:30', '2027-03-28 02:30', '2026-03-08 02:30', '2026-11-01 01:30', '2026-04-05 02:30', '2026-09-27 02:15', '2011-12-30 12:00'];
const ISO_SUFFIXES = ['', 'Z', 'z', '+02:00', '-14:00', '+14:00', '+25:00', '+0530', '[Europe/Berlin]', '[Mars/Olympus]', 'Z[UTC]', '+01:00[Europe/Berlin]'];

function isoWhen(rng: Rng): string {
  const year = pick(rng, [1000, 1900, 1925, 1926, 1970, 2000, 2025, 2026, 2027, 2030, 2100, 2125, 2126, 2127, 9999]);
  const month = int(rng, 0, 13);
  const day = int(rng, 0, 32);
  const hour = int(rng, 0, 25);
  const sep = pick(rng, ['T', ' ', 't']);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}${sep}${pad(hour)}:${pad(int(rng, 0, 60))}${pick(rng, ['', `:${pad(int(rng, 0, 60))}`, '.123'])}${pick(rng, ISO_SUFFIXES)}`;
}

function whenWords(rng: Rng): string {
  switch (int(rng, 0, 10)) {
    case 0:
      return `in ${pick(rng, NUMBERS)} ${pick(rng, UNITS)}`;
    case 1:
      return `every ${pick(rng, NUMBERS)} ${pick(rng, UNITS)}`;
    case 2:
      return `${pick(rng, DAY_SETS)} at ${pick(rng, TIMES)}${rng() < 0.2 ? ` and ${pick(rng, TIMES)}` : ''}`;
    case 3:
      return `${pick(rng, ONCE_DAYS)} ${pick(rng, ['at ', ''])}${pick(rng, TIMES)}`;
    case 4:
      return isoWhen(rng);
    case 5:
      return pick(rng, DST_WALL);
    case 6:
      return pick(rng, ['3 Oct 09:00', 'October 3rd at 9am', 'Oct 3 2300 at 9', 'March 5 275760 at 9', 'Dec 31 9999 23:59', 'Jan 1 0001 at 9', 'Feb 29 2027 at 9', 'at 2:30', 'hourly', 'weekly', 'every hour', 'every 30m', 'in 20 minutes', 'tomorrow at 9']);
    case 7:
      return pick(rng, ODD);
    case 8:
      return pick(rng, ['', '   ', '\t', 'in 1 hour '.repeat(int(rng, 20, 40))]);
    case 9:
      return Array.from({ length: int(rng, 1, 30) }, () => String.fromCharCode(int(rng, 32, 0x2fff))).join('');
    default:
      return `in ${pick(rng, HUGE)} ${pick(rng, ['days', 'weeks', 'seconds', 'hours'])}`;
  }
}

function cronExpr(rng: Rng): string {
  switch (int(rng, 0, 6)) {
    case 0:
      return pick(rng, ['@daily', '@hourly', '@weekly', '@yearly', '@reboot', '@every', '@DAILY', '', '   ', '0 0 30 2 *', '0 0 31 4 *', '0 0 29 2 *', '* * * *', '* * * * * *', '0 0 0 * * * *']);
    case 1:
      return Array.from({ length: int(rng, 3, 7) }, () => pick(rng, ['*', '0', '1', '59', '*/5'])).join(' ');
    case 2:
      return `${pick(rng, ['99999999999', '-1', '１', '٣', '0x1', '1e3', '9'.repeat(30)])} * * * *`;
    default: {
      const minute = pick(rng, ['*', '*/5', '*/10', '*/0', '0', '30', '59', '60', '-1', '0-59', '5/15', '1,2,3', '0,30', 'L', '?', 'a', '10-5']);
      const hour = pick(rng, ['*', '9', '2', '1,2', '2,14', '23', '24', '*/2', '0-23', '1-3']);
      const dom = pick(rng, ['*', '*', '1', '31', '30', 'L', '15W', '?', '0', '32', '29']);
      const month = pick(rng, ['*', '*', '2', '12', '13', 'JAN', 'feb', '*/3', '0']);
      const dow = pick(rng, ['*', '*', '1-5', '0', '7', 'MON', 'mon-fri', '5L', '1#2', '?', '8', '0,6']);
      return `${minute} ${hour} ${dom} ${month} ${dow}`;
    }
  }
}

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/Los_Angeles', 'Australia/Lord_Howe', 'Pacific/Apia', 'Pacific/Kiritimati', 'Asia/Kathmandu', 'America/Santiago', 'Africa/Casablanca', 'Europe/Kyiv', 'Etc/GMT-14', 'Etc/GMT+12', 'America/St_Johns', 'Antarctica/Troll', 'Asia/Tehran', 'europe/berlin'];
const BAD_ZONES = ['Europe/Berlinn', '', ' ', 'GMT+2', '+02:00', 'EST', 'CET', 'Mars/Olympus', 'UTC+1', 'Z', '../../etc/passwd', 'x'.repeat(65), '东京', 'Europe/Berlin\u0000', 'Etc/GMT-15'];

function nowArg(rng: Rng, systemMs: number): string {
  switch (int(rng, 0, 9)) {
    case 0: {
      const ms = systemMs + (rng() * 2 - 1) * 150 * YEAR;
      return new Date(Math.round(ms / 1000) * 1000).toISOString();
    }
    case 1: {
      // The edges of the supported span.
      const edge = systemMs + pick(rng, [-1, 1]) * (SUPPORTED_SPAN_MS + pick(rng, [-DAY, -60_000, 60_000, DAY]));
      return new Date(edge).toISOString();
    }
    case 2:
      return pick(rng, ['+275760-09-13T00:00:00Z', '-271821-04-20T00:00:00Z', '+100000-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '1900-01-01T00:00:00Z']);
    case 3:
      return pick(rng, ['2026-03-29T01:30:00+01:00', '2026-03-29T00:59:59Z', '2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-03-08T07:00:00Z', '2026-11-01T05:30:00Z']);
    case 4:
      return pick(rng, ['yesterday', '2026-10-03T04:46:00', '', 'now', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-10-03T04:46:00+24:00', '９', '2026-10-03T04:46:00Z\u0000']);
    default:
      return new Date(systemMs + int(rng, -3 * 366, 3 * 366) * DAY + int(rng, 0, DAY)).toISOString();
  }
}

function shuffle<T>(rng: Rng, xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const a = xs[i];
    const b = xs[j];
    if (a !== undefined && b !== undefined) {
      xs[i] = b;
      xs[j] = a;
    }
  }
  return xs;
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, env, cwd, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** The fields a bad time, zone, clock, id or flag may be reported on. */
/** The envelope of every table file. */
const tableEnvelope = z.object({ schemaVersion: z.number().int().positive(), rows: z.array(z.unknown()) }).strict();

const FIELDS = new Set(['when', 'cron', 'tz', 'now', 'text', 'command', 'id', 'timeout-minutes', 'store']);

function checkTables(dir: string, label: string): number {
  let rows = 0;
  for (const [file, schema] of [
    ['reminders.json', reminderRowSchema],
    ['schedule-commands.json', commandRowSchema],
  ] as const) {
    const p = path.join(dir, file);
    if (!fs.existsSync(p)) continue;
    const table = tableEnvelope.parse(JSON.parse(fs.readFileSync(p, 'utf8')));
    assert.equal(table.schemaVersion, 2, label);
    const ids = new Set<string>();
    for (const raw of table.rows) {
      const row: ScheduleRow = schema.parse(raw);
      assert.ok(!ids.has(row.id), `${label}: duplicate id ${row.id}`);
      ids.add(row.id);
      if (row.schedule.kind === 'every') assert.ok(row.schedule.seconds * 1000 <= SUPPORTED_SPAN_MS, `${label}: ${row.id} every ${row.schedule.seconds} s`);
      rows++;
    }
  }
  const stray = fs.readdirSync(dir).filter((f) => f.includes('quarantine'));
  assert.deepEqual(stray, [], `${label}: nothing may be quarantined`);
  return rows;
}

describe('CLI under random time input', () => {
  it('the documented overflow cases are refused with exit 2 naming the field; nothing is written', async () => {
    const dir = freshDir();
    const base = ['--store', dir, '--json', '--tz', 'UTC'];
    const added = await run([...base, 'schedule', 'add-command', '--command', 'true', '--when', 'in 1 hour'], {}, dir);
    assert.equal(added.code, 0, added.stderr);
    const id = (JSON.parse(added.stdout) as { id: string }).id;
    const before = fs.readFileSync(path.join(dir, 'schedule-commands.json'), 'utf8');
    const cases: [string[], string, RegExp][] = [
      [['--when', 'every 2147483648 weeks'], 'when', /100 years/],
      [['--when', 'every 99999999 days'], 'when', /100 years/],
      [['--when', 'every 99999999999999999999 seconds'], 'when', /100 years/],
      [['--when', 'in 99999999999 days'], 'when', /100 years/],
      [['--when', 'in 73000 days'], 'when', /100 years/],
      [['--when', 'in 20 minutes', '--now', '+275760-09-13T00:00:00Z'], 'now', /100 years/],
      [['--when', 'every 30m', '--now', '+275760-09-13T00:00:00Z'], 'now', /100 years/],
      [['--when', 'tomorrow at 9', '--now', '-271821-04-20T00:00:00Z'], 'now', /100 years/],
      [['--cron', '0 9 * * *', '--now', new Date(Date.now() - SUPPORTED_SPAN_MS - DAY).toISOString()], 'now', /100 years/],
    ];
    for (const [verb, extra] of [
      [['schedule', 'add-command', '--command', 'true'], []],
      [['remind', 'add', '--text', 'x'], []],
      [['schedule', 'move', id], []],
    ] as const) {
      for (const [args, field, reason] of cases) {
        const r = await run([...base, ...verb, ...extra, ...args], {}, dir);
        const label = `${verb.join(' ')} ${args.join(' ')}: ${r.stderr}`;
        assert.equal(r.code, 2, label);
        assert.equal(r.stdout, '', label);
        const err = JSON.parse(r.stderr) as { error: { field: string; reason: string } };
        assert.equal(err.error.field, field, label);
        assert.match(err.error.reason, reason, label);
      }
    }
    assert.equal(fs.readFileSync(path.join(dir, 'schedule-commands.json'), 'utf8'), before);
    assert.equal(checkTables(dir, 'documented'), 1);
  });

  it('3,000 random calls: exit 0, 2 or 3; one JSON error naming a field; accepted times within 100 years; valid tables', async () => {
    const rng = seededRandom(0x5eed10);
    const dir = freshDir();
    const systemMs = Date.now();
    const ids: string[] = [];
    const codes = new Map<number, number>();
    const fields = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const verb = pick(rng, ['remind', 'command', 'move'] as const);
      const args: string[][] = [];
      if (verb === 'remind') args.push(['--text', pick(rng, ['check the build', 'x', 'ünïcödé 🙂'])]);
      if (verb === 'command') args.push(['--command', 'true']);
      if (verb === 'command' && rng() < 0.2) args.push(['--timeout-minutes', pick(rng, ['1', '60', '0', '61', '1.5'])]);
      const t = rng();
      if (t < 0.7 || t >= 0.95) args.push(['--when', whenWords(rng)]);
      if (t >= 0.7) args.push(['--cron', cronExpr(rng)]);
      const z = rng();
      if (z < 0.55) args.push(['--tz', pick(rng, ZONES)]);
      else if (z < 0.7) args.push(['--tz', pick(rng, BAD_ZONES)]);
      if (rng() < 0.7) args.push(['--now', nowArg(rng, systemMs)]);
      const json = rng() < 0.85;
      if (json) args.push(['--json']);
      args.push(['--store', dir]);
      const head = verb === 'remind' ? ['remind', 'add'] : verb === 'command' ? ['schedule', 'add-command'] : ['schedule', 'move', ids.length > 0 && rng() < 0.9 ? pick(rng, ids) : 'c-nosuchrow'];
      const argv = [...head, ...shuffle(rng, args).flat()];
      const env: NodeJS.ProcessEnv = rng() < 0.1 ? { LIFE_THREAD_TZ: pick(rng, [...ZONES, ...BAD_ZONES]) } : {};
      const started = Date.now();
      const r = await run(argv, env, dir);
      const label = `case ${i}: ${JSON.stringify(argv)} env ${JSON.stringify(env)}\nexit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
      codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
      assert.ok([0, 2, 3].includes(r.code), label);
      assert.doesNotMatch(r.stderr, /\n\s+at /, label);
      if (r.code === 0) {
        assert.equal(r.stderr, '', label);
        if (json) {
          const row = (verb === 'remind' || argv[2]?.startsWith('r-') ? reminderRowSchema : commandRowSchema).parse(JSON.parse(r.stdout));
          // The clock of this call: --now, else the machine's.
          const nowFlag = argv[argv.indexOf('--now') + 1];
          const clock = argv.includes('--now') && nowFlag !== undefined ? Date.parse(nowFlag) : started;
          if (row.nextRunAt !== null) {
            const next = Date.parse(row.nextRunAt);
            assert.ok(Math.abs(next - clock) <= SUPPORTED_SPAN_MS + 2 * 60_000, `${label}\nnext run beyond 100 years`);
          }
          if (verb !== 'move') ids.push(row.id);
        }
      } else {
        assert.equal(r.stdout, '', label);
        assert.ok(r.stderr.endsWith('\n') && r.stderr.indexOf('\n') === r.stderr.length - 1, `${label}\nstderr is one line`);
        let field: string;
        if (json) {
          const err = JSON.parse(r.stderr) as { error?: { field?: unknown; reason?: unknown } };
          assert.deepEqual(Object.keys(err), ['error'], label);
          assert.deepEqual(Object.keys(err.error ?? {}).sort(), ['field', 'reason'], label);
          assert.ok(typeof err.error?.reason === 'string' && err.error.reason.length > 0, label);
          field = String(err.error?.field);
        } else {
          const m = /^life-thread: ([\w-]+): \S/.exec(r.stderr);
          assert.ok(m !== null, label);
          field = m[1] ?? '';
        }
        assert.ok(FIELDS.has(field), `${label}\nunexpected field ${field}`);
        if (r.code === 3) assert.equal(field, 'store', label);
        fields.set(field, (fields.get(field) ?? 0) + 1);
      }
      if (i % 250 === 249) checkTables(dir, `after case ${i}`);
    }
    const rows = checkTables(dir, "at the end");
    // The generator must reach both outcomes and the time fields, or it tests nothing.
    assert.ok((codes.get(0) ?? 0) > 200, `accepted: ${codes.get(0)}`);
    assert.ok((codes.get(2) ?? 0) > 1000, `refused: ${codes.get(2)}`);
    for (const f of ['when', 'cron', 'tz', 'now', 'id']) assert.ok((fields.get(f) ?? 0) > 10, `field ${f}: ${fields.get(f)}`);
    assert.ok(rows > 100);
  });
});
