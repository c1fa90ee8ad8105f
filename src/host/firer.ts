import * as vscode from 'vscode';
import type { ClaimedRun } from '../core/dispatch';
import type { CommandRow, Fact, ReminderRow } from '../core/schema';
import type { Firer } from '../node/fire';
import type { ViewModel } from './viewModel';

/** How a fired reminder reaches the user; the agent-turn version replaces the as-is one (firing issue). */
export type ReminderDelivery = (row: ReminderRow, run: ClaimedRun) => Promise<Fact>;
export type CommandJob = (row: CommandRow, run: ClaimedRun) => Promise<Fact>;

/**
 * Delivers a reminder's text as it is: a notification (with "Open in Chat") and a feed entry.
 * `delivered` records that both were handed to VS Code.
 */
export function deliverAsIs(model: ViewModel, openInChat: (text: string) => Thenable<unknown>): ReminderDelivery {
  return async (row, run) => {
    model.pushFeed({ id: `${row.id}@${run.firedAt}`, at: run.firedAt, title: `Reminder ${row.id}`, body: row.text, tone: 'info' });
    void vscode.window.showInformationMessage(`Reminder: ${row.text}`, 'Open in Chat').then((pick) => {
      if (pick) void openInChat(row.text);
    });
    return { delivered: true, via: 'notification' };
  };
}

export class HostFirer implements Firer {
  constructor(
    private readonly deliverReminder: ReminderDelivery,
    private readonly runCommand: CommandJob,
  ) {}

  reminder(row: ReminderRow, run: ClaimedRun): Promise<Fact> {
    return this.deliverReminder(row, run);
  }

  command(row: CommandRow, run: ClaimedRun): Promise<Fact> {
    return this.runCommand(row, run);
  }
}
