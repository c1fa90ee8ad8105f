/**
 * Evidence files: the output of a job a wake waits on, written as plain text — control codes
 * stripped, secrets redacted as command logs are — so the landing can open it. A window writes it in
 * its workspace, `<continuity folder>/evidence/<first wake id>.log`, beside a `.gitignore` that keeps
 * it out of commits (an agent's file tools read it there without asking); with no folder it can write
 * (none, virtual, read-only) it goes to `<store>/evidence/`. Each folder keeps 7 days and at most
 * 50 MB, oldest removed first.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { redact } from '../core/redact';
import { writeFileAtomic } from './atomicFile';
import { realTimers, type Timers } from './dispatchLoop';

export const EVIDENCE_DIR = 'evidence';
export const EVIDENCE_MAX_AGE_MS = 7 * 24 * 3600_000;
export const EVIDENCE_MAX_TOTAL_BYTES = 50 * 1024 * 1024;
const EVIDENCE_PRUNE_FIRST_MS = 60_000;
const EVIDENCE_PRUNE_EVERY_MS = 6 * 3_600_000;

export interface EvidenceJob {
  source: string;
  jobId: string;
  exitCode: number | undefined;
  endedAt: number;
  commandLine?: string;
}

/** What an evidence file says, and where in it the summary (or the first failure) stands. */
export interface WrittenEvidence {
  path: string;
  /** 1-based line of the output's summary line in the file, when found. */
  focusLine?: number;
  lines: number;
}

/** Marks the line to land on through redaction (which may join or split lines); a private-use character. */
const FOCUS_MARK = '\uE000';

/** What `evidence/.gitignore` says: nothing in the folder is ever committed. */
const GITIGNORE = '.gitignore';
const GITIGNORE_TEXT = '# Life Thread job evidence: kept 7 days, never committed.\n*\n';

/** `<root>/<continuity folder>/evidence`: where a window keeps evidence in its workspace. */
export function workspaceEvidenceDir(root: string, continuityFolder: string): string {
  return join(root, continuityFolder, EVIDENCE_DIR);
}

/** The store's evidence folder, for jobs with no workspace to write in. */
export function storeEvidenceDir(storeDir: string): string {
  return join(storeDir, EVIDENCE_DIR);
}

/**
 * Makes a workspace evidence folder ready: the folder, and its `.gitignore` (written when missing, so
 * a repository whose own .gitignore does not name the continuity folder still commits nothing of it).
 * Throws when the folder cannot be written (the caller falls back to the store).
 */
export async function ensureEvidenceDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true });
  const ignore = join(dir, GITIGNORE);
  const now = await fsp.readFile(ignore, 'utf8').catch(() => undefined);
  if (now === undefined || !/^\*$/m.test(now)) await writeFileAtomic(ignore, GITIGNORE_TEXT);
}

/** Copies a job's log (already redacted and capped, src/node/jobLog.ts) into an evidence folder as `<id>.log`; prunes the folder. */
export async function copyEvidence(file: string, dir: string, id: string): Promise<string> {
  const to = join(dir, `${id}.log`);
  await fsp.copyFile(file, to);
  await pruneEvidence(dir).catch(() => undefined);
  return to;
}

/**
 * Writes the evidence of a job into the folder `dir` (made when missing) and prunes old evidence there.
 * `output` is the job's plain output (control codes already stripped); `focusLine` (0-based in it) is
 * the line to land on (the summary line).
 */
export async function writeEvidence(dir: string, id: string, job: EvidenceJob, output: string, focusLine?: number): Promise<WrittenEvidence> {
  // The header is redacted too: a command line is where people type tokens and passwords.
  const header = [
    `# ${job.source} ${job.jobId}`,
    ...(job.commandLine ? [`# command: ${job.commandLine.replace(/\s*\n\s*/g, ' ')}`] : []),
    `# exit code: ${job.exitCode ?? 'unknown'}`,
    `# ended: ${new Date(job.endedAt).toISOString()}`,
    '',
  ].map(redact);
  const clean = output.replaceAll(FOCUS_MARK, '').replace(/\s+$/, '');
  let marked = clean;
  if (focusLine !== undefined && clean !== '') {
    const lines = clean.split('\n');
    if (focusLine >= 0 && focusLine < lines.length) lines[focusLine] = `${FOCUS_MARK}${lines[focusLine] ?? ''}`;
    marked = lines.join('\n');
  }
  const body = redact(clean === '' ? '(the job printed nothing that could be read)' : marked);
  const all = `${header.join('\n')}\n${body}`.split('\n');
  const at = all.findIndex((l) => l.includes(FOCUS_MARK));
  const text = `${all.join('\n').replaceAll(FOCUS_MARK, '')}\n`;
  const file = join(dir, `${id}.log`);
  await writeFileAtomic(file, text);
  await pruneEvidence(dir).catch(() => undefined);
  return { path: file, lines: all.length, ...(at >= 0 ? { focusLine: at + 1 } : {}) };
}

/** Removes evidence (never the folder's .gitignore) older than 7 days, then the oldest until the folder holds at most 50 MB. */
export async function pruneEvidence(dir: string, now = Date.now(), maxAgeMs = EVIDENCE_MAX_AGE_MS, maxBytes = EVIDENCE_MAX_TOTAL_BYTES): Promise<string[]> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  const files: { path: string; mtimeMs: number; size: number }[] = [];
  for (const n of names) {
    if (n === GITIGNORE) continue;
    const p = join(dir, n);
    const st = await fsp.stat(p).catch(() => undefined);
    if (st?.isFile()) files.push({ path: p, mtimeMs: st.mtimeMs, size: st.size });
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  const removed: string[] = [];
  let total = files.reduce((n, f) => n + f.size, 0);
  for (const f of files) {
    if (now - f.mtimeMs <= maxAgeMs && total <= maxBytes) continue;
    await fsp.unlink(f.path).catch(() => undefined);
    removed.push(f.path);
    total -= f.size;
  }
  return removed;
}

/** Prunes the evidence folders `dirs()` names past 7 days even when no new evidence is written: a minute after the start, then every 6 hours. Returns the stop. */
export function pruneEvidenceEvery(dirs: () => readonly string[], onError: (err: unknown) => void, timers: Timers = realTimers, now: () => number = Date.now): () => void {
  let handle: unknown;
  const prune = (): void => {
    for (const dir of dirs()) void pruneEvidence(dir, now()).catch(onError);
    handle = timers.setTimeout(prune, EVIDENCE_PRUNE_EVERY_MS);
  };
  handle = timers.setTimeout(prune, EVIDENCE_PRUNE_FIRST_MS);
  return () => timers.clearTimeout(handle);
}
