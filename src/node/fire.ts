/**
 * The one firing path: a pass claims the due rows in one
 * write per table, each claimed row is fired by a Firer (the extension runs a reminder as an agent turn,
 * the CLI prints it; both run commands as jobs), and the facts are written back in batches — one
 * write per table for all the facts that finished meanwhile — only where the row still carries the
 * run's token. The extension's dispatch loop and `life-thread dispatch --once` both run this code.
 */
import type { ClaimedRun, Holder, Liveness } from '../core/dispatch';
import type { CommandRow, Fact, ReminderRow, ScheduleRow } from '../core/schema';
import { removeJobArtifacts } from './jobLog';
import { PassError, type PassOutcome, type ScheduleStore } from './schedule';
import type { Table } from './store/table';
import { recordFact } from '../core/dispatch';

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
  /** The row's fact after this run (the claim's lateness and the run's outcome). */
  fact?: Fact;
  /** False when the row was removed (or its claim lost) before the fact could be written. */
  recorded: boolean;
}

interface PendingFact {
  id: string;
  token: string;
  fact: Fact;
  endedAt: number;
  done: (applied: boolean) => void;
  fail: (e: unknown) => void;
}

/**
 * Writes facts in batches: one lock and one write per table for every fact that finished meanwhile.
 * The command rows' ends go to the store's `commandEnds` under the same lock, right after the write.
 */
export class FactWriter {
  private readonly queues = new Map<Table<ScheduleRow>, { pending: PendingFact[]; draining: Promise<void> | undefined }>();

  constructor(private readonly store: ScheduleStore) {}

  /** Resolves true when written, false when the row is gone or no longer carries `token`. `endedAt`: when the run ended (ms). */
  record(id: string, token: string, fact: Fact, endedAt = Date.now()): Promise<boolean> {
    const table = this.store.tableFor(id) as Table<ScheduleRow>;
    let q = this.queues.get(table);
    if (!q) {
      q = { pending: [], draining: undefined };
      this.queues.set(table, q);
    }
    const queue = q;
    return new Promise((done, fail) => {
      queue.pending.push({ id, token, fact, endedAt, done, fail });
      this.kick(table, queue);
    });
  }

  private kick(table: Table<ScheduleRow>, q: { pending: PendingFact[]; draining: Promise<void> | undefined }): void {
    if (q.draining) return;
    q.draining = this.drain(table, q).finally(() => {
      q.draining = undefined;
      if (q.pending.length > 0) this.kick(table, q);
    });
  }

  private async drain(table: Table<ScheduleRow>, q: { pending: PendingFact[] }): Promise<void> {
    // Let facts that finish in the same tick join this batch.
    await new Promise((r) => setImmediate(r));
    while (q.pending.length > 0) {
      const batch = q.pending.splice(0);
      const hook = this.store.commandEnds;
      // Where each command ran, read from its row as the fact is written: its wakes read the log's relative paths against it.
      const cwds = new Map<string, string>();
      const ended = hook
        ? (ok: ReadonlySet<string>): Promise<void> =>
            hook(batch.filter((b) => b.id.startsWith('c-') && ok.has(`${b.id} ${b.token}`)).map((b) => ({ id: b.id, kind: 'ran', fact: b.fact, endedAt: b.endedAt, ...(cwds.has(b.id) ? { cwd: cwds.get(b.id) } : {}) })))
        : undefined;
      try {
        const applied = await table.update((rows) => {
          let cur = rows;
          const ok = new Set<string>();
          for (const b of batch) {
            const r = recordFact(cur, b.id, b.token, b.fact);
            if (r.applied) {
              cur = r.rows;
              ok.add(`${b.id} ${b.token}`);
              const row = b.id.startsWith('c-') ? cur.find((x) => x.id === b.id) : undefined;
              if (row && 'cwd' in row && row.cwd) cwds.set(b.id, row.cwd);
            }
          }
          return { rows: ok.size > 0 ? cur : rows, result: ok };
        }, ended);
        for (const b of batch) b.done(applied.has(`${b.id} ${b.token}`));
      } catch (e) {
        for (const b of batch) b.fail(e);
      }
    }
  }
}

/** Fires one claimed run: re-read the token, fire, record. Never throws: a failure becomes the fact. */
export async function fireClaimed(store: ScheduleStore, firer: Firer, run: ClaimedRun, writer: FactWriter): Promise<FiredOutcome> {
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
  const recorded = await writer.record(run.id, run.token, fact, Date.now()).catch(() => false);
  // A result that arrives after the row was removed leaves nothing behind (its log, its alert key).
  if (!recorded && 'command' in row) await removeJobArtifacts(store.dir, run.id).catch(() => undefined);
  const out: FiredOutcome = { ...base, fact: { ...(row.fact ?? {}), ...fact }, recorded };
  if ('command' in row) {
    out.command = row.command;
  } else {
    out.text = row.text;
    if (fact.delivered !== undefined) out.delivered = fact.delivered;
  }
  return out;
}

export interface PassRequest {
  now: Date;
  holder: Holder;
  limits?: { reminder: number; command: number };
  alive?: Liveness;
  folders?: readonly string[];
  /** The OS timer's pass: command rows only (see ScheduleStore.pass). */
  commandsOnly?: boolean;
}

/**
 * A headless pass (`life-thread dispatch --once`): claim, fire every claimed row, wait for all of them
 * while keeping their heartbeat. Claims of a table that worked still fire when the other table failed;
 * the failure is raised afterwards.
 */
export async function dispatchOnce(
  store: ScheduleStore,
  firer: Firer,
  opts: PassRequest & { heartbeatMs?: number; clock?: () => Date; onFired?: (outcome: FiredOutcome) => void },
): Promise<{ pass: PassOutcome; fired: FiredOutcome[] }> {
  let pass: PassOutcome;
  let failure: PassError | undefined;
  try {
    pass = await store.pass(opts);
  } catch (err) {
    if (!(err instanceof PassError)) throw err;
    failure = err;
    pass = err.partial;
  }
  const runs = [...pass.reminders.claimed, ...pass.commands.claimed];
  const writer = new FactWriter(store);
  const live = new Set(runs.map((r) => r.token));
  const clock = opts.clock ?? (() => new Date());
  const beat = runs.length > 0 ? setInterval(() => void store.heartbeat(live, clock()).catch(() => undefined), opts.heartbeatMs ?? 30_000) : undefined;
  try {
    const fired = await Promise.all(
      runs.map(async (run) => {
        const outcome = await fireClaimed(store, firer, run, writer);
        live.delete(run.token);
        opts.onFired?.(outcome);
        return outcome;
      }),
    );
    if (failure) throw failure;
    return { pass, fired };
  } finally {
    if (beat) clearInterval(beat);
  }
}
