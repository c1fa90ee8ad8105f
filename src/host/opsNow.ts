import * as vscode from 'vscode';
import { diskFolderPaths } from './diskFolders';
import { sep } from 'node:path';
import type { OpsInput } from '../core/continuity/ops';
import { opsFacts } from '../core/opsFacts';
import { summarize } from '../core/summary';
import { gitState, type StateOptions } from '../node/git';
import { readLog } from '../node/jobLog';
import type { ScheduleStore } from '../node/schedule';
import type { WakeStore } from '../node/wakes';
import { setting } from './settings';
import { ownerZone } from './scheduleFeature';

/** The few parts of the built-in git extension's API read here. */
interface GitApi {
  readonly repositories: readonly { readonly rootUri: vscode.Uri }[];
}

/** Git options: the continuity folder left out of the dirty set; a repository above the workspace only when VS Code opens it too. */
export function gitOptions(root: string | undefined, folder: string): StateOptions {
  const ignore = [folder];
  if (!root) return { ignore };
  return {
    ignore,
    acceptRoot: (repoRoot) => {
      if (repoRoot === root || repoRoot.startsWith(`${root}${sep}`)) return true;
      if (vscode.workspace.getConfiguration('git').get<string>('openRepositoryInParentFolders') === 'always') return true;
      const git = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
      return git?.isActive === true && git.exports.getAPI(1).repositories.some((r) => r.rootUri.fsPath === repoRoot);
    },
  };
}

/** Where Handover ops' facts are read from: the workspace, its continuity folder and the store. */
export interface OpsSources {
  root: string | undefined;
  folder: string;
  schedule: ScheduleStore;
  storeDir: string;
  wakes: WakeStore;
  log: vscode.LogOutputChannel;
}

/** Handover ops' inputs as of now: git, open editors, tasks, and the open items and first moves from the store's rows. */
export async function opsInputNow(src: OpsSources, topic: string, next: readonly string[]): Promise<Omit<OpsInput, 'topic' | 'partition'>> {
  const root = src.root ?? '';
  const repo = root ? await gitState(root, gitOptions(src.root, src.folder)).catch(() => null) : null;
  const openEditors = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input instanceof vscode.TabInputText ? vscode.workspace.asRelativePath(t.input.uri) : t.label));
  const tasks = vscode.tasks.taskExecutions.map((e) => e.task.name);
  const unreadable = (what: string) => (err: unknown) => {
    src.log.warn(`ops: ${what} unreadable: ${String(err)}`);
    return [];
  };
  const [reminders, commands, wakes] = await Promise.all([
    src.schedule.listReminders().then((t) => t.rows, unreadable('reminders')),
    src.schedule.listCommands().then((t) => t.rows, unreadable('commands')),
    src.wakes.list().catch(unreadable('wakes')),
  ]);
  const summaries: Record<string, string> = {};
  for (const c of commands) {
    if (c.fact && c.fact.exitCode !== 0 && !c.claim) {
      const log = await readLog(src.storeDir, c.id).catch(() => null);
      if (log) summaries[c.id] = summarize(log);
    }
  }
  const folders = diskFolderPaths();
  const now = new Date();
  const facts = opsFacts({ topic, folders, reminders, commands, wakes, tasks, summaries, next, dirty: repo?.dirty ?? [], now, tz: ownerZone() });
  return { now, ttlHours: setting('continuity.opsTtlHours'), repo, openEditors, runningTasks: tasks, openItems: facts.openItems, firstMoves: facts.firstMoves };
}
