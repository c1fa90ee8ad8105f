/**
 * What a finished job's output names beyond its summary: the code locus a failure points at
 * (src/core/anchor/locus.ts) and the HTML report or local server to show on the desk
 * (src/core/reportPage.ts). One reading for every job: a window's task or terminal command, a command
 * row, `life-thread run`. A job that ends outside a window keeps what it found on its wakes' fact, and the
 * delivering window makes the CodeAnchor and prepares the desk from it (src/host/outsideJob.ts).
 */
import { statSync } from 'node:fs';
import { findCodeLocus, type CodeLocus } from '../core/anchor/locus';
import { findReportPage, type ReportPage } from '../core/reportPage';

/** Whether a path is a file (a report that is not there, or a folder, is passed over). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The place a failed job's output names inside `folders`, as the task path reads it. */
export function codeLocusIn(output: string, folders: readonly string[], cwd?: string): CodeLocus | undefined {
  return findCodeLocus(output, folders, { ...(cwd ? { cwd } : {}), isFile });
}

/** The report page a job's output names inside `folders` (or a server on this machine). */
export function reportPageIn(output: string, folders: readonly string[], cwd?: string): ReportPage | undefined {
  return findReportPage(output, folders, { ...(cwd ? { cwd } : {}), isFile });
}

/** A locus as a wake's fact keeps it: `/abs/path:19`. */
function locusWords(locus: { path: string; line: number }): string {
  return `${locus.path}:${locus.line}`;
}

/** `/abs/path:19` back to a path and a 1-based line; undefined for anything else. */
export function readLocusWords(words: string): { path: string; line: number } | undefined {
  const m = /^(.+):(\d{1,7})$/.exec(words);
  const line = Number(m?.[2]);
  return m?.[1] && line >= 1 ? { path: m[1], line } : undefined;
}

/** What a job that ended outside a window keeps on its wakes' fact: the failing line as `/abs/path:19`, the report page's URL. */
export interface OutputFindings {
  locus?: string;
  report?: string;
}

/**
 * Reads a job's output (the end of its log) for its wakes outside a window. There are no workspace
 * folders there: the job's working directory stands for them, and the delivering window checks the
 * locus and the report against its own folders before it lands or shows anything.
 */
export function outputFindings(output: string, opts: { cwd?: string; failed: boolean }): OutputFindings {
  const folders = opts.cwd ? [opts.cwd] : [];
  const locus = opts.failed ? codeLocusIn(output, folders, opts.cwd) : undefined;
  const report = reportPageIn(output, folders, opts.cwd);
  return { ...(locus ? { locus: locusWords(locus) } : {}), ...(report ? { report: report.url } : {}) };
}
