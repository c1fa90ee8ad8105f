import * as vscode from 'vscode';
import { contrib } from './contrib';
import { InputError } from '../core/errors';
import { COMMANDS } from '../shared/commands';
import type { WakeFeature } from './wakeFeature';
import { WAKE_TOOL } from './agentTurn';
import { LIFE_CALL_KEY, senderOfToolCall } from '../node/tools/lifeCalls';

/** `lifethread_sendToLifeThread`, Wake Me When Task Ends…, Pause/Resume Wakes. */
export function registerWakeSurfaces(context: vscode.ExtensionContext, wakes: WakeFeature): void {
  context.subscriptions.push(
    contrib.registerTool<Record<string, unknown>>(WAKE_TOOL, {
      prepareInvocation: (o) => {
        const i = withoutKey(o.input);
        if (typeof i.cancel_token === 'string' && Object.keys(i).length === 1) return { invocationMessage: `Cancelling wakes with token ${i.cancel_token}` };
        return { invocationMessage: `Asking to be woken (${String(i.when ?? 'timer')})` };
      },
      invoke: async (o) => {
        try {
          // `@life`'s own loop marks its calls; any other chat request's call (Agent mode's) is the agent's.
          const call = senderOfToolCall(o.input, o.toolInvocationToken !== undefined);
          const r = await wakes.request(call.input, undefined, call.sender);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.answer)]);
        } catch (err) {
          throw new Error(err instanceof InputError ? `Invalid input — ${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err));
        }
      },
    }),
    contrib.registerCommand(COMMANDS.wakeOnTaskEnd, async (args?: { jobId?: string; text?: string; task?: string }) => {
      try {
        let jobId = args?.jobId;
        let toStart: vscode.Task | undefined;
        if (args?.task !== undefined) {
          // { task: name }: start the workspace's defined task of that name and wake when it ends.
          const name = args.task;
          toStart = (await vscode.tasks.fetchTasks()).find((t) => t.name === name);
          if (!toStart) throw new InputError('task', `this workspace defines no task named ${JSON.stringify(name)}`);
          jobId = toStart.name;
        } else if (!jobId) {
          const pick = await pickJob();
          if (!pick) return undefined;
          jobId = pick.jobId;
          toStart = pick.task;
        }
        const text =
          args?.text ??
          (await vscode.window.showInputBox({
            title: `When ${jobEnds(jobId)}, the agent should…`,
            value: `${jobId} finished: look at the result and continue.`,
            prompt: toStart ? `Enter sets the wake and starts the task ${toStart.name}; Escape sets nothing.` : 'Enter sets the wake; Escape sets nothing.',
            ignoreFocusOut: true,
          }));
        if (!text) return undefined;
        // The wake first, then the task: a wake waits for a job that has not started yet, and a quick task cannot end unseen.
        const r = await wakes.request({ text, when: 'job.done', job_id: jobId });
        if (toStart) {
          try {
            await vscode.tasks.executeTask(toStart);
          } catch (err) {
            const row = r.rows[0];
            if (row) await wakes.cancel(row.id).catch(() => undefined);
            throw new Error(`the task ${toStart.name} did not start (${err instanceof Error ? err.message : String(err)}); the wake on it is cancelled`);
          }
        }
        void vscode.window.showInformationMessage(`Life Thread: ${toStart ? `started the task ${toStart.name}. ` : ''}${r.text}`);
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
    contrib.registerCommand(COMMANDS.sendReadyWake, () => {
      const sent = wakes.focus.send();
      if (sent === 0) void vscode.window.showInformationMessage('Life Thread: no wake is waiting to be sent.');
      return sent;
    }),
    contrib.registerCommand(COMMANDS.resumeWakes, async () => {
      const held = await wakes.heldCount();
      await wakes.setPaused(false);
      void vscode.window.showInformationMessage(`Life Thread: wakes resumed${held ? `; ${held} held wake(s) released` : ''}.`);
    }),
  );
}

/** The input as the caller wrote it, without `@life`'s key. */
function withoutKey(input: Record<string, unknown>): Record<string, unknown> {
  const { [LIFE_CALL_KEY]: _key, ...rest } = input;
  return rest;
}

interface JobPick extends vscode.QuickPickItem {
  jobId: string;
  /** A defined task that is not running: picking it starts it. */
  task?: vscode.Task;
}

/**
 * What a wake can wait on: running tasks, the workspace's defined tasks (started when picked; job_id is
 * the task's name), and the next command that ends in an open terminal.
 */
async function pickJob(): Promise<JobPick | undefined> {
  const running = vscode.tasks.taskExecutions.map((e) => e.task.name);
  const defined = await vscode.tasks.fetchTasks().then(
    (tasks) => tasks.filter((t) => !running.includes(t.name)),
    (): vscode.Task[] => [],
  );
  const seen = new Set<string>();
  const items: JobPick[] = [
    ...running.map((name) => ({ label: `$(sync~spin) ${name}`, description: 'running task: wake when it ends', jobId: name })),
    ...defined
      .filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true)))
      .map((t) => ({ label: `$(play) ${t.name}`, description: `${t.source} task: start it and wake when it ends`, jobId: t.name, task: t })),
    ...vscode.window.terminals.map((t) => ({ label: `$(terminal) ${t.name}`, description: 'the next command that ends in this terminal', jobId: `terminal:${t.name}` })),
  ];
  if (!items.length) {
    void vscode.window.showInformationMessage('Life Thread: this workspace defines no task, none is running and no terminal is open. Define a task (Terminal → Configure Tasks…) or open a terminal, then ask to be woken when it ends.');
    return undefined;
  }
  // Kept open when the focus moves (as the next box is): a task starting, a page re-rendering or a click
  // elsewhere must not throw away a choice half made; Escape still closes it.
  return vscode.window.showQuickPick(items, { title: 'Wake Me When Task Ends…', placeHolder: 'Which job? A task that is not running yet is started.', ignoreFocusOut: true });
}

/** "tests end", "build ends": a job named like a plural ("tests", "checks", not "class") takes "end". */
function jobEnds(jobId: string): string {
  return /[^s]s$/i.test(jobId) ? `${jobId} end` : `${jobId} ends`;
}
