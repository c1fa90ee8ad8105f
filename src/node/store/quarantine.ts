/**
 * The quarantine file beside a table (`<table>.quarantine.json`, `{ "rows": [...], "reasons": [...] }`):
 * rows that failed validation, kept verbatim with the reason, added at the next successful write and
 * listed by Doctor. A quarantine file someone broke by hand is kept aside, never overwritten.
 */
import * as path from 'node:path';
import { stringifyDeep } from '../../core/jsonText';
import type { FsSeam } from '../fs-seam';
import { isRecord, stripBom, UTF8 } from './codec';
import { errCode, errText, ioError } from './errors';
import { atomicWrite } from './files';
import type { QuarantinedRow } from './rows';

export interface QuarantineFile {
  rows: unknown[];
  reasons: string[];
}

export interface QuarantinePlace {
  fs: FsSeam;
  dir: string;
  /** The table's name (`reminders`, …). */
  name: string;
  file: string;
  maxFileBytes: number;
}

export async function loadQuarantine(q: QuarantinePlace): Promise<{ kind: 'ok'; value: QuarantineFile } | { kind: 'unreadable'; why: string }> {
  let bytes: Buffer;
  try {
    const st = await q.fs.stat(q.file);
    if (st.size > q.maxFileBytes) return { kind: 'unreadable', why: `${st.size} bytes, over the limit` };
    bytes = await q.fs.readFile(q.file);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return { kind: 'ok', value: { rows: [], reasons: [] } };
    throw ioError('read', q.file, e);
  }
  let value: unknown;
  try {
    value = JSON.parse(stripBom(UTF8.decode(bytes)));
  } catch (e) {
    return { kind: 'unreadable', why: errText(e) };
  }
  if (!isRecord(value) || !Array.isArray(value.rows) || !Array.isArray(value.reasons)) {
    return { kind: 'unreadable', why: 'not { "rows": [...], "reasons": [...] }' };
  }
  return { kind: 'ok', value: { rows: value.rows, reasons: value.reasons.map(String) } };
}

/** Adds rows not quarantined already (compared by their JSON), with their reasons. */
export async function appendQuarantine(q: QuarantinePlace, items: readonly QuarantinedRow[]): Promise<void> {
  const loaded = await loadQuarantine(q);
  let current: QuarantineFile = { rows: [], reasons: [] };
  if (loaded.kind === 'ok') {
    current = loaded.value;
  } else {
    // Keep a quarantine file someone broke by hand; a new one starts beside it.
    const aside = path.join(q.dir, `${q.name}.quarantine.unreadable-${Date.now()}.json`);
    try {
      await q.fs.rename(q.file, aside);
    } catch (e) {
      throw ioError('rename', `${q.file} -> ${aside}`, e);
    }
  }
  // Deep rows (thousands of levels) are kept verbatim too: no recursion in serializing them.
  const seen = new Set(current.rows.map((r) => stringifyDeep(r)));
  let added = 0;
  for (const { row, reason } of items) {
    const key = stringifyDeep(row);
    if (seen.has(key)) continue;
    seen.add(key);
    current.rows.push(row);
    current.reasons.push(reason);
    added++;
  }
  if (added === 0) return;
  await atomicWrite(q.fs, q.dir, q.file, `${stringifyDeep(current, 2)}\n`);
}
