/**
 * A job's status, decided in one place: the wake's fact and its pulse, the sidebar's fact line, the
 * failure alert and `life-thread run` all read it here (docs/architecture.md, Flow 1). Pure.
 *
 *   succeeded  exit 0
 *   failed     a non-zero exit, or our timeout killed it (no exit code of its own; `timedOut`)
 *   unknown    no exit code: killed by a signal we did not send, could not start, or stopped
 *              because our dispatcher died mid-run (`interrupted`)
 *   lost       its watcher went away before it ended
 */
import type { JobStatus } from './contract';

/** How a job ended, as a command's fact, a job's end event or a wake's fact says it. */
export interface JobEndFacts {
  exitCode?: number | null;
  /** Our timeout killed it. */
  timedOut?: boolean;
  /** Our dispatcher (or the window running it) stopped before the job ended. */
  interrupted?: boolean;
  /** The watcher of the job went away: nobody saw it end. */
  lost?: boolean;
}

/** The status of a job's end; a bare exit code (and `lost`) is read as `{ exitCode, lost }`. */
export function jobStatus(end: JobEndFacts | number | null | undefined, lost = false): JobStatus {
  const e: JobEndFacts = typeof end === 'object' && end !== null ? end : { exitCode: end, lost };
  if (e.lost === true || lost) return 'lost';
  if (e.timedOut === true) return 'failed';
  // Stopped by us mid-run: whatever code the process died with is not the job's verdict.
  if (e.interrupted === true) return 'unknown';
  const code = e.exitCode;
  if (typeof code !== 'number' || !Number.isFinite(code)) return 'unknown';
  return code === 0 ? 'succeeded' : 'failed';
}

/** How a person reads the status after a job's name: "failed", "ended with status unknown". */
export function jobStatusWords(status: JobStatus): string {
  switch (status) {
    case 'succeeded':
      return 'succeeded';
    case 'failed':
      return 'failed';
    case 'unknown':
      return 'ended with status unknown';
    case 'lost':
      return 'was lost (its watcher went away)';
  }
}
