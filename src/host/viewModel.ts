import * as vscode from 'vscode';
import type { FeedItem, Health, RowView, ViewState } from '../shared/protocol';

type ModelState = Omit<ViewState, 'surface'>;

/** Host-owned state of the sidebar and the panel; webviews only render what this pushes. */
export class ViewModel implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private state: ModelState;

  constructor(zone: Pick<ModelState, 'tz' | 'tzSource'>) {
    this.state = {
      ...zone,
      health: { state: 'starting', line: 'Dispatcher starting…', lastPassAt: null },
      reminders: [],
      commands: [],
      wakes: [],
      feed: [],
      storeError: null,
      focus: null,
      topic: null,
      desk: { status: null, line: 'Desk not opened in this window', pages: 0, front: null, thumbnail: null },
    };
  }

  /** The sidebar gets the desk's status line only: the thumbnail is the panel's. */
  snapshot(surface: ViewState['surface']): ViewState {
    return { ...this.state, ...(surface === 'sidebar' ? { desk: { ...this.state.desk, thumbnail: null } } : {}), surface };
  }

  get health(): Health {
    return this.state.health;
  }

  update(patch: Partial<ModelState>): void {
    this.state = { ...this.state, ...patch };
    this._onDidChange.fire();
  }

  setRows(reminders: RowView[], commands: RowView[], wakes: RowView[]): void {
    this.update({ reminders, commands, wakes });
  }

  get feed(): readonly FeedItem[] {
    return this.state.feed;
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}
