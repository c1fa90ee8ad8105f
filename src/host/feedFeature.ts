import * as vscode from 'vscode';
import type { FeedRow } from '../core/feed';
import { FeedStore } from '../node/feed';
import type { ViewModel } from './viewModel';

/**
 * The sidebar's feed, durable (design §9 `feed.json`): what reminders answered, wakes that could not
 * reach the chat, failing commands. Every window shows the same feed, and it survives reloads.
 */
export class FeedFeature {
  readonly store: FeedStore;

  constructor(
    storeDir: string,
    private readonly model: ViewModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store = new FeedStore(storeDir);
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
      this.model.update({ feed: rows.slice(0, 50).map((r) => ({ id: r.id, at: r.at, title: r.title, body: r.body, tone: r.tone, ...(r.ref ? { ref: r.ref } : {}) })) });
    } catch (err) {
      this.log.warn(`feed: ${String(err)}`);
    }
  }

  async clear(): Promise<void> {
    await this.store.clear();
    await this.refresh();
  }
}
