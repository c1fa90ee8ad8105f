import * as vscode from 'vscode';
import { InputError } from '../core/errors';
import { rowSentence } from '../core/rowView';
import type { ScheduleRow } from '../core/schema';
import { parseToolInput, remindInputSchema, required, scheduleInputSchema, timeoutFrom, type RemindInput, type ScheduleInput } from '../core/toolInputs';
import { validateZone } from '../core/time/zone';
import type { ScheduleFeature } from './scheduleFeature';
import { ownerZone } from './scheduleFeature';

export const TOOL_NAMES = {
  remind: 'lifethread_remind',
  schedule: 'lifethread_schedule',
} as const;

function answer(parts: string[]): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(parts.join('\n'))]);
}

function rowJson(row: ScheduleRow | ScheduleRow[]): string {
  return JSON.stringify(row, null, 2);
}

/** Bad input surfaces as an error whose message names the field and the reason (phrased for the model). */
function toToolError(err: unknown): Error {
  if (err instanceof InputError) return new Error(`Invalid input — ${err.field}: ${err.reason}`);
  return err instanceof Error ? err : new Error(String(err));
}

function zoneOf(input: { tz?: string }): string {
  return input.tz ? validateZone(input.tz, 'tz') : ownerZone();
}

/** `lifethread_remind`: one flat tool with action add | list | remove (design §2 "Tools"). */
class RemindTool implements vscode.LanguageModelTool<RemindInput> {
  constructor(private readonly feature: ScheduleFeature) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RemindInput>): vscode.PreparedToolInvocation {
    const i = options.input;
    if (i.action === 'add') {
      return {
        invocationMessage: `Adding a reminder (${i.when ?? i.cron ?? '?'})`,
        confirmationMessages: { title: 'Add a reminder?', message: new vscode.MarkdownString(`At **${i.when ?? `cron ${i.cron ?? ''}`}**, the agent will run:\n\n> ${i.text ?? ''}`) },
      };
    }
    if (i.action === 'remove') return { invocationMessage: `Removing ${i.id ?? '?'}`, confirmationMessages: { title: 'Remove a reminder?', message: `Remove ${i.id ?? '?'}?` } };
    return { invocationMessage: 'Listing reminders' };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<RemindInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      const i = parseToolInput(remindInputSchema, options.input);
      const now = new Date();
      const f = this.feature;
      await f.dispatcher.settle();
      const health = () => f.health(new Date()).line;
      if (i.action === 'list') {
        const snap = await f.store.listReminders();
        const lines = snap.rows.length ? snap.rows.map((r) => `- ${rowSentence(r, now)}`) : ['No reminders.'];
        return answer([`${snap.rows.length} reminder(s). ${health()}.`, ...lines, '', rowJson(snap.rows)]);
      }
      if (i.action === 'remove') {
        const id = required(i.id, 'id', 'to remove a reminder');
        if (!id.startsWith('r-')) throw new InputError('id', `'${id}' is not a reminder id (r-…); use lifethread_schedule for c-… rows`);
        const removed = await f.store.remove(id);
        await f.refresh();
        return answer([`Removed reminder ${id}. ${health()}.`, '', rowJson(removed)]);
      }
      const text = required(i.text, 'text', 'to add a reminder: the prompt the agent runs at the due time');
      if (!i.when && !i.cron) throw new InputError('when', "is required (or cron): words like 'in 20 minutes', 'tomorrow at 9', 'every weekday at 09:00', or ISO");
      const added = await f.store.addReminder({ text, when: i.when, cron: i.cron, tz: zoneOf(i), now });
      f.dispatcher.requestPass();
      await f.dispatcher.settle();
      await f.refresh();
      return answer([`Reminder ${added.row.id} added: ${added.description} (zone ${added.row.tz}; next run ${added.row.nextRunAt ?? '—'} UTC). ${health()}.`, '', rowJson(added.row)]);
    } catch (err) {
      throw toToolError(err);
    }
  }
}

/** `lifethread_schedule`: command rows plus move / run_now / log for any r- or c- row. */
class ScheduleTool implements vscode.LanguageModelTool<ScheduleInput> {
  constructor(private readonly feature: ScheduleFeature) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<ScheduleInput>): vscode.PreparedToolInvocation {
    const i = options.input;
    switch (i.action) {
      case 'add_command':
        return {
          invocationMessage: `Scheduling \`${i.command ?? ''}\``,
          confirmationMessages: { title: 'Schedule a shell command?', message: new vscode.MarkdownString(`Run \`${i.command ?? ''}\` **${i.when ?? `cron ${i.cron ?? ''}`}** from the workspace root (timeout ${String(i.timeout_minutes ?? 2)} min).`) },
        };
      case 'remove':
      case 'move':
      case 'run_now':
        return { invocationMessage: `${i.action} ${i.id ?? ''}`, confirmationMessages: { title: `${i.action.replace('_', ' ')} ${i.id ?? ''}?`, message: `${i.action.replace('_', ' ')} ${i.id ?? ''}${i.when ? ` → ${i.when}` : ''}${i.cron ? ` → cron ${i.cron}` : ''}` } };
      default:
        return { invocationMessage: i.action === 'log' ? `Reading the log of ${i.id ?? ''}` : 'Listing scheduled commands' };
    }
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ScheduleInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      const i = parseToolInput(scheduleInputSchema, options.input);
      const now = new Date();
      const f = this.feature;
      await f.dispatcher.settle();
      const health = () => f.health(new Date()).line;
      const timeoutMinutes = timeoutFrom(i.timeout_minutes);
      switch (i.action) {
        case 'list': {
          const snap = await f.store.listCommands();
          const lines = snap.rows.length ? snap.rows.map((r) => `- ${rowSentence(r, now)}`) : ['No scheduled commands.'];
          return answer([`${snap.rows.length} scheduled command(s). ${health()}.`, ...lines, '', rowJson(snap.rows)]);
        }
        case 'add_command': {
          const command = required(i.command, 'command', 'to add a command row');
          const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
          if (!cwd) throw new InputError('command', 'needs an open workspace folder: commands run from the workspace root');
          if (!i.when && !i.cron) throw new InputError('when', "is required (or cron): e.g. 'in 10 minutes', 'every 30m', 'every day at 02:00'");
          const added = await f.store.addCommand({ command, cwd, when: i.when, cron: i.cron, tz: zoneOf(i), now, timeoutMinutes });
          f.dispatcher.requestPass();
          await f.dispatcher.settle();
          await f.refresh();
          return answer([`Command ${added.row.id} scheduled: ${added.description} (zone ${added.row.tz}; next run ${added.row.nextRunAt ?? '—'} UTC; timeout ${added.row.timeoutMinutes} min). ${health()}.`, '', rowJson(added.row)]);
        }
        case 'remove': {
          const removed = await f.store.remove(required(i.id, 'id', 'to remove a row'));
          await f.refresh();
          return answer([`Removed ${removed.id}. ${health()}.`, '', rowJson(removed)]);
        }
        case 'move': {
          const id = required(i.id, 'id', 'to move a row');
          if (!i.when && !i.cron) throw new InputError('when', 'is required (or cron) to move a row');
          const moved = await f.store.move(id, { when: i.when, cron: i.cron, tz: zoneOf(i), now, timeoutMinutes }, { timeoutMinutes: 'timeout_minutes' });
          f.dispatcher.requestPass();
          await f.dispatcher.settle();
          await f.refresh();
          return answer([`Moved ${id}: ${moved.description} (next run ${moved.row.nextRunAt ?? '—'} UTC)${moved.running ? '. It is running now: the change applies after this run, and the run keeps its first fact' : ''}. ${health()}.`, '', rowJson(moved.row)]);
        }
        case 'run_now': {
          const id = required(i.id, 'id', 'to run a row now');
          const r = await f.store.runNow(id, now);
          f.dispatcher.requestPass();
          await f.dispatcher.settle();
          await f.refresh();
          return answer([`${id} ${r.running ? 'is running now; it runs again after this run ends (the current run keeps its first fact)' : `runs on the next pass (${now.toISOString()})`}. ${health()}.`, '', rowJson(r.row)]);
        }
        case 'log': {
          const id = required(i.id, 'id', 'to read a log');
          const row = await f.store.get(id);
          if (!row) throw new InputError('id', `no row with id ${id}`);
          const uri = vscode.Uri.joinPath(vscode.Uri.file(f.storeDir), 'logs', `${id}.log`);
          let log = '';
          try {
            log = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
          } catch {
            log = '(no run log yet)';
          }
          return answer([`Log of ${id} (last run):`, '', log, '', JSON.stringify({ id, log })]);
        }
      }
    } catch (err) {
      throw toToolError(err);
    }
  }
}

export function registerScheduleTools(context: vscode.ExtensionContext, feature: ScheduleFeature): void {
  context.subscriptions.push(
    vscode.lm.registerTool(TOOL_NAMES.remind, new RemindTool(feature)),
    vscode.lm.registerTool(TOOL_NAMES.schedule, new ScheduleTool(feature)),
  );
}
