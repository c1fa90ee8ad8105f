/**
 * `lifethread_sendToLifeThread` (its contract: ../../core/wake/contract.ts): input → a wake row (or
 * a cancel) → answer text, written once for the VS Code language-model tool, `@life /wake`, Wake Me
 * When Task Ends… and the MCP server. What only a window can see (its tasks and terminals) comes in
 * through `checkJob`.
 */
import { InputError } from '../../core/errors';
import type { Owner } from '../../core/schema';
import { zoneWords, type OwnerZone } from '../../core/time/ownerZone';
import { isCommandId } from '../../core/ids';
import type { WakeRow } from '../../core/wake/row';
import { senderOfOwner, type WakeSender } from '../../core/wake/sender';
import type { LandingRef } from '../../core/landing';
import { parseWakeInput, type LandingInput, type NewWake, type WakeFieldNames } from '../../core/wake/contract';
import type { ScheduleStore } from '../schedule';
import type { WakeStore } from '../wakes';

export interface WakeToolHost {
  store: WakeStore;
  /** To check that a `c-…` job names a scheduled command. */
  commands: ScheduleStore;
  now(): Date;
  /** The owner's zone `at` is read in, and its source. */
  zone(): OwnerZone;
  owner: Owner;
  /** Who is asking (../../core/wake/sender.ts); default what the owner implies (an MCP client, the CLI, else `life`). */
  sender?: WakeSender;
  fieldNames?: WakeFieldNames;
  /** A window's look at a task or terminal job: a note for the answer, and whether it runs already. */
  checkJob?(parsed: NewWake): Promise<{ note?: string; jobStartedAt?: Date }>;
  /** Turns the caller's landing into a LandingRef (a window anchors with its symbol provider; elsewhere, from the file). */
  landing(input: LandingInput, field: string): Promise<LandingRef>;
  /** Called with the row written (a window binds terminals here). */
  added?(row: WakeRow): void;
  /** Called after any change (views, timers). */
  changed?(): void;
  /** A sentence appended to the answer (paused wakes; how the wake reaches an MCP client). */
  note?(row: WakeRow): string;
}

export interface WakeToolAnswer {
  /** The prose. */
  text: string;
  rows: WakeRow[];
  /** What the tool answers: the prose, then the row (or the cancelled rows) as JSON. */
  answer: string;
}

function answerOf(text: string, rows: WakeRow[]): WakeToolAnswer {
  return { text, rows, answer: `${text}\n\n${JSON.stringify(rows.length === 1 ? rows[0] : rows, null, 2)}` };
}

/** Sets (or, with only `cancel_token`, cancels) wakes. Bad input throws InputError(field, reason). */
export async function sendToLifeThread(input: unknown, host: WakeToolHost): Promise<WakeToolAnswer> {
  const names = host.fieldNames;
  const now = host.now();
  const zone = host.zone();
  const parsed = parseWakeInput(input, { now, tz: zone.timeZone, fieldNames: names });
  if (parsed.kind === 'cancel') {
    const removed = await host.store.cancel(parsed.cancelToken, names?.cancel_token ?? 'cancel_token', now);
    host.changed?.();
    return answerOf(`Cancelled ${removed.length} wake(s) with that token: ${removed.map((r) => r.id).join(', ')}.`, removed);
  }
  let note = '';
  let jobStartedAt: Date | undefined;
  if (parsed.when === 'job.done' && parsed.jobId !== undefined) {
    if (isCommandId(parsed.jobId)) {
      if (!(await host.commands.get(parsed.jobId))) throw new InputError(names?.job_id ?? 'job_id', `no scheduled command ${parsed.jobId} exists`);
    } else if (host.checkJob) {
      const seen = await host.checkJob(parsed);
      note = seen.note ?? '';
      jobStartedAt = seen.jobStartedAt;
    }
  }
  const landing = parsed.landing ? await host.landing(parsed.landing, names?.landing ?? 'landing') : undefined;
  const row = await host.store.add(parsed, { now, owner: host.owner, sender: host.sender ?? senderOfOwner(host.owner), ...(jobStartedAt ? { jobStartedAt } : {}), ...(landing ? { landing } : {}) });
  host.added?.(row);
  host.changed?.();
  const token = parsed.cancelToken ? ` (cancel token ${parsed.cancelToken})` : '';
  const extra = host.note?.(row) ?? '';
  const zoneNote = parsed.when === 'timer' ? ` (${zoneWords(zone)})` : '';
  return answerOf(`Wake ${row.id} set: ${parsed.description}${token}${zoneNote}.${note}${extra}`, [row]);
}
