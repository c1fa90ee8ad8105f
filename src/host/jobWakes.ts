import type * as vscode from 'vscode';
import type { WakeRow } from '../core/wake/row';
import { WINDOW_ID } from './settings';
import type { JobEndEvent } from './triggers';

/**
 * `terminal:<name>` wakes bound to the terminal that had the name when the wake was set; a wake set
 * on a name no terminal had yet binds to the next terminal opened with that name.
 */
export class TerminalWakes {
  private readonly bound = new Map<string, vscode.Terminal>();
  private readonly pendingNames = new Map<string, string>();

  bind(id: string, t: vscode.Terminal): void {
    this.bound.set(id, t);
  }

  bindNext(id: string, name: string): void {
    this.pendingNames.set(id, name);
  }

  /** A terminal opened: the wakes waiting for its name bind to it. */
  opened(t: vscode.Terminal): void {
    for (const [id, name] of this.pendingNames) {
      if (t.name !== name) continue;
      this.bound.set(id, t);
      this.pendingNames.delete(id);
    }
  }

  /** The wake fired: its terminal is no longer watched for it. */
  unbind(id: string): void {
    this.bound.delete(id);
  }

  forget(id: string): void {
    this.bound.delete(id);
    this.pendingNames.delete(id);
  }

  terminalOf(id: string): vscode.Terminal | undefined {
    return this.bound.get(id);
  }
}

/** Which pending wakes a job's end fires in this window: its job id, and a window's own tasks and terminals. */
export function jobMatcher(job: JobEndEvent, eligible: (r: WakeRow) => boolean, terminals: TerminalWakes): (r: WakeRow) => boolean {
  return (r) => {
    if (r.status !== 'pending' || r.when !== 'job.done' || r.jobId === undefined || !eligible(r)) return false;
    if (job.source === 'command') return r.jobId === job.jobId;
    // Task and terminal wakes set in a window bind to the job as that window sees it.
    const watcher = r.owner?.window ?? r.window;
    if (watcher !== undefined && watcher !== WINDOW_ID.slice(0, 80)) return false;
    if (job.source === 'terminal') {
      const bound = terminals.terminalOf(r.id);
      if (bound) return bound === job.terminal;
      return r.jobId === job.jobId || (job.terminal !== undefined && r.jobId === `terminal:${job.terminal.name}`);
    }
    return r.jobId === job.jobId;
  };
}
