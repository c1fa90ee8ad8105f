import * as vscode from 'vscode';
import { contrib } from './contrib';
import { InputError } from '../core/errors';
import { COMMANDS } from '../shared/commands';
import type { WakeFeature } from './wakeFeature';

/** `lifethread_sendToLifeThread`, Wake Me When Task Ends…, Pause/Resume Wakes. */
export function registerWakeSurfaces(context: vscode.ExtensionContext, wakes: WakeFeature): void {
  context.subscriptions.push(
    contrib.registerTool<Record<string, unknown>>('lifethread_sendToLifeThread', {
      prepareInvocation: (o) => {
        const i = o.input;
        if (typeof i.cancel_token === 'string' && Object.keys(i).length === 1) return { invocationMessage: `Cancelling wakes with token ${i.cancel_token}` };
        return { invocationMessage: `Asking to be woken (${String(i.when ?? 'timer')})` };
      },
      invoke: async (o) => {
        try {
          const r = await wakes.request(o.input);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.answer)]);
        } catch (err) {
          throw new Error(err instanceof InputError ? `Invalid input — ${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err));
        }
      },
    }),
    contrib.registerCommand(COMMANDS.wakeOnTaskEnd, async (args?: { jobId?: string; text?: string }) => {
      try {
        let jobId = args?.jobId;
        if (!jobId) {
          const items = [
            ...vscode.tasks.taskExecutions.map((e) => ({ label: `$(tools) ${e.task.name}`, description: 'running task', jobId: e.task.name })),
            ...vscode.window.terminals.map((t) => ({ label: `$(terminal) ${t.name}`, description: 'the next command that ends in this terminal', jobId: `terminal:${t.name}` })),
          ];
          if (!items.length) {
            void vscode.window.showInformationMessage('Life Thread: no task is running and no terminal is open. Start the job first, then ask to be woken when it ends.');
            return undefined;
          }
          const pick = await vscode.window.showQuickPick(items, { title: 'Wake Me When Task Ends…', placeHolder: 'Which job?' });
          if (!pick) return undefined;
          jobId = pick.jobId;
        }
        const text =
          args?.text ??
          (await vscode.window.showInputBox({ title: `When ${jobId} ends, the agent should…`, value: `${jobId} finished: look at the result and continue.`, ignoreFocusOut: true }));
        if (!text) return undefined;
        const r = await wakes.request({ text, when: 'job.done', job_id: jobId });
        void vscode.window.showInformationMessage(`Life Thread: ${r.text}`);
        return r.rows[0];
      } catch (err) {
        void vscode.window.showErrorMessage(`Life Thread: ${err instanceof InputError ? `${err.field}: ${err.reason}` : String(err)}`);
        return undefined;
      }
    }),
    contrib.registerCommand(COMMANDS.pauseWakes, async () => {
      await wakes.setPaused(true);
      void vscode.window.showInformationMessage('Life Thread: wakes are paused. They wait (nothing is dropped) until you run Resume Wakes.');
    }),
    contrib.registerCommand(COMMANDS.resumeWakes, async () => {
      const held = await wakes.heldCount();
      await wakes.setPaused(false);
      void vscode.window.showInformationMessage(`Life Thread: wakes resumed${held ? `; ${held} held wake(s) released` : ''}.`);
    }),
  );
}
