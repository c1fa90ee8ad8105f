/**
 * The HTML report a job's output names, to show on the desk (README "Landing"): a file
 * ending `.html`/`.htm` inside the workspace (relative paths read against the job's cwd, then each
 * workspace folder), a report folder a tool names (`npx playwright show-report`, pytest-cov's
 * `htmlcov`, Sphinx, Allure, cargo llvm-cov, vitest's html reporter) read as its `index.html`, or a
 * server on this machine that the output announces (`Local: http://localhost:5173/`). Pure: the
 * caller may pass `isFile` so that only reports that exist are taken.
 *
 * Which one: a report a line announces ("Wrote HTML report to …", "See the report at: file://…")
 * beats an announced server, which beats an `.html` path mentioned in passing; among files the last
 * one printed wins (the report is written at the end), among servers the first (a dev server's own
 * address comes before the network ones). A URL merely mentioned (a failing request's address) and
 * lines that say a file is missing are not taken.
 */
import { stripControl } from './controlCodes';
import { fileLink } from './anchor/links';
import { isLoopbackHost } from './loopback';
import { folderOf, isWindowsPath, placeOf } from './workspacePath';

export type ReportRecogniser = 'playwright' | 'pytest-cov' | 'sphinx' | 'allure' | 'llvm-cov' | 'vitest' | 'report-folder' | 'path' | 'server';

export interface ReportPage {
  /** The page to open: a `file://` URL of the report, or a loopback http(s) URL. */
  url: string;
  /** The report file (absolute, inside a workspace folder) when the page is a file. */
  path?: string;
  /** 1-based line of the output that named it. */
  line: number;
  recogniser: ReportRecogniser;
}

export interface ReportPageOptions {
  /** The job's working directory: relative paths resolve against it first. */
  cwd?: string;
  /** Whether a file exists: a named report that is not there is passed over. */
  isFile?: (path: string) => boolean;
}

/** Lines longer than this are data, not messages. */
const LINE_MAX = 5000;
/** Announced (3) beats a server (2) beats a path in passing (1). */
type Tier = 1 | 2 | 3;

interface Candidate {
  tier: Tier;
  /** Line index, then the column where it was named: ties go by position in the output. */
  at: number;
  col: number;
  page: ReportPage;
}

const REPORT_WORDS = /\b(reports?|coverage|htmlcov|wrote|written|saved|generated|see|open|view|browse)\b/i;
const SERVER_WORDS = /\b(local|loopback|running|listening|serving|available|started|ready|open|view|report|server|preview)\b/i;
const MISSING_WORDS = /\b(ENOENT|no such file|not found|cannot find|could not find|failed to (?:load|open|read)|ERR_[A-Z_]+)\b/i;

/** Returns the report page the output names, or undefined. */
export function findReportPage(output: string, folders: readonly string[], opts: ReportPageOptions = {}): ReportPage | undefined {
  const roots = folders.filter((f) => f.trim() !== '').map(folderOf);
  const cwd = opts.cwd !== undefined && opts.cwd.trim() !== '' ? folderOf(opts.cwd) : undefined;
  const place = (raw: string): string | undefined => (roots.length === 0 ? undefined : placeOf(raw, roots, cwd, opts.isFile, undefined));
  const lines = stripControl(output).split('\n');
  let best: Candidate | undefined;
  const offer = (c: Candidate) => {
    if (!best || c.tier > best.tier) best = c;
    else if (c.tier === best.tier) {
      const later = c.at > best.at || (c.at === best.at && c.col > best.col);
      const earlier = c.at < best.at || (c.at === best.at && c.col < best.col);
      if (c.tier === 2 ? earlier : later) best = c;
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.length > LINE_MAX || MISSING_WORDS.test(line)) continue;
    for (const c of candidatesIn(line, i, place)) offer(c);
  }
  return best?.page;
}

function candidatesIn(line: string, at: number, place: (raw: string) => string | undefined): Candidate[] {
  const out: Candidate[] = [];
  const file = (raw: string, col: number, recogniser: ReportRecogniser, tier: Tier) => {
    const path = place(raw);
    if (path !== undefined) out.push({ tier, at, col, page: { url: fileUrl(path), path, line: at + 1, recogniser } });
  };
  for (const [re, recogniser] of FOLDER_RECOGNISERS) {
    const m = re.exec(line);
    if (!m) continue;
    const named = unquote((m[1] ?? '').trim().replace(/\.$/, '')) || (recogniser === 'playwright' ? 'playwright-report' : '');
    const target = reportFileIn(named);
    if (target !== undefined) file(target, m.index, recogniser, 3);
  }
  const announced = REPORT_WORDS.test(line);
  let rest = line;
  for (const m of line.matchAll(/\bhttps?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?(?:[/?#][^\s"'<>`]*)?/g)) {
    rest = blank(rest, m.index, m[0].length);
    const url = loopbackPage(trimTrailing(m[0]));
    if (url !== undefined && SERVER_WORDS.test(line)) out.push({ tier: 2, at, col: m.index, page: { url, line: at + 1, recogniser: 'server' } });
  }
  for (const [raw, col] of htmlPathsIn(rest)) file(raw, col, 'path', announced ? 3 : 1);
  return out;
}

/** Tools that name a report folder (or file) rather than print an `.html` path. */
const FOLDER_RECOGNISERS: [RegExp, ReportRecogniser][] = [
  [/(?:\bnpx|\byarn|\bpnpm(?:\s+exec)?|\bbunx|\bbun\s+x)\s+playwright\s+show-report(?:\s+(?!-)(\S+))?/, 'playwright'],
  [/\bCoverage HTML written to dir\s+(.+?)\s*$/, 'pytest-cov'],
  [/\bThe HTML pages are in\s+(.+?)\s*$/, 'sphinx'],
  [/\bReport successfully generated to\s+(.+?)\s*$/, 'allure'],
  [/\bFinished report saved to\s+(.+?)\s*$/, 'llvm-cov'],
  [/\bvite preview --outDir\s+(\S+)/, 'vitest'],
  // A generic "HTML/coverage report at <dir>": only a named path (with a separator) is read as a folder.
  [/\b(?:html|coverage)\s+report\b.*?\b(?:at|in|to)\b:?\s+(\S*[\\/]\S*?|\S+\.html?)\s*$/i, 'report-folder'],
];

/** A named report: an `.html` file as it is, a folder as its `index.html`, any other file as none. */
function reportFileIn(named: string): string | undefined {
  if (named === '' || /^[a-z][a-z0-9+.-]*:\/\/(?!\/)/i.test(named.replace(/^file:\/\//i, 'file:///'))) return undefined;
  if (/\.html?$/i.test(named)) return named;
  const base = named.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
  if (/\.[A-Za-z0-9]{1,6}$/.test(base)) return undefined;
  return `${named.replace(/[\\/]+$/, '')}${isWindowsPath(named) ? '\\' : '/'}index.html`;
}

/**
 * `.html`/`.htm` paths on a line whose URLs were blanked: quoted ones (spaces allowed), `file:` URLs,
 * absolute paths (spaces allowed: the shortest reading that ends in `.html` is taken) and relative ones.
 */
function htmlPathsIn(line: string): [string, number][] {
  const found: [string, number][] = [];
  const end = String.raw`(?=$|[\s"'<>)\],;:!?]|\.(?:$|\s))`;
  const patterns = [
    /(["'`])([^"'`]+?\.html?)\1/gi,
    new RegExp(String.raw`\bfile:(?:\/\/)?[^"'<>|]*?\.html?${end}`, 'gi'),
    new RegExp(String.raw`(?<![^\s"'(=<\[:])(?:[A-Za-z]:[\\/]|\/)[^"'<>|]*?\.html?${end}`, 'gi'),
    new RegExp(String.raw`(?<![^\s"'(=<\[:])(?:\.{1,2}[\\/])?[\w@+-][\w@+~.\\/-]*\.html?${end}`, 'gi'),
  ];
  let rest = line;
  for (const re of patterns) {
    for (const m of rest.matchAll(re)) {
      const raw = re === patterns[0] ? (m[2] ?? '') : m[0];
      found.push([raw.startsWith('file:') && !raw.startsWith('file://') ? raw.slice('file:'.length) : raw, m.index]);
      rest = blank(rest, m.index, m[0].length);
    }
  }
  return found;
}

/** A URL on this machine, as the desk would open it; a server on every interface answers on loopback too. */
function loopbackPage(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  else if (u.hostname === '[::]') u.hostname = '[::1]';
  return isLoopbackHost(u.hostname) ? u.href : undefined;
}

function fileUrl(path: string): string {
  if (!isWindowsPath(path)) return fileLink(path);
  const parts = path.replace(/\\/g, '/').split('/');
  const unc = path.startsWith('\\\\');
  const encoded = parts.map((p, i) => (i === 0 && !unc ? p : encodeURIComponent(p))).join('/');
  return unc ? `file:${encoded}` : `file:///${encoded}`;
}

function trimTrailing(s: string): string {
  return s.replace(/[.,;:!?)\]}>'"]+$/, '');
}

function unquote(s: string): string {
  return s.replace(/^(["'`])(.*)\1$/, '$2');
}

function blank(s: string, index: number, length: number): string {
  return `${s.slice(0, index)}${' '.repeat(length)}${s.slice(index + length)}`;
}
