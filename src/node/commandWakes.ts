/**
 * The `job.done` wakes of command rows (`c-…`). Only the process that runs a row sees its run end, so
 * whoever writes the run's fact triggers the row's wakes in the same pass: under the commands table's
 * lock, then the wakes' (always in that order), through the store's `commandEnds` hook
 * (src/node/schedule.ts, src/node/fire.ts). The run that counts for a wake is the first to end after
 * the wake was set (one already in flight counts); a row removed or marked missed first fires its
 * wakes as `lost` with the reason. Triggered wakes are held for their receiver (`life-thread wait`,
 * the MCP session, a window), as `life-thread run` leaves its own (./terminalJob.ts). A writer that
 * died between the two writes leaves a fact and a pending wake: every wake loop outside a window
 * re-derives the trigger from the fact (rederiveCommandWakes).
 */
import { jobStatus } from '../core/wake/jobStatus';
import type { Holder } from '../core/claim';
import { fileLink } from '../core/anchor/links';
import type { CommandRow } from '../core/schema';
import { readOutput } from '../core/wake/pulse';
import { isCommandId } from '../core/ids';
import { type WakeOutcome, type WakeRow } from '../core/wake/row';
import { outputFindings } from './jobArtifacts';
import { logPath } from './jobLog';
import type { CommandEnd, CommandEndHook } from './schedule';
import type { TableSnapshot } from './store/table';
import { readLogTail, type WakeStore } from './wakes';

/**
 * A fact younger than this is left to the process that wrote it (a window's job-finish pipeline
 * prepares a richer landing before it claims): a loop re-derives only what a writer left behind.
 */
export const REDERIVE_AFTER_MS = 5_000;


/** What the pulse says of an ended run: status, exit code, the log's summary and a landing on its summary line. */
async function outcomeOf(storeDir: string, end: CommandEnd): Promise<WakeOutcome> {
  if (end.kind === 'lost') return { jobStatus: 'lost', exitCode: null, summary: end.reason, desk: 'none' };
  const fact = end.fact;
  const file = logPath(storeDir, end.id);
  const tail = await readLogTail(file).catch(() => undefined);
  const output = tail ? readOutput(tail.text, { truncated: tail.truncated }) : undefined;
  const summary = fact.interrupted ? fact.error : output?.summary || fact.error;
  const status = jobStatus(fact);
  // Read as a task's output is (./jobArtifacts.ts): the code locus of a failure and the report it names.
  const found = output ? outputFindings(output.text, { ...(end.cwd ? { cwd: end.cwd } : {}), failed: status === 'failed' }) : {};
  return {
    jobStatus: status,
    exitCode: typeof fact.exitCode === 'number' ? fact.exitCode : null,
    ...(summary ? { summary } : {}),
    ...(tail ? { landing: { kind: 'deep_link' as const, uri: fileLink(file, output?.summaryLine !== undefined ? output.summaryLine + 1 : undefined) } } : {}),
    ...found,
    desk: 'none',
  };
}

function waitsOn(r: WakeRow, end: CommandEnd): boolean {
  return r.status === 'pending' && r.when === 'job.done' && r.jobId === end.id && Date.parse(r.createdAt) <= end.endedAt;
}

/** Triggers the pending wakes each end fires and holds them for their receiver; the wakes triggered. */
export async function triggerCommandWakes(wakes: WakeStore, storeDir: string, ends: readonly CommandEnd[], holder: Holder, now = new Date()): Promise<WakeRow[]> {
  if (ends.length === 0) return [];
  // Most runs have no wake on them: a read without the lock, and nothing written.
  const rows = await wakes.list();
  const due = ends.filter((e) => rows.some((r) => waitsOn(r, e)));
  const fired: WakeRow[] = [];
  for (const end of due) {
    const outcome = await outcomeOf(storeDir, end);
    const claimed = await wakes.claimTriggered((r) => waitsOn(r, end), outcome, { now, holder });
    // This process is no receiver: the wakes wait, held, for `life-thread wait`, their MCP session or a window.
    await wakes.hold(claimed, 'unreachable', now);
    fired.push(...claimed.map((c) => c.row));
  }
  return fired;
}

/**
 * The store's `commandEnds` for a process that runs or removes command rows; a failure is logged, the
 * fact stays. `ownRunsElsewhere`: a window triggers its own runs' wakes from the job's end, with the
 * landing its job-finish pipeline prepares (src/host/wakeFeature.ts); the hook then takes only the
 * rest (a runner found gone, a row removed or missed).
 */
export function commandWakeHook(wakes: WakeStore, holder: Holder, log: (line: string) => void, opts: { ownRunsElsewhere?: boolean } = {}): CommandEndHook {
  return async (all) => {
    const ends = opts.ownRunsElsewhere ? all.filter((e) => e.kind === 'lost' || e.fact.interrupted === true) : all;
    try {
      await triggerCommandWakes(wakes, wakes.dir, ends, holder);
    } catch (err) {
      // The fact is written: the next wake loop re-derives the trigger from it.
      log(`the job.done wakes of ${ends.map((e) => e.id).join(', ')} could not be triggered now: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

/** When the run recorded on the row ended, at the earliest (its claim plus its duration); undefined while none ended. */
function runEndedAt(row: CommandRow): number | undefined {
  const fact = row.fact;
  if (row.claim || !fact || row.firedAt === undefined) return undefined;
  // A claim's fact holds only its lateness; a run's has its duration, or says it was interrupted.
  if (fact.durationMs === undefined && !fact.interrupted) return undefined;
  return Date.parse(row.firedAt) + (fact.durationMs ?? 0);
}

/**
 * The triggers the table's facts call for that no writer made (it died between its fact and the
 * wakes): a pending job.done wake on a `c-…` row whose run ended after the wake was set, or whose row
 * is gone or missed. Returns whether it triggered any, and when to look again for a fact too young
 * to take (REDERIVE_AFTER_MS).
 */
export async function rederiveCommandWakes(
  wakes: WakeStore,
  rows: readonly WakeRow[],
  commands: () => Promise<TableSnapshot<CommandRow>>,
  holder: Holder,
  now = new Date(),
): Promise<{ triggered: boolean; recheckAt?: number }> {
  const waiting = rows.filter((r) => r.status === 'pending' && r.when === 'job.done' && isCommandId(r.jobId));
  if (waiting.length === 0) return { triggered: false };
  const snap = await commands();
  const byId = new Map(snap.rows.map((r) => [r.id, r]));
  const t = now.getTime();
  const ends: CommandEnd[] = [];
  let recheckAt: number | undefined;
  for (const id of new Set(waiting.map((w) => w.jobId ?? ''))) {
    const row = byId.get(id);
    if (!row) {
      // A row that failed its checks is not gone: it waits for a person, and so do its wakes.
      if (snap.quarantined.length === 0) ends.push({ id, kind: 'lost', reason: `the command row ${id} was removed before a run of it ended`, endedAt: t });
      continue;
    }
    if (row.status === 'missed') {
      ends.push({ id, kind: 'lost', reason: `the command row ${id} was marked missed (${(row.fact?.error ?? 'past its catch-up limit').replace(/^missed: /, '')})`, endedAt: t });
      continue;
    }
    const endedAt = runEndedAt(row);
    if (endedAt === undefined || !row.fact || !waiting.some((w) => w.jobId === id && Date.parse(w.createdAt) <= endedAt)) continue;
    if (t - endedAt < REDERIVE_AFTER_MS) {
      recheckAt = Math.min(recheckAt ?? Infinity, endedAt + REDERIVE_AFTER_MS);
      continue;
    }
    ends.push({ id, kind: 'ran', fact: row.fact, endedAt, cwd: row.cwd });
  }
  const fired = await triggerCommandWakes(wakes, wakes.dir, ends, holder, now);
  return { triggered: fired.length > 0, ...(recheckAt !== undefined ? { recheckAt } : {}) };
}
