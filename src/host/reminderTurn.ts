import * as vscode from 'vscode';
import type { ClaimedRun } from '../core/dispatch';
import { clipMarked } from '../core/feed';
import { ANSWER_MAX, type Fact, type ReminderRow } from '../core/schema';
import { describeInstant } from '../core/time/describe';
import { pickModel, registeredTool, runAgentTurn, type TurnTool } from './agentTurn';
import type { FeedFeature } from './feedFeature';

/** A turn with no model activity for this long is cancelled (and the text is delivered as it is). */
export const TURN_IDLE_MS = 5 * 60_000;
export const TURN_MAX_MS = 15 * 60_000;

export interface DeliveredReminder {
  id: string;
  firedAt: string;
  text: string;
  viaTurn: boolean;
  error?: string;
  toolCalls: { name: string; refused: boolean }[];
}

export function reminderPrompt(row: ReminderRow, run: ClaimedRun, now: Date): string {
  return [
    'You are Life Thread\u2019s reminder agent. A reminder the user set is due now, and its text is an instruction for you to carry out now, not a message to repeat.',
    '',
    `Reminder ${row.id}, scheduled for ${describeInstant(new Date(run.scheduledFor), row.tz, now)}; the owner\u2019s time zone is ${row.tz}.`,
    '',
    'Instruction:',
    row.text,
    '',
    'Do the work with the tools you have, then answer with the message the user should read: Life Thread delivers your final answer to the user itself.',
    'Rules for this turn: do not send messages or notifications yourself, and do not create reminders or schedules. You may list reminders and remove them.',
  ].join('\n');
}

/** The tools a reminder turn gets: ours restricted to list/remove, plus every other registered tool but ours. */
export function reminderTurnTools(): TurnTool[] {
  const ours: TurnTool[] = [
    {
      name: 'lifethread_remind',
      description: 'List the user\u2019s reminders (action "list") or remove one (action "remove" with id). Adding reminders is not allowed in a reminder turn.',
      inputSchema: { type: 'object', properties: { action: { type: 'string', enum: ['list', 'remove'] }, id: { type: 'string' } }, required: ['action'] },
      async invoke(input, token) {
        const action = typeof input === 'object' && input !== null && 'action' in input ? String((input as { action: unknown }).action) : '';
        if (action !== 'list' && action !== 'remove') throw new Error(`refused: a reminder turn may only list or remove reminders, not "${action}"`);
        const r = await vscode.lm.invokeTool('lifethread_remind', { input: input as object, toolInvocationToken: undefined }, token);
        return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      },
    },
    {
      name: 'lifethread_schedule',
      description: 'List scheduled commands (action "list") or read the last log of one (action "log" with id). Scheduling is not allowed in a reminder turn.',
      inputSchema: { type: 'object', properties: { action: { type: 'string', enum: ['list', 'log'] }, id: { type: 'string' } }, required: ['action'] },
      async invoke(input, token) {
        const action = typeof input === 'object' && input !== null && 'action' in input ? String((input as { action: unknown }).action) : '';
        if (action !== 'list' && action !== 'log') throw new Error(`refused: a reminder turn may only list schedules or read a log, not "${action}"`);
        const r = await vscode.lm.invokeTool('lifethread_schedule', { input: input as object, toolInvocationToken: undefined }, token);
        return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
      },
    },
  ];
  const others = vscode.lm.tools.filter((t) => !t.name.startsWith('lifethread_')).map((t) => registeredTool(t));
  return [...ours, ...others];
}

/**
 * Fires a reminder as one agent turn in a fresh session, run by the extension (never in a chat the user
 * is working in), and delivers the turn's final text to the sidebar feed and a notification. Without a
 * model, or when the turn fails or says nothing, the reminder's own text is delivered (one attempt).
 */
export class ReminderTurns implements vscode.Disposable {
  private readonly _onDidDeliver = new vscode.EventEmitter<DeliveredReminder>();
  readonly onDidDeliver = this._onDidDeliver.event;
  private readonly cancel = new vscode.CancellationTokenSource();

  constructor(
    private readonly feed: FeedFeature,
    private readonly log: vscode.LogOutputChannel,
    private readonly openInChat: (d: DeliveredReminder) => Thenable<unknown>,
  ) {}

  deliver = async (row: ReminderRow, run: ClaimedRun): Promise<Fact> => {
    let text = '';
    let error: string | undefined;
    let toolCalls: DeliveredReminder['toolCalls'] = [];
    const picked = await pickModel().catch((err: unknown) => ({ model: undefined, reason: String(err) }));
    if (!picked.model) {
      error = picked.reason ?? 'no language model is available';
    } else {
      const cts = new vscode.CancellationTokenSource();
      const outer = this.cancel.token.onCancellationRequested(() => cts.cancel());
      let idle: NodeJS.Timeout | undefined;
      const touch = () => {
        if (idle) clearTimeout(idle);
        idle = setTimeout(() => cts.cancel(), TURN_IDLE_MS);
      };
      const max = setTimeout(() => cts.cancel(), TURN_MAX_MS);
      touch();
      try {
        const turn = await runAgentTurn({
          model: picked.model,
          messages: [vscode.LanguageModelChatMessage.User(reminderPrompt(row, run, new Date()))],
          tools: reminderTurnTools(),
          token: cts.token,
          onActivity: touch,
        });
        toolCalls = turn.toolCalls.map((c) => ({ name: `${c.name}${typeof c.input === 'object' && c.input && 'action' in c.input ? `:${String((c.input as { action: unknown }).action)}` : ''}`, refused: c.refused }));
        text = turn.text.trim();
        if (cts.token.isCancellationRequested) error = 'the turn was cancelled (no activity, or the window closed)';
        else if (!text) error = 'the model answered with no text';
      } catch (err) {
        error = `the turn failed: ${err instanceof Error ? err.message : String(err)}`;
      } finally {
        if (idle) clearTimeout(idle);
        clearTimeout(max);
        outer.dispose();
        cts.dispose();
      }
      if (picked.reason && !error) this.log.warn(picked.reason);
    }
    const viaTurn = !error && text.length > 0;
    const body = viaTurn ? text : row.text;
    if (error) this.log.warn(`reminder ${row.id}: ${error}; delivering its text as it is`);
    const delivered: DeliveredReminder = { id: row.id, firedAt: run.firedAt, text: body, viaTurn, ...(error ? { error } : {}), toolCalls };
    let shown = true;
    try {
      // Durable first (the feed in the store), then the notification.
      await this.feed.store.push({ id: `${row.id}@${run.firedAt}`, at: run.firedAt, kind: 'reminder', ref: row.id, title: viaTurn ? `Reminder ${row.id}` : `Reminder ${row.id}, as written`, body: clipMarked(body, 8000), tone: 'info' });
      void this.feed.refresh();
      const first = body.split('\n')[0] ?? body;
      void vscode.window.showInformationMessage(`Reminder: ${first.length > 200 ? `${first.slice(0, 199)}…` : first}`, 'Open in Chat').then((pick) => {
        if (pick) void this.openInChat(delivered);
      });
    } catch (err) {
      shown = false;
      error = `${error ? `${error}; ` : ''}delivery failed: ${String(err)}`;
    }
    this._onDidDeliver.fire(delivered);
    return { delivered: shown, via: 'notification', answer: clipMarked(body, ANSWER_MAX), ...(error ? { error: error.slice(0, 2000) } : {}) };
  };

  dispose(): void {
    this.cancel.cancel();
    this.cancel.dispose();
    this._onDidDeliver.dispose();
  }
}
