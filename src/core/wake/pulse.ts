/**
 * The pulse (design §3 "Pulse", §8): the short message a wake starts its turn with — the wake's own
 * text, then the `life_wake:` block — never longer than its cap whatever the log; and the job's status
 * and summary it names. Pure.
 */
import type { LandingRef } from '../landing';
import { stripControl } from '../controlCodes';
import { redact } from '../redact';
import { summarizeLines } from '../summary';
import { LOG_TAIL_BYTES, PULSE_MAX_CHARS, PULSE_SUMMARY_MAX, type DeskState, type JobStatus, type WakeWhen } from './contract';
import type { WakeRow } from './row';

// ---------------------------------------------------------------------------------------------
// The desk the pulse names

/**
 * The pulse's `desk` when a `cdp://evidence/…` landing prepares the desk again as the wake is
 * delivered. The job-finish pipeline's own outcome counts: a page it opened or restored stays
 * `prepared` even though the landing finds it there (`ok`); `ok` only when both found everything
 * there. A landing that could not show the page (`needs_restore`, `none`) is what holds now. With no
 * outcome from the pipeline (a timer wake, the caller's own landing) the landing's outcome is the desk.
 */
export function deskAtDelivery(pipeline: DeskState | undefined, landing: DeskState): DeskState {
  if (pipeline === undefined || pipeline === 'none') return landing;
  if (landing === 'needs_restore' || landing === 'none') return landing;
  return pipeline === 'ok' && landing === 'ok' ? 'ok' : 'prepared';
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
  return readOutput(tail, opts).summary;
}

/** A job's output as a person reads it: plain text, its summary, and the line the summary stands on. */
export interface JobOutput {
  /** The tail as the terminal showed it (control codes applied and stripped), a cut first line dropped. */
  text: string;
  summary: string;
  /** 0-based line of `text` the summary was read from. */
  summaryLine?: number;
}

/** The plain text, summary and summary line of the end of a job's output (see summaryFromLogTail). */
export function readOutput(tail: string, opts: { truncated?: boolean; max?: number } = {}): JobOutput {
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
  // Secrets are redacted before anything is read from the output: the summary goes to the model and into wakes.json.
  const text = redact(stripControl(t));
  const s = summarizeLines(text.split('\n'), opts.max ?? PULSE_SUMMARY_MAX);
  return { text, summary: s.text, ...(s.at !== undefined ? { summaryLine: s.at } : {}) };
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
  /** For a code anchor: the ladder step that found it when the wake fired (design §4). */
  landingStep?: 'exact' | 'symbol' | 'excerpt' | 'orphaned';
  desk?: DeskState;
  /** The wakes this pulse delivers: the receiver acknowledges them by these ids. */
  wakeIds?: readonly string[];
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
  ids: readonly string[];
  step: string | undefined;
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
  const lines = ['life_wake:'];
  if (p.ids.length === 1) lines.push(`  wake: ${p.ids[0] ?? ''}`);
  else if (p.ids.length > 1) lines.push(`  wake: [${p.ids.join(', ')}]`);
  lines.push(`  reason: ${p.reason}`);
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
      const step = p.step === undefined ? '' : `, step: ${p.step}`;
      lines.push(`  landing: { kind: code_anchor, path: ${fitQuoted(a.path, b.path)}${symbol}, lines: "L${a.range.start.line + 1}-L${a.range.end.line + 1}"${step} }`);
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
    ids: (event.wakeIds ?? []).filter((id) => /^w-[A-Za-z0-9_-]{1,40}$/.test(id)).slice(0, 20),
    step: event.landingStep,
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
    ...(row.detail !== undefined ? { detail: row.detail } : {}),
    ...(row.landing ? { landing: row.landing } : {}),
    ...(row.desk ? { desk: row.desk } : {}),
    wakeIds: [row.id],
  };
}

/**
 * The wake ids a pulse carries (its `wake:` line), so that the receiver — `@life`, an MCP client,
 * `life-thread wait` — can say which wakes it has. Empty when the text is not a pulse.
 */
export function pulseWakeIds(text: string): string[] {
  const block = text.indexOf('life_wake:');
  if (block < 0) return [];
  const m = /^ {2}wake: (?:\[([^\]\n]{1,1200})\]|(\S+))$/m.exec(text.slice(block));
  if (!m) return [];
  const list = (m[1] ?? m[2] ?? '').split(',').map((s) => s.trim());
  return list.filter((id) => /^w-[A-Za-z0-9_-]{1,40}$/.test(id)).slice(0, 20);
}
