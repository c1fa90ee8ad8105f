/**
 * The version of a table a process remembers (its bytes, its rows, where each row's line stands), and
 * the two uses of it that keep a 10,000-row table cheap: a read of a changed file matches its lines
 * against the remembered ones in place, so only changed lines are parsed and validated (or none, when
 * the writer's digest says it validated them); a write that replaced rows in place or added rows at
 * the end splices their lines into the remembered bytes instead of serializing every row.
 */
import { SCHEMA_VERSION } from '../../core/schema';
import { digest, EMPTY, FOOTER, FOOTER_BYTES, HEADER_RE, NEWLINE, SEPARATOR, UTF8 } from './codec';
import { deepFreeze, findForbiddenKey, formatIssues, rowLabel, type QuarantinedRow, type RowSchema } from './rows';

/** One version of a table file as this process read or wrote it. */
export interface Version<Row> {
  /** The file's bytes (owned: never a view of the read buffer). */
  bytes: Buffer;
  /** The valid rows, frozen; never mutated (a new version gets a new array). */
  rows: Row[];
  /** Start and end offset of each row's line in `bytes` (aligned with `rows`); absent for another layout. */
  spans?: Int32Array;
  /** The rows are the whole file: no line was quarantined and the schema is current. */
  clean: boolean;
  /** The allocation `bytes` is a view of, when this table made it (reused once the version is no longer known). */
  own?: Buffer;
  /** Row → its index, built when first needed. */
  index?: Map<object, number>;
  /** Line text → its row, built when first needed (lines that moved). */
  byLine?: Map<string, Row>;
}

/** A table as an update writes it: its bytes, its rows and where each row's line stands. */
export interface Written<Row> {
  text: Buffer;
  rows: Row[];
  spans: Int32Array;
  /** The allocation `text` is a view of. */
  own: Buffer;
}

/** With fewer changed lines than this, validating them costs less than hashing the file. */
const HASH_WORTH_LINES = 32;

/**
 * Rows from the table's lines (`spans`: start and end offsets in `bytes`). A line that stands where
 * the same line stood in the `known` version is its row; other lines are parsed and validated — or
 * only parsed when the file's digest (`sumOnDisk`) says its writer validated them. Undefined when a
 * line is not UTF-8 or not JSON (then the whole file is parsed, and reported if it is corrupt).
 */
export function readLines<Row extends { id: string }>(
  spans: Int32Array,
  bytes: Buffer,
  known: Version<Row> | undefined,
  schema: RowSchema<Row>,
  sumOnDisk: () => string | undefined,
): { rows: Row[]; quarantined: QuarantinedRow[]; version: Version<Row> } | undefined {
  const count = spans.length / 2;
  const base = known?.spans ? known : undefined;
  const kb = base?.bytes;
  const ks = base?.spans;
  const kn = base ? base.rows.length : 0;
  // 1: the line stands where the same line stood in the known version; 2: it does not.
  const state = new Uint8Array(count);
  const same = (i: number): boolean => {
    if (state[i] === 0) {
      const start = spans[2 * i] as number;
      const end = spans[2 * i + 1] as number;
      const k0 = ks?.[2 * i] as number;
      const k1 = ks?.[2 * i + 1] as number;
      state[i] = kb && i < kn && k1 - k0 === end - start && kb.compare(bytes, start, end, k0, k1) === 0 ? 1 : 2;
    }
    return state[i] === 1;
  };
  let fresh = 0;
  for (let i = 0; i < count && fresh < HASH_WORTH_LINES; i++) if (!same(i)) fresh++;
  // Many new lines: look moved lines up by text, and trust a file whose digest its writer left.
  const many = fresh >= HASH_WORTH_LINES;
  const trusted = many && digest(bytes) === sumOnDisk();
  const rows: Row[] = [];
  const kept: number[] = [];
  const quarantined: QuarantinedRow[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const start = spans[2 * i] as number;
    const end = spans[2 * i + 1] as number;
    let row: Row | undefined;
    let value: unknown;
    if (same(i)) {
      row = (base as Version<Row>).rows[i] as Row;
      value = row;
    } else {
      let textLine: string;
      try {
        textLine = UTF8.decode(bytes.subarray(start, end));
      } catch {
        return undefined;
      }
      if (base && kb && ks && many) {
        base.byLine ??= new Map(base.rows.map((r, j) => [kb.toString('utf8', ks[2 * j], ks[2 * j + 1]), r]));
        row = base.byLine.get(textLine);
      }
      value = row;
      if (row === undefined) {
        try {
          value = JSON.parse(textLine);
        } catch {
          return undefined;
        }
        const label = rowLabel(value, i);
        if (trusted) {
          row = value as Row;
        } else {
          const bad = findForbiddenKey(value);
          if (bad) {
            quarantined.push({ row: value, reason: `${label}: ${bad}` });
            continue;
          }
          const parsed = schema.safeParse(value);
          if (!parsed.success) {
            quarantined.push({ row: value, reason: `${label}: ${formatIssues(parsed.error.issues)}` });
            continue;
          }
          row = parsed.data;
        }
        deepFreeze(row);
      }
    }
    const first = seen.get(row.id);
    if (first !== undefined) {
      quarantined.push({ row: value, reason: `${rowLabel(value, i)}: id: duplicate of rows[${first}], which is kept` });
      continue;
    }
    seen.set(row.id, i);
    kept.push(start, end);
    rows.push(row);
  }
  const version: Version<Row> = { bytes, rows, spans: Int32Array.from(kept), clean: quarantined.length === 0 };
  return { rows, quarantined, version };
}

/**
 * `out` as a change of `base` that only replaced rows in place (same id) and perhaps added rows at
 * the end — what claims, facts, heartbeats, moves and adds are: only those rows are validated
 * (`check`) and serialized, and their lines spliced into base's bytes (copied by `assemble`).
 * Undefined for any other change (rows removed, moved, renamed or duplicated), which takes the full path.
 */
export function spliceRows<Row extends { id: string }>(
  base: Version<Row>,
  out: unknown[],
  check: (row: unknown, i: number) => Row,
  assemble: (parts: readonly Buffer[]) => { text: Buffer; own: Buffer },
): Written<Row> | undefined {
  const old = base.rows;
  const ks = base.spans;
  const n = old.length;
  if (!ks || n === 0 || out.length < n) return undefined;
  const rows = out.slice() as Row[];
  const changed: number[] = [];
  const lines: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    if (out[i] === old[i]) continue;
    const ok = check(out[i], i);
    if (ok.id !== (old[i] as Row).id) return undefined;
    rows[i] = ok;
    changed.push(i);
    lines.push(Buffer.from(JSON.stringify(ok)));
  }
  const added = new Set<string>();
  for (let j = n; j < out.length; j++) {
    const ok = check(out[j], j);
    // Only a real key holds `"id":"…"` unescaped: a match anywhere means the id is taken.
    if (added.has(ok.id) || base.bytes.includes(`"id":${JSON.stringify(ok.id)}`)) return undefined;
    added.add(ok.id);
    rows[j] = ok;
    lines.push(Buffer.from(JSON.stringify(ok)));
  }
  const parts: Buffer[] = [];
  const spans = new Int32Array(2 * rows.length);
  let pos = 0;
  let shift = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const s = ks[2 * i] as number;
    const e = ks[2 * i + 1] as number;
    if (changed[c] === i) {
      const line = lines[c] as Buffer;
      parts.push(base.bytes.subarray(pos, s), line);
      pos = e;
      spans[2 * i] = s + shift;
      spans[2 * i + 1] = s + shift + line.length;
      shift += line.length - (e - s);
      c++;
    } else {
      spans[2 * i] = s + shift;
      spans[2 * i + 1] = e + shift;
    }
  }
  if (rows.length === n) {
    parts.push(base.bytes.subarray(pos));
  } else {
    const lastEnd = ks[2 * n - 1] as number;
    parts.push(base.bytes.subarray(pos, lastEnd));
    let at = lastEnd + shift;
    for (let j = n; j < rows.length; j++) {
      const line = lines[changed.length + j - n] as Buffer;
      parts.push(SEPARATOR, line);
      at += SEPARATOR.length;
      spans[2 * j] = at;
      spans[2 * j + 1] = at + line.length;
      at += line.length;
    }
    parts.push(NEWLINE, FOOTER_BYTES);
  }
  return { rows, spans, ...assemble(parts) };
}

/** A row's line: its bytes in the version it was read from, else its serialization. */
export function lineOf<Row>(row: Row, from: Version<Row> | undefined): Buffer {
  const spans = from?.spans;
  if (from && spans) {
    from.index ??= new Map(from.rows.map((r, i) => [r as object, i]));
    const i = from.index.get(row as object);
    if (i !== undefined) return from.bytes.subarray(spans[2 * i], spans[2 * i + 1]);
  }
  return Buffer.from(JSON.stringify(row));
}

/**
 * A file with `row` added at the end, spliced in without parsing the other rows — only for a file
 * exactly as a writer of this code left it (its digest, `sumOnDisk`, matches) and when the id is not
 * taken; otherwise undefined, and the caller takes the full update path.
 */
export function appendLine(bytes: Buffer, row: { id: string }, sumOnDisk: () => string | undefined): Buffer | undefined {
  const head = HEADER_RE.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!head || Number(head[1]) !== SCHEMA_VERSION) return undefined;
  if (!bytes.subarray(bytes.length - FOOTER.length).equals(FOOTER_BYTES)) return undefined;
  if (digest(bytes) !== sumOnDisk()) return undefined;
  // Only a real key holds `"id":"…"` unescaped: a match anywhere means the id is taken.
  if (bytes.includes(`"id":${JSON.stringify(row.id)}`)) return undefined;
  const line = Buffer.from(JSON.stringify(row));
  const cut = bytes.length - FOOTER.length;
  const empty = cut === head[0].length;
  return Buffer.concat([bytes.subarray(0, empty ? cut : cut - 1), empty ? EMPTY : SEPARATOR, line, NEWLINE, FOOTER_BYTES]);
}
