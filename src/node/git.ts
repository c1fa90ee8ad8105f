/**
 * The repository state for Handover ops — produced from git, not by the model — and its
 * re-check when the ops are read. `git` runs through execFile (no shell), with
 * `-c core.quotepath=off` (paths as they are, not octal-escaped), GIT_OPTIONAL_LOCKS=0 (a status
 * must not take the index lock from the user's own git), no terminal prompt, and a timeout on every
 * call.
 */
import { execFile } from 'node:child_process';
import type { HandoverOps, RepoState } from '../core/continuity/documents';
import type { OpsStaleness } from '../core/continuity/ops';
import { describeInstant } from '../core/time/describe';

export const GIT_TIMEOUT_MS = 10_000;
const MAX_BUFFER = 64 * 1024 * 1024;
const SHOW_PATHS = 10;

export interface GitOptions {
  /** Per git call (default 10 s). */
  timeoutMs?: number;
  /** The git executable (default `git` on PATH). */
  git?: string;
}

export interface StateOptions extends GitOptions {
  /**
   * Paths relative to the repository root left out of the dirty set, with everything under them
   * (default: `.life-thread`, the continuity folder — writing the ops must not make them stale).
   * Pass the continuity folder as it stands relative to the root when it is configured elsewhere.
   */
  ignore?: readonly string[];
  /**
   * Whether the repository found at this root is the one to describe (e.g. not a repository above
   * the workspace folder that VS Code does not open). A refused root reads as "no repository".
   */
  acceptRoot?: (root: string) => boolean;
}

/** Whether a porcelain path is one of the ignored paths or lies under one. */
export function isIgnored(path: string, ignore: readonly string[]): boolean {
  for (const raw of ignore) {
    const prefix = raw.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
    if (prefix === '' || prefix === '.') continue;
    if (path === prefix || path === `${prefix}/` || path.startsWith(`${prefix}/`)) return true;
  }
  return false;
}

export const DEFAULT_IGNORE: readonly string[] = ['.life-thread'];

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly args: readonly string[],
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/**
 * Runs `git -c core.quotepath=off <args>` in cwd. Resolves with the exit code (a non-zero exit is an
 * answer, not an error); rejects with GitError when git cannot be started, times out or is killed.
 */
export function runGit(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<GitResult> {
  const full = ['-c', 'core.quotepath=off', ...args];
  const timeout = opts.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    execFile(
      opts.git ?? 'git',
      full,
      {
        cwd,
        timeout,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_BUFFER,
        windowsHide: true,
        encoding: 'utf8',
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr });
        const e = err;
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new GitError(`git ${args.join(' ')} wrote more than ${MAX_BUFFER} bytes`, args));
        if (e.killed || e.signal) return reject(new GitError(`git ${args.join(' ')} timed out after ${timeout} ms or was killed (${e.signal ?? 'killed'})`, args));
        if (typeof e.code === 'number') return resolve({ code: e.code, stdout, stderr });
        reject(new GitError(`git could not run in ${cwd}: ${e.message}`, args));
      },
    );
  });
}

/** `git status --porcelain=v1 -z` → the paths, sorted and unique (a rename counts its new path). */
export function parsePorcelainZ(out: string): string[] {
  const parts = out.split('\0');
  const paths = new Set<string>();
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i] ?? '';
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    paths.add(entry.slice(3));
    // Renames and copies are followed by their source path.
    if (xy.includes('R') || xy.includes('C')) i++;
  }
  return [...paths].sort();
}

/**
 * The repository containing cwd: root, branch ('' when detached), HEAD ('' before the first commit),
 * dirty paths (relative to the root, sorted; an untracked folder as `dir/`; the ignored paths left
 * out). Null outside a repository or without git; GitError when a call times out.
 */
export async function gitState(cwd: string, opts: StateOptions = {}): Promise<RepoState | null> {
  let top: GitResult;
  try {
    top = await runGit(cwd, ['rev-parse', '--show-toplevel'], opts);
  } catch (e) {
    if (e instanceof GitError && /timed out|killed/.test(e.message)) throw e;
    return null;
  }
  if (top.code !== 0) return null;
  const root = top.stdout.replace(/\r?\n$/, '');
  if (!root) return null;
  if (opts.acceptRoot && !opts.acceptRoot(root)) return null;
  const [branch, head, status] = await Promise.all([
    runGit(root, ['symbolic-ref', '--short', '-q', 'HEAD'], opts),
    runGit(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], opts),
    runGit(root, ['status', '--porcelain=v1', '-z'], opts),
  ]);
  if (status.code !== 0) throw new GitError(`git status failed in ${root}: ${status.stderr.trim()}`, ['status']);
  return {
    root,
    branch: branch.code === 0 ? branch.stdout.trim() : '',
    head: head.code === 0 ? head.stdout.trim() : '',
    dirty: parsePorcelainZ(status.stdout).filter((p) => !isIgnored(p, opts.ignore ?? DEFAULT_IGNORE)),
  };
}

function sha(s: string): string {
  return s.slice(0, 12);
}

function listPaths(paths: string[]): string {
  const shown = paths.slice(0, SHOW_PATHS).join(', ');
  return paths.length > SHOW_PATHS ? `${shown}, and ${paths.length - SHOW_PATHS} more` : shown;
}

/**
 * Re-checks ops when they are read: expired (expiresAt < now), HEAD moved or its commit gone, the
 * branch deleted or switched, the dirty set changed. `stale` when any of these holds; `changes` says
 * each in a sentence. A git call that fails or times out is itself a change (the state cannot be
 * vouched for).
 */
export async function checkOps(ops: HandoverOps, opts: StateOptions & { now?: Date; tz?: string } = {}): Promise<OpsStaleness> {
  const changes: string[] = [];
  const now = opts.now ?? new Date();
  const expires = Date.parse(ops.expiresAt);
  if (Number.isNaN(expires)) changes.push(`expiresAt ${ops.expiresAt} is not a date`);
  // For a person (`tz` given: the panel, /resume) the instant in their zone; the ISO form for files.
  else if (expires < now.getTime() && opts.tz !== undefined) changes.push(`expired ${describeInstant(new Date(expires), opts.tz, now)}`);
  else if (expires < now.getTime()) changes.push(`expired at ${ops.expiresAt} (${Math.max(1, Math.round((now.getTime() - expires) / 60_000))} min ago)`);

  const repo = ops.repo;
  if (!repo) return { stale: changes.length > 0, changes };

  try {
    const current = await gitState(repo.root, opts);
    if (!current) {
      changes.push(`${repo.root} is no longer a git repository`);
      return { stale: true, changes };
    }

    if (repo.head) {
      if (!/^[0-9a-f]{7,64}$/.test(repo.head)) changes.push(`the recorded HEAD ${JSON.stringify(repo.head)} is not a SHA`);
      else {
        const exists = await runGit(current.root, ['cat-file', '-e', `${repo.head}^{commit}`], opts);
        if (exists.code !== 0) changes.push(`commit ${sha(repo.head)} no longer exists (HEAD is now ${current.head ? sha(current.head) : 'unborn'})`);
        else if (!current.head.startsWith(repo.head) && current.head !== repo.head) {
          if (!current.head) changes.push(`HEAD moved from ${sha(repo.head)} to an unborn branch`);
          else {
            const anc = await runGit(current.root, ['merge-base', '--is-ancestor', repo.head, current.head], opts);
            if (anc.code === 0) {
              const count = await runGit(current.root, ['rev-list', '--count', `${repo.head}..${current.head}`], opts);
              const n = count.code === 0 ? Number(count.stdout.trim()) : NaN;
              changes.push(`HEAD moved from ${sha(repo.head)} to ${sha(current.head)}${Number.isFinite(n) ? ` (${n} commit${n === 1 ? '' : 's'} ahead)` : ''}`);
            } else changes.push(`HEAD moved from ${sha(repo.head)} to ${sha(current.head)}, which does not contain it (reset, rebase or another branch)`);
          }
        }
      }
    } else if (current.head) changes.push(`HEAD moved from no commit to ${sha(current.head)}`);

    if (repo.branch) {
      const ref = await runGit(current.root, ['rev-parse', '--verify', '-q', `refs/heads/${repo.branch}`], opts);
      if (ref.code !== 0) changes.push(`branch ${repo.branch} no longer exists${current.branch ? ` (now on ${current.branch})` : ''}`);
      else if (current.branch !== repo.branch) changes.push(`switched from branch ${repo.branch} to ${current.branch || 'a detached HEAD'}`);
    } else if (current.branch) changes.push(`HEAD was detached; now on branch ${current.branch}`);

    const recorded = repo.dirty.filter((p) => !isIgnored(p, opts.ignore ?? DEFAULT_IGNORE));
    const before = new Set(recorded);
    const after = new Set(current.dirty);
    const added = current.dirty.filter((p) => !before.has(p));
    const removed = recorded.filter((p) => !after.has(p));
    if (added.length) changes.push(`newly dirty: ${listPaths(added)}`);
    if (removed.length) changes.push(`no longer dirty: ${listPaths(removed)}`);
  } catch (e) {
    changes.push(`could not check the repository: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { stale: changes.length > 0, changes };
}
