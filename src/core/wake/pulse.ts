/**
 * The pulse (docs/architecture.md, "String protocols"): the short message a wake starts its turn
 * with — the wake's own text, then the `life_wake:` block — never longer than its cap whatever the
 * log; and the job's status and summary it names. Pure.
 */
import type { LandingRef } from '../landing';
import type { PathRules } from '../folderUri';
import { stripControl } from '../controlCodes';
import { redact } from '../redact';
import { summarizeLines } from '../summary';
import { isWakeId } from '../ids';
import { LOG_TAIL_BYTES, PULSE_MAX_CHARS, PULSE_SUMMARY_MAX, type DeskState, type JobStatus, type WakeWhen } from './contract';
import type { WakeRow } from './row';
import { anchorPathWords, evidenceWords, linkWords, type PulseFolder } from './pulsePaths';

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
// The log summary (a job's status is decided in ./jobStatus.ts)

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
  /** Our timeout killed it (status failed, no exit code): the job line says `timed_out: true`. */
  timedOut?: boolean;
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
  /** For a code anchor: the ladder step that found it when the wake fired. */
  landingStep?: 'exact' | 'symbol' | 'excerpt' | 'orphaned';
  desk?: DeskState;
  /** The wakes this pulse delivers: the receiver acknowledges them by these ids. */
  wakeIds?: readonly string[];
  /** Sent again after a receiver died between sending and recording it (the row's fact.redelivered). */
  redelivered?: boolean;
  /** Set by an MCP session that ended; delivered to the next session of the same client and folder (the row's fact.earlierSession). */
  earlierSession?: boolean;
  /** The further wakes of a coalesced pulse (./coalesce.ts groupPulse), each on an `also_wake:` line. */
  alsoWakes?: readonly AlsoWake[];
}

/** A further wake that fired with the first: its id, its own text (or payload as JSON) and its job. */
export interface AlsoWake {
  id: string;
  text: string;
  job?: PulseJob;
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

/** A landing as the pulse words it: paths inside the workspace relative (./pulsePaths.ts). */
type LandingWords =
  | { kind: 'deep_link'; key: 'path' | 'uri'; value: string }
  | { kind: 'code_anchor'; path: string; symbol: string; lines: string; evidence: string | undefined }
  | { kind: 'none' };

function landingWords(l: LandingRef, folders: readonly PulseFolder[], rules: PathRules | undefined): LandingWords {
  if (l.kind === 'deep_link') return { kind: 'deep_link', ...linkWords(l.uri, folders, rules) };
  if (l.kind === 'none') return l;
  const a = l.anchor;
  return {
    kind: 'code_anchor',
    path: anchorPathWords(a.path, folders, rules),
    symbol: a.symbol,
    lines: `L${a.range.start.line + 1}-L${a.range.end.line + 1}`,
    evidence: l.evidence === undefined ? undefined : evidenceWords(l.evidence, folders, rules),
  };
}

type Budgets = Record<'text' | 'summary' | 'detail' | 'jobId' | 'uri' | 'path' | 'symbol' | 'alsoText', number>;

interface PulseParts {
  ids: readonly string[];
  step: string | undefined;
  text: string;
  reason: WakeWhen;
  also: readonly WakeWhen[];
  job: { id: string; status: JobStatus; exitCode: number | null; timedOut: boolean } | undefined;
  summary: string | undefined;
  detail: string | undefined;
  landing: LandingWords | undefined;
  desk: DeskState | undefined;
  redelivered: boolean;
  earlierSession: boolean;
  alsoWakes: readonly AlsoWake[];
}

/** The most wake ids a pulse names (what pulseWakeIds reads back). */
const PULSE_WAKES_MAX = 20;
const BARE_JOB_ID = /^[A-Za-z0-9_.@/+-]{1,200}$/;

/** `(job lint: failed, exit 1)`: a further wake's job, its id bare when it is one plain word. */
function alsoJob(job: PulseJob | undefined, budget: number): string {
  if (!job) return '';
  const id = job.id ?? '';
  const name = id === '' ? '' : BARE_JOB_ID.test(id) && id.length <= budget ? `${id}: ` : `${fitQuoted(id, budget)}: `;
  const exit = typeof job.exitCode === 'number' && Number.isFinite(job.exitCode) ? `, exit ${job.exitCode}` : job.timedOut ? ', timed out' : '';
  return ` (job ${name}${job.status}${exit})`;
}

function renderParts(p: PulseParts, b: Budgets): string {
  const lines = ['life_wake:'];
  if (p.ids.length === 1) lines.push(`  wake: ${p.ids[0] ?? ''}`);
  else if (p.ids.length > 1) lines.push(`  wake: [${p.ids.join(', ')}]`);
  lines.push(`  reason: ${p.reason}`);
  if (p.also.length > 0) lines.push(`  also: [${p.also.join(', ')}]`);
  if (p.job) lines.push(`  job: { id: ${fitQuoted(p.job.id, b.jobId)}, status: ${p.job.status}, exit_code: ${p.job.exitCode === null ? 'null' : String(p.job.exitCode)}${p.job.timedOut ? ', timed_out: true' : ''} }`);
  if (p.summary !== undefined) lines.push(`  summary: ${fitQuoted(p.summary, b.summary)}`);
  if (p.detail !== undefined) lines.push(`  detail: ${fitQuoted(p.detail, b.detail)}`);
  if (p.landing) {
    const l = p.landing;
    if (l.kind === 'deep_link') lines.push(`  landing: { kind: deep_link, ${l.key}: ${fitQuoted(l.value, b.uri)} }`);
    else if (l.kind === 'code_anchor') {
      const symbol = l.symbol === '' ? '' : `, symbol: ${fitQuoted(l.symbol, b.symbol)}`;
      const step = p.step === undefined ? '' : `, step: ${p.step}`;
      lines.push(`  landing: { kind: code_anchor, path: ${fitQuoted(l.path, b.path)}${symbol}, lines: "${l.lines}"${step} }`);
      if (l.evidence !== undefined) lines.push(`  evidence: ${fitQuoted(l.evidence, b.uri)}`);
    } else lines.push('  landing: { kind: none }');
  }
  if (p.desk) lines.push(`  desk: ${p.desk}`);
  for (const a of p.alsoWakes) lines.push(`  also_wake: ${a.id} ${fitQuoted(a.text, b.alsoText)}${alsoJob(a.job, b.jobId)}`);
  if (p.redelivered) lines.push('  redelivered: true');
  if (p.earlierSession) lines.push('  earlier_session: true');
  const block = lines.join('\n');
  const text = fitText(p.text, b.text);
  return text === '' ? block : `${text}\n\n${block}`;
}

/** How a pulse is rendered: its cap, and the window's workspace folders (paths inside them are named relative). */
export interface PulseOptions {
  /** Default PULSE_MAX_CHARS. */
  maxChars?: number;
  /** None (outside a window): every path stays absolute. */
  folders?: readonly PulseFolder[];
  /** Default: the rules of the machine this runs on (src/core/folderUri.ts). */
  rules?: PathRules;
}

/**
 * The wake message: the wake's own text (or its payload as compact JSON) first, then
 * the `life_wake:` block; lines that do not apply are left out. Never longer than `maxChars` (default
 * 600), whatever the inputs: the summary is held to 160 characters, then the text is cut, then the
 * summary, symbol and job id further (each cut marked …); paths and URIs stay whole unless they alone
 * leave no room; the block's keys stay. A coalesced pulse's
 * further wakes (`alsoWakes`) each get an `also_wake:` line with their text (cut, never dropped) and
 * job; only when even "…" does not fit are the last of them left out, of `wake:` too.
 */
export function renderPulse(wake: PulseWake, event: PulseEvent = {}, opts: PulseOptions = {}): string {
  const raw = opts.maxChars;
  const max = raw === undefined || !Number.isFinite(raw) ? PULSE_MAX_CHARS : Math.max(1, Math.floor(raw));
  const reason = event.reason ?? wake.when;
  const bodyRaw = wake.text !== undefined ? wake.text : wake.payload !== undefined ? JSON.stringify(wake.payload) : '';
  // Nothing longer than the cap can survive, so nothing longer is ever copied or quoted.
  const body = headOf(bodyRaw.trim(), max + 1);
  const jobId = event.job?.id ?? wake.jobId;
  const ids = (event.wakeIds ?? []).filter(isWakeId).slice(0, PULSE_WAKES_MAX);
  // A further wake is named in `wake:` and has its own line; its text is never longer than the cap could hold.
  const alsoWakes = (event.alsoWakes ?? [])
    .filter((a, i, all) => ids.includes(a.id) && a.id !== ids[0] && all.findIndex((x) => x.id === a.id) === i)
    .map((a) => ({ id: a.id, text: oneLine(headOf(a.text.trim(), max + 1)), ...(a.job ? { job: { ...a.job, ...(a.job.id !== undefined ? { id: headOf(a.job.id, max) } : {}) } } : {}) }));
  const parts: PulseParts = {
    ids,
    step: event.landingStep,
    text: body,
    reason,
    also: (event.also ?? []).filter((r) => r !== reason),
    job:
      event.job !== undefined || (reason === 'job.done' && jobId !== undefined)
        ? {
            id: headOf(jobId ?? '', max),
            status: event.job?.status ?? 'unknown',
            exitCode: typeof event.job?.exitCode === 'number' && Number.isFinite(event.job.exitCode) ? event.job.exitCode : null,
            timedOut: event.job?.timedOut === true,
          }
        : undefined,
    summary: event.summary === undefined ? undefined : oneLine(headOf(event.summary, max * 2)),
    detail: event.detail === undefined ? undefined : oneLine(headOf(event.detail, max * 2)),
    landing: event.landing ? landingWords(event.landing, opts.folders ?? [], opts.rules) : undefined,
    desk: event.desk,
    redelivered: event.redelivered === true,
    earlierSession: event.earlierSession === true,
    alsoWakes,
  };
  const budgets = (): Budgets => ({ text: Infinity, summary: PULSE_SUMMARY_MAX + 2, detail: 120, jobId: Infinity, uri: Infinity, path: Infinity, symbol: Infinity, alsoText: Infinity });
  // Cut order: text to 40, the further wakes' texts to 40, then summary, detail, symbol and job id to
  // short forms, the further texts to 10, then the text entirely, then everything else to a bare "…"
  // (a further wake's text too: it is cut, never dropped). Paths and URIs are never cut, since a cut
  // one names nothing; only when the pulse cannot hold them whole (a path near the cap's size) are they
  // cut too, to 60 characters early (the rest of the pulse keeps its words), then to "…".
  const steps: [keyof Budgets, number][] = [
    ['text', 40],
    ['alsoText', 42],
    ['summary', 60],
    ['detail', 40],
    ['uri', 60],
    ['path', 60],
    ['symbol', 30],
    ['jobId', 40],
    ['alsoText', 12],
    ['text', 0],
    ['alsoText', 3],
    ['summary', 3],
    ['detail', 3],
    ['uri', 3],
    ['path', 3],
    ['symbol', 3],
    ['jobId', 3],
  ];
  // The same order without the paths and URIs: the cuts tried while they can stay whole.
  const textSteps = steps.filter(([k]) => k !== 'uri' && k !== 'path');
  // Even cut to "…" the further wakes do not fit: the last ones are left out of this pulse — out of
  // `wake:` too, so that its receipt delivers only the wakes it carries (the window sends them next).
  const fitDropping = (order: readonly [keyof Budgets, number][]): string => {
    let out = cutToFit(parts, budgets(), order, max);
    while (out.length > max && parts.alsoWakes.length > 0) {
      const dropped = parts.alsoWakes[parts.alsoWakes.length - 1];
      parts.alsoWakes = parts.alsoWakes.slice(0, -1);
      parts.ids = parts.ids.filter((id) => id !== dropped?.id);
      out = cutToFit(parts, budgets(), order, max);
    }
    return out;
  };
  const all = { alsoWakes: parts.alsoWakes, ids: parts.ids };
  let out = fitDropping(textSteps);
  if (out.length > max) {
    Object.assign(parts, all);
    out = fitDropping(steps);
  }
  if (out.length > max) out = max === 1 ? '…' : `${headOf(out, max - 1)}…`;
  return out;
}

function cutToFit(parts: PulseParts, b: Budgets, steps: readonly [keyof Budgets, number][], max: number): string {
  let out = renderParts(parts, b);
  for (const [key, floor] of steps) {
    const over = out.length - max;
    if (over <= 0) break;
    const current = currentLength(parts, key, b);
    if (current <= floor) continue;
    if (key === 'alsoText') {
      // One budget holds every further text: the largest that fits, found by halving.
      let lo = floor;
      let hi = current;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (renderParts(parts, { ...b, alsoText: mid }).length <= max) lo = mid;
        else hi = mid - 1;
      }
      b.alsoText = lo;
    } else b[key] = Math.max(floor, current - over);
    out = renderParts(parts, b);
  }
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
      // A code anchor's evidence is cut with the URI budget: a pulse has one or the other.
      return q(p.landing?.kind === 'deep_link' ? p.landing.value : p.landing?.kind === 'code_anchor' ? p.landing.evidence : undefined);
    case 'path':
      return q(p.landing?.kind === 'code_anchor' ? p.landing.path : undefined);
    case 'symbol':
      return q(p.landing?.kind === 'code_anchor' && p.landing.symbol !== '' ? p.landing.symbol : undefined);
    case 'alsoText':
      return Math.max(0, ...p.alsoWakes.map((a) => fitQuoted(a.text, b.alsoText).length));
  }
}

/** The pulse event a claimed row carries (its job outcome, landing and desk). */
export function pulseEventOfRow(row: WakeRow): PulseEvent {
  const f = row.fact ?? {};
  const job =
    row.when === 'job.done' || f.jobStatus !== undefined
      ? { ...(row.jobId !== undefined ? { id: row.jobId } : {}), status: f.jobStatus ?? 'unknown', exitCode: f.exitCode ?? null, ...(f.timedOut === true ? { timedOut: true } : {}) }
      : undefined;
  return {
    reason: row.when,
    ...(job ? { job } : {}),
    ...(f.summary !== undefined ? { summary: f.summary } : {}),
    ...(row.detail !== undefined ? { detail: row.detail } : {}),
    ...(row.landing ? { landing: row.landing } : {}),
    ...(row.desk ? { desk: row.desk } : {}),
    wakeIds: [row.id],
    ...(f.redelivered ? { redelivered: true } : {}),
    ...(f.earlierSession ? { earlierSession: true } : {}),
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
  return list.filter(isWakeId).slice(0, PULSE_WAKES_MAX);
}
