/**
 * idle_store_writes_per_hour (target 61): one idle window — nothing due within the
 * hour, nothing watched — in the real host with real timers, over at least 15 minutes of real time
 * (LIFE_THREAD_IDLE_SECONDS shortens it for a trial run; the log line says how long it counted). Every
 * file under the store counts: tables, lock records, the pulse, `windows/`, the feed. A write is seen
 * as a change of a file's inode, size or mtime, or a file appearing or going, polled every 250 ms (an
 * atomic write renames a new inode over the old one, so each is seen even when its size is the same).
 */
import * as assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { lifeThread, phaseInfo } from '../../../../../host/helpers';
import { round, writeFigures } from '../../../../figures';

type Seen = Map<string, string>;

function snapshot(dir: string, into: Seen = new Map(), rel = ''): Seen {
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, rel));
  } catch {
    return into;
  }
  for (const n of names) {
    const r = rel ? `${rel}/${n}` : n;
    try {
      const st = statSync(join(dir, r));
      if (st.isDirectory()) snapshot(dir, into, r);
      else into.set(r, `${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      // gone between readdir and stat: the next snapshot counts it
    }
  }
  return into;
}

describe('bench: an idle window writes (almost) nothing', () => {
  it('idle_store_writes_per_hour over ≥ 15 minutes of real time', async function () {
    const seconds = Number(process.env.LIFE_THREAD_IDLE_SECONDS || 900);
    this.timeout((seconds + 120) * 1000);
    const api = await lifeThread();
    // Something to keep: a reminder and a command row due in a week (not within the hour).
    await vscode.lm.invokeTool('lifethread_remind', { input: { action: 'add', text: 'idle bench: next week', when: 'in 7 days' }, toolInvocationToken: undefined });
    await vscode.lm.invokeTool('lifethread_schedule', { input: { action: 'add_command', command: 'true', when: 'in 7 days' }, toolInvocationToken: undefined });
    // Let the adds and the start settle, then count.
    await new Promise((r) => setTimeout(r, 5000));
    let prev = snapshot(api.storeDir);
    const writes = new Map<string, number>();
    const t0 = Date.now();
    while (Date.now() - t0 < seconds * 1000) {
      await new Promise((r) => setTimeout(r, 250));
      const now = snapshot(api.storeDir);
      for (const [f, sig] of now) if (prev.get(f) !== sig) writes.set(f, (writes.get(f) ?? 0) + 1);
      for (const f of prev.keys()) if (!now.has(f)) writes.set(`${f} (removed)`, (writes.get(`${f} (removed)`) ?? 0) + 1);
      prev = now;
    }
    const elapsedH = (Date.now() - t0) / 3_600_000;
    const total = [...writes.values()].reduce((a, b) => a + b, 0);
    const perHour = total / elapsedH;
    console.log(`idle ${round(elapsedH * 60, 1)} min: ${total} writes (${[...writes].map(([f, n]) => `${f} ×${n}`).join(', ') || 'none'}) → ${round(perHour, 1)}/h`);
    const info = phaseInfo();
    assert.ok(info);
    writeFigures(info.resultsDir, 'idle', {
      idle_store_writes_per_hour: { value: round(perHour, 1), unit: 'writes/h', target: 61 },
    });
  });
});
