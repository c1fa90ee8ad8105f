/**
 * The firing seam: a pass claims rows, then each claimed row is fired by a Firer (the host delivers a
 * reminder through an agent turn and runs commands; the CLI prints reminders and runs commands too),
 * and the fact is written back only if the row still carries the run's token.
 */
import type { ClaimedRun, Holder } from '../core/dispatch';
import type { CommandRow, Fact, ReminderRow } from '../core/schema';
import { PassError, type PassOutcome, type ScheduleStore } from './schedule';

export interface Firer {
  reminder(row: ReminderRow, run: ClaimedRun): Promise<Fact>;
  command(row: CommandRow, run: ClaimedRun): Promise<Fact>;
}

export interface FiredOutcome {
  id: string;
  scheduledFor: string;
  firedAt: string;
  lateMs: number;
  delivered?: boolean;
  text?: string;
  /** The command line, for command rows. */
  command?: string;
  fact?: Fact;
  /** False when the row was removed (or its claim lost) before the fact could be written. */
  recorded: boolean;
}

/** Fires one claimed run: re-read the token, fire, record. Never throws: a failure becomes the fact. */
export async function fireClaimed(store: ScheduleStore, firer: Firer, run: ClaimedRun): Promise<FiredOutcome> {
  const base = { id: run.id, scheduledFor: run.scheduledFor, firedAt: run.firedAt, lateMs: run.lateMs };
  const row = await store.verifyClaim(run).catch(() => undefined);
  if (!row) return { ...base, recorded: false };
  let fact: Fact;
  try {
    fact = 'command' in row ? await firer.command(row, run) : await firer.reminder(row, run);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    fact = 'command' in row ? { error: reason } : { delivered: false, error: reason };
  }
  const recorded = await store.recordFact(run.id, run.token, fact).catch(() => false);
  const out: FiredOutcome = { ...base, fact, recorded };
  if ('command' in row) {
    out.command = row.command;
  } else {
    out.text = row.text;
    if (fact.delivered !== undefined) out.delivered = fact.delivered;
  }
  return out;
}

/** A headless pass (the CLI's `dispatch --once`): claim, fire every claimed row, wait for all of them. */
export async function dispatchOnce(
  store: ScheduleStore,
  firer: Firer,
  opts: { now: Date; holder: Holder; limits?: { reminder: number; command: number } },
): Promise<{ pass: PassOutcome; fired: FiredOutcome[] }> {
  let pass: PassOutcome;
  let failure: PassError | undefined;
  try {
    pass = await store.pass(opts);
  } catch (err) {
    if (!(err instanceof PassError)) throw err;
    // Claims already written by the table that worked still fire; the failure is raised afterwards.
    failure = err;
    pass = err.partial;
  }
  const runs = [...pass.reminders.claimed, ...pass.commands.claimed];
  const fired = await Promise.all(runs.map((run) => fireClaimed(store, firer, run)));
  if (failure) throw failure;
  return { pass, fired };
}
