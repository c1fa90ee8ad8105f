import type * as vscode from 'vscode';
import type { Holder } from '../core/claim';
import { jobStatus } from '../core/wake/jobStatus';
import { pulseEventOfRow } from '../core/wake/pulse';
import type { WakeRow } from '../core/wake/row';
import { mark } from '../core/wake/trace';
import type { WakeLoop } from '../node/wakeLoop';
import type { WakeStore } from '../node/wakes';
import type { HostDesk } from './desk';
import type { EvidenceHome } from './evidenceHome';
import { jobOutcome } from './jobOutcome';
import { jobMatcher, type TerminalWakes } from './jobWakes';
import type { Lander } from './landing';
import type { JobEndEvent, TriggerEvent } from './triggers';

/** What the window's triggers claim with. */
export interface WakeTriggersHost {
  store: WakeStore;
  holder: Holder;
  evidence: EvidenceHome;
  desk: HostDesk;
  lander: Lander;
  log: vscode.LogOutputChannel;
  loop: WakeLoop;
  terminals: TerminalWakes;
  eligible(row: WakeRow): boolean;
}

/**
 * Triggers seen in this window (a task or terminal job's end, a command row's run, a repository
 * change, the user's return) claim the pending wakes they fire and hand them to the wake loop.
 */
export class WakeTriggers {
  constructor(private readonly h: WakeTriggersHost) {}

  /** Follows a trigger; the loop's batch of its moment waits for its claim (../node/wakeLoop.ts). */
  track(e: TriggerEvent): void {
    this.h.loop.track(e.kind === 'job.done' ? e.job.endedAt : e.at, this.onTrigger(e));
  }

  private async onTrigger(e: TriggerEvent): Promise<void> {
    if (e.kind === 'job.done') return this.jobEnded(e.job);
    const match = (r: WakeRow): boolean => r.when === e.kind && this.h.eligible(r);
    const detail = e.kind === 'scm.changed' ? `${e.what} in ${e.repo}` : e.why;
    if (!(await this.h.store.list()).some((r) => r.status === 'pending' && match(r))) return;
    const claimed = await this.h.store.claimTriggered(match, { detail }, this.claimer());
    for (const c of claimed) this.h.loop.enqueue(c, { ...pulseEventOfRow(c.row), reason: e.kind, detail }, { at: e.at });
  }

  /** The job-finish pipeline (./jobOutcome.ts) for a job a wake waits on, then its wakes are claimed and enqueued. */
  private async jobEnded(job: JobEndEvent): Promise<void> {
    const h = this.h;
    const match = jobMatcher(job, h.eligible, h.terminals);
    const first = (await h.store.list()).find(match);
    if (!first) return;
    const trace = job.trace;
    mark(trace, 'match', Date.now());
    const outcome = await jobOutcome(job, { evidence: h.evidence, desk: h.desk, lander: h.lander, log: h.log }, first.id);
    const claimed = await h.store.claimTriggered(match, outcome, this.claimer());
    mark(trace, 'claim', Date.now());
    const pulseJob = { id: job.jobId, status: jobStatus(job), exitCode: job.exitCode ?? null, ...(job.timedOut ? { timedOut: true } : {}) };
    for (const c of claimed) {
      h.terminals.unbind(c.id);
      h.loop.enqueue(c, { ...pulseEventOfRow(c.row), reason: 'job.done', job: pulseJob }, { at: job.endedAt, endedAt: job.endedAt, ...(trace ? { trace } : {}) });
    }
  }

  private claimer(): { now: Date; holder: Holder } {
    return { now: new Date(), holder: this.h.holder };
  }
}
