/**
 * A pulse (the wake message with its `life_wake:` block) read back into plain lines for people: the
 * sidebar's feed and `@life` without a model show these instead of the raw block. Pure.
 */

export interface PulseWords {
  /** The wake's own text (what the agent asked to be woken for). */
  text: string;
  /** "Job j-1 failed (exit 1)", "Timer", "You are back", "The repository changed". */
  headline: string;
  summary: string | undefined;
  detail: string | undefined;
  /** "src/calc.ts L12-L14 (add)" or the deep link. */
  landing: string | undefined;
  desk: string | undefined;
  /** The further wakes of a coalesced pulse: `w-b: its text (job lint: failed, exit 1)`. */
  alsoWakes: string[];
}

const REASONS: Record<string, string> = {
  timer: 'Timer',
  'job.done': 'Job finished',
  'presence.online': 'You are back',
  'scm.changed': 'The repository changed',
};

function unquote(v: string): string {
  const t = v.trim();
  if (t.startsWith('"')) {
    try {
      return String(JSON.parse(t));
    } catch {
      return t.slice(1, t.endsWith('"') ? -1 : undefined);
    }
  }
  return t;
}

/** `{ a: 1, b: "x, y" }` → { a: '1', b: 'x, y' } (the flow maps the pulse writes; quoted values may hold commas). */
function flowMap(v: string): Record<string, string> {
  const out: Record<string, string> = {};
  const body = v.trim().replace(/^\{/, '').replace(/\}$/, '');
  const re = /\s*([a-z_]+):\s*("(?:[^"\\]|\\.)*"|[^,]*)\s*(?:,|$)/gy;
  for (let m = re.exec(body); m && m[0] !== ''; m = re.exec(body)) out[m[1] ?? ''] = unquote(m[2] ?? '');
  return out;
}

/** Null when `text` has no `life_wake:` block. */
export function pulseWords(text: string): PulseWords | null {
  const at = text.indexOf('life_wake:');
  if (at < 0) return null;
  const fields: Record<string, string> = {};
  const alsoWakes: string[] = [];
  for (const line of text.slice(at + 'life_wake:'.length).split('\n')) {
    const m = /^\s+([a-z_]+):\s?(.*)$/.exec(line);
    if (m?.[1] === 'also_wake') alsoWakes.push(alsoWords(m[2] ?? ''));
    else if (m?.[1]) fields[m[1]] = m[2] ?? '';
  }
  const reason = (fields.reason ?? '').trim();
  let headline = REASONS[reason] ?? (reason || 'Wake');
  if (fields.job !== undefined) {
    const j = flowMap(fields.job);
    const status = j.status ?? 'unknown';
    const exit = j.exit_code && j.exit_code !== 'null' ? ` (exit ${j.exit_code})` : '';
    headline = `Job ${j.id ?? ''} ${status === 'succeeded' ? 'succeeded' : status === 'failed' ? 'failed' : status}${exit}`.replace(/\s+/g, ' ');
  }
  let landing: string | undefined;
  if (fields.landing !== undefined) {
    const l = flowMap(fields.landing);
    if (l.kind === 'code_anchor') landing = `${l.path ?? ''} ${l.lines ?? ''}${l.symbol ? ` (${l.symbol})` : ''}`.trim();
    else if (l.kind === 'deep_link') landing = l.uri ?? l.path;
  }
  return {
    text: text.slice(0, at).trim(),
    headline,
    summary: fields.summary !== undefined ? unquote(fields.summary) : undefined,
    detail: fields.detail !== undefined ? unquote(fields.detail) : undefined,
    landing,
    desk: fields.desk?.trim() || undefined,
    alsoWakes,
  };
}

/** `w-b "its text" (job lint: failed, exit 1)` → `w-b: its text (job lint: failed, exit 1)`. */
function alsoWords(v: string): string {
  const m = /^(\S+) ("(?:[^"\\]|\\.)*")(.*)$/.exec(v.trim());
  return m ? `${m[1] ?? ''}: ${unquote(m[2] ?? '')}${m[3] ?? ''}` : v.trim();
}

/** The pulse as a few readable lines; other text unchanged. */
export function readablePulse(text: string): string {
  const w = pulseWords(text);
  if (!w) return text;
  return [
    w.text,
    w.headline,
    w.summary !== undefined ? `Summary: ${w.summary}` : '',
    w.detail !== undefined ? `Detail: ${w.detail}` : '',
    w.landing !== undefined ? `Landing: ${w.landing}` : '',
    ...w.alsoWakes.map((a) => `Also woken: ${a}`),
  ]
    .filter(Boolean)
    .join('\n');
}
