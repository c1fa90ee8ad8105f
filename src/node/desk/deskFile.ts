/**
 * desk.json, the desk's memory: the pages it keeps open and the Chromium it started. A
 * small state file, not a table: a file that does not parse or validate is reported and left
 * untouched; only when the desk must write (a page remembered, a browser started) is it first moved
 * aside to `desk.json.corrupt-<ms>`, then a fresh file written. A file of a newer schemaVersion is
 * never rewritten. Writes are atomic (temp file, fsync, rename); the last writer wins between
 * windows, which is fine for this file.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../atomicFile';
import { errText } from '../cdpTransport';
import { evidenceKey, normalizeUrl } from './pageUrl';

export const DESK_FILE = 'desk.json';
export const DESK_SCHEMA_VERSION = 1;
const MAX_DESK_FILE_BYTES = 1024 * 1024;

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not a date');

export const DeskPageSchema = z.object({
  key: z.string().min(1).max(300),
  url: z.string().min(1).max(8192),
  title: z.string().max(2000),
  evidenceId: z.string().min(1).max(300).optional(),
  /** Older evidence ids of the same page (the same report, an earlier run): their cdp://evidence/<id> landings still open it. */
  aliases: z.array(z.string().min(1).max(300)).max(100).optional(),
  lastSeenAt: isoDate,
});
export type DeskPage = z.infer<typeof DeskPageSchema>;

export const DeskFileSchema = z.object({
  schemaVersion: z.literal(DESK_SCHEMA_VERSION),
  pages: z.array(DeskPageSchema).refine((ps) => new Set(ps.map((p) => p.key)).size === ps.length, 'page keys must be unique'),
  chromium: z.object({ pid: z.number().int().positive(), endpoint: z.string().min(1) }).optional(),
});
export type DeskFile = z.infer<typeof DeskFileSchema>;

export function emptyDeskFile(): DeskFile {
  return { schemaVersion: DESK_SCHEMA_VERSION, pages: [] };
}

export interface DeskFileRead {
  desk: DeskFile;
  status: 'ok' | 'missing' | 'corrupt' | 'newer';
  /** What is wrong with the file (status corrupt or newer). */
  problem?: string;
}

export interface DeskFileUpdate {
  desk: DeskFile;
  wrote: boolean;
  /** Where a corrupt desk.json was moved before the fresh one was written. */
  backup?: string;
  problem?: string;
}

export class DeskFileStore {
  readonly dir: string;
  readonly file: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
    this.file = path.join(this.dir, DESK_FILE);
  }

  async read(): Promise<DeskFileRead> {
    let text: string;
    try {
      const st = await fsp.stat(this.file);
      if (st.size > MAX_DESK_FILE_BYTES) return { desk: emptyDeskFile(), status: 'corrupt', problem: `${this.file} is ${st.size} bytes, more than a desk file can be` };
      text = await fsp.readFile(this.file, 'utf8');
    } catch (e) {
      if (isCode(e, 'ENOENT')) return { desk: emptyDeskFile(), status: 'missing' };
      return { desk: emptyDeskFile(), status: 'corrupt', problem: `${this.file} cannot be read: ${errText(e)}` };
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      return { desk: emptyDeskFile(), status: 'corrupt', problem: `${this.file} is not JSON (${errText(e)}); the desk starts with no remembered pages and leaves the file as it is until it must write` };
    }
    if (typeof data === 'object' && data !== null && 'schemaVersion' in data && typeof data.schemaVersion === 'number' && data.schemaVersion > DESK_SCHEMA_VERSION) {
      return {
        desk: emptyDeskFile(),
        status: 'newer',
        problem: `${this.file} has schemaVersion ${data.schemaVersion}, newer than this version of Life Thread reads (${DESK_SCHEMA_VERSION}); it is not rewritten`,
      };
    }
    const parsed = DeskFileSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : 'invalid';
      return { desk: emptyDeskFile(), status: 'corrupt', problem: `${this.file} is not a desk file (${where}); the desk starts with no remembered pages and leaves the file as it is until it must write` };
    }
    // A file written before pages were kept one per URL may hold the same report several times.
    return { desk: { ...parsed.data, pages: withinEvidenceCap(parsed.data.pages) }, status: 'ok' };
  }

  /**
   * Reads, applies `fn` (undefined = nothing to write), and writes atomically. A corrupt file is
   * moved aside to `desk.json.corrupt-<ms>` before the write; a newer file makes this throw.
   */
  async update(fn: (desk: DeskFile) => DeskFile | undefined): Promise<DeskFileUpdate> {
    const current = await this.read();
    const next = fn(structuredClone(current.desk));
    if (next === undefined) return { desk: current.desk, wrote: false, ...(current.problem ? { problem: current.problem } : {}) };
    if (current.status === 'newer') throw new Error(current.problem ?? `${this.file} is newer than this version reads`);
    const valid = DeskFileSchema.parse(next);
    let backup: string | undefined;
    if (current.status === 'corrupt') {
      backup = `${this.file}.corrupt-${Date.now()}`;
      await fsp.rename(this.file, backup).catch((e: unknown) => {
        if (!isCode(e, 'ENOENT')) throw e;
        backup = undefined;
      });
    }
    await fsp.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(valid, null, 2)}\n`);
    return { desk: valid, wrote: true, ...(backup ? { backup } : {}), ...(current.problem ? { problem: current.problem } : {}) };
  }
}

/** At most this many evidence pages are remembered: every prepare restores the missing ones. */
export const MAX_EVIDENCE_PAGES = 20;
/** At most this many older evidence ids are kept per page. */
export const MAX_ALIASES = 20;

/**
 * One page per URL, then at most MAX_EVIDENCE_PAGES evidence pages: the evidence pages shown longest
 * ago (the first ones) go first; pages that are not evidence stay.
 */
export function withinEvidenceCap(pages: DeskPage[]): DeskPage[] {
  const one = onePerUrl(pages);
  const evidence = one.filter((p) => p.evidenceId !== undefined);
  const drop = new Set(evidence.slice(0, Math.max(0, evidence.length - MAX_EVIDENCE_PAGES)).map((p) => p.key));
  return drop.size === 0 ? one : one.filter((p) => !drop.has(p.key));
}

/**
 * The same URL remembered twice (each run of a job gives its report a new evidence id) is one page:
 * the one shown last, in its place; the others' evidence ids become its aliases.
 */
export function onePerUrl(pages: DeskPage[]): DeskPage[] {
  const kept = new Map<string, DeskPage>();
  for (let i = pages.length - 1; i >= 0; i--) {
    const p = pages[i];
    if (!p) continue;
    const url = normalizeUrl(p.url);
    const newer = kept.get(url);
    if (!newer) {
      kept.set(url, p);
      continue;
    }
    const own = newer.evidenceId;
    const older = [...(newer.aliases ?? []), ...(p.evidenceId ? [p.evidenceId] : []), ...(p.aliases ?? [])];
    const aliases = [...new Set(older)].filter((id) => id !== own).slice(0, MAX_ALIASES);
    kept.set(url, { ...newer, ...(aliases.length ? { aliases } : {}) });
  }
  if (kept.size === pages.length) return pages;
  const keys = new Set([...kept.values()].map((p) => p.key));
  return pages.filter((p) => keys.has(p.key)).map((p) => kept.get(normalizeUrl(p.url)) ?? p);
}

/** Remembers `row` as the newest page; it keeps the aliases of the page it replaces. */
export function putPage(pages: DeskPage[], row: DeskPage): DeskPage[] {
  const prior = pages.find((p) => p.key === row.key);
  const merged = prior?.aliases && !row.aliases ? { ...row, aliases: prior.aliases } : row;
  return withinEvidenceCap([...pages.filter((p) => p.key !== row.key), merged]);
}

/** The page a `cdp://evidence/<id>` landing names: by its evidence id, an older id of the same page, or its key. */
export function pageOfEvidence(pages: readonly DeskPage[], id: string): DeskPage | undefined {
  return pages.find((p) => p.evidenceId === id) ?? pages.find((p) => p.aliases?.includes(id)) ?? pages.find((p) => p.key === evidenceKey(id));
}

function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && e.code === code;
}
