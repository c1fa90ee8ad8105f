/**
 * Links into code and evidence, written in one format: `file:///abs/path#L12-L14` (1-based,
 * inclusive lines; one line is `#L12`), `cdp://evidence/<id>` and `intercom://message/<topic>/<msgId>#<start>-<end>`.
 */
import { InputError } from '../errors';
import { isEvidenceId } from '../ids';
import type { TextRange } from './text';


/** "L12-L14" (1-based, inclusive) for `file:///…#L12-L14`; one line → "L12". An end at character 0 of a later line ends on the line before. */
export function formatRange(range: TextRange): string {
  const first = range.start.line + 1;
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  return lineSpan(first, last);
}

/** The one spelling of a line span: `L12`, or `L12-L14` for several lines. */
function lineSpan(first: number, last?: number): string {
  return last !== undefined && last > first ? `L${first}-L${last}` : `L${first}`;
}

/** `file:///abs/path`, with `#L12` or `#L12-L14` when lines are given. */
export function fileLink(path: string, startLine?: number, endLine?: number): string {
  const u = `file://${path.split('/').map(encodeURIComponent).join('/')}`;
  if (!startLine) return u;
  return `${u}#${lineSpan(startLine, endLine)}`;
}

/** `cdp://evidence/<id>`: the landing of a page on the desk. Throws for an id such a link cannot carry. */
export function evidenceLink(id: string, field = 'evidenceId'): string {
  if (!isEvidenceId(id)) throw new InputError(field, 'must be letters, digits, dot, dash or underscore (at most 100), starting with a letter or digit');
  return `cdp://evidence/${id}`;
}

export function messageLink(topic: string, msgId: string, start: number, end: number): string {
  return `intercom://message/${encodeURIComponent(topic)}/${encodeURIComponent(msgId)}#${start}-${end}`;
}

/** The `#L10` or `#L10-L20` fragment of a file link (1-based, inclusive); none → no lines. Throws InputError naming `field`. */
export function parseLineFragment(hash: string, field: string): { startLine?: number; endLine?: number } {
  if (!hash) return {};
  const m = /^#L(\d{1,7})(?:-L?(\d{1,7}))?$/.exec(hash);
  if (!m) throw new InputError(field, `has a fragment "${hash}"; expected #L10 or #L10-L20`);
  const startLine = Number(m[1]);
  const endLine = m[2] ? Number(m[2]) : startLine;
  if (startLine < 1 || endLine < startLine) throw new InputError(field, `has lines ${hash.slice(1)}: 1-based and not reversed`);
  return { startLine, endLine };
}

