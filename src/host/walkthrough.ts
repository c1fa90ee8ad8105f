import * as vscode from 'vscode';
import type { ViewModel } from './viewModel';
import type { Lander } from './landing';
import type { WakeFeature } from './wakeFeature';

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

/** The demo's setting: open the walkthrough and README.md when the window opens on an empty screen. */
export const OPEN_WALKTHROUGH_SETTING = 'lifeThread.demo.openWalkthrough';

export function registerWalkthrough(context: vscode.ExtensionContext, deps: { model: ViewModel; lander: Lander; wakes: WakeFeature }): void {
  const set = new Set<string>();
  const mark = (key: string) => {
    if (set.has(key)) return;
    set.add(key);
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
    deps.model.onDidChange(check),
    deps.wakes.onDidDeliver(() => mark(WALKTHROUGH_KEYS.woken)),
    deps.lander.onDidLand((r) => r.kind !== 'none' && mark(WALKTHROUGH_KEYS.landed)),
  );
  check();
  void openOnEmptyScreen();
}

/** In the demo workspace (its settings set `lifeThread.demo.openWalkthrough`), the first screen shows the walkthrough and the README. */
async function openOnEmptyScreen(): Promise<void> {
  if (!vscode.workspace.getConfiguration().get<boolean>(OPEN_WALKTHROUGH_SETTING, false)) return;
  if (vscode.window.tabGroups.all.some((g) => g.tabs.length > 0)) return;
  const folder = vscode.workspace.workspaceFolders?.[0];
  try {
    if (folder) await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.joinPath(folder.uri, 'README.md'));
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, true);
  } catch {
    // The README or the walkthrough could not open: the first screen stays as VS Code made it.
  }
}
