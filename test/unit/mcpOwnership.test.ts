/**
 * Who delivers a wake set through MCP, pure and over the store: the
 * session keeps its timers and `j-…` jobs while its server lives; a window of its folder takes them
 * once the server is gone or gave them up (held), and the fact says so; windows list themselves so
 * the server can give a wake the folders of a window that holds its working directory.
 */
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import type { Liveness } from '../../src/core/claim';
import type { Owner } from '../../src/core/schema';
import { keptBySession, markDelivered, mayDeliver, sessionFallbackNote, type WakeRow } from '../../src/core/wake/row';
import { announceWindow, foldersHolding, liveWindows, withdrawWindow } from '../../src/node/windows';
import { holderFor, processLiveness } from '../../src/node/liveness';
import { tempDirs } from './helpers/tempDirs';

const NOW = new Date('2026-10-03T07:00:00.000Z');
const FOLDER = 'file:///work/app';
const owner: Owner = { kind: 'mcp', client: 'claude-code', cwd: '/work/app/sub', pid: 4242, host: 'h', start: '7', folders: [FOLDER] };
const alive: Liveness = () => true;
const dead: Liveness = () => false;

function row(extra: Partial<WakeRow> = {}): WakeRow {
  return { id: 'w-abc', text: 'wake me', when: 'timer', tz: 'UTC', owner, status: 'pending', nextRunAt: NOW.toISOString(), createdAt: NOW.toISOString(), ...extra } as WakeRow;
}

describe('wakes set through MCP', () => {
  it('while the server lives, its timers and run jobs are the session’s; otherwise a window of its folder may take them', () => {
    assert.equal(keptBySession(row(), alive), true);
    assert.equal(mayDeliver(row(), [FOLDER], alive), false);
    assert.equal(mayDeliver(row(), [FOLDER], dead), true, 'the server is gone');
    assert.equal(mayDeliver(row(), [FOLDER]), true, 'no liveness given: as before');
    assert.equal(mayDeliver(row(), ['file:///elsewhere'], dead), false, 'only a window of its folder');
    assert.equal(mayDeliver(row({ status: 'held', heldReason: 'unreachable' }), [FOLDER], alive), true, 'the session gave it up');
    assert.equal(keptBySession(row({ when: 'job.done', jobId: 'j-abc123', nextRunAt: null }), alive), true);
    // Events only a window sees (a task, the user coming back) go to that window's @life.
    assert.equal(keptBySession(row({ when: 'job.done', jobId: 'build', nextRunAt: null }), alive), false);
    assert.equal(keptBySession(row({ when: 'presence.online', nextRunAt: null }), alive), false);
    assert.equal(keptBySession(row({ owner: { ...owner, kind: 'cli' } }), alive), false);
  });

  it('delivered elsewhere than its session, the fact says where and why; via mcp or wait it says nothing more', () => {
    assert.equal(sessionFallbackNote(row(), 'mcp'), undefined);
    assert.equal(sessionFallbackNote(row(), 'wait'), undefined);
    assert.equal(sessionFallbackNote(row({ owner: { kind: 'window', window: 'w1' } }), 'life'), undefined);
    const claimed = row({ status: 'delivering', claim: { token: 'tok-12345678', pid: 1, window: 'win', heartbeatAt: NOW.toISOString(), scheduledFor: NOW.toISOString() } });
    const life = markDelivered([claimed], ['w-abc'], { delivered: true, via: 'life' }, NOW).rows[0];
    assert.equal(life?.fact?.reason, 'set through MCP (claude-code, pid 4242, in /work/app/sub); that session could not take it (gone, or no push and no life-thread wait), so it went to @life in a VS Code window');
    const note = markDelivered([claimed], ['w-abc'], { delivered: false, via: 'notification', reason: 'the chat did not receive the pulse' }, NOW).rows[0];
    assert.match(note?.fact?.reason ?? '', /^the chat did not receive the pulse; set through MCP \(claude-code.*so it went to a notification$/);
  });

  const dirs = tempDirs('lt-windows-');
  it('windows list themselves; the server finds the ones holding its directory, and a gone window counts for nothing', async () => {
    const store = dirs.freshDir();
    const me = holderFor('win-me');
    await announceWindow(store, me, [FOLDER, pathToFileURL('/other/place').toString()]);
    await announceWindow(store, { pid: 999_999_999, window: 'gone', host: me.host, boot: me.boot, start: '1' }, ['file:///work']);
    const live = await liveWindows(store, processLiveness);
    assert.deepEqual(live.map((w) => w.window), ['win-me']);
    assert.deepEqual(foldersHolding(live, '/work/app/sub'), [FOLDER]);
    assert.deepEqual(foldersHolding(live, '/work/application'), [], 'a sibling with a common prefix is not inside');
    assert.deepEqual(foldersHolding(live, '/other/place'), ['file:///other/place']);
    await withdrawWindow(store, 'win-me');
    assert.deepEqual(await liveWindows(store, processLiveness), []);
  });
});
