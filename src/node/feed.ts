/** The durable feed (`feed.json` beside the tables) under the store's lock. */
import { feedRowSchema, pushFeed, type FeedRow } from '../core/feed';
import { Table } from './store/table';

export class FeedStore {
  readonly table: Table<FeedRow>;

  constructor(dir: string) {
    this.table = new Table<FeedRow>({ dir, name: 'feed', rowSchema: feedRowSchema });
  }

  async push(item: FeedRow, now = new Date()): Promise<void> {
    await this.table.update((rows) => ({ rows: pushFeed(rows, item, now), result: undefined }));
  }

  /** Newest first. */
  async list(): Promise<FeedRow[]> {
    return (await this.table.read()).rows;
  }

  async clear(): Promise<void> {
    await this.table.update(() => ({ rows: [], result: undefined }));
  }
}
