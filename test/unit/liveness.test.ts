/**
 * Which pid a judge may check (src/node/liveness.ts, src/node/lock.ts, src/core/claim.ts): a holder in
 * the judge's own PID namespace is judged by its process; one in another namespace (a sandbox whose
 * pids the judge cannot see) like one on another host, by its heartbeat or its record's age; a record
 * without a namespace is judged by pid as before.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deadClaimReason, HEARTBEAT_STALE_MS, newClaim, ownerOf, type Liveness } from '../../src/core/claim';
import { parseWakeInput } from '../../src/core/wake/contract';
import { newWakeRow, type WakeRow } from '../../src/core/wake/row';
import { refreshWatched, runWatcherGone } from '../../src/core/wake/runWatch';
import { holderFor, processLiveness } from '../../src/node/liveness';
import { acquireLock, holderAlive, LockTimeout, selfIdentity, type LockRecord } from '../../src/node/lock';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-liveness-');
const me = selfIdentity();
const OTHER_NS = 'pid:[4026530001]';
const noNamespace = me.pidns === undefined ? 'this system shows no /proc/self/ns/pid, so every pid is judged as before' : undefined;

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function withoutNamespace<T extends { pidns?: string }>(p: T): Omit<T, 'pidns'> {
  const { pidns: _n, ...rest } = p;
  return rest;
}

describe('processLiveness: the pid is checked only in the judge\'s own namespace', () => {
  it('records this process\'s PID namespace on Linux', { skip: noNamespace }, () => {
    assert.match(me.pidns ?? '', /^pid:\[\d+\]$/);
    assert.equal(holderFor('cli').pidns, me.pidns);
  });

  it('same namespace: a live pid is alive, a gone pid is dead', () => {
    assert.equal(processLiveness(me), true);
    assert.equal(processLiveness({ ...me, pid: deadPid(), start: undefined }), false);
  });

  it('another namespace: cannot tell, whether or not that pid number runs here', { skip: noNamespace }, () => {
    assert.equal(processLiveness({ ...me, pidns: OTHER_NS }), undefined);
    assert.equal(processLiveness({ ...me, pid: deadPid(), start: undefined, pidns: OTHER_NS }), undefined);
  });

  it('a record written before namespaces were recorded is judged by pid as before', () => {
    assert.equal(processLiveness(withoutNamespace(me)), true);
    assert.equal(processLiveness(withoutNamespace({ ...me, pid: deadPid(), start: undefined })), false);
  });
});

describe('deadClaimReason: a claim from another namespace goes by its heartbeat', () => {
  const now = new Date('2026-10-03T07:00:00.000Z');
  const beatAgo = (ms: number): Date => new Date(now.getTime() - ms);
  const judge = { holder: holderFor('cli'), alive: processLiveness, ownLiveTokens: new Set<string>() };

  it('keeps a fresh claim of another namespace even under a pid that is gone here', { skip: noNamespace }, () => {
    const claim = newClaim({ ...holderFor('cli'), pid: deadPid(), pidns: OTHER_NS }, 'tok-abcdefgh', beatAgo(HEARTBEAT_STALE_MS - 1000), now);
    assert.equal(deadClaimReason(claim, now, judge), undefined);
  });

  it('declares it gone once its heartbeat is stale, even under a pid that runs here', { skip: noNamespace }, () => {
    const claim = newClaim({ ...holderFor('cli'), pidns: OTHER_NS }, 'tok-abcdefgh', beatAgo(HEARTBEAT_STALE_MS + 1000), now);
    assert.match(deadClaimReason(claim, now, judge) ?? '', /stopped before recording a fact/);
  });

  it('a claim under this pid and window from another namespace is not this process\'s earlier life', { skip: noNamespace }, () => {
    const claim = newClaim({ ...holderFor('cli'), pidns: OTHER_NS }, 'tok-abcdefgh', beatAgo(1000), now);
    assert.equal(deadClaimReason(claim, now, judge), undefined);
    const mine = newClaim(holderFor('cli'), 'tok-abcdefgh', beatAgo(1000), now);
    assert.match(deadClaimReason(mine, now, judge) ?? '', /restarted/);
  });

  it('same namespace: a gone pid is dead at once, whatever its heartbeat', () => {
    const claim = newClaim({ ...holderFor('cli'), pid: deadPid(), start: undefined }, 'tok-abcdefgh', beatAgo(1000), now);
    assert.match(deadClaimReason(claim, now, judge) ?? '', /stopped before recording a fact/);
  });
});

describe('the lock: a holder in another namespace is judged by its record\'s age', () => {
  const rec = (over: Partial<LockRecord>): LockRecord => ({ state: 'held', token: 'not-ours', ...me, at: new Date().toISOString(), ...over });

  it('a live pid of another namespace is gone once the record is old; a gone pid is held while it is young', { skip: noNamespace }, () => {
    const now = Date.now();
    assert.equal(holderAlive(rec({ pidns: OTHER_NS, at: new Date(now - 61_000).toISOString() }), now), false);
    assert.equal(holderAlive(rec({ pidns: OTHER_NS, pid: deadPid(), start: undefined, at: new Date(now - 1000).toISOString() }), now), true);
  });

  it('same namespace or none recorded: the pid decides, not the age', () => {
    const now = Date.now();
    assert.equal(holderAlive(rec({ pid: deadPid(), start: undefined, at: new Date(now - 1000).toISOString() }), now), false);
    assert.equal(holderAlive(withoutNamespace(rec({ pid: deadPid(), start: undefined })), now), false);
    assert.equal(holderAlive(rec({ pid: process.ppid, start: undefined, at: new Date(now - 3_600_000).toISOString() }), now), true);
  });

  it('acquireLock waits for a young holder of another namespace and takes an old one\'s lock', { skip: noNamespace }, async () => {
    const dir = join(dirs.freshDir(), 'lock');
    mkdirSync(dir);
    writeFileSync(join(dir, '1'), JSON.stringify(rec({ pidns: OTHER_NS, pid: deadPid(), start: undefined })));
    await assert.rejects(acquireLock(dir, { waitMs: 50 }), LockTimeout);
    writeFileSync(join(dir, '2'), JSON.stringify(rec({ pidns: OTHER_NS, at: new Date(Date.now() - 61_000).toISOString() })));
    const held = await acquireLock(dir, { waitMs: 50 });
    assert.equal(held.epoch, 3);
    await held.release();
  });
});

describe('runWatcherGone: the life-thread run watching a job.done wake', () => {
  const now = new Date('2026-10-03T07:00:00.000Z');
  const ago = (ms: number): Date => new Date(now.getTime() - ms);
  function runWake(watchedAt: Date | undefined): WakeRow {
    const parsed = parseWakeInput({ text: 'tests done', when: 'job.done', job_id: 'j-abc123' }, { now: ago(HEARTBEAT_STALE_MS * 3), tz: 'UTC' });
    assert.equal(parsed.kind, 'wake');
    if (parsed.kind !== 'wake') throw new Error('not a wake');
    const owner = ownerOf({ ...holderFor('cli'), pidns: OTHER_NS }, { kind: 'cli', cwd: '/tmp' });
    return newWakeRow(parsed, { id: 'w-abc123', now: ago(HEARTBEAT_STALE_MS * 3), owner, jobStartedAt: ago(HEARTBEAT_STALE_MS * 3), ...(watchedAt ? { watchedAt } : {}) });
  }
  const cannotTell: Liveness = () => undefined;

  it('a process the judge can check decides at once, whatever the heartbeat', () => {
    assert.equal(runWatcherGone(runWake(ago(HEARTBEAT_STALE_MS * 2)), now, () => true), undefined);
    assert.match(runWatcherGone(runWake(ago(0)), now, () => false) ?? '', /stopped before the job ended/);
  });

  it('one it cannot check is there while its heartbeat is fresh, and gone once it is stale', () => {
    assert.equal(runWatcherGone(runWake(ago(HEARTBEAT_STALE_MS - 1000)), now, cannotTell), undefined);
    assert.match(runWatcherGone(runWake(ago(HEARTBEAT_STALE_MS + 5000)), now, cannotTell) ?? '', /no heartbeat for 125 s/);
  });

  it('a row without a heartbeat (written before runs had one) is never declared gone by age', () => {
    assert.equal(runWatcherGone(runWake(undefined), now, cannotTell), undefined);
  });

  it('processLiveness of a run in another namespace cannot tell, so the heartbeat decides', { skip: noNamespace }, () => {
    assert.equal(runWatcherGone(runWake(ago(1000)), now, processLiveness), undefined);
    assert.ok(runWatcherGone(runWake(ago(HEARTBEAT_STALE_MS + 1000)), now, processLiveness));
  });

  it('refreshWatched renews the heartbeat of pending watched wakes only', () => {
    const watched = runWake(ago(HEARTBEAT_STALE_MS + 5000));
    const old = { ...runWake(undefined), id: 'w-old123' };
    const fired: WakeRow = { ...watched, id: 'w-fired1', status: 'cancelled', cancelledAt: ago(1).toISOString() };
    const r = refreshWatched([watched, old, fired], new Set(['w-abc123', 'w-old123', 'w-fired1']), now);
    assert.equal(r.changed, true);
    assert.deepEqual(r.rows.map((x) => x.watchedAt), [now.toISOString(), undefined, watched.watchedAt]);
    assert.equal(runWatcherGone(r.rows[0] as WakeRow, now, cannotTell), undefined);
  });
});
