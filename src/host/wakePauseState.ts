import * as vscode from 'vscode';
import { watch, type FSWatcher } from 'node:fs';
import { readWakesPaused, WAKE_PAUSE_FILE, writeWakesPaused } from '../node/wakePause';

/** Earlier versions kept the pause in globalState; it is still read when the store has no pause file. */
const PAUSED_KEY = 'lifeThread.wakesPaused';
/** A watch can miss an event on some file systems: the file is also re-read this often. */
const RECHECK_MS = 10_000;

/**
 * The one pause of every window of a store: read from the store's pause file (src/node/wakePause.ts)
 * whenever asked, and watched, so a pause or a resume by another window or the CLI reaches this
 * window's sidebar, status bar, Doctor and held wakes within a second.
 */
export class WakePauseState implements vscode.Disposable {
  private last: boolean;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private readonly _onDidChange = new vscode.EventEmitter<boolean>();
  /** Fires with the new pause when it changed, whoever changed it. */
  readonly onDidChange = this._onDidChange.event;

  constructor(
    private readonly dir: string,
    private readonly legacy: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.last = this.paused;
  }

  get paused(): boolean {
    return readWakesPaused(this.dir) ?? this.legacy.get<boolean>(PAUSED_KEY) ?? false;
  }

  start(): void {
    try {
      this.watcher = watch(this.dir, (_event, name) => {
        if (name?.toString() !== WAKE_PAUSE_FILE) return;
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => this.check(), 30);
      });
      this.watcher.on('error', (err) => this.log.warn(`pause watcher: ${String(err)}`));
    } catch (err) {
      this.log.warn(`cannot watch the pause file (${String(err)}); it is re-read every ${RECHECK_MS / 1000} s`);
    }
    this.recheck = setInterval(() => this.check(), RECHECK_MS);
    this.check();
  }

  async set(paused: boolean): Promise<void> {
    await writeWakesPaused(this.dir, paused);
    await this.legacy.update(PAUSED_KEY, paused);
    this.check();
  }

  private check(): void {
    const now = this.paused;
    if (now === this.last) return;
    this.last = now;
    this._onDidChange.fire(now);
  }

  dispose(): void {
    if (this.debounce) clearTimeout(this.debounce);
    if (this.recheck) clearInterval(this.recheck);
    this.watcher?.close();
    this._onDidChange.dispose();
  }
}
