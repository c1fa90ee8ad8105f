/**
 * Where a failed job's output says the failure is: the first file, line and column inside the
 * workspace that a stack frame, compiler diagnostic, linter report or test runner's failure report
 * names (the code locus a wake lands on). Frames in node_modules, site-packages, Node's
 * internals and files outside the workspace folders are passed over, so a stack lands on the
 * deepest frame that is the user's own code. Pure: the caller may pass `isFile` to choose between
 * several readings of a relative path; without it the likeliest reading is taken.
 */
import { stripControl } from '../controlCodes';
import { folderOf, placeOf, type Folder } from '../workspacePath';

export type LocusRecogniser = 'stack' | 'vitest' | 'tsc' | 'eslint' | 'pytest' | 'python' | 'go' | 'cargo' | 'playwright' | 'line';

export interface CodeLocus {
  /** Absolute, inside one of the workspace folders, in that folder's own separator style. */
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based, when the tool printed one. */
  column?: number;
  recogniser: LocusRecogniser;
}

export interface CodeLocusOptions {
  /** The job's working directory: relative paths resolve against it first. */
  cwd?: string;
  /** Whether a file exists: picks among several readings of a relative path (e.g. go test's bare file names). */
  isFile?: (path: string) => boolean;
}

/** Lines longer than this are output, not locations, and are not matched at all. */
const LINE_MAX = 5000;
const LINE_NUMBER_MAX = 10_000_000;

/** A place some recogniser read; `weak` ones (a test's declaration, a lint warning) lose to any failure. */
interface Candidate {
  at: number;
  weak: boolean;
  locus: CodeLocus;
}

type Resolve = (raw: string, line: string | undefined, column: string | undefined, recogniser: LocusRecogniser, dirs?: readonly string[]) => CodeLocus | undefined;
type Recogniser = (lines: readonly string[], resolve: Resolve) => Candidate[];

/** Returns the first failure location inside the workspace that the output names, or undefined. */
export function findCodeLocus(output: string, folders: readonly string[], opts: CodeLocusOptions = {}): CodeLocus | undefined {
  const roots = folders.filter((f) => f.trim() !== '').map(folderOf);
  if (roots.length === 0) return undefined;
  const lines = stripControl(output).split('\n');
  const resolve = resolver(roots, opts);
  let best: Candidate | undefined;
  for (const r of RECOGNISERS) {
    for (const c of r(lines, resolve)) {
      if (!best || Number(c.weak) < Number(best.weak) || (c.weak === best.weak && c.at < best.at)) best = c;
    }
  }
  return best?.locus;
}

// ---------------------------------------------------------------------------------------------
// Recognisers, each over the plain lines of the output

function each(lines: readonly string[], fn: (line: string, i: number) => void): void {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.length <= LINE_MAX) fn(line, i);
  }
}

function push(out: Candidate[], at: number, locus: CodeLocus | undefined, weak = false): void {
  if (locus) out.push({ at, weak, locus });
}

/** V8 frames (`at fn (file:12:5)`, `at file:12:5`), node:test's TAP stacks, Rust backtraces (`at ./src/lib.rs:3:9`). */
const stack: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  each(lines, (line, i) => {
    const m =
      /^\s*at\s+(?:async\s+)?(?:[^(]*?\s)?\((.+):(\d+):(\d+)\)\s*$/.exec(line) ??
      /^\s*at\s+(?:async\s+)?([^\s(].*?):(\d+):(\d+)\s*$/.exec(line) ??
      /^\s+[\w$.<>[\]]+(?: [\w$.<>[\]]+)?\s+\((.+):(\d+):(\d+)\)\s*$/.exec(line);
    if (m) push(out, i, resolve(m[1] ?? '', m[2], m[3], 'stack'));
  });
  return out;
};

/** vitest's frames: ` ❯ test/a.test.ts:9:37` or ` ❯ fn src/a.ts:3:5`. */
const vitest: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  each(lines, (line, i) => {
    const m = /^\s*❯\s+(?:[^\s/\\]+\s+)?(.+?):(\d+):(\d+)\s*$/.exec(line);
    if (m) push(out, i, resolve(m[1] ?? '', m[2], m[3], 'vitest'));
  });
  return out;
};

/** `src/x.ts(12,5): error TS2322: …` (plain) and `src/x.ts:12:5 - error TS2322: …` (pretty). */
const tsc: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  each(lines, (line, i) => {
    const m = /^(.+?)\((\d+),(\d+)\): error TS\d+/.exec(line) ?? /^(.+?):(\d+):(\d+) - error TS\d+/.exec(line);
    if (m) push(out, i, resolve(m[1] ?? '', m[2], m[3], 'tsc'));
  });
  return out;
};

/** eslint's stylish report: a file's absolute path on its own line, then `  12:5  error  …` lines. */
const eslint: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  let file: string | undefined;
  each(lines, (line, i) => {
    if (line.trim() === '') {
      file = undefined;
      return;
    }
    if (/^(?:\/|[A-Za-z]:[\\/]|\\\\)\S/.test(line) && !/:\d+/.test(line)) {
      file = line.trim();
      return;
    }
    const m = /^\s+(\d+):(\d+)\s+(error|warning)\s+\S/.exec(line);
    if (m && file !== undefined) push(out, i, resolve(file, m[1], m[2], 'eslint'), m[3] === 'warning');
  });
  return out;
};

/**
 * pytest: in each failure section (`____ test_x ____`) the last entry inside the workspace is the
 * deepest (`src/a.py:11: ZeroDivisionError`, `tests/t.py:20: in test_x`); without sections
 * (`--tb=line`) each entry stands alone.
 */
const pytest: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  let inSection = false;
  let deepest: Candidate | undefined;
  const close = () => {
    if (deepest) out.push(deepest);
    deepest = undefined;
  };
  each(lines, (line, i) => {
    if (/^_{3,} .+ _{3,}$/.test(line) || /^={3,} .+ ={3,}$/.test(line)) {
      close();
      inSection = line.startsWith('_');
      return;
    }
    const m = /^(\S.*?\.py):(\d+):(?: (.*))?$/.exec(line);
    if (!m) return;
    const locus = resolve(m[1] ?? '', m[2], undefined, 'pytest');
    if (!locus) return;
    if (inSection) deepest = { at: i, weak: false, locus };
    else out.push({ at: i, weak: false, locus });
  });
  close();
  return out;
};

/** Python tracebacks (`File "src/a.py", line 11, in f`): most recent call last, so the last inside the workspace. */
const python: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  let deepest: Candidate | undefined;
  let inTraceback = false;
  each(lines, (line, i) => {
    if (/^\s*Traceback \(most recent call last\):/.test(line)) {
      inTraceback = true;
      return;
    }
    const m = /^\s*File "(.+)", line (\d+)/.exec(line);
    if (m) {
      const locus = resolve(m[1] ?? '', m[2], undefined, 'python');
      if (locus) {
        if (inTraceback) deepest = { at: i, weak: false, locus };
        else out.push({ at: i, weak: false, locus });
      }
      return;
    }
    // The exception line ends a traceback: it is the first line of the block that is not indented.
    if (inTraceback && /^\S/.test(line)) {
      if (deepest) out.push(deepest);
      deepest = undefined;
      inTraceback = false;
    }
  });
  if (deepest) out.push(deepest);
  return out;
};

/** go test: `    store_test.go:18: msg` (t.Error; the package follows on its `FAIL`/`ok` line), compiler errors, goroutine frames. */
const go: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  let nextPackageAt = -1;
  let nextPackage: string | undefined;
  const packageAfter = (i: number): string | undefined => {
    if (nextPackageAt > i) return nextPackage;
    nextPackage = undefined;
    nextPackageAt = lines.length;
    for (let k = i + 1; k < lines.length; k++) {
      const p = /^(?:FAIL|ok)\s+(\S+)\s+(?:[\d.]+s|\(cached\)|\[)/.exec(lines[k] ?? '');
      if (p) {
        nextPackage = p[1];
        nextPackageAt = k;
        break;
      }
    }
    return nextPackage;
  };
  each(lines, (line, i) => {
    const log = /^\s{4,}([\w.-]+\.go):(\d+): /.exec(line);
    if (log) {
      const pkg = packageAfter(i);
      push(out, i, resolve(log[1] ?? '', log[2], undefined, 'go', pkg === undefined ? [] : packageDirs(pkg)));
      return;
    }
    const compile = /^(\S[^:]*?\.go):(\d+):(\d+): /.exec(line);
    if (compile) {
      push(out, i, resolve(compile[1] ?? '', compile[2], compile[3], 'go'));
      return;
    }
    const frame = /^\t(.+?\.go):(\d+)(?: \+0x[0-9a-f]+)?\s*$/.exec(line);
    if (frame) push(out, i, resolve(frame[1] ?? '', frame[2], undefined, 'go'));
  });
  return out;
};

/** The directories a package's files may sit in, relative to the module root: every tail of its import path, shortest first. */
function packageDirs(importPath: string): string[] {
  const segs = importPath.split('/').filter((s) => s !== '');
  const dirs: string[] = [];
  for (let k = segs.length; k >= 0; k--) dirs.push(segs.slice(k).join('/'));
  return dirs;
}

/** rustc diagnostics (`  --> src/lib.rs:12:5` under `error…`/`warning…`) and panics (`panicked at src/lib.rs:12:9:`). */
const cargo: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  let severity: 'error' | 'warning' | undefined;
  each(lines, (line, i) => {
    const head = /^(error|warning)(?:\[\w+\])?: /.exec(line);
    if (head) severity = head[1] === 'error' ? 'error' : 'warning';
    const arrow = /^\s*--> (.+?):(\d+):(\d+)\s*$/.exec(line);
    if (arrow && severity !== undefined) {
      push(out, i, resolve(arrow[1] ?? '', arrow[2], arrow[3], 'cargo'), severity === 'warning');
      return;
    }
    const panic = /panicked at (?:'.*', )?(.+?):(\d+):(\d+):?\s*$/.exec(line);
    if (panic) push(out, i, resolve(panic[1] ?? '', panic[2], panic[3], 'cargo'));
  });
  return out;
};

/** playwright's failure header names the test's declaration (`1) [chromium] › tests/a.spec.ts:17:1 › …`): weaker than its stack. */
const playwright: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  each(lines, (line, i) => {
    const m = /^\s+\d+\) \[[^\]]+\] › (.+?):(\d+):(\d+) › /.exec(line);
    if (m) push(out, i, resolve(m[1] ?? '', m[2], m[3], 'playwright'), true);
  });
  return out;
};

/** Any line that starts with `file:line[:col]` (gcc, go vet, node's uncaught header); a failure if it says error. */
const anyLine: Recogniser = (lines, resolve) => {
  const out: Candidate[] = [];
  each(lines, (line, i) => {
    // An absolute path may hold spaces; a relative one may not, or any prose before a colon would pass.
    const m = /^((?:[A-Za-z]:[\\/]|\/)[^:]*?|[^\s:/\\][^\s:]*):(\d+)(?::(\d+))?(?::|\s|$)(.*)$/.exec(line);
    if (m && /[\\/.]/.test(m[1] ?? '')) push(out, i, resolve(m[1] ?? '', m[2], m[3], 'line'), !/\berror\b/i.test(m[4] ?? ''));
  });
  return out;
};

/** Ties (same line, same strength) go to the earlier, more specific recogniser. */
const RECOGNISERS: Recogniser[] = [tsc, eslint, cargo, vitest, stack, pytest, python, go, playwright, anyLine];

/** Reads a printed place as a CodeLocus inside the workspace. */
function resolver(folders: readonly Folder[], opts: CodeLocusOptions): Resolve {
  const cwd = opts.cwd !== undefined && opts.cwd.trim() !== '' ? folderOf(opts.cwd) : undefined;
  return (raw, lineText, columnText, recogniser, dirs) => {
    const line = Number(lineText);
    if (!Number.isInteger(line) || line < 1 || line > LINE_NUMBER_MAX) return undefined;
    const column = columnText === undefined ? undefined : Number(columnText);
    const path = placeOf(raw, folders, cwd, opts.isFile, dirs);
    if (path === undefined) return undefined;
    return { path, line, ...(column !== undefined && Number.isInteger(column) && column >= 1 && column <= LINE_MAX * 100 ? { column } : {}), recogniser };
  };
}
