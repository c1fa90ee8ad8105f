/**
 * Pages of the tools' lists and logs: an agent's tool output has a limit (a list of 1,200 reminders
 * was 816 kB), so `list` answers page with `limit` (default 50) and an opaque `cursor`, and a page
 * also ends before its answer passes 20,000 characters. The cursor names the last row given, so a
 * row added or removed between two calls neither repeats nor hides another. Pure.
 */
import { InputError } from './errors';

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 500;
/** The longest answer a page gives, in characters, whatever `limit` allows. */
export const PAGE_MAX_CHARS = 20_000;

type CursorKind = 'reminders' | 'commands' | 'log';

interface Cursor {
  k: CursorKind;
  /** The next item's index when the cursor was made. */
  i: number;
  /** The last id given (lists), or the log's id. */
  id: string;
  /** Lists: the id of the next row when the cursor was made. */
  n?: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

function decodeCursor(raw: string, kind: CursorKind, field: string): Cursor {
  const bad = (): never => {
    throw new InputError(field, 'is not a cursor this tool gave: pass next_cursor from the previous answer unchanged, or leave it out for the first page');
  };
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(raw)) bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return bad();
  }
  if (typeof v !== 'object' || v === null) return bad();
  const c = v as Partial<Cursor>;
  if (typeof c.i !== 'number' || !Number.isInteger(c.i) || c.i < 0 || typeof c.id !== 'string' || typeof c.k !== 'string' || (c.n !== undefined && typeof c.n !== 'string')) return bad();
  if (c.k !== kind) throw new InputError(field, `is a cursor of another list (${c.k}); pass the next_cursor of this list's previous answer`);
  return { k: c.k, i: c.i, id: c.id, ...(c.n !== undefined ? { n: c.n } : {}) };
}

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** The index of the first item given. */
  start: number;
  total: number;
  nextCursor?: string;
}

/**
 * One page of `items`: from the row that came next when the cursor was made, else from after the
 * cursor's last row (both found by id; the old index when both are gone), at most
 * `limit` items, fewer when `fits` says the answer would pass PAGE_MAX_CHARS (never fewer than one).
 * `fits(page)` renders the candidate page and says whether it stays within the limit.
 */
export function pageOf<T extends { id: string }>(items: readonly T[], req: PageRequest, kind: 'reminders' | 'commands', fits: (page: readonly T[], more: boolean) => boolean, fields = { limit: 'limit', cursor: 'cursor' }): Page<T> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT;
  let start = 0;
  if (req.cursor !== undefined) {
    const c = decodeCursor(req.cursor, kind, fields.cursor);
    const next = c.n === undefined ? -1 : items.findIndex((r) => r.id === c.n);
    const last = next >= 0 ? -1 : items.findIndex((r) => r.id === c.id);
    start = next >= 0 ? next : last >= 0 ? last + 1 : Math.min(c.i, items.length);
  }
  let n = Math.min(limit, items.length - start);
  while (n > 1 && !fits(items.slice(start, start + n), start + n < items.length)) n = Math.max(1, Math.floor(n * 0.8));
  const page = items.slice(start, start + n);
  const last = page[page.length - 1];
  const following = items[start + n];
  const more = following !== undefined && last !== undefined;
  return { items: page, start, total: items.length, ...(more ? { nextCursor: encodeCursor({ k: kind, i: start + n, id: last.id, n: following.id }) } : {}) };
}

/** A page of a text (a run log) of at most `max` characters, from the cursor's offset. */
export function textPage(text: string, id: string, req: { cursor?: string | undefined }, max: number, field = 'cursor'): { text: string; start: number; nextCursor?: string } {
  let start = 0;
  if (req.cursor !== undefined) {
    const c = decodeCursor(req.cursor, 'log', field);
    if (c.id !== id) throw new InputError(field, `is a cursor of the log of ${c.id}, not of ${id}`);
    start = Math.min(c.i, text.length);
  }
  let end = Math.min(text.length, start + Math.max(1, max));
  // Never split a surrogate pair between two pages.
  if (end < text.length && end > start + 1 && /[\ud800-\udbff]/.test(text.charAt(end - 1))) end--;
  return { text: text.slice(start, end), start, ...(end < text.length ? { nextCursor: encodeCursor({ k: 'log', i: end, id }) } : {}) };
}
