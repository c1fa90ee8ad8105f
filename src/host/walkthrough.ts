import { setting } from './settings';
import * as vscode from 'vscode';
import type { ViewModel } from './viewModel';
import type { Lander } from './landing';
import type { WakeFeature } from './wakeFeature';
import { commandRunning, onDidRunCommand } from './contrib';

/** The walkthrough of package.json (`contributes.walkthroughs`), as `workbench.action.openWalkthrough` names it. */
export const WALKTHROUGH_ID = 'lifethread.life-thread#lifeThread.firstFiveMinutes';

/**
 * Context keys the walkthrough's steps complete on (`completionEvents: onContext:…`): each is set when
 * the thing happened, not when a command merely ran — a reminder row exists, a command row exists, a
 * wake was delivered, a landing opened or the desk was prepared, a partition was written.
 */
export const WALKTHROUGH_KEYS = {
  reminder: 'lifeThread.walkthrough.reminder',
  command: 'lifeThread.walkthrough.command',
  woken: 'lifeThread.walkthrough.woken',
  landed: 'lifeThread.walkthrough.landed',
  partitioned: 'lifeThread.walkthrough.partitioned',
} as const;

/** The steps in package.json's order, by the key that ticks each. */
const STEPS: readonly { id: string; key: string }[] = [
  { id: 'reminder', key: WALKTHROUGH_KEYS.reminder },
  { id: 'schedule', key: WALKTHROUGH_KEYS.command },
  { id: 'wake', key: WALKTHROUGH_KEYS.woken },
  { id: 'landing', key: WALKTHROUGH_KEYS.landed },
  { id: 'partition', key: WALKTHROUGH_KEYS.partitioned },
];

export function registerWalkthrough(context: vscode.ExtensionContext, deps: { model: ViewModel; lander: Lander; wakes: WakeFeature }): void {
  const set = new Set<string>();
  const keeper = new WalkthroughKeeper(() => STEPS.find((s) => !set.has(s.key))?.id ?? STEPS[0]?.id ?? '');
  const mark = (key: string) => {
    if (set.has(key)) return;
    set.add(key);
    keeper.userWasAway();
    void vscode.commands.executeCommand('setContext', key, true);
  };
  // The topic's partition when the window opened: a sample pair that is already there does not count.
  let firstPartition: number | null | undefined;
  const check = () => {
    const s = deps.model.snapshot('panel');
    if (s.reminders.length > 0) mark(WALKTHROUGH_KEYS.reminder);
    if (s.commands.length > 0) mark(WALKTHROUGH_KEYS.command);
    if (s.desk.status !== null) mark(WALKTHROUGH_KEYS.landed);
    if (s.topic) {
      if (firstPartition === undefined) firstPartition = s.topic.state === 'approved' ? s.topic.partition : null;
      if (s.topic.state === 'review' || (s.topic.state === 'approved' && s.topic.partition !== firstPartition)) mark(WALKTHROUGH_KEYS.partitioned);
    }
  };
  context.subscriptions.push(
    keeper,
    deps.model.onDidChange(check),
    deps.wakes.onDidDeliver(() => mark(WALKTHROUGH_KEYS.woken)),
    deps.lander.onDidLand((r) => r.kind !== 'none' && mark(WALKTHROUGH_KEYS.landed)),
  );
  check();
  void openOnEmptyScreen().then((opened) => opened && keeper.opened());
}

/** In the demo workspace (its settings set `lifeThread.demo.openWalkthrough`), the first screen shows the walkthrough and the README. */
async function openOnEmptyScreen(): Promise<boolean> {
  if (!setting('demo.openWalkthrough')) return false;
  if (vscode.window.tabGroups.all.some((g) => g.tabs.length > 0)) return false;
  const folder = vscode.workspace.workspaceFolders?.[0];
  try {
    if (folder) await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(folder.uri, 'README.md'));
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, true);
    return true;
  } catch {
    // The README or the walkthrough could not open: the first screen stays as VS Code made it.
    return false;
  }
}

/** The Welcome page's tab: an editor the API cannot name (no input), titled "Welcome" or "Walkthrough: …" (English UI). */
function isWelcomeTab(tab: vscode.Tab): boolean {
  return tab.input === undefined && /^(Welcome|Walkthrough: .+)$/.test(tab.label);
}

/**
 * Keeps the Welcome page on this walkthrough when the user comes back to it. VS Code's Welcome page
 * re-applies its editor options whenever its tab is clicked, and a tab click carries no walkthrough, so
 * the page falls back to its home (the walkthrough list) — after every step, since each step's button
 * leads the user elsewhere (a quick input, the sidebar, the chat) and back through the tab. The API shows
 * that moment only as a change of the Welcome tab; one that follows the user being away (a step's
 * command run or done, another tab, another group, the window left) opens the walkthrough again at the
 * first step not done.
 * A change with no absence between is the page's own navigation (its Back button), which is left alone.
 */
class WalkthroughKeeper implements vscode.Disposable {
  /** The Welcome page shows this walkthrough, as far as can be told. */
  private ours = false;
  private away = false;
  private readonly subs: vscode.Disposable[];

  constructor(private readonly nextStep: () => string) {
    this.subs = [
      vscode.window.tabGroups.onDidChangeTabs((e) => this.onTabs(e)),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.userWasAway()),
      vscode.window.onDidChangeWindowState(() => this.userWasAway()),
      onDidRunCommand(() => this.userWasAway()),
    ];
  }

  /** Life Thread opened the walkthrough itself (the demo's first screen). */
  opened(): void {
    this.ours = true;
    this.away = false;
  }

  userWasAway(): void {
    this.away = true;
  }

  private onTabs(e: vscode.TabChangeEvent): void {
    if (e.closed.some(isWelcomeTab)) this.ours = false;
    for (const tab of [...e.opened, ...e.changed]) {
      if (!isWelcomeTab(tab)) {
        if (tab.isActive) this.userWasAway();
        continue;
      }
      // Opened from the Welcome page's list, the walkthrough titles the tab with the extension's name.
      if (tab.label.startsWith('Walkthrough: ')) this.ours = tab.label === 'Walkthrough: Life Thread';
      if (!this.ours || !this.away || !tab.isActive || tab.group !== vscode.window.tabGroups.activeTabGroup) continue;
      // A step's command is still asking (its quick input has the focus): reopening now would take the focus from it.
      if (commandRunning()) continue;
      this.away = false;
      void Promise.resolve(vscode.commands.executeCommand('workbench.action.openWalkthrough', { category: WALKTHROUGH_ID, step: this.nextStep() }, false)).catch(() => undefined);
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
