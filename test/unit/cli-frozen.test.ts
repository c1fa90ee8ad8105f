/**
 * A frozen dispatcher, as a test: a `dispatch --once` frozen (SIGSTOP) while it
 * holds the table's lock, for longer than the old 10 s stale limit. Another dispatcher must not take
 * the lock from it: the one-shot command runs exactly once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { commandRowSchema, type CommandRow } from '../../src/core/schema';
import { baseEnv, CLI, encodeTable, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-cli-frozen-');
const T = '2026-10-03T12:00:00.000Z';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Whose record is at the top of a lock folder, and whether it is held. */
function lockHolder(lockDir: string): { pid: number; state: string } | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(lockDir).filter((n) => /^\d+$/.test(n));
  } catch {
    return undefined;
  }
  if (names.length === 0) return undefined;
  const top = Math.max(...names.map(Number));
  try {
    const rec = JSON.parse(fs.readFileSync(path.join(lockDir, String(top)), 'utf8')) as { pid: number; state: string };
    return rec;
  } catch {
    return undefined;
  }
}

describe('a dispatcher frozen while it holds the lock', () => {
  it('keeps its lock past the old stale limit: the other dispatchers wait or give up (exit 3), and the command runs once', async () => {
    const dir = stores.freshStore();
    const ran = path.join(dir, 'ran');
    const due: CommandRow = {
      id: 'c-frozen',
      command: `echo "$LIFE_THREAD_JOB" >> ${JSON.stringify(ran)}`,
      cwd: dir,
      timeoutMinutes: 1,
      schedule: { kind: 'once', at: T },
      tz: 'UTC',
      status: 'pending',
      nextRunAt: T,
      createdAt: T,
    };
    // Many rows that are not due make the pass's write long enough to be caught holding the lock.
    const filler: CommandRow[] = Array.from({ length: 20_000 }, (_, i) => ({ ...due, id: `c-later${i}`, command: `true ${'x'.repeat(100)}`, schedule: { kind: 'once', at: '2027-01-01T00:00:00.000Z' }, nextRunAt: '2027-01-01T00:00:00.000Z' }));
    for (const r of [due, filler[0]]) commandRowSchema.parse(r);
    fs.writeFileSync(path.join(dir, 'schedule-commands.json'), encodeTable([due, ...filler].map((r) => JSON.stringify(r))));
    const lockDir = path.join(dir, '.locks', 'schedule-commands.json');
    const now = new Date(Date.parse(T) + 3000).toISOString();

    const a = spawn(process.execPath, [CLI, 'dispatch', '--once', '--json', '--store', dir, '--now', now], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let aOut = '';
    a.stdout.setEncoding('utf8').on('data', (c: string) => (aOut += c));
    const aExit = new Promise<number | null>((r) => a.on('close', r));
    // Freeze A at the moment it holds the commands table's lock.
    let frozen = false;
    for (let i = 0; i < 20_000 && !frozen; i++) {
      const h = lockHolder(lockDir);
      if (h !== undefined && h.pid === a.pid && h.state === 'held') {
        process.kill(a.pid as number, 'SIGSTOP');
        frozen = lockHolder(lockDir)?.state === 'held';
        if (!frozen) process.kill(a.pid as number, 'SIGCONT');
      }
      if (!frozen) await sleep(1);
    }
    assert.ok(frozen, 'A was stopped while it held the lock');

    // B gives up after its 10 s wait (the old code took the lock as stale here); C waits longer.
    const b = runCli(['dispatch', '--once', '--json', '--store', dir, '--now', now], { cwd: dir });
    const c = runCli(['dispatch', '--once', '--json', '--store', dir, '--now', now], { cwd: dir, env: { LIFE_THREAD_LOCK_WAIT_MS: '60000' } });
    const rb = await b;
    assert.equal(rb.code, 3, rb.stderr);
    assert.match(rb.stderr, /could not obtain the lock .*still alive/);
    process.kill(a.pid as number, 'SIGCONT');
    assert.equal(await aExit, 0);
    const rc = await c;
    assert.equal(rc.code, 0, rc.stderr);
    assert.deepEqual(JSON.parse(rc.stdout), [], 'C found the row already claimed');
    const entries = JSON.parse(aOut) as { id: string; fact?: { exitCode?: number } }[];
    assert.deepEqual(
      entries.map((e) => [e.id, e.fact?.exitCode]),
      [['c-frozen', 0]],
    );
    assert.equal(fs.readFileSync(ran, 'utf8'), 'c-frozen\n', 'the command ran exactly once');
  });
});
