import * as vscode from 'vscode';
import type { FeedRow } from '../core/feed';
import { FeedStore } from '../node/feed';
import type { ViewModel } from './viewModel';
import { ownerZone } from './scheduleFeature';
import { describeInstant } from '../core/time/describe';
import { readablePulse } from '../core/wake/pulseWords';

/**
 * The sidebar's feed, durable (`feed.json` in the store): what reminders answered, wakes that could not
 * reach the chat, failing commands. Every window shows the same feed, and it survives reloads.
 */
export class FeedFeature implements vscode.Disposable {
  readonly store: FeedStore;

  constructor(
    storeDir: string,
    private readonly model: ViewModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store = new FeedStore(storeDir);
  }

  /** Reads the feed; its "2 min ago" words are re-read by the views' ticker (src/node/viewTicker.ts, wired in src/host/extension.ts). */
  async start(): Promise<void> {
    await this.refresh();
  }

  dispose(): void {
    // Nothing held: the feed keeps no timer of its own.
  }

  async push(item: FeedRow): Promise<void> {
    try {
      await this.store.push(item);
    } catch (err) {
      this.log.error(`feed: could not keep "${item.title}": ${String(err)}`);
    }
    await this.refresh();
  }

  async refresh(): Promise<void> {
    try {
      const rows = await this.store.list();
      const now = new Date();
      const tz = ownerZone();
      // People read the feed: a pulse as plain lines, the time in the owner's zone.
      this.model.update({ feed: rows.slice(0, 50).map((r) => ({ id: r.id, at: describeInstant(new Date(r.at), tz, now), title: r.title, body: readablePulse(r.body), tone: r.tone, ...(r.ref ? { ref: r.ref } : {}) })) });
    } catch (err) {
      this.log.warn(`feed: ${String(err)}`);
    }
  }

  async clear(): Promise<void> {
    await this.store.clear();
    await this.refresh();
  }
}
