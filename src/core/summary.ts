/**
 * One line that says how a run went, taken from its log: the summary line of a common test runner,
 * compiler or linter when there is one, else the last meaningful line. Used in pulses, alerts and
 * lists. Test runners' counts are said in one vocabulary, passed and failed first, whatever words
 * the tool used ("6 passing" → "6 passed"): `mocha: 6 passed, 2 failed, 1 pending`; durations and
 * totals the counts already imply are left to the log. The corpus in
 * test/fixtures/summaries holds real output of each tool with the summary expected of it.
 */
import { stripControl } from './controlCodes';

interface Found {
  /** The line the summary was read from: the latest wins when several tools ran. */
  at: number;
  text: string;
}

type Recogniser = (lines: readonly string[]) => Found | undefined;

/** A summary line is short; a longer line is output, not a summary (and never worth a regex). */
const SUMMARY_LINE_MAX = 400;

function lastIndex(lines: readonly string[], re: RegExp, before = lines.length): { at: number; m: RegExpMatchArray } | undefined {
  for (let i = Math.min(before, lines.length) - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    if (line.length > SUMMARY_LINE_MAX) continue;
    const m = line.match(re);
    if (m) return { at: i, m };
  }
  return undefined;
}

function num(s: string | undefined): number {
  return s === undefined ? 0 : Number(s);
}

type Count = [n: number, word: string];

/** `P passed, F failed` first (0 where the tool leaves a zero out), then the rest in the tool's order. */
function counts(passed: number, failed: number, rest: readonly Count[] = []): string {
  return [`${passed} passed`, `${failed} failed`, ...rest.filter(([n]) => n > 0).map(([n, w]) => `${n} ${w}`)].join(', ');
}

/** `12 passed, 1 skipped` → Map(passed → 12, skipped → 1); separators `,` or `|`. */
function countList(s: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of s.matchAll(/(\d+) ([a-z]+(?: [a-z]+)*?)(?=\s*(?:[,|(]|$))/g)) out.set(m[2] ?? '', num(m[1]));
  return out;
}

const mocha: Recogniser = (lines) => {
  const passing = lastIndex(lines, /^\s*(\d+) passing\b/);
  if (!passing) return undefined;
  // One line (`3 passing, 1 failing, 2 pending`), as wrappers and CI logs print mocha's counts.
  const inline = (word: string): number => num(new RegExp(`[,;]\\s*(\\d+) ${word}\\b`).exec(passing.m.input ?? '')?.[1]);
  if (/[,;]\s*\d+ (?:failing|pending)\b/.test(passing.m.input ?? '')) {
    return { at: passing.at, text: `mocha: ${counts(num(passing.m[1]), inline('failing'), [[inline('pending'), 'pending']])}` };
  }
  // mocha prints passing, then pending and failing right after it.
  const near = (re: RegExp) => {
    for (let i = passing.at + 1; i <= passing.at + 2 && i < lines.length; i++) {
      const m = re.exec(lines[i] ?? '');
      if (m) return num(m[1]);
    }
    return 0;
  };
  const text = counts(num(passing.m[1]), near(/^\s*(\d+) failing\b/), [[near(/^\s*(\d+) pending\b/), 'pending']]);
  return { at: passing.at, text: `mocha: ${text}` };
};

/** node:test, TAP (`# pass 4`) or spec reporter (`ℹ pass 4`): a block of `tests/pass/fail/…` lines. */
const nodeTest: Recogniser = (lines) => {
  const fail = lastIndex(lines, /^(?:#|ℹ)\s+fail\s+(\d+)\s*$/);
  if (!fail) return undefined;
  // undefined when the runner did not print the line (a hand-written "# fail 1" has no "# tests").
  const block = (key: string): number | undefined => {
    for (let i = Math.max(0, fail.at - 4); i <= fail.at + 6 && i < lines.length; i++) {
      const m = new RegExp(`^(?:#|ℹ)\\s+${key}\\s+(\\d+)\\s*$`).exec(lines[i] ?? '');
      if (m) return num(m[1]);
    }
    return undefined;
  };
  const stated: Count[] = [
    [block('skipped') ?? 0, 'skipped'],
    [block('todo') ?? 0, 'todo'],
    [block('cancelled') ?? 0, 'cancelled'],
  ];
  const passed = block('pass') ?? 0;
  const failed = num(fail.m[1]);
  return { at: fail.at, text: `node:test: ${counts(passed, failed, stated)}${totalNote(block('tests'), passed + failed + sum(stated))}` };
};

function sum(cs: readonly Count[]): number {
  return cs.reduce((a, [n]) => a + n, 0);
}

/** The tool's total only where the stated counts do not add up to it (it counts something they leave out). */
function totalNote(total: number | undefined, statedSum: number): string {
  return total === undefined || total === statedSum ? '' : ` (${total} tests)`;
}

/** jest `Tests:       1 failed, 12 passed, 13 total`; vitest `      Tests  1 failed | 12 passed (13)`. */
const jestVitest: Recogniser = (lines) => {
  const f = lastIndex(lines, /^\s*Tests:?\s+((?:\d+ [a-z]+(?:\s*[,|]\s*)?)+)(?:\s*\((\d+)\))?\s*$/);
  if (!f) return undefined;
  const c = countList(f.m[1] ?? '');
  const total = f.m[2] !== undefined ? num(f.m[2]) : c.get('total');
  const files = lastIndex(lines, /^\s*Test (Suites:|Files)\s+(.*?)\s*$/, f.at);
  const vitest = files?.m[1] === 'Files';
  const fileCounts = countList(files?.m[2] ?? '');
  const failedFiles = fileCounts.get('failed') ?? 0;
  const rest: Count[] = [...c].filter(([w]) => !['passed', 'failed', 'total'].includes(w)).map(([w, n]) => [n, w]);
  const passed = c.get('passed') ?? 0;
  const failed = c.get('failed') ?? 0;
  // A suite or file that failed to load fails with no test counted: say so.
  const filesNote = failedFiles > 0 ? `; ${failedFiles} ${vitest ? 'file' : 'suite'}${failedFiles === 1 ? '' : 's'} failed` : '';
  return { at: f.at, text: `${vitest ? 'vitest' : 'jest'}: ${counts(passed, failed, rest)}${totalNote(total, passed + failed + sum(rest))}${filesNote}` };
};

const PYTEST_WORDS = /\b(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun|no tests ran)\b/;

/** pytest `==== 1 failed, 12 passed in 0.30s ====`, or with `-q` the same words without the rule. */
const pytest: Recogniser = (lines) => {
  const f = lastIndex(lines, /^(?:=+ )?((?:\d+ [a-z]+|no tests ran)(?:, \d+ [a-z]+)*) in ([\d.]+s)(?: \([^)]*\))?(?: =+)?\s*$/);
  if (!f || !PYTEST_WORDS.test(f.m[1] ?? '')) return undefined;
  const c = countList(f.m[1] ?? '');
  if (!c.has('passed') && !c.has('failed')) return { at: f.at, text: `pytest: ${f.m[1]}` };
  const rest: Count[] = [...c].filter(([w]) => w !== 'passed' && w !== 'failed').map(([w, n]) => [n, w]);
  return { at: f.at, text: `pytest: ${counts(c.get('passed') ?? 0, c.get('failed') ?? 0, rest)}` };
};

/** playwright's closing block: `  2 failed`, its test list, `  1 flaky`, `  5 passed (12.3s)`. */
const playwright: Recogniser = (lines) => {
  const last = lastIndex(lines, /^ {2}(\d+) (passed|failed|flaky|skipped|interrupted|did not run)(?: \([\dhms. ]+\))?\s*$/);
  if (!last) return undefined;
  const c = new Map<string, number>();
  // The block runs upward from its last count, over the indented test lists between counts.
  for (let i = last.at; i >= 0 && i > last.at - 400; i--) {
    const line = lines[i] ?? '';
    const m = /^ {2}(\d+) (passed|failed|flaky|skipped|interrupted|did not run)(?: \([^)]+\))?\s*$/.exec(line);
    if (m) {
      if (!c.has(m[2] ?? '')) c.set(m[2] ?? '', num(m[1]));
    } else if (!/^ {4}\S/.test(line)) break;
  }
  const rest: Count[] = ['flaky', 'skipped', 'interrupted', 'did not run'].map((w) => [c.get(w) ?? 0, w]);
  return { at: last.at, text: `playwright: ${counts(c.get('passed') ?? 0, c.get('failed') ?? 0, rest)}` };
};

/** go test: `--- PASS/FAIL/SKIP:` lines of top-level tests, then one `ok`/`FAIL` line per package. */
const goTest: Recogniser = (lines) => {
  let ok = 0;
  const failedPackages: string[] = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.length > SUMMARY_LINE_MAX) continue;
    const t = /^--- (PASS|FAIL|SKIP): /.exec(line);
    if (t) {
      if (t[1] === 'PASS') passed++;
      else if (t[1] === 'FAIL') failed++;
      else skipped++;
      continue;
    }
    if (/^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/.test(line)) {
      ok++;
      at = i;
      continue;
    }
    const f = /^FAIL\s+(\S+)(?:\s+(?:[\d.]+s|(\[(?:build|setup) failed\])))?\s*$/.exec(line);
    if (f?.[1] && (f[2] !== undefined || /\d/.test(line))) {
      failedPackages.push(f[2] ? `${f[1]} ${f[2]}` : f[1]);
      at = i;
    }
  }
  if (at < 0) return undefined;
  const names = failedPackages.slice(0, 2).join(', ') + (failedPackages.length > 2 ? ', …' : '');
  const packages = `packages: ${ok} ok${failedPackages.length > 0 ? `, ${failedPackages.length} FAIL (${names})` : ''}`;
  const tests = passed > 0 ? `${counts(passed, failed, [[skipped, 'skipped']])}; ` : failed > 0 ? `${failed} failed; ` : '';
  return { at, text: `go test: ${tests}${packages}` };
};

/** cargo test: one `test result:` line per test binary, summed. */
const cargoTest: Recogniser = (lines) => {
  let passed = 0;
  let failed = 0;
  let ignored = 0;
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    const m = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(lines[i] ?? '');
    if (!m) continue;
    at = i;
    passed += num(m[1]);
    failed += num(m[2]);
    ignored += num(m[3]);
  }
  if (at < 0) return undefined;
  return { at, text: `cargo test: ${counts(passed, failed, [[ignored, 'ignored']])}` };
};

/** cargo build: `error: could not compile `x` (lib test) due to 2 previous errors; 1 warning emitted`. */
const cargoBuild: Recogniser = (lines) => {
  const f = lastIndex(lines, /^error: could not compile `([^`]+)`(?: \(([^)]+)\))? due to (\d+) previous errors?(?:; (\d+) warnings? emitted)?/);
  if (!f) return undefined;
  const errors = num(f.m[3]);
  const warnings = num(f.m[4]);
  const target = f.m[2] ? ` (${f.m[2]})` : '';
  const w = warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
  return { at: f.at, text: `cargo: could not compile ${f.m[1]}${target}: ${errors} error${errors === 1 ? '' : 's'}${w}` };
};

const TSC_DIAGNOSTIC = /^(.+?)(?:\((\d+),\d+\): error TS\d+:|:(\d+):\d+ - error TS\d+:)/;

/** tsc: `Found 3 errors in 2 files.` (pretty), or its diagnostics counted (plain, which has no such line). */
const tsc: Recogniser = (lines) => {
  const f = lastIndex(lines, /^Found (\d+) errors?(?: in (\d+) files| in (.+?))?\.?\s*$/);
  if (f) {
    const n = num(f.m[1]);
    const where = f.m[2] ? ` in ${f.m[2]} files` : f.m[3] ? ` in ${f.m[3]}` : '';
    return { at: f.at, text: `tsc: ${n} error${n === 1 ? '' : 's'}${where}` };
  }
  let n = 0;
  let at = -1;
  const files = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.length > SUMMARY_LINE_MAX * 4) continue;
    const m = TSC_DIAGNOSTIC.exec(line);
    if (!m) continue;
    n++;
    at = i;
    files.add(m[1] ?? '');
  }
  if (n === 0) return undefined;
  return { at, text: `tsc: ${n} error${n === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'}` };
};

const eslint: Recogniser = (lines) => {
  const f = lastIndex(lines, /^\s*[✖x]\s+(\d+ problems? \(\d+ errors?, \d+ warnings?\))/);
  if (!f) return undefined;
  return { at: f.at, text: `eslint: ${f.m[1]}` };
};

/** The plain closing line any runner may print: `3 passed, 1 failed`, maybe `, 2 skipped`, maybe `label:` first. */
const plain: Recogniser = (lines) => {
  const f = lastIndex(lines, /^\s*(?:[\w:-]+:\s+)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\b(?!\s+in\s)/);
  if (!f) return undefined;
  return { at: f.at, text: (lines[f.at] ?? '').trim() };
};

/** An uncaught Node.js error: `RangeError: division by zero` above its stack, `Node.js v20…` below. */
const nodeUncaught: Recogniser = (lines) => {
  const v = lastIndex(lines, /^Node\.js v\d+\.\d+\.\d+\s*$/);
  if (!v) return undefined;
  const e = lastIndex(lines, /^(?:Uncaught )?([A-Z][A-Za-z]*(?:Error|Exception)|Error)(?: \[[A-Z_]+\])?(?:: (.*))?$/, v.at);
  if (!e || v.at - e.at > 60) return undefined;
  return { at: v.at, text: `node: ${(lines[e.at] ?? '').trim()}` };
};

const RECOGNISERS: Recogniser[] = [nodeTest, jestVitest, pytest, mocha, playwright, goTest, cargoTest, cargoBuild, tsc, eslint, plain, nodeUncaught];

export function summarize(log: string, max = 160): string {
  return summarizeLines(stripControl(log).split('\n'), max).text;
}

/**
 * The summary of output already stripped of control codes and split into lines, and the line it was
 * read from (0-based; absent when the output has no meaningful line) — where a landing should point.
 */
export function summarizeLines(lines: readonly string[], max = 160): { text: string; at?: number } {
  let best: Found | undefined;
  for (const r of RECOGNISERS) {
    const f = r(lines);
    if (f && (!best || f.at > best.at)) best = f;
  }
  const found = best ?? lastMeaningfulLine(lines);
  return found ? { text: cut(found.text, max), at: found.at } : { text: '' };
}

function lastMeaningfulLine(lines: readonly string[]): Found | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? '').trim();
    if (!/[\p{L}\p{N}]/u.test(line)) continue; // blank, rules, box drawing
    if (/^\[life-thread\]/.test(line)) continue;
    if (/^… \[cut \d+ characters\] …$/.test(line)) continue;
    return { at: i, text: line.replace(/\s+/g, ' ') };
  }
  return undefined;
}

function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…`;
}
