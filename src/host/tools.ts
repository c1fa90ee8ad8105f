import * as vscode from 'vscode';
import { firstDiskFolder } from './diskFolders';
import { contrib } from './contrib';
import { InputError } from '../core/errors';
import type { RemindInput, ScheduleInput } from '../core/toolInputs';
import { whenConfirmation } from '../core/time/when';
import { remindTool, scheduleTool, type ScheduleToolHost } from '../node/tools/scheduleTools';
import { ShownTimes } from '../core/time/shownTimes';
import type { ScheduleFeature } from './scheduleFeature';
import { ownerZone, windowOwner } from './scheduleFeature';
import { zoneForAnswer } from './ownerZone';

export const TOOL_NAMES = {
  remind: 'lifethread_remind',
  schedule: 'lifethread_schedule',
} as const;

function answer(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/** Bad input surfaces as an error whose message names the field and the reason (phrased for the model). */
function toToolError(err: unknown): Error {
  if (err instanceof InputError) return new Error(`Invalid input — ${err.field}: ${err.reason}`);
  return err instanceof Error ? err : new Error(String(err));
}

/** The window as the host of the shared tools (src/node/tools/scheduleTools.ts): its dispatcher, folder and zone. */
function windowHost(f: ScheduleFeature): ScheduleToolHost {
  return {
    store: f.store,
    now: () => new Date(),
    zone: () => zoneForAnswer(),
    owner: windowOwner(),
    health: () => f.health(new Date()).line,
    envPath: process.env.PATH,
    cwd: () => {
      const f = firstDiskFolder();
      return 'path' in f ? { dir: f.path } : { missing: `needs ${f.missing}: commands run from the workspace root` };
    },
    settle: () => f.dispatcher.settle(),
    changed: async () => {
      f.dispatcher.requestPass();
      await f.dispatcher.settle();
      await f.refresh();
    },
  };
}

/** The instant each confirmation read its words at: the call stores what the user allowed (src/core/time/shownTimes.ts). */
const shown = new ShownTimes();

/** Remembers when this confirmation reads the words and returns that instant. */
function confirmNow(tool: string, input: unknown): Date {
  const at = new Date();
  shown.remember(tool, input, at);
  return at;
}

/** The call's `tz`, else the owner's zone: the confirmation reads the words as the call will. */
function zoneOfCall(i: { tz?: string | undefined }): string {
  return i.tz ?? ownerZone();
}

/** `lifethread_remind`: one flat tool with action add | list | remove. */
class RemindTool implements vscode.LanguageModelTool<RemindInput> {
  constructor(private readonly feature: ScheduleFeature) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RemindInput>): vscode.PreparedToolInvocation {
    const i = options.input;
    if (i.action === 'add') {
      const at = confirmNow(TOOL_NAMES.remind, i);
      return {
        invocationMessage: `Adding a reminder (${i.when ?? i.cron ?? '?'})`,
        confirmationMessages: { title: 'Add a reminder?', message: new vscode.MarkdownString(`**${whenConfirmation(i, zoneOfCall(i), 'reminder', at)}**, the agent will run:\n\n> ${i.text ?? ''}`) },
      };
    }
    if (i.action === 'remove') return { invocationMessage: `Removing ${i.id ?? '?'}`, confirmationMessages: { title: 'Remove a reminder?', message: `Remove ${i.id ?? '?'}?` } };
    return { invocationMessage: 'Listing reminders' };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<RemindInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      return answer(await remindTool(options.input, windowHost(this.feature), { shownAt: shown.take(TOOL_NAMES.remind, options.input, new Date()) }));
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
      case 'add_command': {
        const at = confirmNow(TOOL_NAMES.schedule, i);
        return {
          invocationMessage: `Scheduling \`${i.command ?? ''}\``,
          confirmationMessages: { title: 'Schedule a shell command?', message: new vscode.MarkdownString(`Run \`${i.command ?? ''}\` **${whenConfirmation(i, zoneOfCall(i), 'command', at)}** from the workspace root (timeout ${String(i.timeout_minutes ?? 2)} min).`) },
        };
      }
      case 'remove':
      case 'move':
      case 'run_now': {
        const at = i.action === 'move' ? confirmNow(TOOL_NAMES.schedule, i) : new Date();
        return { invocationMessage: `${i.action} ${i.id ?? ''}`, confirmationMessages: { title: `${i.action.replace('_', ' ')} ${i.id ?? ''}?`, message: `${i.action.replace('_', ' ')} ${i.id ?? ''}${i.when || i.cron ? ` → ${whenConfirmation(i, zoneOfCall(i), i.id?.startsWith('c-') ? 'command' : 'reminder', at)}` : ''}` } };
      }
      default:
        return { invocationMessage: i.action === 'log' ? `Reading the log of ${i.id ?? ''}` : 'Listing scheduled commands' };
    }
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<ScheduleInput>): Promise<vscode.LanguageModelToolResult> {
    try {
      const i = options.input;
      const shownAt = i.action === 'add_command' || i.action === 'move' ? shown.take(TOOL_NAMES.schedule, i, new Date()) : undefined;
      return answer(await scheduleTool(i, windowHost(this.feature), { shownAt }));
    } catch (err) {
      throw toToolError(err);
    }
  }
}

export function registerScheduleTools(context: vscode.ExtensionContext, feature: ScheduleFeature): void {
  context.subscriptions.push(
    contrib.registerTool(TOOL_NAMES.remind, new RemindTool(feature)),
    contrib.registerTool(TOOL_NAMES.schedule, new ScheduleTool(feature)),
  );
}
