import * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import type { Holder } from '../core/dispatch';
import { DispatchLoop } from '../node/dispatchLoop';
import type { Firer, FiredOutcome } from '../node/fire';
import type { ScheduleStore } from '../node/schedule';
import { StoreError } from '../node/store/errors';
import { PULSE_FILE } from '../node/store/pulse';
import { processLiveness } from '../node/liveness';
import { OWNER_FILE } from '../core/time/ownerZone';
const WATCHED = new Set(['reminders.json', 'schedule-commands.json', 'wakes.json', 'feed.json', OWNER_FILE]);

export interface DispatcherOptions {
  store: ScheduleStore;
  firer: Firer;
  holder: Holder;
  limits: () => { reminder: number; command: number };
  log: vscode.LogOutputChannel;
}

export interface DispatcherHealth {
  lastPassAt: Date | null;
  error: string | null;
  readOnly: boolean;
  nextWorkAt: Date | null;
}

/**
 * The dispatcher in a window: the DispatchLoop plus what only the host has — a watch on the table
 * files (changes by another window or the CLI re-arm at once; the pulse file is not watched), events
 * for the views, and one clear error message per distinct failure.
 */
export class Dispatcher implements vscode.Disposable {
  private readonly loop: DispatchLoop;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidFire = new vscode.EventEmitter<FiredOutcome>();
  private readonly _onDidChangeFile = new vscode.EventEmitter<string>();
  /** A table, the feed or owner.json changed on disk (another window, the CLI, or this one). */
  readonly onDidChangeFile = this._onDidChangeFile.event;
  readonly onDidFire = this._onDidFire.event;
  private lastErrorShown: string | null = null;

  constructor(private readonly opts: DispatcherOptions) {
    const { log } = opts;
    this.loop = new DispatchLoop({
      store: opts.store,
      firer: opts.firer,
      holder: opts.holder,
      limits: opts.limits,
      alive: processLiveness,
      folders: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()),
      onPass: (outcome) => {
        this.lastErrorShown = null;
        for (const m of [...outcome.reminders.missed, ...outcome.commands.missed]) log.warn(`${m.id} missed its run of ${m.scheduledFor} (${Math.round(m.lateMs / 60000)} min late)`);
        for (const id of [...outcome.reminders.interrupted, ...outcome.commands.interrupted]) log.warn(`${id}: its run was interrupted (its holder is gone)`);
        for (const run of [...outcome.reminders.claimed, ...outcome.commands.claimed]) log.info(`firing ${run.id} (scheduled ${run.scheduledFor}, ${run.lateMs} ms late)`);
      },
      onFired: (outcome) => {
        if (!outcome.recorded) log.info(`${outcome.id}: fact not recorded (row removed or claim lost)`);
        this._onDidFire.fire(outcome);
      },
      onError: (err) => this.showError(err),
      onSettled: () => this._onDidChange.fire(),
    });
  }

  get health(): DispatcherHealth {
    const err = this.loop.lastError;
    return {
      lastPassAt: this.loop.lastPassAt,
      error: err ? (err instanceof Error ? err.message : String(err)) : null,
      readOnly: err instanceof StoreError && (err.code === 'newer' || err.code === 'corrupt' || err.code === 'shape' || err.code === 'too_large'),
      nextWorkAt: this.loop.nextWorkAt,
    };
  }

  get runningCount(): number {
    return this.loop.runningCount;
  }

  start(): void {
    this.watchStore();
    this.loop.start();
  }

  requestPass(): void {
    this.loop.requestPass();
  }

  settle(): Promise<void> {
    return this.loop.settle();
  }

  private showError(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.opts.log.error(`dispatcher: ${message}`);
    if (this.lastErrorShown === message) return;
    this.lastErrorShown = message;
    void vscode.window.showErrorMessage(`Life Thread: the schedule cannot be used — ${message}`, 'Open Doctor').then((pick) => {
      if (pick) void vscode.commands.executeCommand('lifeThread.doctor');
    });
  }

  private watchStore(): void {
    try {
      this.watcher = watch(this.opts.store.dir, (_event, filename) => {
        const name = filename?.toString();
        // Never our own pulse file: touching it every pass would wake us in a loop.
        if (!name || name === PULSE_FILE || !WATCHED.has(name)) return;
        this._onDidChangeFile.fire(name);
        // The owner's zone is not a table: nothing to dispatch.
        if (name === OWNER_FILE) return;
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.loop.requestPass(), 30);
      });
      this.watcher.on('error', (err) => this.opts.log.warn(`store watcher: ${String(err)}`));
    } catch (err) {
      this.opts.log.warn(`cannot watch the store (${String(err)}); the 60 s pass still catches changes`);
    }
  }

  dispose(): void {
    this.loop.stop();
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
    this._onDidChange.dispose();
    this._onDidFire.dispose();
    this._onDidChangeFile.dispose();
  }
}
