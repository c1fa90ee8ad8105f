/**
 * When the chat cannot be reached for 2 minutes (here: the chat's AI features
 * are turned off, so `@life` never receives the request), the pulse goes to a notification with "Open in
 * Chat" and to the durable feed, and the wake's fact says `via: notification`, not delivered, and why.
 * Real time: the 2 minutes are the product's, not shortened.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ownerOf } from '../../../../../src/core/claim';
import { parseWakeInput } from '../../../../../src/core/wake/contract';
import { hasBrowserRunner, lifeThread, runnerAction, waitFor } from '../../../helpers';

describe('a wake whose chat cannot be reached for 2 minutes', function () {
  this.timeout(300_000);

  after(async () => {
    await vscode.workspace.getConfiguration('chat').update('disableAIFeatures', undefined, vscode.ConfigurationTarget.Global);
  });

  it('is held as unreachable, then goes to a notification and the feed, with via: notification and the reason', async () => {
    const api = await lifeThread();
    await api.ready;
    const received: string[] = [];
    api.wakes.onDidReceive((e) => received.push(...e.ids));
    await vscode.workspace.getConfiguration('chat').update('disableAIFeatures', true, vscode.ConfigurationTarget.Global);
    await new Promise((r) => setTimeout(r, 1000));

    const now = new Date();
    const parsed = parseWakeInput({ text: 'FALLBACK-UNREACHABLE check the build', delay_seconds: 1 }, { now, tz: 'UTC' });
    assert.ok(parsed.kind === 'wake');
    const row = await api.wakes.store.add(parsed, { now, owner: ownerOf(api.wakes.holder, { kind: 'window', folders: api.wakes.folders() }) });
    const rowOf = async () => (await api.wakes.store.get(row.id)) ?? assert.fail(`row ${row.id}`);
    const dump = async (err: unknown) => {
      throw new Error(`${String(err)}; row: ${JSON.stringify(await api.wakes.store.get(row.id))}`);
    };

    // First the wake waits on disk, held with its reason, and the sidebar says why.
    const held = await waitFor(async () => {
      const r = await rowOf();
      return r.status === 'held' ? r : undefined;
    }, 60_000, 'the wake held as unreachable', 250).catch(dump);
    assert.equal(held.heldReason, 'unreachable');
    assert.match(JSON.stringify(api.model.snapshot('sidebar')), /held: /);
    const firstTry = Date.now();

    // After 2 minutes of not reaching the chat: a notification instead.
    const fired = await waitFor(async () => {
      const r = await rowOf();
      return r.status === 'fired' ? r : undefined;
    }, 200_000, 'the wake fired through the fallback', 500).catch(dump);
    assert.ok(Date.now() - firstTry >= 100_000, `the fallback waited about 2 minutes (${Date.now() - firstTry} ms after the first hold)`);
    assert.equal(fired.fact?.via, 'notification');
    assert.equal(fired.fact?.delivered, false, 'a notification is not a delivery to the agent');
    assert.match(fired.fact?.reason ?? '', /did not receive the pulse for 2 minutes/);
    assert.deepEqual(received, [], '@life never had it');

    // The feed keeps the pulse (durable: feed.json in the store).
    const feed = readFileSync(join(api.storeDir, 'feed.json'), 'utf8');
    assert.ok(feed.includes(row.id), `feed.json holds the wake: ${feed.slice(0, 500)}`);
    assert.ok(feed.includes('life_wake:'), 'the feed item carries the pulse');

    // The notification, on screen with its buttons.
    if (hasBrowserRunner()) {
      // A toast hides after a while in an unfocused window; the notification centre keeps it.
      await vscode.commands.executeCommand('notifications.showList');
      await new Promise((r) => setTimeout(r, 1000));
      await runnerAction({ action: 'screenshot', name: 'host-unreachable-notification' });
    }
  });
});
