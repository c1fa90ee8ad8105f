/**
 * The store shared by several processes (windows and the CLI): read-modify-write increments, due
 * rows claimed by competing dispatchers, a lock held by another process, and writers killed with
 * SIGKILL in the middle of a write. Children run test/unit/fixtures/store-child.ts, bundled here.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lockState } from '../../src/node/lock';
import { after, before, describe, it } from 'node:test';
import { buildSync } from 'esbuild';
import { reminderRowSchema, type ReminderRow } from '../../src/core/schema';
import { StoreError } from '../../src/node/store/errors';
import { Table } from '../../src/node/store/table';

let root = '';
let childJs = '';
let seq = 0;

function repoRoot(): string {
  for (let d = __dirname; d !== path.dirname(d); d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json')) && fs.existsSync(path.join(d, 'src/node/store/table.ts'))) return d;
  }
  throw new Error(`no repository root above ${__dirname}`);
}

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lt-store-mp-'));
  childJs = path.join(root, 'store-child.js');
  const repo = repoRoot();
  // Fully bundled (zod inside) so that it runs from the temp directory.
  buildSync({
    entryPoints: [path.join(repo, 'test/unit/fixtures/store-child.ts')],
    absWorkingDir: repo,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: childJs,
    logLevel: 'warning',
  });
});

after(() => {
  for (const c of live) c.kill('SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
});

function freshDir(): string {
  const d = path.join(root, `t${++seq}`);
  fs.mkdirSync(d);
  return d;
}

const live = new Set<ChildProcess>();

interface Child {
  proc: ChildProcess;
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitFor: (pred: (line: string, index: number) => boolean, timeoutMs?: number) => Promise<string>;
}

function startChild(args: string[]): Child {
  const proc = spawn(process.execPath, [childJs, ...args], { stdio: [args[0] === 'writer' ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  live.add(proc);
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  let partial = '';
  let err = '';
  proc.stdout?.setEncoding('utf8');
  proc.stdout?.on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
      for (const w of waiters.splice(0)) w();
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  const waitFor = (pred: (line: string, index: number) => boolean, timeoutMs = 15_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child ${args.join(' ')}: no matching line in ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
      const look = (): void => {
        const i = lines.findIndex(pred);
        const hit = lines[i];
        if (hit !== undefined) {
          clearTimeout(timer);
          resolve(hit);
        } else if (done) {
          clearTimeout(timer);
          reject(new Error(`child ${args.join(' ')} exited without a matching line; stderr: ${err}`));
        } else {
          waiters.push(look);
        }
      };
      look();
    });
  return { proc, lines, stderr: () => err, exited, waitFor };
}

const AT = '2026-10-03T07:00:00.000Z';
function reminder(id: string, over: Partial<ReminderRow> = {}): ReminderRow {
  return { id, text: 'hi', schedule: { kind: 'once', at: AT }, tz: 'Europe/Berlin', status: 'pending', nextRunAt: AT, createdAt: '2026-10-01T07:00:00.000Z', ...over };
}

function table(dir: string): Table<ReminderRow> {
  return new Table<ReminderRow>({ dir, name: 'reminders', rowSchema: reminderRowSchema });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('store across processes', () => {
  it('6 processes × 40 read-modify-write increments: 240/240, nothing lost', async (t) => {
    const dir = freshDir();
    const started = Date.now();
    const children = Array.from({ length: 6 }, () => startChild(['increment', dir, '40']));
    const exits = await Promise.all(children.map((c) => c.exited));
    exits.forEach((e, i) => assert.equal(e.code, 0, children[i]?.stderr()));
    const snap = await table(dir).read();
    assert.deepEqual(
      snap.rows.map((r) => [r.id, r.text]),
      [['r-counter', '240']],
    );
    t.diagnostic(`240 locked updates from 6 processes in ${Date.now() - started} ms`);
  });

  it('a process that wrote a burst and exits leaves the digest of its last write (the next reader may trust it)', async () => {
    const dir = freshDir();
    const child = startChild(['increment', dir, '4']);
    assert.equal((await child.exited).code, 0, child.stderr());
    const t = table(dir);
    const sum = createHash('sha1').update(fs.readFileSync(t.file)).digest('hex');
    assert.equal(fs.readFileSync(t.sumFile, 'utf8').trim(), sum);
  });

  it('5 dispatchers claiming 200 due rows: every row claimed exactly once, by the token on it', async (t) => {
    const dir = freshDir();
    const past = new Date(Date.now() - 60_000).toISOString();
    const rows = Array.from({ length: 200 }, (_, i) => reminder(`r-due${i}`, { nextRunAt: past }));
    await table(dir).update(() => ({ rows, result: undefined }));
    const started = Date.now();
    const tokens = Array.from({ length: 5 }, (_, i) => `tok${i}-${randomBytes(6).toString('hex')}`);
    const children = tokens.map((tok) => startChild(['claim', dir, tok]));
    const exits = await Promise.all(children.map((c) => c.exited));
    exits.forEach((e, i) => assert.equal(e.code, 0, children[i]?.stderr()));
    const claimedBy = new Map<string, string>();
    let total = 0;
    children.forEach((c, i) => {
      const ids: unknown = JSON.parse(c.lines.at(-1) ?? '[]');
      assert.ok(Array.isArray(ids));
      for (const id of ids) {
        assert.equal(typeof id, 'string');
        assert.equal(claimedBy.has(String(id)), false, `${String(id)} claimed twice`);
        claimedBy.set(String(id), tokens[i] ?? '');
        total++;
      }
    });
    assert.equal(total, 200);
    const snap = await table(dir).read();
    assert.equal(snap.rows.length, 200);
    for (const r of snap.rows) {
      assert.equal(r.status, 'fired');
      assert.equal(r.claim?.token, claimedBy.get(r.id));
    }
    const perChild = children.map((c) => (JSON.parse(c.lines.at(-1) ?? '[]') as unknown[]).length);
    t.diagnostic(`200 claims in ${Date.now() - started} ms, per process ${perChild.join('/')}`);
  });

  it('a lock held by another process is not obtained within lockWaitMs → StoreError lock; afterwards it is', async () => {
    const dir = freshDir();
    await table(dir).update((rows) => ({ rows: [...rows, reminder('r-a')], result: undefined }));
    const holder = startChild(['hold', dir, '1000']);
    await holder.waitFor((l) => l === 'H');
    const waiter = new Table<ReminderRow>({ dir, name: 'reminders', rowSchema: reminderRowSchema, lockWaitMs: 400 });
    const started = Date.now();
    await assert.rejects(waiter.update((rows) => ({ rows: [...rows, reminder('r-b')], result: undefined })), (e: unknown) => e instanceof StoreError && e.code === 'lock');
    const waited = Date.now() - started;
    assert.ok(waited >= 390 && waited < 950, `waited ${waited} ms`);
    assert.equal((await holder.exited).code, 0, holder.stderr());
    await waiter.update((rows) => ({ rows: [...rows, reminder('r-b')], result: undefined }));
    assert.equal((await waiter.read()).rows.length, 2);
  });

  it('writers killed with SIGKILL mid-write ~20 times: the file always parses, no committed row lost, temps cleaned, a dead lock taken over', async (t) => {
    const dir = freshDir();
    const tb = table(dir);
    const prefill = Array.from({ length: 300 }, (_, i) => reminder(`r-pre${i}`, { text: `${i} ${'p'.repeat(900)}` }));
    await tb.update(() => ({ rows: prefill, result: undefined }));
    const committed = new Set<string>(prefill.map((r) => r.id));
    let midWrite = 0;
    let lockLeft = 0;
    const started = Date.now();

    const check = async (): Promise<void> => {
      const snap = await tb.read();
      assert.equal(snap.state, 'ok');
      assert.equal(snap.quarantined.length, 0);
      const ids = new Set(snap.rows.map((r) => r.id));
      for (const id of committed) assert.ok(ids.has(id), `committed row ${id} lost`);
    };
    const collect = (c: Child): void => {
      for (const l of c.lines) if (l.startsWith('C ')) committed.add(l.slice(2));
    };

    const ROUNDS = 20;
    const writer = (round: number): Child => startChild(['writer', dir, round % 2 === 0 || round === ROUNDS - 1 ? '1' : '0', '']);
    let next = writer(0);
    for (let round = 0; round < ROUNDS; round++) {
      const slow = round % 2 === 0 || round === ROUNDS - 1;
      const c = next;
      c.proc.stdin?.write('go\n');
      if (round + 1 < ROUNDS) next = writer(round + 1);
      const tempsBefore = new Set(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')));
      if (slow) {
        // Kill while the temp file is being written (the slow seam writes it in 16 chunks).
        await c.waitFor((l) => l === 'W');
        await sleep(Math.random() * 8);
      } else {
        // Kill anywhere in the cycle: under the lock, during the rename, between updates.
        await c.waitFor((l) => l.startsWith('C '));
        await sleep(5 + Math.random() * 60);
      }
      c.proc.kill('SIGKILL');
      const exit = await c.exited;
      assert.equal(exit.signal, 'SIGKILL');
      collect(c);
      await check();
      if (fs.readdirSync(dir).some((n) => n.endsWith('.tmp') && !tempsBefore.has(n))) midWrite++;
      // A holder killed under the lock leaves it abandoned; the next writer takes it over at once.
      if ((await lockState(tb.lockFile)).state === 'abandoned') lockLeft++;
    }

    // Make sure the last state is an abandoned lock: a writer killed while holding it.
    if ((await lockState(tb.lockFile)).state !== 'abandoned') {
      const holder = startChild(['hold', dir, '60000']);
      await holder.waitFor((l) => l === 'H');
      holder.proc.kill('SIGKILL');
      await holder.exited;
    }
    assert.equal((await lockState(tb.lockFile)).state, 'abandoned', 'a killed holder left its lock behind');
    const takeOverStart = Date.now();
    const heir = startChild(['writer', dir, '0', '2000']);
    heir.proc.stdin?.write('go\n');
    await heir.waitFor((l) => l.startsWith('C '));
    const tookOver = Date.now() - takeOverStart;
    heir.proc.kill('SIGKILL');
    await heir.exited;
    collect(heir);
    await check();
    assert.ok(lockLeft >= 1, `no kill landed under the lock (${lockLeft})`);

    assert.ok(midWrite >= 5, `only ${midWrite} kills landed mid-write`);
    const strays = fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'));
    const old = new Date(Date.now() - 120_000);
    for (const n of strays) fs.utimesSync(path.join(dir, n), old, old);
    await tb.update((rows) => ({ rows, result: undefined }));
    assert.deepEqual(
      fs.readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
    );
    await check();
    t.diagnostic(
      `${ROUNDS} kills in ${Date.now() - started} ms: ${midWrite} left a temp file (mid-write), ${lockLeft} left the lock; ` +
        `${committed.size - prefill.length} rows committed by killed writers, none lost; abandoned lock taken over after ${tookOver} ms (process start included); ${strays.length} stray temps cleaned`,
    );
  });
});
