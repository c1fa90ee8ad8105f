import * as vscode from 'vscode';
import { COMMANDS } from '../shared/commands';

/** What the gate reads of the window: `vscode.window` (a test hands in the same shape). */
export interface WindowStateSource {
  readonly state: vscode.WindowState;
  readonly onDidChangeWindowState: vscode.Event<vscode.WindowState>;
}

/** Why a pulse went: the user was not at the window, clicked "Send", or left (blurred the window or went idle). */
export type FocusGo = 'away' | 'click' | 'left';

/** The user is at the window: it has the focus and they were active lately (VS Code counts ~10–40 s without input as idle). */
function atWindow(s: vscode.WindowState): boolean {
  return s.focused && s.active;
}

/**
 * Only a user's action may take the keyboard: a pulse opens the chat (which focuses its input) and its
 * landing (an editor), so while the user works in this window it waits behind "Wake ready — Send" in
 * the status bar, and goes when they click it, leave the window or go idle. When they are not at the
 * window it goes at once. The wakes stay claimed meanwhile (their heartbeat keeps them this window's).
 */
export class WakeFocusGate implements vscode.Disposable {
  private waiting: { ids: string[]; go(how: FocusGo): void }[] = [];
  private readonly item: vscode.StatusBarItem;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly source: WindowStateSource = vscode.window,
  ) {
    this.item = vscode.window.createStatusBarItem('lifeThread.wakeReady', vscode.StatusBarAlignment.Right, 101);
    this.item.name = 'Life Thread: Wake Ready';
    this.item.command = COMMANDS.sendReadyWake;
    this.sub = source.onDidChangeWindowState((s) => {
      if (!atWindow(s)) this.release('left');
    });
  }

  /** Resolves when the pulse of `ids` may go, with the reason. */
  ready(ids: readonly string[]): Promise<FocusGo> {
    if (!atWindow(this.source.state)) return Promise.resolve('away');
    return new Promise((resolve) => {
      this.waiting.push({ ids: [...ids], go: resolve });
      this.log.info(`wake ${ids.join(', ')}: ready while you work in this window; it waits for "Wake ready — Send" in the status bar, or until you leave the window or go idle`);
      this.show();
    });
  }

  /** The wakes waiting behind the status bar item. */
  waitingIds(): string[] {
    return this.waiting.flatMap((w) => w.ids);
  }

  /** The user's click on "Wake ready — Send" (or the command from the palette): every waiting pulse goes. Returns how many. */
  send(): number {
    return this.release('click');
  }

  private release(how: FocusGo): number {
    const go = this.waiting.splice(0);
    for (const w of go) w.go(how);
    this.show();
    return go.length;
  }

  private show(): void {
    const ids = this.waitingIds();
    if (ids.length === 0) {
      this.item.hide();
      return;
    }
    this.item.text = `$(bell) Wake ready — Send${ids.length > 1 ? ` (${ids.length})` : ''}`;
    this.item.tooltip = `Life Thread: ${ids.join(', ')} woke while you were working here. Send the pulse to the chat now (it takes the keyboard focus); it also goes when you leave this window or go idle.`;
    this.item.show();
  }

  dispose(): void {
    // Pulses still waiting go: their wakes are claimed, and a closing window must not keep them.
    this.release('left');
    this.sub.dispose();
    this.item.dispose();
  }
}
