import * as vscode from 'vscode';
import type { ClaimedRun } from '../core/dispatch';
import type { CommandRow, Fact } from '../core/schema';
import type { JobStatus } from '../core/wake/contract';
import { jobStatus, jobStatusWords } from '../core/wake/jobStatus';
import { readOutput, type JobOutput } from '../core/wake/pulse';
import { settleCommandRun } from '../node/alerts';
import type { FiredOutcome } from '../node/fire';
import { logPath, readLog } from '../node/jobLog';
import { fireCommandRow } from '../node/jobs';
import type { ScheduleStore } from '../node/schedule';
import type { FeedFeature } from './feedFeature';

/** A job's end, published for the wake (job.done): id, status, exit code, its output read once, and where its log is. */
export interface JobEnd {
  id: string;
  status: JobStatus;
  exitCode: number | null;
  /** Our timeout killed it (status failed, no exit code). */
  timedOut: boolean;
  /** The window stopped it mid-run (status unknown). */
  interrupted: boolean;
  output: JobOutput;
  logPath: string;
  endedAt: number;
  cwd?: string;
}

export interface JobStart {
  id: string;
  pid: number;
  startedAt: number;
}

/**
 * Command rows as jobs in this window: run through the process-group runner with the window's
 * environment, publish start and end, and raise a throttled failure alert with "Show log".
 */
export class CommandJobs implements vscode.Disposable {
  private readonly abort = new AbortController();
  private readonly _onDidStartJob = new vscode.EventEmitter<JobStart>();
  readonly onDidStartJob = this._onDidStartJob.event;
  private readonly _onDidEndJob = new vscode.EventEmitter<JobEnd>();
  readonly onDidEndJob = this._onDidEndJob.event;
  /** Alerts shown, for tests and Doctor. */
  readonly alertsShown: string[] = [];

  constructor(
    private readonly store: ScheduleStore,
    private readonly feed: FeedFeature,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  run = async (row: CommandRow, run: ClaimedRun): Promise<Fact> => {
    const store = this.store;
    return fireCommandRow(row, run, {
      storeDir: store.dir,
      store,
      signal: this.abort.signal,
      onStart: (pid) => this._onDidStartJob.fire({ id: row.id, pid, startedAt: Date.now() }),
    });
  };

  /** After the fact is recorded (or not, for a removed row): publish the end and alert when due. */
  async settle(outcome: FiredOutcome): Promise<void> {
    if (outcome.command === undefined || !outcome.fact) return;
    const store = this.store;
    const log = outcome.recorded ? await readLog(store.dir, outcome.id) : null;
    const fact = outcome.fact;
    const output = readOutput(log ?? '', { truncated: false });
    this._onDidEndJob.fire({
      id: outcome.id,
      status: jobStatus(fact),
      exitCode: fact.exitCode ?? null,
      timedOut: fact.timedOut === true,
      interrupted: fact.interrupted === true,
      output: output.summary === '' && fact.error ? { ...output, summary: fact.error } : output,
      logPath: logPath(store.dir, outcome.id),
      endedAt: Date.now(),
    });
    const notice = await settleCommandRun({ storeDir: store.dir, row: { id: outcome.id, command: outcome.command }, fact, recorded: outcome.recorded, log, now: new Date() });
    if (!notice) return;
    const at = new Date().toISOString();
    if (notice.kind === 'alert') {
      this.alertsShown.push(notice.text);
      this.log.warn(notice.text);
      void this.feed.push({ id: `${outcome.id}@${outcome.firedAt}`, at, kind: 'command', ref: outcome.id, title: `Command ${outcome.id} ${jobStatusWords(jobStatus(fact))}`, body: notice.text, tone: 'error' });
      void vscode.window.showErrorMessage(notice.text.split('\n')[0] ?? notice.text, 'Show log').then((pick) => {
        if (pick) void vscode.window.showTextDocument(vscode.Uri.file(logPath(store.dir, outcome.id)));
      });
    } else {
      void this.feed.push({ id: `${outcome.id}@${outcome.firedAt}`, at, kind: 'command', ref: outcome.id, title: `Command ${outcome.id} recovered`, body: notice.text, tone: 'ok' });
      void vscode.window.showInformationMessage(notice.text);
    }
  }

  dispose(): void {
    // A window that closes mid-run stops its jobs; their fact says interrupted.
    this.abort.abort(new Error('the window closed'));
    this._onDidStartJob.dispose();
    this._onDidEndJob.dispose();
  }
}
