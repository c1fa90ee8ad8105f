/**
 * `lifethread_wait { wake_id, timeout_seconds }`: a long poll inside the MCP server. The call answers
 * with the pulse as soon as the wake fires, else "not yet" with the wake's state after at most
 * WAIT_TIMEOUT_MAX_S. It is the route for an agent that cannot run a background command (Codex in
 * its turn): the server writes the store, so the caller's sandbox needs no write access to it, and the
 * pulse rides on a tool answer, so the receipt is verified.
 */
import { InputError } from '../../core/errors';
import { describeInstant } from '../../core/time/describe';
import { parseToolInput, WAIT_TIMEOUT_MAX_S, waitInputSchema } from '../../core/toolInputs';
import type { WakeRow } from '../../core/wake/row';
import type { WakeLoop } from '../wakeLoop';
import { sessionPulse } from './carry';
import { folderOfRow, ofThisFolder, ownRow, type Session } from './session';

/** The wake's state in words, for a "not yet". */
function stateOf(row: WakeRow, now: Date): string {
  if (row.status === 'pending') {
    if (row.when === 'timer' && row.nextRunAt !== null) {
      return `pending: its timer is due ${describeInstant(new Date(row.nextRunAt), row.tz ?? 'UTC', now)}`;
    }
    return row.when === 'job.done' ? `pending: waiting for job ${row.jobId ?? '?'} to end` : `pending: waiting for ${row.when}`;
  }
  if (row.status === 'held') return `held (${row.heldReason ?? 'unknown reason'}): it goes out once that passes`;
  return row.status;
}

/** A fired wake's pulse, or why it will not come. */
async function settledAnswer(s: Session, row: WakeRow): Promise<string | undefined> {
  if (row.status === 'fired') {
    // Pushed into this session earlier: this answer is the one that verifies it.
    if (ownRow(s, row) && row.fact?.unverified === true && row.fact.via === 'mcp') await s.wakes.verified([row.id]);
    return sessionPulse(s, row);
  }
  if (row.status === 'cancelled' || row.status === 'missed') return `Wake ${row.id} was ${row.status}${row.status === 'missed' ? ' (past the catch-up limit)' : ''}; it will not fire.`;
  return undefined;
}

/** Runs one `lifethread_wait` call; the courier delivers into it (WaitBoard) and tells it of every change of the table. */
export async function waitTool(s: Session, courier: WakeLoop, args: unknown): Promise<string> {
  const input = parseToolInput(waitInputSchema, args);
  const id = input.wake_id;
  const timeoutMs = (input.timeout_seconds ?? WAIT_TIMEOUT_MAX_S) * 1000;
  const first = await s.wakes.get(id);
  if (!first) throw new InputError('wake_id', `no wake ${id} in this store (${s.opts.storeDir})`);
  if (!ofThisFolder(s, first)) throw new InputError('wake_id', `${id} was set for another folder (${folderOfRow(first)}); this session serves ${s.opts.cwd}`);
  const now = await settledAnswer(s, first);
  if (now !== undefined) return now;

  return new Promise<string>((resolve, reject) => {
    let done = false;
    let last = first;
    const finish = (text: string | Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      leave();
      s.waits.listeners.delete(onRows);
      if (text instanceof Error) reject(text);
      else resolve(text);
    };
    // The courier hands the pulse of a delivery it makes for this wake; the loop records it (verified).
    const leave = s.waits.add(id, (pulse) => {
      if (done) return false;
      finish(pulse);
      return true;
    });
    const onRows = (rows: readonly WakeRow[]): void => {
      const row = rows.find((r) => r.id === id);
      if (!row) return finish(new InputError('wake_id', `wake ${id} is gone from the store (cleaned a day after it settled)`));
      last = row;
      // Fired by another receiver (a `life-thread wait`, a window) or pushed here before this call.
      if (row.status === 'fired' || row.status === 'cancelled' || row.status === 'missed') void settledAnswer(s, row).then((t) => t !== undefined && finish(t), (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))));
    };
    s.waits.listeners.add(onRows);
    const timer = setTimeout(() => finish(`Not yet: wake ${id} is ${stateOf(last, new Date())}. Call lifethread_wait again to keep waiting.`), timeoutMs);
    // A due or held wake this call may take goes out now.
    courier.poke();
  });
}
