/**
 * One line that says how a run went, taken from its log: the summary line of a common test runner,
 * compiler or linter when there is one, else the last meaningful line. Used in alerts and lists.
 */

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]|${ESC}\\][^${String.fromCharCode(7)}]*${String.fromCharCode(7)}`, 'g');

interface Found {
  at: number;
  text: string;
}

type Recogniser = (lines: readonly string[]) => Found | undefined;

function lastIndex(lines: readonly string[], re: RegExp): { at: number; m: RegExpMatchArray } | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = (lines[i] ?? '').match(re);
    if (m) return { at: i, m };
  }
  return undefined;
}

function num(s: string | undefined): number {
  return s === undefined ? 0 : Number(s);
}

const mocha: Recogniser = (lines) => {
  const passing = lastIndex(lines, /^\s*(\d+) passing\b(?:\s*\(([^)]+)\))?/);
  const failing = lastIndex(lines, /^\s*(\d+) failing\b/);
  if (!passing && !failing) return undefined;
  const parts: string[] = [];
  if (passing) parts.push(`${passing.m[1]} passing`);
  if (failing) parts.push(`${failing.m[1]} failing`);
  const pending = lastIndex(lines, /^\s*(\d+) pending\b/);
  if (pending) parts.push(`${pending.m[1]} pending`);
  return { at: Math.max(passing?.at ?? -1, failing?.at ?? -1), text: `mocha: ${parts.join(', ')}` };
};

/** node:test, TAP (`# pass 4`) or spec reporter (`ℹ pass 4`). */
const nodeTest: Recogniser = (lines) => {
  const pass = lastIndex(lines, /^(?:#|ℹ)\s+pass\s+(\d+)\s*$/);
  const fail = lastIndex(lines, /^(?:#|ℹ)\s+fail\s+(\d+)\s*$/);
  if (!pass || !fail) return undefined;
  const tests = lastIndex(lines, /^(?:#|ℹ)\s+tests\s+(\d+)\s*$/);
  const total = tests ? ` of ${tests.m[1]}` : '';
  return { at: Math.max(pass.at, fail.at), text: `node:test: ${num(fail.m[1])} failed, ${num(pass.m[1])} passed${total}` };
};

/** jest `Tests:       1 failed, 12 passed, 13 total`; vitest ` Tests  1 failed | 12 passed (13)`. */
const jestVitest: Recogniser = (lines) => {
  const f = lastIndex(lines, /^\s*Tests:?\s+((?:\d+ [a-z]+(?:\s*[,|]\s*)?)+)(?:\s*\((\d+)\))?/);
  if (!f) return undefined;
  const counts = (f.m[1] ?? '').split(/\s*[,|]\s*/).map((s) => s.trim()).filter((s) => s.length > 0);
  const total = f.m[2] ? ` (${f.m[2]} total)` : '';
  const suites = lastIndex(lines, /^\s*Test (?:Suites|Files):?\s+(.*?)\s*$/);
  const tool = suites && /Test Files/.test(lines[suites.at] ?? '') ? 'vitest' : 'jest';
  return { at: f.at, text: `${tool}: tests ${counts.join(', ')}${total}` };
};

/** pytest `==== 1 failed, 12 passed in 0.30s ====` (also `no tests ran`). */
const pytest: Recogniser = (lines) => {
  const f = lastIndex(lines, /^=+ (.*?\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|warnings?|no tests ran)\b.*?) in ([\d.]+\s*s(?:econds)?)\b.*=+\s*$/);
  if (!f) return undefined;
  return { at: f.at, text: `pytest: ${f.m[1]} in ${f.m[2]}` };
};

/** go test: one `ok  pkg  0.01s` or `FAIL  pkg  0.01s` line per package. */
const goTest: Recogniser = (lines) => {
  let ok = 0;
  const failed: string[] = [];
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const okm = /^ok\s+(\S+)\s+(?:[\d.]+s|\(cached\))/.exec(line);
    const failm = /^FAIL\s+(\S+)\s+(?:[\d.]+s|\[build failed\]|\[setup failed\])/.exec(line);
    if (okm) {
      ok++;
      at = i;
    } else if (failm?.[1]) {
      failed.push(failm[1]);
      at = i;
    }
  }
  if (at < 0) return undefined;
  const fails = failed.length > 0 ? `, ${failed.length} FAIL (${failed.slice(0, 3).join(', ')}${failed.length > 3 ? ', …' : ''})` : '';
  return { at, text: `go test: ${ok} ok${fails}` };
};

/** cargo test: one `test result:` line per test binary, summed. */
const cargo: Recogniser = (lines) => {
  let passed = 0;
  let failed = 0;
  let ignored = 0;
  let at = -1;
  let anyFailed = false;
  for (let i = 0; i < lines.length; i++) {
    const m = /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(lines[i] ?? '');
    if (!m) continue;
    at = i;
    if (m[1] === 'FAILED') anyFailed = true;
    passed += num(m[2]);
    failed += num(m[3]);
    ignored += num(m[4]);
  }
  if (at < 0) return undefined;
  return { at, text: `cargo test: ${anyFailed ? 'FAILED' : 'ok'}, ${passed} passed, ${failed} failed${ignored ? `, ${ignored} ignored` : ''}` };
};

const tsc: Recogniser = (lines) => {
  const f = lastIndex(lines, /^Found (\d+) errors?(?: in (?:(\d+) files|the same file|1 file))?/);
  if (!f) return undefined;
  const n = num(f.m[1]);
  return { at: f.at, text: `tsc: ${n} error${n === 1 ? '' : 's'}${f.m[2] ? ` in ${f.m[2]} files` : ''}` };
};

const eslint: Recogniser = (lines) => {
  const f = lastIndex(lines, /^\s*[✖x]\s+(\d+ problems? \(\d+ errors?, \d+ warnings?\))/);
  if (!f) return undefined;
  return { at: f.at, text: `eslint: ${f.m[1]}` };
};

const RECOGNISERS: Recogniser[] = [nodeTest, jestVitest, pytest, mocha, goTest, cargo, tsc, eslint];

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

export function summarize(log: string, max = 160): string {
  const lines = stripAnsi(log).replace(/\r\n?/g, '\n').split('\n');
  let best: Found | undefined;
  for (const r of RECOGNISERS) {
    const f = r(lines);
    if (f && (!best || f.at > best.at)) best = f;
  }
  const text = best?.text ?? lastMeaningfulLine(lines) ?? '';
  return cut(text, max);
}

function lastMeaningfulLine(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? '').trim();
    if (!/[\p{L}\p{N}]/u.test(line)) continue; // blank, rules, box drawing
    if (/^\[life-thread\]/.test(line)) continue;
    if (/^… \[cut \d+ characters\] …$/.test(line)) continue;
    return line.replace(/\s+/g, ' ');
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
