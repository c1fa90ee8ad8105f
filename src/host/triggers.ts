import * as vscode from 'vscode';
import { firstDiskFolderPath } from './diskFolders';
import { LogCap } from '../core/logcap';
import { readOutput, type JobOutput } from '../core/wake/pulse';
import { setting } from './settings';
import { isOfflineModel } from './offlineModel';
import { mark, newTrace, type WakeTrace } from '../core/wake/trace';

/** A job's end as the wake sees it, from a task, a terminal command or a command row. */
export interface JobEndEvent {
  source: 'task' | 'terminal' | 'command';
  jobId: string;
  exitCode: number | undefined;
  /** A command row our timeout killed, or one the window stopped mid-run (src/core/wake/jobStatus.ts). */
  timedOut?: boolean;
  interrupted?: boolean;
  /** When the job ended (ms); time-to-report-locus counts from here. */
  endedAt: number;
  /** The job's output as read once at its source: plain text, summary, summary line (empty when none could be read). */
  output: JobOutput;
  /** A file holding the job's log, when there is one (command rows). */
  logPath?: string;
  commandLine?: string;
  /** A terminal command: the terminal it ran in (its name may have changed while it ran). */
  terminal?: vscode.Terminal;
  /** A terminal command: the terminal's name when the command started. */
  terminalName?: string;
  /** Where the job ran: relative paths in its output are read from here. */
  cwd?: string;
  /** The timings of the wake's way from `endedAt` (tasks and terminals). */
  trace?: WakeTrace;
}

/** One command in a terminal, its output read as it runs. */
interface ShellRun {
  cap: LogCap;
  /** The terminal's name when the command started. */
  name: string;
  pid?: number;
  cwd?: string;
  /** The output stream has ended. */
  done: boolean;
  endedAt?: number;
  exitCode?: number;
}

export type TriggerEvent = { kind: 'job.done'; job: JobEndEvent } | { kind: 'presence.online'; why: string; at: number } | { kind: 'scm.changed'; repo: string; what: string; at: number };

const TAIL_CHARS = 64 * 1024;

/**
 * The sources of wakes in this window: VS Code tasks, terminal commands (shell
 * integration), the user coming back (focus after being away, a model available again) and the
 * built-in git extension's repository state. Progress is never an event: only ends and returns are.
 */
export class Triggers implements vscode.Disposable {
  private readonly _onDidTrigger = new vscode.EventEmitter<TriggerEvent>();
  readonly onDidTrigger = this._onDidTrigger.event;
  private readonly subs: vscode.Disposable[] = [];
  private readonly outputs = new Map<vscode.TerminalShellExecution, ShellRun>();
  /** Shell runs that ended lately, for the task whose terminal ran them. */
  private readonly recentRuns: { run: ShellRun; terminal: vscode.Terminal }[] = [];
  private readonly taskPids = new Map<vscode.TaskExecution, number>();
  /** A shell run ended, or its output stream did. */
  private readonly _runsChanged = new vscode.EventEmitter<void>();
  private awaySince: number | undefined;
  private hadModels = true;
  private readonly repoState = new Map<string, string>();
  /** Task names and terminal names seen running, for "does this job exist?" */
  readonly running = new Set<string>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  start(): void {
    this.subs.push(
      vscode.tasks.onDidStartTaskProcess((e) => {
        this.running.add(e.execution.task.name);
        this.taskPids.set(e.execution, e.processId);
      }),
      vscode.tasks.onDidEndTaskProcess((e) => void this.taskEnded(e)),
      vscode.window.onDidStartTerminalShellExecution((e) => this.shellStarted(e)),
      vscode.window.onDidEndTerminalShellExecution((e) => this.shellEnded(e)),
      vscode.window.onDidChangeWindowState((s) => this.onWindowState(s)),
      vscode.lm.onDidChangeChatModels(() => void this.onModels()),
    );
    void vscode.lm.selectChatModels().then((m) => (this.hadModels = m.some((x) => !isOfflineModel(x))));
    void this.watchGit();
  }

  /**
   * A shell command started in a terminal — a user's command, or a shell task (its terminal has shell
   * integration too). Its output is read from the start: output not read at once is lost.
   */
  private shellStarted(e: vscode.TerminalShellExecutionStartEvent): void {
    this.running.add(`terminal:${e.terminal.name}`);
    const cap = new LogCap(TAIL_CHARS);
    const started: ShellRun = { cap, name: e.terminal.name, done: false, ...(e.execution.cwd ? { cwd: e.execution.cwd.fsPath } : {}) };
    this.outputs.set(e.execution, started);
    void Promise.resolve(e.terminal.processId).then((pid) => (started.pid = pid));
    void (async () => {
      try {
        for await (const chunk of e.execution.read()) cap.push(chunk);
      } catch {
        // the stream ends with the command
      }
      started.done = true;
      this._runsChanged.fire();
    })();
  }

  private shellEnded(e: vscode.TerminalShellExecutionEndEvent): void {
    const started = this.outputs.get(e.execution);
    this.outputs.delete(e.execution);
    const name = started?.name ?? e.terminal.name;
    this.running.delete(`terminal:${name}`);
    this.running.delete(`terminal:${e.terminal.name}`);
    const endedAt = Date.now();
    const run: ShellRun = started ?? { cap: new LogCap(TAIL_CHARS), name, done: true };
    run.endedAt = endedAt;
    run.exitCode = e.exitCode;
    this.recentRuns.push({ run, terminal: e.terminal });
    if (this.recentRuns.length > 20) this.recentRuns.shift();
    this._runsChanged.fire();
    // Let the output stream deliver its last chunk before the tail is taken (at most 50 ms).
    void this.until(() => run.done, endedAt + 50).then(() => {
      // A task's command is the task's job: its end is reported with the task's (taskEnded).
      if (this.isTaskTerminal(run, e.terminal)) return;
      const trace = newTrace(endedAt);
      mark(trace, 'output', Date.now());
      this.fire({
        kind: 'job.done',
        job: {
          source: 'terminal',
          jobId: `terminal:${name}`,
          exitCode: e.exitCode,
          endedAt,
          output: readOutput(run.cap.toString(), { truncated: false }),
          commandLine: e.execution.commandLine.value,
          terminal: e.terminal,
          terminalName: name,
          ...(run.cwd ? { cwd: run.cwd } : {}),
          trace,
        },
      });
    });
  }

  /** Resolves when `ready()` holds (looked at whenever a shell run or its output ends) or at `deadline`. */
  private async until(ready: () => boolean, deadline: number): Promise<void> {
    while (!ready() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          sub.dispose();
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        const sub = this._runsChanged.event(done);
      });
    }
  }

  private isTaskTerminal(run: ShellRun, terminal: vscode.Terminal): boolean {
    const pids = new Set(this.taskPids.values());
    return (run.pid !== undefined && pids.has(run.pid)) || vscode.tasks.taskExecutions.some((x) => x.task.name === terminal.name);
  }

  /**
   * A task ended: its output is the shell execution of the terminal that ran it (matched by the shell's
   * process id, else by the terminal's name), which may end a moment before or after the task's process.
   */
  private async taskEnded(e: vscode.TaskProcessEndEvent): Promise<void> {
    const endedAt = Date.now();
    const task = e.execution.task;
    this.running.delete(task.name);
    const pid = this.taskPids.get(e.execution);
    this.taskPids.delete(e.execution);
    const find = (): ShellRun | undefined =>
      [...this.recentRuns].reverse().find((r) => (pid !== undefined && r.run.pid === pid) || (r.terminal.name === task.name && (r.run.endedAt ?? 0) >= endedAt - 5000))?.run;
    // Its shell run and output stream may end up to half a second after the task's process.
    // When VS Code reports no exit code (seen on a loaded machine), the shell run's own end carries it: wait longer for that.
    await this.until(() => find()?.done === true, endedAt + (e.exitCode === undefined ? 3000 : 500));
    const run = find();
    if (run) this.recentRuns.splice(this.recentRuns.findIndex((r) => r.run === run), 1);
    const cwd = taskCwd(task);
    const trace = newTrace(endedAt);
    mark(trace, 'output', Date.now());
    this.fire({
      kind: 'job.done',
      job: {
        source: 'task',
        jobId: task.name,
        exitCode: e.exitCode ?? run?.exitCode,
        endedAt,
        commandLine: describeTask(task),
        output: readOutput(run ? run.cap.toString() : '', { truncated: false }),
        ...(cwd ? { cwd } : {}),
        trace,
      },
    });
  }

  /** Command rows' ends come from the job runner, not from VS Code events. */
  commandEnded(job: JobEndEvent): void {
    this.fire({ kind: 'job.done', job });
  }

  private fire(e: TriggerEvent): void {
    this._onDidTrigger.fire(e);
  }

  private onWindowState(s: vscode.WindowState): void {
    if (!s.focused) {
      this.awaySince ??= Date.now();
      return;
    }
    const since = this.awaySince;
    this.awaySince = undefined;
    if (since === undefined) return;
    const awayMs = Date.now() - since;
    const limitMs = setting('wake.awayMinutes') * 60_000;
    if (awayMs >= limitMs) this.fire({ kind: 'presence.online', why: `the window is focused again after ${Math.round(awayMs / 60_000)} min away`, at: Date.now() });
  }

  private async onModels(): Promise<void> {
    // The offline responder is always there and is not "a model" coming back.
    const has = (await vscode.lm.selectChatModels()).some((m) => !isOfflineModel(m));
    if (has && !this.hadModels) this.fire({ kind: 'presence.online', why: 'a language model is available again', at: Date.now() });
    this.hadModels = has;
  }

  private async watchGit(): Promise<void> {
    const ext = vscode.extensions.getExtension<GitExtension>('vscode.git');
    if (!ext) return;
    try {
      const git = (ext.isActive ? ext.exports : await ext.activate()).getAPI(1);
      const watch = (repo: GitRepository) => {
        const key = repo.rootUri.fsPath;
        this.repoState.set(key, stateKey(repo));
        this.subs.push(
          repo.state.onDidChange(() => {
            const next = stateKey(repo);
            const prev = this.repoState.get(key);
            if (next === prev) return;
            this.repoState.set(key, next);
            this.fire({ kind: 'scm.changed', repo: key, what: describeChange(prev, next), at: Date.now() });
          }),
        );
      };
      for (const r of git.repositories) watch(r);
      this.subs.push(git.onDidOpenRepository(watch));
    } catch (err) {
      this.log.warn(`scm.changed wakes are off: the git extension did not answer (${String(err)})`);
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this._onDidTrigger.dispose();
    this._runsChanged.dispose();
  }
}

function taskCwd(task: vscode.Task): string | undefined {
  const exec = task.execution;
  const cwd = exec instanceof vscode.ShellExecution || exec instanceof vscode.ProcessExecution ? exec.options?.cwd : undefined;
  if (cwd) return cwd;
  if (typeof task.scope === 'object') return task.scope.uri.scheme === 'file' ? task.scope.uri.fsPath : undefined;
  return firstDiskFolderPath();
}

function describeTask(task: vscode.Task): string {
  const exec = task.execution;
  if (exec instanceof vscode.ShellExecution) return exec.commandLine ?? [exec.command, ...(exec.args ?? [])].map((a) => (typeof a === "string" ? a : (a?.value ?? ""))).join(' ');
  if (exec instanceof vscode.ProcessExecution) return [exec.process, ...exec.args].join(' ');
  return task.name;
}

function stateKey(repo: GitRepository): string {
  return JSON.stringify([repo.state.HEAD?.commit ?? '', repo.state.HEAD?.name ?? '', repo.state.indexChanges.map((c) => c.uri.fsPath).sort()]);
}

function describeChange(prev: string | undefined, next: string): string {
  const [pc, pn] = prev ? (JSON.parse(prev) as [string, string, string[]]) : ['', '', []];
  const [nc, nn, ni] = JSON.parse(next) as [string, string, string[]];
  if (pn !== nn) return `branch ${pn || '(none)'} → ${nn || '(detached)'}`;
  if (pc !== nc) return `HEAD ${pc.slice(0, 8) || '(none)'} → ${nc.slice(0, 8)}`;
  return `index: ${ni.length} staged file(s)`;
}

/** The few parts of the built-in git extension's API (v1) that the wake uses. */
interface GitExtension {
  getAPI(version: 1): GitApi;
}
interface GitApi {
  readonly repositories: GitRepository[];
  readonly onDidOpenRepository: vscode.Event<GitRepository>;
}
interface GitRepository {
  readonly rootUri: vscode.Uri;
  readonly state: {
    readonly HEAD: { readonly name?: string; readonly commit?: string } | undefined;
    readonly indexChanges: readonly { readonly uri: vscode.Uri }[];
    readonly onDidChange: vscode.Event<void>;
  };
}
