/**
 * The life-thread wake (design §3, names §8), pure: the contract of `SendToLifeThread` (snake_case, as
 * the seed), the durable wake row (camelCase), the short pulse a wake starts its turn with, the
 * coalescing of events that arrive together, the hourly ignition cap, and the row transitions the
 * store applies under its lock (a claim is one `pending → fired` transition carrying a token, as in
 * ./dispatch.ts, so a wake never fires twice).
 *
 * job.done lifecycle of a row (all `status: pending` until claimed):
 * - waiting: added for a job that has not started (no `jobStartedAt`); any window may see it start.
 * - watched: `jobStartedAt` set and `window` = the window that saw the job start (or that added the
 *   wake while the job ran there). Command rows (`c-…`) are never window-bound: any window runs them.
 * - triggered: the job ended while wakes were paused or over the hourly cap: `triggeredAt`, the job's
 *   outcome in `fact` and `nextRunAt` (when it may ignite) are written; it ignites through the same
 *   due-claim as a timer.
 * - fired: claimed (`claim` + `firedAt`, `fact.jobStatus`/`exitCode`/`summary`), then the delivery
 *   fact (`delivered`, `wakeChars`, `timeToLocusMs`) is recorded with the claim's token.
 * - lost: the watching window closed or reloaded before the job ended: fired with `jobStatus: lost`.
 *   A waiting row of a window that went away is released (`window` removed), not lost.
 */
import { z } from 'zod';
import type { Holder } from './dispatch';
import { InputError } from './errors';
import { landingRefSchema, type LandingRef } from './landing';
import { claimSchema, isoInstant, rowStatus, type Claim } from './schema';
import { summarize } from './summary';
import { describeInstant } from './time/describe';
import { parseWhen } from './time/when';
import { validateZone } from './time/zone';

// ---------------------------------------------------------------------------------------------
// Limits

export const WAKE_TEXT_MAX = 4000;
export const PAYLOAD_MAX_BYTES = 8 * 1024;
export const PAYLOAD_MAX_DEPTH = 16;
export const DELAY_MAX_SECONDS = 30 * 24 * 3600;
export const JOB_ID_MAX = 200;
export const THREAD_ID_MAX = 200;
export const CANCEL_TOKEN_MAX = 100;
export const PULSE_MAX_CHARS = 600;
/** The pulse's summary is at most this long before any further cut. */
export const PULSE_SUMMARY_MAX = 160;
/** How much of a job's log the finish pipeline reads: its last 64 KB, never the whole log. */
export const LOG_TAIL_BYTES = 64 * 1024;
export const COALESCE_WINDOW_MS = 250;
export const MAX_WAKES_PER_HOUR = 12;
/** Fired wakes stay listed this long (like fired reminders), then a pass cleans them. */
export const WAKE_RETENTION_MS = 24 * 3600_000;
export const WAKE_HEARTBEAT_STALE_MS = 120_000;

const HOUR_MS = 3600_000;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// ---------------------------------------------------------------------------------------------
// Vocabulary

export const wakeWhenSchema = z.enum(['timer', 'job.done', 'presence.online', 'scm.changed']);
export type WakeWhen = z.infer<typeof wakeWhenSchema>;
export type EventWhen = Exclude<WakeWhen, 'timer'>;

export const jobStatusSchema = z.enum(['succeeded', 'failed', 'unknown', 'lost']);
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const deskStateSchema = z.enum(['ok', 'prepared', 'needs_restore', 'none']);
export type DeskState = z.infer<typeof deskStateSchema>;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Why `value` is not a plain JSON value (depth-capped, no prototype keys), or undefined when it is. */
export function jsonProblem(value: unknown, depth = 0, at = ''): string | undefined {
  const where = at === '' ? '' : ` at ${at}`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `holds a non-finite number${where}`;
  if (typeof value !== 'object') return `holds a ${typeof value}${where}, which is not JSON`;
  if (depth >= PAYLOAD_MAX_DEPTH) return `is nested deeper than ${PAYLOAD_MAX_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = jsonProblem(value[i], depth + 1, `${at}[${i}]`);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `holds a non-plain object${where}`;
  for (const key of Object.keys(value)) {
    const p = at === '' ? key : `${at}.${key}`;
    if (FORBIDDEN_KEYS.has(key)) return `has the forbidden key "${key}"${where}`;
    const inner = jsonProblem((value as Record<string, unknown>)[key], depth + 1, p);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Why `value` cannot be a wake's payload (not JSON, too deep, over 8 KB serialized), or undefined. */
export function payloadProblem(value: unknown): string | undefined {
  const p = jsonProblem(value);
  if (p !== undefined) return p;
  const bytes = utf8Length(JSON.stringify(value));
  if (bytes > PAYLOAD_MAX_BYTES) return `is ${bytes} bytes as JSON; at most ${PAYLOAD_MAX_BYTES}`;
  return undefined;
}

export const jsonValueSchema = z.custom<JsonValue>((v) => payloadProblem(v) === undefined, {
  message: `must be a JSON value of at most ${PAYLOAD_MAX_BYTES} bytes, ${PAYLOAD_MAX_DEPTH} levels deep`,
});

// ---------------------------------------------------------------------------------------------
// The contract (snake_case, as the seed and the LM tool)

/**
 * `SendToLifeThread` input. The shape only; the rules between fields (text xor payload, a timer
 * needs delay_seconds xor at, job.done needs job_id, …) are applied by parseWakeInput.
 */
export const wakeInputSchema = z
  .object({
    text: z.string().max(WAKE_TEXT_MAX).optional().describe('What the agent should read when it wakes (a prompt to itself). Give text or payload.'),
    payload: z.unknown().optional().describe(`Structured data instead of text: any JSON value, at most ${PAYLOAD_MAX_BYTES} bytes.`),
    delay_seconds: z.number().optional().describe('Timer: wake after this many seconds (whole number, 1 to 2592000 = 30 days).'),
    at: z.string().max(200).optional().describe("Timer: wake at this instant, words or ISO in the owner's zone ('in 20 minutes', 'tomorrow at 9', '2026-10-03 09:00'). Once only."),
    when: wakeWhenSchema.optional().describe('What wakes the thread; default timer.'),
    job_id: z.string().optional().describe('job.done: a task name, terminal:<terminal name> (the next command that ends there) or a command row id c-….'),
    thread_id: z.string().optional().describe('The thread to wake; default the life thread.'),
    cancel_token: z.string().optional().describe('A token to cancel this wake later; a call with only cancel_token cancels the pending wakes holding it.'),
  })
  .strict();
export type WakeInput = z.infer<typeof wakeInputSchema>;

export type WakeField = 'text' | 'payload' | 'delay_seconds' | 'at' | 'when' | 'job_id' | 'thread_id' | 'cancel_token' | 'tz';
/** Field names as the caller spells them (the CLI says `delay-seconds`, `on`, `job-id`). */
export type WakeFieldNames = Partial<Record<WakeField, string>>;

export const CLI_WAKE_FIELDS: WakeFieldNames = {
  text: 'text',
  payload: 'payload',
  delay_seconds: 'delay-seconds',
  at: 'at',
  when: 'on',
  job_id: 'job-id',
  thread_id: 'thread',
  cancel_token: 'cancel-token',
  tz: 'tz',
};

/** A new wake as parsed: what the store needs to write the row. */
export interface NewWake {
  kind: 'wake';
  text?: string;
  payload?: JsonValue;
  when: WakeWhen;
  jobId?: string;
  threadId?: string;
  cancelToken?: string;
  /** The owner's zone the input was read in. */
  tz: string;
  /** Timer: the absolute instant; events: null. */
  nextRunAt: Date | null;
  /** "at Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min" / "when the task \"build\" ends". */
  description: string;
}

export type WakeInputResult = { kind: 'cancel'; cancelToken: string } | NewWake;

const WAKE_FIELDS: readonly WakeField[] = ['text', 'payload', 'delay_seconds', 'at', 'when', 'job_id', 'thread_id', 'cancel_token'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Reads a `SendToLifeThread` call. Absent, null and blank optional values count as not given (tool
 * callers send them for unused fields). Throws InputError(field, reason) with the caller's field name.
 */
export function parseWakeInput(input: unknown, opts: { now: Date; tz: string; fieldNames?: WakeFieldNames }): WakeInputResult {
  const names = opts.fieldNames ?? {};
  const f = (k: WakeField): string => names[k] ?? k;
  if (!isRecord(input)) throw new InputError(f('text'), 'the wake input must be an object { text | payload, delay_seconds?, at?, when?, job_id?, thread_id?, cancel_token? }');

  // Normalise: null/undefined → absent; blank strings → absent (text: reported as missing below).
  const given: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'string' && v.trim() === '' && k !== 'payload') continue;
    given[k] = v;
  }
  for (const k of Object.keys(given)) {
    if (!(WAKE_FIELDS as readonly string[]).includes(k)) {
      throw new InputError(k, `is not a field of a wake (fields: ${WAKE_FIELDS.map((x) => f(x)).join(', ')})`);
    }
  }
  const parsed = wakeInputSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? 'text') as WakeField;
    throw new InputError(f(key), shapeReason(key, given[key]));
  }
  const w = parsed.data;

  const keys = Object.keys(given);
  if (keys.length === 1 && w.cancel_token !== undefined) {
    return { kind: 'cancel', cancelToken: checkToken(w.cancel_token, f('cancel_token')) };
  }

  const hasText = w.text !== undefined;
  const hasPayload = Object.hasOwn(given, 'payload');
  if (hasText && hasPayload) throw new InputError(f('text'), `give either ${f('text')} or ${f('payload')}, not both`);
  if (!hasText && !hasPayload) {
    throw new InputError(
      f('text'),
      `is missing: a wake needs ${f('text')} (what you will read when you wake) or ${f('payload')}; to cancel, give only ${f('cancel_token')}`,
    );
  }
  let text: string | undefined;
  if (w.text !== undefined) {
    text = w.text.trim();
    if (text.includes('\0')) throw new InputError(f('text'), 'contains a NUL character');
  }
  let payload: JsonValue | undefined;
  if (hasPayload) {
    const problem = payloadProblem(w.payload);
    if (problem !== undefined) throw new InputError(f('payload'), problem);
    payload = w.payload as JsonValue;
  }

  const when: WakeWhen = w.when ?? 'timer';
  const tz = validateZone(opts.tz, f('tz'));
  const threadId = w.thread_id === undefined ? undefined : checkName(w.thread_id, f('thread_id'), THREAD_ID_MAX);
  const cancelToken = w.cancel_token === undefined ? undefined : checkToken(w.cancel_token, f('cancel_token'));
  const base = { kind: 'wake' as const, ...(text !== undefined ? { text } : {}), ...(hasPayload ? { payload } : {}), when, tz };
  const extras = { ...(threadId !== undefined ? { threadId } : {}), ...(cancelToken !== undefined ? { cancelToken } : {}) };

  if (when !== 'timer') {
    if (w.delay_seconds !== undefined) throw new InputError(f('delay_seconds'), `applies only to ${f('when')}=timer (this wake is ${when})`);
    if (w.at !== undefined) throw new InputError(f('at'), `applies only to ${f('when')}=timer (this wake is ${when})`);
  }
  if (when !== 'job.done' && w.job_id !== undefined) throw new InputError(f('job_id'), `applies only to ${f('when')}=job.done (this wake is ${when})`);

  switch (when) {
    case 'timer': {
      const at = timerInstant(w.delay_seconds, w.at, tz, opts.now, f);
      return { ...base, ...extras, nextRunAt: at, description: `at ${describeInstant(at, tz, opts.now)}` };
    }
    case 'job.done': {
      if (w.job_id === undefined) {
        throw new InputError(f('job_id'), `is missing: ${f('when')}=job.done needs ${f('job_id')} (a task name, terminal:<terminal name>, or a command row id c-…)`);
      }
      const jobId = checkJobId(w.job_id, f('job_id'));
      return { ...base, jobId, ...extras, nextRunAt: null, description: describeWhen('job.done', jobId) };
    }
    default:
      return { ...base, ...extras, nextRunAt: null, description: describeWhen(when) };
  }
}

function shapeReason(key: WakeField, value: unknown): string {
  switch (key) {
    case 'text':
      return typeof value === 'string' ? `is ${value.length} characters; at most ${WAKE_TEXT_MAX}` : 'must be a string';
    case 'delay_seconds':
      return `must be a whole number of seconds from 1 to ${DELAY_MAX_SECONDS} (30 days), got ${JSON.stringify(value)}`;
    case 'at':
      return typeof value === 'string' ? 'is too long (at most 200 characters)' : "must be a string: words or ISO ('in 20 minutes', 'tomorrow at 9')";
    case 'when':
      return `must be one of ${wakeWhenSchema.options.join(', ')}, got ${JSON.stringify(value)}`;
    default:
      return 'must be a string';
  }
}

function timerInstant(delay: number | undefined, at: string | undefined, tz: string, now: Date, f: (k: WakeField) => string): Date {
  if (delay !== undefined && at !== undefined) throw new InputError(f('delay_seconds'), `give either ${f('delay_seconds')} or ${f('at')}, not both`);
  if (delay === undefined && at === undefined) {
    throw new InputError(
      f('delay_seconds'),
      `is missing: a timer wake needs ${f('delay_seconds')} (1 to ${DELAY_MAX_SECONDS}) or ${f('at')} ('in 20 minutes', 'tomorrow at 9'); or set ${f('when')} to job.done, presence.online or scm.changed`,
    );
  }
  if (delay !== undefined) {
    if (!Number.isInteger(delay) || delay < 1 || delay > DELAY_MAX_SECONDS) {
      throw new InputError(f('delay_seconds'), `must be a whole number of seconds from 1 to ${DELAY_MAX_SECONDS} (30 days), got ${JSON.stringify(delay)}`);
    }
    return new Date(now.getTime() + delay * 1000);
  }
  const words = (at ?? '').trim();
  if (/\b(?:every|each|daily|weekly|hourly|monthly|everyday|weekdays|weekends|workdays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b/i.test(words)) {
    throw new InputError(f('at'), `'${words}' recurs; a wake fires once: give one instant ('in 20 minutes', 'tomorrow at 9', '2026-10-03 09:00'), or use a reminder for a recurring prompt`);
  }
  const parsed = parseWhen({ when: words, tz, kind: 'command', now, whenField: f('at'), cronField: f('at'), tzField: f('tz') });
  if (parsed.schedule.kind !== 'once') throw new InputError(f('at'), `'${words}' recurs; a wake fires once: give one instant`);
  if (parsed.nextRunAt.getTime() - now.getTime() > DELAY_MAX_SECONDS * 1000) {
    throw new InputError(f('at'), `is ${describeInstant(parsed.nextRunAt, tz, now)}: more than 30 days away; a wake sleeps at most 30 days (use a reminder for later)`);
  }
  return parsed.nextRunAt;
}

function checkName(value: string, field: string, max: number): string {
  const v = value.trim();
  if (v.length > max) throw new InputError(field, `is ${v.length} characters; at most ${max}`);
  if (CONTROL.test(v)) throw new InputError(field, 'contains a control character or line break');
  return v;
}

function checkToken(value: string, field: string): string {
  return checkName(value, field, CANCEL_TOKEN_MAX);
}

function checkJobId(value: string, field: string): string {
  const v = checkName(value, field, JOB_ID_MAX);
  if (/^terminal:\s*$/.test(v)) throw new InputError(field, "names no terminal: say terminal:<terminal name>, e.g. 'terminal:bash'");
  if (/^c-/.test(v) && !/^c-[A-Za-z0-9_-]{1,40}$/.test(v)) throw new InputError(field, `'${v}' looks like a command row id but is not one (c- and 1 to 40 letters, digits, - or _)`);
  return v;
}

/** "when the task "build" ends", "when the user is back …" — the condition of an event wake in words. */
export function describeWhen(when: EventWhen, jobId?: string): string {
  switch (when) {
    case 'job.done': {
      const id = jobId ?? '?';
      if (id.startsWith('terminal:')) return `when the next command in terminal "${id.slice('terminal:'.length)}" ends`;
      if (/^c-[A-Za-z0-9_-]{1,40}$/.test(id)) return `when the run of command row ${id} ends`;
      return `when the task "${id}" ends`;
    }
    case 'presence.online':
      return 'when the user is back (the window is focused after being away) or a language model is available again';
    case 'scm.changed':
      return "when the git repository's HEAD or index changes";
  }
}

// ---------------------------------------------------------------------------------------------
// The row (camelCase, design §8)

export const wakeFactSchema = z
  .object({
    delivered: z.boolean().optional(),
    via: z.string().max(40).optional(),
    error: z.string().max(2000).optional(),
    lateMs: z.number().nonnegative().optional(),
    jobStatus: jobStatusSchema.optional(),
    exitCode: z.number().int().nullable().optional(),
    summary: z.string().max(400).optional(),
    /** The pulse's length in characters (the wake_chars metric). */
    wakeChars: z.number().int().nonnegative().optional(),
    /** From the job's end to the landing shown. */
    timeToLocusMs: z.number().nonnegative().optional(),
  })
  .strict();
export type WakeFact = z.infer<typeof wakeFactSchema>;

export const wakeIdSchema = z.string().regex(/^w-[A-Za-z0-9_-]{1,40}$/, 'must be a wake id (w-…)');

export const wakeRowSchema = z
  .object({
    id: wakeIdSchema,
    text: z.string().min(1).max(WAKE_TEXT_MAX).optional(),
    payload: jsonValueSchema.optional(),
    when: wakeWhenSchema,
    jobId: z.string().min(1).max(JOB_ID_MAX).optional(),
    threadId: z.string().min(1).max(THREAD_ID_MAX).optional(),
    cancelToken: z.string().min(1).max(CANCEL_TOKEN_MAX).optional(),
    /** The owner's zone the wake was read in, for showing its time back. */
    tz: z.string().min(1).max(64).optional(),
    status: rowStatus,
    /** Timer: when it fires; event: null until triggered (then when it may ignite). */
    nextRunAt: isoInstant.nullable(),
    createdAt: isoInstant,
    firedAt: isoInstant.optional(),
    fact: wakeFactSchema.optional(),
    claim: claimSchema.optional(),
    /** job.done: the window (VS Code session) watching the job; its closing makes the wake lost. */
    window: z.string().min(1).max(80).optional(),
    /** job.done: when the job was seen to start; absent = waiting for a job that has not started. */
    jobStartedAt: isoInstant.optional(),
    /** An event wake whose event came while wakes were paused or capped: it ignites at nextRunAt. */
    triggeredAt: isoInstant.optional(),
    desk: deskStateSchema.optional(),
    landing: landingRefSchema.optional(),
  })
  .strict()
  .superRefine((row, ctx) => {
    if ((row.text === undefined) === (row.payload === undefined)) ctx.addIssue({ code: 'custom', path: ['text'], message: 'a wake holds exactly one of text and payload' });
    if (row.when === 'job.done' && row.jobId === undefined) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'a job.done wake needs jobId' });
    if (row.when !== 'job.done' && row.jobId !== undefined) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'only a job.done wake has jobId' });
    if (row.when === 'timer' && row.status === 'pending' && row.nextRunAt === null) ctx.addIssue({ code: 'custom', path: ['nextRunAt'], message: 'a pending timer wake needs nextRunAt' });
  });
export type WakeRow = z.infer<typeof wakeRowSchema>;

/** The row for a parsed wake. `window` is kept only for jobs a window watches (not command rows). */
export function newWakeRow(parsed: NewWake, opts: { id: string; now: Date; window?: string; jobStartedAt?: Date }): WakeRow {
  const windowBound = parsed.when === 'job.done' && parsed.jobId !== undefined && !/^c-/.test(parsed.jobId);
  const row: WakeRow = {
    id: opts.id,
    ...(parsed.text !== undefined ? { text: parsed.text } : {}),
    ...(parsed.payload !== undefined ? { payload: parsed.payload } : {}),
    when: parsed.when,
    ...(parsed.jobId !== undefined ? { jobId: parsed.jobId } : {}),
    ...(parsed.threadId !== undefined ? { threadId: parsed.threadId } : {}),
    ...(parsed.cancelToken !== undefined ? { cancelToken: parsed.cancelToken } : {}),
    tz: parsed.tz,
    status: 'pending',
    nextRunAt: parsed.nextRunAt === null ? null : parsed.nextRunAt.toISOString(),
    createdAt: opts.now.toISOString(),
    ...(windowBound && opts.window !== undefined ? { window: opts.window.slice(0, 80) } : {}),
    ...(parsed.when === 'job.done' && opts.jobStartedAt !== undefined ? { jobStartedAt: opts.jobStartedAt.toISOString() } : {}),
  };
  return row;
}

/** The wake's condition in words, in `tz` (default its own zone). */
export function describeWake(row: WakeRow, now: Date, tz = row.tz ?? 'UTC'): string {
  if (row.status === 'fired') return `fired ${row.firedAt ? describeInstant(new Date(row.firedAt), tz, now) : ''}`.trim();
  if (row.status === 'missed') return 'missed';
  if (row.triggeredAt !== undefined) return `triggered, waiting to ignite${row.nextRunAt ? ` ${describeInstant(new Date(row.nextRunAt), tz, now)}` : ''} (wakes paused or over the hourly cap)`;
  if (row.when === 'timer') return row.nextRunAt ? `at ${describeInstant(new Date(row.nextRunAt), tz, now)}` : 'timer without an instant';
  const cond = describeWhen(row.when, row.jobId);
  if (row.when === 'job.done') return `${cond}${row.jobStartedAt ? ' (running)' : ' (waiting for it to start)'}`;
  return cond;
}

// ---------------------------------------------------------------------------------------------
// Job status and the log summary

/** succeeded (exit 0) | failed (non-zero) | unknown (no exit code) | lost (its watcher went away). */
export function jobStatus(exitCode: number | undefined | null, lost = false): JobStatus {
  if (lost) return 'lost';
  if (typeof exitCode !== 'number' || !Number.isFinite(exitCode)) return 'unknown';
  return exitCode === 0 ? 'succeeded' : 'failed';
}

/**
 * The pulse's summary from the end of a job's log (the recognisers of ./summary.ts, else the last
 * meaningful line). Give only the tail (LOG_TAIL_BYTES); a longer string is cut to its tail here.
 * `truncated`: the tail starts mid-log, so its first (partial) line is dropped; by default a tail
 * of at least LOG_TAIL_BYTES characters counts as truncated. Counts summed over the whole log (go
 * test packages, cargo binaries) cover only the tail.
 */
export function summaryFromLogTail(tail: string, opts: { truncated?: boolean; max?: number } = {}): string {
  let t = tail;
  let truncated = opts.truncated ?? t.length >= LOG_TAIL_BYTES;
  if (t.length > LOG_TAIL_BYTES) {
    t = t.slice(t.length - LOG_TAIL_BYTES);
    truncated = true;
  }
  if (truncated) {
    const nl = t.indexOf('\n');
    if (nl >= 0 && nl < t.length - 1) t = t.slice(nl + 1);
  }
  return summarize(t, opts.max ?? PULSE_SUMMARY_MAX);
}

// ---------------------------------------------------------------------------------------------
// The pulse

export interface PulseJob {
  /** Default: the wake's jobId. */
  id?: string;
  status: JobStatus;
  exitCode?: number | null;
}

/** What happened, as the pulse says it. */
export interface PulseEvent {
  /** Default: the wake's `when`. */
  reason?: WakeWhen;
  /** Other reasons coalesced into this pulse. */
  also?: readonly WakeWhen[];
  job?: PulseJob;
  summary?: string;
  /** A short note for presence/scm events ("branch main → fix"). */
  detail?: string;
  landing?: LandingRef;
  desk?: DeskState;
}

export type PulseWake = Pick<WakeRow, 'when'> & Partial<Pick<WakeRow, 'text' | 'payload' | 'jobId'>>;

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** The first `n` code units, one fewer when that would split a surrogate pair. */
function headOf(s: string, n: number): string {
  if (n <= 0) return '';
  if (s.length <= n) return s;
  return isHighSurrogate(s.charCodeAt(n - 1)) ? s.slice(0, n - 1) : s.slice(0, n);
}

/** A YAML double-quoted scalar (JSON escapes are YAML escapes); always one line. */
export function yamlQuote(s: string): string {
  return JSON.stringify(s).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The quoted string cut (with …) so the quoted form is at most `budget` characters (min `"…"`). */
function fitQuoted(raw: string, budget: number): string {
  const q = yamlQuote(raw);
  if (q.length <= budget) return q;
  const src = headOf(raw, Math.max(0, budget));
  let lo = 0;
  let hi = src.length;
  let best = yamlQuote('…');
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cand = yamlQuote(`${headOf(src, mid).trimEnd()}…`);
    if (cand.length <= budget) {
      best = cand;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

function fitText(raw: string, budget: number): string {
  if (raw.length <= budget) return raw;
  if (budget <= 0) return '';
  return `${headOf(raw, budget - 1).trimEnd()}…`;
}

function oneLine(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
}

type Budgets = Record<'text' | 'summary' | 'detail' | 'jobId' | 'uri' | 'path' | 'symbol', number>;

interface PulseParts {
  text: string;
  reason: WakeWhen;
  also: readonly WakeWhen[];
  job: { id: string; status: JobStatus; exitCode: number | null } | undefined;
  summary: string | undefined;
  detail: string | undefined;
  landing: LandingRef | undefined;
  desk: DeskState | undefined;
}

function renderParts(p: PulseParts, b: Budgets): string {
  const lines = ['life_wake:', `  reason: ${p.reason}`];
  if (p.also.length > 0) lines.push(`  also: [${p.also.join(', ')}]`);
  if (p.job) lines.push(`  job: { id: ${fitQuoted(p.job.id, b.jobId)}, status: ${p.job.status}, exit_code: ${p.job.exitCode === null ? 'null' : String(p.job.exitCode)} }`);
  if (p.summary !== undefined) lines.push(`  summary: ${fitQuoted(p.summary, b.summary)}`);
  if (p.detail !== undefined) lines.push(`  detail: ${fitQuoted(p.detail, b.detail)}`);
  if (p.landing) {
    const l = p.landing;
    if (l.kind === 'deep_link') lines.push(`  landing: { kind: deep_link, uri: ${fitQuoted(l.uri, b.uri)} }`);
    else if (l.kind === 'code_anchor') {
      const a = l.anchor;
      const symbol = a.symbol === '' ? '' : `, symbol: ${fitQuoted(a.symbol, b.symbol)}`;
      lines.push(`  landing: { kind: code_anchor, path: ${fitQuoted(a.path, b.path)}${symbol}, lines: "${a.range.start.line + 1}-${a.range.end.line + 1}" }`);
    } else lines.push('  landing: { kind: none }');
  }
  if (p.desk) lines.push(`  desk: ${p.desk}`);
  const block = lines.join('\n');
  const text = fitText(p.text, b.text);
  return text === '' ? block : `${text}\n\n${block}`;
}

/**
 * The wake message (design §3, §8): the wake's own text (or its payload as compact JSON) first, then
 * the `life_wake:` block; lines that do not apply are left out. Never longer than `maxChars` (default
 * 600), whatever the inputs: the summary is held to 160 characters, then the text is cut, then long
 * ids, URIs and the summary further (each cut marked …); the block's keys stay.
 */
export function renderPulse(wake: PulseWake, event: PulseEvent = {}, opts: { maxChars?: number } = {}): string {
  const raw = opts.maxChars;
  const max = raw === undefined || !Number.isFinite(raw) ? PULSE_MAX_CHARS : Math.max(1, Math.floor(raw));
  const reason = event.reason ?? wake.when;
  const bodyRaw = wake.text !== undefined ? wake.text : wake.payload !== undefined ? JSON.stringify(wake.payload) : '';
  // Nothing longer than the cap can survive, so nothing longer is ever copied or quoted.
  const body = headOf(bodyRaw.trim(), max + 1);
  const jobId = event.job?.id ?? wake.jobId;
  const parts: PulseParts = {
    text: body,
    reason,
    also: (event.also ?? []).filter((r) => r !== reason),
    job:
      event.job !== undefined || (reason === 'job.done' && jobId !== undefined)
        ? { id: headOf(jobId ?? '', max), status: event.job?.status ?? 'unknown', exitCode: typeof event.job?.exitCode === 'number' && Number.isFinite(event.job.exitCode) ? event.job.exitCode : null }
        : undefined,
    summary: event.summary === undefined ? undefined : oneLine(headOf(event.summary, max * 2)),
    detail: event.detail === undefined ? undefined : oneLine(headOf(event.detail, max * 2)),
    landing: event.landing,
    desk: event.desk,
  };
  const b: Budgets = { text: Infinity, summary: PULSE_SUMMARY_MAX + 2, detail: 120, jobId: Infinity, uri: Infinity, path: Infinity, symbol: Infinity };
  // Cut order: text to 40, then summary, detail, URI, path, symbol and job id to short forms, then
  // the text entirely, then everything to a bare "…".
  const steps: [keyof Budgets, number][] = [
    ['text', 40],
    ['summary', 60],
    ['detail', 40],
    ['uri', 60],
    ['path', 60],
    ['symbol', 30],
    ['jobId', 40],
    ['text', 0],
    ['summary', 3],
    ['detail', 3],
    ['uri', 3],
    ['path', 3],
    ['symbol', 3],
    ['jobId', 3],
  ];
  let out = renderParts(parts, b);
  for (const [key, floor] of steps) {
    const over = out.length - max;
    if (over <= 0) break;
    const current = currentLength(parts, key, b);
    if (current <= floor) continue;
    b[key] = Math.max(floor, current - over);
    out = renderParts(parts, b);
  }
  if (out.length > max) out = max === 1 ? '…' : `${headOf(out, max - 1)}…`;
  return out;
}

function currentLength(p: PulseParts, key: keyof Budgets, b: Budgets): number {
  const q = (s: string | undefined): number => (s === undefined ? 0 : fitQuoted(s, b[key]).length);
  switch (key) {
    case 'text':
      return fitText(p.text, b.text).length;
    case 'summary':
      return q(p.summary);
    case 'detail':
      return q(p.detail);
    case 'jobId':
      return q(p.job?.id);
    case 'uri':
      return q(p.landing?.kind === 'deep_link' ? p.landing.uri : undefined);
    case 'path':
      return q(p.landing?.kind === 'code_anchor' ? p.landing.anchor.path : undefined);
    case 'symbol':
      return q(p.landing?.kind === 'code_anchor' && p.landing.anchor.symbol !== '' ? p.landing.anchor.symbol : undefined);
  }
}

/** The pulse event a claimed row carries (its job outcome, landing and desk). */
export function pulseEventOfRow(row: WakeRow): PulseEvent {
  const f = row.fact ?? {};
  const job =
    row.when === 'job.done' || f.jobStatus !== undefined
      ? { ...(row.jobId !== undefined ? { id: row.jobId } : {}), status: f.jobStatus ?? 'unknown', exitCode: f.exitCode ?? null }
      : undefined;
  return {
    reason: row.when,
    ...(job ? { job } : {}),
    ...(f.summary !== undefined ? { summary: f.summary } : {}),
    ...(row.landing ? { landing: row.landing } : {}),
    ...(row.desk ? { desk: row.desk } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Coalescing

/** One event that fires wakes of a thread (a job end, a repository change, the user's return, a timer). */
export interface WakeTrigger {
  reason: WakeWhen;
  /** When it happened (epoch ms). */
  at: number;
  threadId?: string;
  /** The wakes it fired. */
  wakeIds?: readonly string[];
  job?: PulseJob;
  summary?: string;
  detail?: string;
  landing?: LandingRef;
  desk?: DeskState;
}

/** Several triggers of one thread that arrived together: one wake, one pulse. */
export interface CoalescedWake extends PulseEvent {
  reason: WakeWhen;
  threadId?: string;
  /** The first and last trigger's time. */
  at: number;
  lastAt: number;
  wakeIds: string[];
  /** Every job in the group; `job` is the worst of them. */
  jobs: PulseJob[];
  count: number;
}

const STATUS_RANK: Record<JobStatus, number> = { failed: 3, lost: 2, unknown: 1, succeeded: 0 };
const REASON_RANK: Record<WakeWhen, number> = { 'job.done': 3, 'scm.changed': 2, 'presence.online': 1, timer: 0 };

/** The worse of two statuses: failed > lost > unknown > succeeded. */
export function worseStatus(a: JobStatus, b: JobStatus): JobStatus {
  return STATUS_RANK[b] > STATUS_RANK[a] ? b : a;
}

/**
 * Groups job, scm and presence triggers of the same thread that arrive within `windowMs` of the
 * group's first one into one wake: the reason is the weightiest (job.done > scm.changed >
 * presence.online), the job the worst (failed > lost > unknown > succeeded; the later one on a tie)
 * with its summary, the landing and desk the latest given. Timers are never merged. The result is
 * ordered by time.
 */
export function coalesce(events: readonly WakeTrigger[], windowMs = COALESCE_WINDOW_MS): CoalescedWake[] {
  const sorted = events.map((e, i) => ({ e, i })).sort((x, y) => x.e.at - y.e.at || x.i - y.i);
  const out: CoalescedWake[] = [];
  const open = new Map<string, { group: CoalescedWake; summaryRank: number }>();
  for (const { e } of sorted) {
    const key = e.threadId ?? '';
    const current = e.reason === 'timer' ? undefined : open.get(key);
    if (current && e.at - current.group.at <= windowMs) {
      merge(current, e);
      continue;
    }
    const group: CoalescedWake = {
      reason: e.reason,
      ...(e.threadId !== undefined ? { threadId: e.threadId } : {}),
      at: e.at,
      lastAt: e.at,
      wakeIds: [...(e.wakeIds ?? [])],
      jobs: e.job ? [e.job] : [],
      ...(e.job ? { job: e.job } : {}),
      ...(e.summary !== undefined ? { summary: e.summary } : {}),
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      ...(e.landing ? { landing: e.landing } : {}),
      ...(e.desk ? { desk: e.desk } : {}),
      count: 1,
    };
    out.push(group);
    if (e.reason !== 'timer') open.set(key, { group, summaryRank: e.job ? STATUS_RANK[e.job.status] : -1 });
  }
  return out;
}

function merge(slot: { group: CoalescedWake; summaryRank: number }, e: WakeTrigger): void {
  const g = slot.group;
  g.count++;
  g.lastAt = Math.max(g.lastAt, e.at);
  for (const id of e.wakeIds ?? []) if (!g.wakeIds.includes(id)) g.wakeIds.push(id);
  const reasons = new Set<WakeWhen>([g.reason, ...(g.also ?? []), e.reason]);
  const ordered = [...reasons].sort((a, b) => REASON_RANK[b] - REASON_RANK[a]);
  g.reason = ordered[0] ?? g.reason;
  g.also = ordered.slice(1);
  if (e.job) {
    g.jobs.push(e.job);
    const rank = STATUS_RANK[e.job.status];
    if (!g.job || rank >= STATUS_RANK[g.job.status]) g.job = e.job;
    if (rank >= slot.summaryRank && e.summary !== undefined) {
      g.summary = e.summary;
      slot.summaryRank = rank;
    }
  } else if (e.summary !== undefined && slot.summaryRank < 0) g.summary = e.summary;
  if (e.detail !== undefined) g.detail = e.detail;
  if (e.landing) g.landing = e.landing;
  if (e.desk) g.desk = e.desk;
}

// ---------------------------------------------------------------------------------------------
// The hourly cap

/**
 * Whether one more wake may start a turn now: fewer than `maxPerHour` ignitions in the last hour
 * (`history`: their epoch ms). If not, `retryAt` is when the oldest one counted leaves the hour.
 */
export function canIgnite(history: readonly number[], now: number, maxPerHour = MAX_WAKES_PER_HOUR): { ok: boolean; retryAt: number | null } {
  const max = Math.max(1, Math.floor(maxPerHour));
  const recent = history.filter((t) => t > now - HOUR_MS && t <= now).sort((a, b) => a - b);
  if (recent.length < max) return { ok: true, retryAt: null };
  const oldest = recent[recent.length - max] ?? now;
  return { ok: false, retryAt: oldest + HOUR_MS };
}

/** The hourly cap with its own memory of ignitions (a window's; the history is pruned to an hour). */
export class HourlyCap {
  private history: number[] = [];
  constructor(private maxPerHour = MAX_WAKES_PER_HOUR) {}

  setMax(maxPerHour: number): void {
    this.maxPerHour = maxPerHour;
  }

  canIgnite(now: number): { ok: boolean; retryAt: number | null } {
    this.history = this.history.filter((t) => t > now - HOUR_MS);
    return canIgnite(this.history, now, this.maxPerHour);
  }

  record(at: number): void {
    this.history.push(at);
  }

  get ignitions(): readonly number[] {
    return this.history;
  }
}

// ---------------------------------------------------------------------------------------------
// Row transitions (applied by src/node/wakes.ts under the table lock)

export interface ClaimContext {
  now: Date;
  holder: Holder;
  newToken: () => string;
}

/** A wake taken by one transition: fire it after checking `token` is still on the row. */
export interface ClaimedWake {
  id: string;
  token: string;
  /** The row as claimed (fired, with its claim and the event's fact). */
  row: WakeRow;
  scheduledFor: string;
  firedAt: string;
  lateMs: number;
}

export interface TransitionResult {
  rows: WakeRow[];
  claimed: ClaimedWake[];
  changed: boolean;
}

/** The outcome of an event, written on the wakes it fires. */
export interface WakeOutcome {
  jobStatus?: JobStatus;
  exitCode?: number | null;
  summary?: string;
  landing?: LandingRef;
  desk?: DeskState;
}

function outcomeFact(o: WakeOutcome): WakeFact {
  return {
    ...(o.jobStatus !== undefined ? { jobStatus: o.jobStatus } : {}),
    ...(o.exitCode !== undefined ? { exitCode: o.exitCode === null || Number.isInteger(o.exitCode) ? o.exitCode : null } : {}),
    ...(o.summary !== undefined ? { summary: headOf(o.summary, 400) } : {}),
  };
}

function claimRow(row: WakeRow, ctx: ClaimContext, scheduledFor: Date, outcome: WakeOutcome | undefined): ClaimedWake {
  const token = ctx.newToken();
  const nowIso = ctx.now.toISOString();
  const lateMs = Math.max(0, ctx.now.getTime() - scheduledFor.getTime());
  const claim: Claim = { token, pid: ctx.holder.pid, window: ctx.holder.window.slice(0, 80), heartbeatAt: nowIso, scheduledFor: scheduledFor.toISOString() };
  const fact: WakeFact = { ...(row.fact ?? {}), ...(outcome ? outcomeFact(outcome) : {}), ...(row.when === 'timer' ? { lateMs } : {}) };
  const claimed: WakeRow = {
    ...row,
    status: 'fired',
    nextRunAt: null,
    firedAt: nowIso,
    claim,
    ...(Object.keys(fact).length > 0 ? { fact } : {}),
    ...(outcome?.landing ? { landing: outcome.landing } : {}),
    ...(outcome?.desk ? { desk: outcome.desk } : {}),
  };
  return { id: row.id, token, row: claimed, scheduledFor: scheduledFor.toISOString(), firedAt: nowIso, lateMs };
}

function isOpen(row: WakeRow): boolean {
  return row.status === 'pending' && row.claim === undefined;
}

/**
 * Claims every due wake: pending timers whose `nextRunAt` ≤ now and triggered event wakes whose
 * ignition time came; at most `max` (the hourly cap's room), earliest first. A timer later than
 * `maxLatenessMs` (when given) is marked `missed` instead.
 */
export function claimDueRows(rows: readonly WakeRow[], ctx: ClaimContext, opts: { max?: number; maxLatenessMs?: number } = {}): TransitionResult & { missed: string[] } {
  const nowMs = ctx.now.getTime();
  const due = rows
    .filter((r) => isOpen(r) && r.nextRunAt !== null && Date.parse(r.nextRunAt) <= nowMs && (r.when === 'timer' || r.triggeredAt !== undefined))
    .sort((a, b) => Date.parse(a.nextRunAt ?? '') - Date.parse(b.nextRunAt ?? ''));
  const room = opts.max === undefined ? Infinity : Math.max(0, Math.floor(opts.max));
  const take = new Map<string, WakeRow>();
  const claimed: ClaimedWake[] = [];
  const missed: string[] = [];
  for (const r of due) {
    const at = Date.parse(r.nextRunAt ?? '');
    if (r.when === 'timer' && opts.maxLatenessMs !== undefined && nowMs - at > opts.maxLatenessMs) {
      take.set(r.id, { ...r, status: 'missed', nextRunAt: null, firedAt: ctx.now.toISOString(), fact: { ...(r.fact ?? {}), lateMs: nowMs - at, error: 'missed: past the catch-up limit' } });
      missed.push(r.id);
      continue;
    }
    if (claimed.length >= room) continue;
    const c = claimRow(r, ctx, new Date(r.triggeredAt !== undefined ? Date.parse(r.triggeredAt) : at), undefined);
    take.set(r.id, c.row);
    claimed.push(c);
  }
  const out = rows.map((r) => take.get(r.id) ?? r);
  return { rows: out, claimed, missed, changed: take.size > 0 };
}

/** Claims (or, with `trigger`, only triggers) the open wakes `match` selects, writing the event's outcome. */
export function claimMatching(
  rows: readonly WakeRow[],
  match: (row: WakeRow) => boolean,
  ctx: ClaimContext,
  outcome: WakeOutcome,
  opts: { trigger?: { dueAt: Date } } = {},
): TransitionResult {
  const claimed: ClaimedWake[] = [];
  let changed = false;
  const out = rows.map((r) => {
    if (!isOpen(r) || r.triggeredAt !== undefined || !match(r)) return r;
    changed = true;
    if (opts.trigger) {
      const fact = { ...(r.fact ?? {}), ...outcomeFact(outcome) };
      return {
        ...r,
        triggeredAt: ctx.now.toISOString(),
        nextRunAt: opts.trigger.dueAt.toISOString(),
        ...(Object.keys(fact).length > 0 ? { fact } : {}),
        ...(outcome.landing ? { landing: outcome.landing } : {}),
        ...(outcome.desk ? { desk: outcome.desk } : {}),
      };
    }
    const c = claimRow(r, ctx, ctx.now, outcome);
    claimed.push(c);
    return c.row;
  });
  return { rows: changed ? out : [...rows], claimed, changed };
}

/** job.done wakes for `jobId`. */
export function matchesJob(jobId: string): (row: WakeRow) => boolean {
  return (r) => r.when === 'job.done' && r.jobId === jobId;
}

/** Marks the pending job.done wakes for `jobId` as watched by `window` from `startedAt`. */
export function watchJobRows(rows: readonly WakeRow[], jobId: string, window: string, startedAt: Date): { rows: WakeRow[]; changed: boolean } {
  let changed = false;
  const out = rows.map((r) => {
    if (!isOpen(r) || r.triggeredAt !== undefined || r.when !== 'job.done' || r.jobId !== jobId) return r;
    changed = true;
    const windowBound = !/^c-/.test(jobId);
    return { ...r, jobStartedAt: startedAt.toISOString(), ...(windowBound ? { window: window.slice(0, 80) } : {}) };
  });
  return { rows: changed ? out : [...rows], changed };
}

/**
 * The window `window` is gone: its watched jobs can no longer report an end, so their wakes fire
 * with `jobStatus: lost`; its wakes still waiting for a job to start are released (any window may
 * watch them now).
 */
export function markLostRows(rows: readonly WakeRow[], window: string, ctx: ClaimContext): TransitionResult & { released: string[] } {
  const claimed: ClaimedWake[] = [];
  const released: string[] = [];
  let changed = false;
  const out = rows.map((r) => {
    if (!isOpen(r) || r.when !== 'job.done' || r.window !== window || r.triggeredAt !== undefined) return r;
    changed = true;
    if (r.jobStartedAt === undefined) {
      const { window: _gone, ...rest } = r;
      released.push(r.id);
      return rest;
    }
    const c = claimRow(r, ctx, ctx.now, { jobStatus: 'lost', exitCode: null, summary: `the window watching the job closed or reloaded before the job ended` });
    claimed.push(c);
    return c.row;
  });
  return { rows: changed ? out : [...rows], claimed, released, changed };
}

/** Writes the delivery fact (and landing/desk) if the row still carries this claim's token; releases the claim. */
export function recordWakeFact(
  rows: readonly WakeRow[],
  id: string,
  token: string,
  fact: WakeFact,
  extra: { landing?: LandingRef; desk?: DeskState } = {},
): { rows: WakeRow[]; applied: boolean } {
  let applied = false;
  const out = rows.map((r) => {
    if (r.id !== id || r.claim?.token !== token) return r;
    applied = true;
    const { claim: _claim, ...rest } = r;
    return { ...rest, fact: { ...(r.fact ?? {}), ...fact }, ...(extra.landing ? { landing: extra.landing } : {}), ...(extra.desk ? { desk: extra.desk } : {}) };
  });
  return { rows: applied ? out : [...rows], applied };
}

/** Refreshes the heartbeat of deliveries still in flight. */
export function heartbeatRows(rows: readonly WakeRow[], tokens: ReadonlySet<string>, now: Date): { rows: WakeRow[]; changed: boolean } {
  let changed = false;
  const out = rows.map((r) => {
    if (!r.claim || !tokens.has(r.claim.token)) return r;
    changed = true;
    return { ...r, claim: { ...r.claim, heartbeatAt: now.toISOString() } };
  });
  return { rows: changed ? out : [...rows], changed };
}

/**
 * Claims whose holder stopped heartbeating (or, for `ownLiveTokens`, this holder's claims it no
 * longer delivers) get a fact `delivered: false` and lose their claim: a wake is not fired twice.
 */
export function settleStaleRows(
  rows: readonly WakeRow[],
  now: Date,
  opts: { holder?: Holder; ownLiveTokens?: ReadonlySet<string>; staleMs?: number } = {},
): { rows: WakeRow[]; settled: string[] } {
  const staleMs = opts.staleMs ?? WAKE_HEARTBEAT_STALE_MS;
  const settled: string[] = [];
  const out = rows.map((r) => {
    const c = r.claim;
    if (!c) return r;
    const mine = opts.holder !== undefined && c.pid === opts.holder.pid && c.window === opts.holder.window;
    const liveMine = mine && opts.ownLiveTokens?.has(c.token) === true;
    const deadMine = mine && opts.ownLiveTokens !== undefined && !liveMine;
    const stale = !liveMine && now.getTime() - Date.parse(c.heartbeatAt) > staleMs;
    if (!stale && !deadMine) return r;
    settled.push(r.id);
    const { claim: _c, ...rest } = r;
    return { ...rest, fact: { ...(r.fact ?? {}), delivered: false, error: `the ${c.window === 'cli' ? 'process' : 'window'} delivering it (pid ${c.pid}) stopped before the pulse was delivered` } };
  });
  return { rows: settled.length > 0 ? out : [...rows], settled };
}

/** Removes fired and missed wakes (not in flight) older than `retentionMs`. */
export function cleanRows(rows: readonly WakeRow[], now: Date, retentionMs = WAKE_RETENTION_MS): { rows: WakeRow[]; cleaned: string[] } {
  const cleaned: string[] = [];
  const out = rows.filter((r) => {
    if (r.status === 'pending' || r.claim) return true;
    const since = Date.parse(r.firedAt ?? r.createdAt);
    if (now.getTime() - since < retentionMs) return true;
    cleaned.push(r.id);
    return false;
  });
  return { rows: cleaned.length > 0 ? out : [...rows], cleaned };
}

/** The earliest instant a due-claim has work: a pending timer, or a triggered event wake. */
export function nextDueAt(rows: readonly WakeRow[]): Date | null {
  let best = Infinity;
  for (const r of rows) {
    if (!isOpen(r) || r.nextRunAt === null) continue;
    if (r.when !== 'timer' && r.triggeredAt === undefined) continue;
    best = Math.min(best, Date.parse(r.nextRunAt));
  }
  return Number.isFinite(best) ? new Date(best) : null;
}
