/**
 * The wake's contract: `SendToLifeThread` as the LM tool, `/wake`, the CLI and MCP take it
 * (snake_case, as package.json declares the tool), its limits and vocabulary, and the reading of a
 * call into a new wake (or a cancel). Pure.
 */
import { z } from 'zod';
import { isCommandId, isTopicId, looksLikeCommandId } from '../ids';
import { InputError, refuseNul } from '../errors';
import { describeInstant } from '../time/describe';
import { parseWhen } from '../time/when';
import { validateZone } from '../time/zone';

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
/** The default of `lifeThread.wake.maxPerHour` (package.json says the same). */
export const MAX_WAKES_PER_HOUR = 12;
/** Fired wakes stay listed this long (like fired reminders), then a pass cleans them. */
export const WAKE_RETENTION_MS = 24 * 3600_000;

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
// The contract (snake_case, as the LM tool's input schema in package.json)

/** A landing as a caller gives it: a deep link, or lines of a file to anchor. */
export const landingInputSchema = z.union([
  z.object({ uri: z.string().min(1).max(8192) }).strict(),
  z
    .object({
      path: z.string().min(1).max(4096),
      symbol: z.string().max(300).optional(),
      start_line: z.number().int().min(1).max(10_000_000),
      end_line: z.number().int().min(1).max(10_000_000),
    })
    .strict(),
]);
export type LandingInput = { kind: 'uri'; uri: string } | { kind: 'anchor'; path: string; symbol?: string; startLine: number; endLine: number };

/** Reads a caller's landing (an object, or for the CLI a URI or JSON text); InputError names `field`. */
export function parseLandingInput(value: unknown, field = 'landing'): LandingInput {
  let v = value;
  if (typeof v === 'string') {
    const t = v.trim();
    if (t.startsWith('{')) {
      try {
        v = JSON.parse(t) as unknown;
      } catch {
        throw new InputError(field, 'is not valid JSON: give a URI, or { "path", "start_line", "end_line", "symbol"? }');
      }
    } else v = { uri: t };
  }
  // Read against the branch the caller meant, so the error names the field that is wrong.
  const branch = typeof v === 'object' && v !== null && 'uri' in v ? landingInputSchema.options[0] : landingInputSchema.options[1];
  const r = branch.safeParse(v);
  if (!r.success) {
    const issue = r.error.issues[0];
    const key = issue && issue.path.length > 0 ? String(issue.path[0]) : undefined;
    const why: Record<string, string> = {
      uri: 'must be a link: file:///abs/path#L10-L20, cdp://evidence/<id> or intercom://message/<topic>/<msg>#<start>-<end>',
      path: 'must be a file path (absolute, or relative to the workspace folder)',
      start_line: 'must be a whole line number from 1',
      end_line: 'must be a whole line number from 1',
      symbol: 'must be a symbol path like Class.member (at most 300 characters)',
    };
    throw new InputError(
      key && key in why ? `${field}.${key}` : field,
      key && key in why ? (why[key] ?? '') : 'must be { uri } or { path, symbol?, start_line, end_line } (1-based, inclusive lines)',
    );
  }
  const d = r.data;
  if ('uri' in d) return { kind: 'uri', uri: d.uri };
  if (d.end_line < d.start_line) throw new InputError(`${field}.end_line`, `is before start_line (${d.end_line} < ${d.start_line})`);
  return { kind: 'anchor', path: d.path, ...(d.symbol ? { symbol: d.symbol } : {}), startLine: d.start_line, endLine: d.end_line };
}

/**
 * `SendToLifeThread` input. The shape only; the rules between fields (text xor payload, a timer
 * needs delay_seconds xor at, job.done needs job_id, …) are applied by parseWakeInput.
 */
export const wakeInputSchema = z
  .object({
    text: z.string().max(WAKE_TEXT_MAX).optional().describe('What the agent should read when it wakes (a prompt to itself). Give text or payload.'),
    payload: z.unknown().optional().describe(`Structured data instead of text: any JSON value, at most ${PAYLOAD_MAX_BYTES} bytes.`),
    delay_seconds: z.int().min(1).max(DELAY_MAX_SECONDS).optional().describe('Timer: wake after this many seconds (whole number, 1 to 2592000 = 30 days).'),
    at: z.string().max(200).optional().describe("Timer: wake at this instant, words or ISO in the owner's zone ('in 20 minutes', 'tomorrow at 9', '2026-10-03 09:00'). Once only."),
    when: wakeWhenSchema.optional().describe('What wakes the thread; default timer.'),
    job_id: z
      .string()
      .optional()
      .describe('job.done: a task name, terminal:<terminal name> (the terminal that has that name now, or the next one opened with it; its next command that ends) or a command row id c-….'),
    thread_id: z.string().optional().describe('The thread to wake; default the life thread.'),
    cancel_token: z.string().optional().describe('A token to cancel this wake later; a call with only cancel_token cancels the pending wakes holding it.'),
    landing: landingInputSchema
      .optional()
      .describe(
        'Where to land when woken: { uri } (file:///abs/path#L10-L20, cdp://evidence/<id>, intercom://message/<topic>/<msg>#<start>-<end>) or a code anchor { path, symbol?, start_line, end_line } (1-based, inclusive; the excerpt is taken from the file now and re-found after edits).',
      ),
  })
  .strict();

export type WakeField = 'text' | 'payload' | 'delay_seconds' | 'at' | 'when' | 'job_id' | 'thread_id' | 'cancel_token' | 'landing' | 'tz';
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
  landing: 'landing',
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
  /** Where to land, as the caller gave it (the host or CLI turns it into a LandingRef). */
  landing?: LandingInput;
  /** Timer: the absolute instant; events: null. */
  nextRunAt: Date | null;
  /** "at Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min" / "when the task \"build\" ends". */
  description: string;
}

export type WakeInputResult = { kind: 'cancel'; cancelToken: string } | NewWake;

const WAKE_FIELDS: readonly WakeField[] = ['text', 'payload', 'delay_seconds', 'at', 'when', 'job_id', 'thread_id', 'cancel_token', 'landing'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Reads a `SendToLifeThread` call. Absent, null and blank optional values count as not given (tool
 * callers send them for unused fields). Throws InputError(field, reason) with the caller's field name.
 */
/** A wake as the contract's input takes it (the tool, MCP, the CLI, `/wake` words). */
export type WakeInput = z.infer<typeof wakeInputSchema>;

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
  for (const [k, v] of Object.entries(given)) refuseNul(v, f(k as WakeField));
  // A landing is read on its own: the CLI gives it as a URI or JSON text.
  const landing = Object.hasOwn(given, 'landing') ? parseLandingInput(given.landing, f('landing')) : undefined;
  const { landing: _l, ...shape } = given;
  const parsed = wakeInputSchema.safeParse(shape);
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
  }
  let payload: JsonValue | undefined;
  if (hasPayload) {
    const problem = payloadProblem(w.payload);
    if (problem !== undefined) throw new InputError(f('payload'), problem);
    payload = w.payload as JsonValue;
  }

  const when: WakeWhen = w.when ?? 'timer';
  const tz = validateZone(opts.tz, f('tz'));
  const threadId = w.thread_id === undefined ? undefined : checkTopic(checkName(w.thread_id, f('thread_id'), THREAD_ID_MAX), f('thread_id'));
  const cancelToken = w.cancel_token === undefined ? undefined : checkToken(w.cancel_token, f('cancel_token'));
  const base = { kind: 'wake' as const, ...(text !== undefined ? { text } : {}), ...(hasPayload ? { payload } : {}), when, tz };
  const extras = { ...(threadId !== undefined ? { threadId } : {}), ...(cancelToken !== undefined ? { cancelToken } : {}), ...(landing ? { landing } : {}) };

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

/** A thread is a topic (its transcript and TopicDecisions live in a folder of that name). */
function checkTopic(value: string, field: string): string {
  if (!isTopicId(value)) throw new InputError(field, `'${value}' is not a topic name: letters, digits, dot, dash or underscore, starting with a letter or digit, at most 100`);
  return value;
}

function checkToken(value: string, field: string): string {
  return checkName(value, field, CANCEL_TOKEN_MAX);
}

function checkJobId(value: string, field: string): string {
  const v = checkName(value, field, JOB_ID_MAX);
  if (/^terminal:\s*$/.test(v)) throw new InputError(field, "names no terminal: say terminal:<terminal name>, e.g. 'terminal:bash'");
  if (looksLikeCommandId(v) && !isCommandId(v)) throw new InputError(field, `'${v}' looks like a command row id but is not one (c- and 1 to 40 letters, digits, - or _)`);
  return v;
}

/** "when the task "build" ends", "when the user is back …" — the condition of an event wake in words. */
export function describeWhen(when: EventWhen, jobId?: string): string {
  switch (when) {
    case 'job.done': {
      const id = jobId ?? '?';
      if (id.startsWith('terminal:')) return `when the next command in terminal "${id.slice('terminal:'.length)}" ends`;
      if (isCommandId(id)) return `when the run of command row ${id} ends`;
      return `when the task "${id}" ends`;
    }
    case 'presence.online':
      return 'when the user is back (the window is focused after being away) or a language model is available again';
    case 'scm.changed':
      return "when the git repository's HEAD or index changes";
  }
}

