/**
 * Which rows of a table are kept: each row is checked with the table's zod schema, keys that could
 * reach an object's prototype and rows nested too deep are refused, and a duplicate id keeps the
 * first. A refused row is quarantined with its reason (kept verbatim beside the table), never dropped.
 * Kept rows are frozen: the rows handed to the next update are these very objects.
 */
import { isRecord } from './codec';

/** What a table validates its rows with: a zod schema, of the full zod or of zod/mini. */
export interface RowSchema<Row> {
  safeParse(value: unknown): { success: true; data: Row } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
}

export interface QuarantinedRow {
  row: unknown;
  reason: string;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_ROW_DEPTH = 32;

export function validateRows<Row extends { id: string }>(raw: unknown[], schema: RowSchema<Row>): { rows: Row[]; quarantined: QuarantinedRow[] } {
  const rows: Row[] = [];
  const quarantined: QuarantinedRow[] = [];
  const seen = new Map<string, number>();
  raw.forEach((row, i) => {
    const label = rowLabel(row, i);
    const bad = findForbiddenKey(row);
    if (bad) {
      quarantined.push({ row, reason: `${label}: ${bad}` });
      return;
    }
    const parsed = schema.safeParse(row);
    if (!parsed.success) {
      quarantined.push({ row, reason: `${label}: ${formatIssues(parsed.error.issues)}` });
      return;
    }
    const first = seen.get(parsed.data.id);
    if (first !== undefined) {
      quarantined.push({ row, reason: `${label}: id: duplicate of rows[${first}], which is kept` });
      return;
    }
    seen.set(parsed.data.id, i);
    rows.push(parsed.data);
  });
  return { rows, quarantined };
}

/** One row checked as `validateRows` checks it: the row (frozen), or why it is refused. */
export function checkOneRow<Row>(value: unknown, schema: RowSchema<Row>): { row: Row } | { why: string } {
  const bad = findForbiddenKey(value);
  if (bad) return { why: bad };
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { why: formatIssues(parsed.error.issues) };
  deepFreeze(parsed.data);
  return { row: parsed.data };
}

/**
 * The rows an update returned: each one of the frozen rows handed to it (validated when read) or a
 * new one checked now; a row that is not valid, or a second row with an id, is refused by `refuse`.
 */
export function checkOutgoingRows<Row extends { id: string }>(rows: unknown[], validated: WeakSet<object>, schema: RowSchema<Row>, refuse: (i: number, row: unknown, why: string) => never): Row[] {
  const out: Row[] = [];
  const seen = new Map<string, number>();
  rows.forEach((row, i) => {
    let ok: Row;
    if (typeof row === 'object' && row !== null && validated.has(row)) ok = row as Row;
    else {
      // Every row the table holds is frozen: the rows handed to the next update are these.
      const checked = checkOneRow(row, schema);
      ok = 'row' in checked ? checked.row : refuse(i, row, checked.why);
    }
    const first = seen.get(ok.id);
    if (first !== undefined) refuse(i, row, `id: duplicate of rows[${first}]`);
    seen.set(ok.id, i);
    out.push(ok);
  });
  return out;
}

/** Names a key that could reach an object's prototype if some later code merged the row. */
export function findForbiddenKey(value: unknown, at = '', depth = 0): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_ROW_DEPTH) return `${at || '(row)'}: nested deeper than ${MAX_ROW_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findForbiddenKey(value[i], `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const p = at ? `${at}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) return `${p}: forbidden key (it could alter an object prototype)`;
    const found = findForbiddenKey((value as Record<string, unknown>)[key], p, depth + 1);
    if (found) return found;
  }
  return undefined;
}

export function formatIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(row)'}: ${i.message}`);
  if (issues.length > 3) shown.push(`and ${issues.length - 3} more`);
  return shown.join('; ');
}

export function rowLabel(row: unknown, i: number): string {
  if (isRecord(row) && Object.hasOwn(row, 'id') && typeof row.id === 'string') {
    return `rows[${i}] (id ${JSON.stringify(row.id.slice(0, 60))})`;
  }
  return `rows[${i}]`;
}

export function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
}
