import * as vscode from 'vscode';
import { diskFolderPaths } from './diskFolders';
import type { CodeAnchor } from '../core/anchor/code';
import { fileLink } from '../core/anchor/links';
import type { LandingRef } from '../core/landing';
import type { DeskState } from '../core/wake/contract';
import { jobStatus } from '../core/wake/jobStatus';
import type { WakeOutcome } from '../core/wake/row';
import { mark } from '../core/wake/trace';
import { randomBase36 } from '../node/ids';
import type { HostDesk } from './desk';
import type { EvidenceHome } from './evidenceHome';
import type { Lander } from './landing';
import type { JobEndEvent } from './triggers';
import { codeLocusIn } from '../node/jobArtifacts';

/** What the job-finish pipeline writes to and opens with. */
export interface OutcomeSources {
  /** Where the evidence is written: the workspace's continuity folder, else the store (./evidenceHome.ts). */
  evidence: EvidenceHome;
  desk: HostDesk;
  lander: Lander;
  log: vscode.LogOutputChannel;
}

/**
 * The job-finish pipeline: artifact → evidence surface → deep link, for a job a wake waits on. A
 * failed job whose output names a place in the workspace lands there (a CodeAnchor the ladder
 * re-finds after edits); otherwise on the evidence's summary line.
 */
export async function jobOutcome(job: JobEndEvent, src: OutcomeSources, firstWakeId?: string): Promise<WakeOutcome> {
  const trace = job.trace;
  const output = job.output;
  // Named after the first wake it answers, as the pulse that carries it names that wake first.
  const evidenceId = firstWakeId ?? `job-${randomBase36(8)}`;
  const status = jobStatus(job);
  // The evidence, the desk and the code locus do not wait for each other.
  const evidence$ = (async (): Promise<LandingRef | undefined> => {
    if (job.logPath) {
      // A command row's log is its evidence already (redacted, capped); land on its summary line.
      const line = output.summaryLine !== undefined ? output.summaryLine + 1 : undefined;
      return { kind: 'deep_link', uri: fileLink(job.logPath, line) };
    }
    const ev = await src.evidence.write(evidenceId, job, output.text, output.summaryLine).catch((err: unknown) => {
      src.log.warn(`evidence for ${job.jobId}: ${String(err)}`);
      return undefined;
    });
    mark(trace, 'evidence', Date.now());
    return ev ? { kind: 'deep_link', uri: fileLink(ev.path, ev.focusLine) } : undefined;
  })();
  // A report page the output names goes on the desk: the landing brings it to front.
  const desk$ = src.desk
    .showJobReport({ output: output.text, evidenceId: `${evidenceId}-report`, ...(job.cwd ? { cwd: job.cwd } : {}) })
    .catch((err: unknown) => {
      src.log.warn(`desk for ${job.jobId}: ${String(err)}`);
      return undefined;
    })
    .finally(() => mark(trace, 'desk', Date.now()));
  const anchor$ = status === 'failed' ? codeLocus(output.text, job, src).catch(() => undefined).finally(() => mark(trace, 'code locus', Date.now())) : Promise.resolve(undefined);
  const [evidence, shown, anchor] = await Promise.all([evidence$, desk$, anchor$]);
  const desk: DeskState = shown ? shown.status : 'none';
  // The desk's landing only when the desk shows the page; without a desk browser (or one that
  // failed) the landing is the evidence's summary line, where the report's path is named too.
  const onDesk = shown && (shown.status === 'ok' || shown.status === 'prepared') ? shown.landing : undefined;
  // A code anchor keeps the evidence beside it: the pulse's `evidence:` line and the landed line's "Open evidence".
  const kept = onDesk ?? evidence;
  const landing: LandingRef | undefined = anchor ? { kind: 'code_anchor', anchor, ...(kept?.kind === 'deep_link' ? { evidence: kept.uri } : {}) } : kept;
  return { jobStatus: status, exitCode: job.exitCode ?? null, ...(job.timedOut ? { timedOut: true } : {}), summary: output.summary, ...(landing ? { landing } : {}), desk };
}

/** The code locus a failed job's output names, as a CodeAnchor taken from the file as it is now. */
async function codeLocus(text: string, job: JobEndEvent, src: OutcomeSources): Promise<CodeAnchor | undefined> {
  const roots = diskFolderPaths();
  const locus = codeLocusIn(text, roots, job.cwd);
  if (!locus) return undefined;
  try {
    return await src.lander.anchorAt(locus.path, locus.line);
  } catch (err) {
    src.log.warn(`code locus ${locus.path}:${locus.line}: ${String(err)}`);
    return undefined;
  }
}
