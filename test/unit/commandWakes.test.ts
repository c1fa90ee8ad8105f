/**
 * A command row's job.done wakes in one process (src/node/commandWakes.ts): which run counts for a
 * wake, the outcome read from the row's log, re-deriving a trigger from a fact (not one too young,
 * left to its writer), and a takeover of a dead holder's claim marked redelivered in the row and the pulse.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { CommandRow } from '../../src/core/schema';
import { parseWakeInput, type NewWake } from '../../src/core/wake/contract';
import { pulseEventOfRow, renderPulse } from '../../src/core/wake/pulse';
import { jobStatus } from '../../src/core/wake/jobStatus';
import { rederiveCommandWakes, REDERIVE_AFTER_MS, triggerCommandWakes } from '../../src/node/commandWakes';
import { holderFor, processLiveness } from '../../src/node/liveness';
import { WakeStore } from '../../src/node/wakes';
import type { TableSnapshot } from '../../src/node/store/table';

const root = mkdtempSync(join(tmpdir(), 'lt-cwakes-'));
after(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;
const fresh = (): string => mkdtempSync(join(root, `s${++seq}-`));
const me = holderFor('cli');
const T0 = Date.parse('2026-10-03T07:00:00.000Z');
const at = (ms: number): Date => new Date(T0 + ms);

function onRow(id: string): NewWake {
  const p = parseWakeInput({ text: `after ${id}`, when: 'job.done', job_id: id }, { now: at(0), tz: 'UTC' });
  if (p.kind !== 'wake') throw new Error('not a wake');
  return p;
}

function commandRow(id: string, extra: Partial<CommandRow>): CommandRow {
  return { id, command: 'npm test', cwd: '/w', timeoutMinutes: 2, schedule: { kind: 'once', at: at(0).toISOString() }, tz: 'UTC', status: 'pending', nextRunAt: at(0).toISOString(), createdAt: at(0).toISOString(), ...extra };
}

const snapshot = (rows: CommandRow[], quarantined = 0): (() => Promise<TableSnapshot<CommandRow>>) => async () => ({
  rows,
  quarantined: Array.from({ length: quarantined }, () => ({ line: 1, reason: 'bad', raw: {} })) as unknown as TableSnapshot<CommandRow>['quarantined'],
  schemaVersion: 2,
  state: 'ok',
});

describe('command rows wake their job.done wakes', () => {
  it('a run counts for the wakes set before it ended; the outcome comes from the fact and the log', async () => {
    const dir = fresh();
    const store = new WakeStore({ dir });
    const before = await store.add(onRow('c-nightly'), { now: at(1000) });
    const later = await store.add(onRow('c-nightly'), { now: at(9000) });
    const other = await store.add(onRow('c-other'), { now: at(1000) });
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'logs', 'c-nightly.log'), 'building\n12 passed, 1 failed\n[life-thread] exit code 1 after 3 s\n');
    const fired = await triggerCommandWakes(store, dir, [{ id: 'c-nightly', kind: 'ran', fact: { exitCode: 1, durationMs: 3000 }, endedAt: at(5000).getTime() }], me, at(5000));
    assert.deepEqual(fired.map((r) => r.id), [before.id]);
    const row = await store.get(before.id);
    assert.deepEqual([row?.status, row?.heldReason, row?.fact?.jobStatus, row?.fact?.exitCode, row?.fact?.summary], ['held', 'unreachable', 'failed', 1, '12 passed, 1 failed']);
    assert.match(row?.landing?.kind === 'deep_link' ? row.landing.uri : '', /logs\/c-nightly\.log#L2/);
    assert.equal((await store.get(later.id))?.status, 'pending', 'set after the run ended');
    assert.equal((await store.get(other.id))?.status, 'pending', 'another row');
  });

  it('job status of a run fact (the one jobStatus): interrupted unknown, exit 0 succeeded, a code or a timeout failed, a signal unknown', () => {
    const of = (fact: { exitCode?: number | null; timedOut?: boolean; interrupted?: boolean }) => jobStatus({ exitCode: fact.exitCode, timedOut: fact.timedOut === true, interrupted: fact.interrupted === true });
    assert.equal(of({ interrupted: true }), 'unknown');
    assert.equal(of({ exitCode: 0 }), 'succeeded');
    assert.equal(of({ exitCode: 2 }), 'failed');
    assert.equal(of({ exitCode: null, timedOut: true }), 'failed');
    assert.equal(of({ exitCode: null }), 'unknown');
  });

  it('re-derives: a fact that ended after the wake, once older than the writer’s grace; a removed or missed row as lost; nothing for an earlier run or a running row', async () => {
    const dir = fresh();
    const store = new WakeStore({ dir });
    const young = await store.add(onRow('c-young'), { now: at(0) });
    const old = await store.add(onRow('c-old'), { now: at(0) });
    const earlier = await store.add(onRow('c-earlier'), { now: at(0) });
    const running = await store.add(onRow('c-running'), { now: at(0) });
    const gone = await store.add(onRow('c-gone'), { now: at(0) });
    const missed = await store.add(onRow('c-missed'), { now: at(0) });
    const now = at(60_000);
    const rows = [
      commandRow('c-young', { status: 'fired', nextRunAt: null, firedAt: at(50_000).toISOString(), fact: { exitCode: 0, durationMs: 8000 } }),
      commandRow('c-old', { status: 'fired', nextRunAt: null, firedAt: at(-5000).toISOString(), fact: { exitCode: 4, durationMs: 20_000 } }),
      commandRow('c-earlier', { status: 'fired', nextRunAt: null, firedAt: at(-30_000).toISOString(), fact: { exitCode: 0, durationMs: 1000 } }),
      commandRow('c-running', { status: 'fired', nextRunAt: null, firedAt: at(-30_000).toISOString(), fact: { lateMs: 0 }, claim: { token: 'tok-running-1', pid: process.pid, window: 'cli', heartbeatAt: now.toISOString(), scheduledFor: at(-30_000).toISOString() } }),
      commandRow('c-missed', { status: 'missed', nextRunAt: null, firedAt: at(1000).toISOString(), fact: { lateMs: 7200_000, missedRuns: 1, error: 'missed: 2 h late, past the 1 h catch-up limit' } }),
    ];
    const r = await rederiveCommandWakes(store, await store.list(), snapshot(rows), me, now);
    assert.equal(r.triggered, true);
    assert.equal(r.recheckAt, at(58_000).getTime() + REDERIVE_AFTER_MS);
    const status = async (id: string): Promise<unknown[]> => {
      const w = await store.get(id);
      return [w?.status, w?.fact?.jobStatus, w?.fact?.exitCode];
    };
    assert.deepEqual(await status(young.id), ['pending', undefined, undefined]);
    assert.deepEqual(await status(old.id), ['held', 'failed', 4]);
    assert.deepEqual(await status(earlier.id), ['pending', undefined, undefined]);
    assert.deepEqual(await status(running.id), ['pending', undefined, undefined]);
    assert.deepEqual(await status(gone.id), ['held', 'lost', null]);
    assert.match((await store.get(gone.id))?.fact?.summary ?? '', /c-gone was removed/);
    assert.deepEqual(await status(missed.id), ['held', 'lost', null]);
    assert.equal((await store.get(missed.id))?.fact?.summary, 'the command row c-missed was marked missed (2 h late, past the 1 h catch-up limit)');
    // Past the grace the young fact counts too.
    const again = await rederiveCommandWakes(store, await store.list(), snapshot(rows), me, at(58_000 + REDERIVE_AFTER_MS));
    assert.equal(again.triggered, true);
    assert.deepEqual(await status(young.id), ['held', 'succeeded', 0]);
  });

  it('a row missing while the table has quarantined rows is not declared removed', async () => {
    const store = new WakeStore({ dir: fresh() });
    const w = await store.add(onRow('c-hidden'), { now: at(0) });
    const r = await rederiveCommandWakes(store, await store.list(), snapshot([], 1), me, at(60_000));
    assert.equal(r.triggered, false);
    assert.equal((await store.get(w.id))?.status, 'pending');
  });
});

describe('a claim taken over from a dead holder', () => {
  it('is marked redelivered in the row and the pulse; a first claim is not', async () => {
    const store = new WakeStore({ dir: fresh() });
    const p = parseWakeInput({ text: 'maybe seen', when: 'timer', delay_seconds: 1 }, { now: at(0), tz: 'UTC' });
    if (p.kind !== 'wake') throw new Error('not a wake');
    const w = await store.add(p, { now: at(0), owner: { kind: 'cli' } });
    const dead = { ...me, pid: spawnSync(process.execPath, ['-e', '']).pid };
    const first = await store.claimDue({ now: at(5000), holder: dead }, { eligible: () => true });
    assert.equal(first.claimed[0]?.row.fact?.redelivered, undefined);
    assert.doesNotMatch(renderPulse(first.claimed[0]?.row ?? w, pulseEventOfRow(first.claimed[0]?.row ?? w)), /redelivered/);
    const taken = await store.takeOverOrphans({ now: at(6000), holder: me }, { eligible: () => true, alive: processLiveness });
    assert.deepEqual(taken.resumed, [w.id]);
    const row = taken.claimed[0]?.row;
    assert.equal(row?.fact?.redelivered, true);
    assert.equal((await store.get(w.id))?.fact?.redelivered, true);
    const pulse = row ? renderPulse(row, pulseEventOfRow(row)) : '';
    assert.match(pulse, /\n {2}redelivered: true$/);
  });
});
