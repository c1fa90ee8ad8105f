/**
 * CodeAnchors: a range of a file kept with its excerpt (and the excerpt's hash), so that the place is
 * re-found after edits by the ladder of src/core/anchor/ladder.ts. The host reads the file and
 * supplies the symbol lookup (vscode.executeDocumentSymbolProvider); this module is the text-only part.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InputError } from '../errors';
import { locateExcerpt, type AnchorStep, type SymbolLocator } from './ladder';
import { formatRange } from './links';
import { lineIndex, normalizeEol, prepareText, rangeSchema, textIn, type LineIndex, type TextIndex, type TextRange } from './text';

export const EXCERPT_MAX = 4000;

/** POSIX (`/…`), Windows drive (`C:\…`, `C:/…`) or UNC (`\\server\…`) absolute paths. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

export const codeAnchorSchema = z
  .object({
    path: z.string().min(1).max(4096).refine(isAbsolutePath, { message: 'path must be absolute' }),
    symbol: z.string().max(400),
    range: rangeSchema,
    excerpt: z.string().min(1).max(EXCERPT_MAX),
    excerptHash: z.string().regex(/^[0-9a-f]{64}$/, 'excerptHash must be a sha256 hex digest'),
    commit: z.string().regex(/^[0-9a-f]{7,64}$/, 'commit must be a hex SHA').optional(),
  })
  .strict();
export type CodeAnchor = z.infer<typeof codeAnchorSchema>;

export interface AnchorResolution {
  step: AnchorStep;
  /** Where the excerpt stands now; for `orphaned`, the stored range clamped to the file. */
  range: TextRange;
  /** The anchor as given (not modified). */
  original: CodeAnchor;
  /** The anchor with the new range and the same excerpt; for `orphaned`, the original unchanged. */
  healed: CodeAnchor;
  reason: string;
}

/** The excerpt as hashed: LF line endings, trailing whitespace of each line removed. */
export function canonicalExcerpt(excerpt: string): string {
  return normalizeEol(excerpt).replace(/[^\S\n]+$/gm, '');
}

export function hashExcerpt(excerpt: string): string {
  return createHash('sha256').update(canonicalExcerpt(excerpt), 'utf8').digest('hex');
}

/** An anchor on `range` of `text`; the excerpt is the text in the range with LF line endings. Throws InputError. */
export function makeAnchor(text: string, path: string, range: TextRange, symbol = '', commit?: string): CodeAnchor {
  return makeAnchorIn(lineIndex(text), path, range, symbol, commit);
}

/** makeAnchor on an index already built (many anchors in one file). */
export function makeAnchorIn(index: LineIndex, path: string, range: TextRange, symbol = '', commit?: string): CodeAnchor {
  const r = rangeSchema.safeParse(range);
  if (!r.success) throw new InputError('range', r.error.issues.map((i) => i.message).join('; '));
  const excerpt = textIn(index, r.data);
  if (excerpt === undefined) throw new InputError('range', `${formatRange(r.data)} lies outside the text`);
  if (excerpt.length === 0) throw new InputError('range', 'the range is empty');
  if (excerpt.length > EXCERPT_MAX) throw new InputError('range', `the excerpt has ${excerpt.length} characters; at most ${EXCERPT_MAX}`);
  const anchor: CodeAnchor = { path, symbol, range: r.data, excerpt, excerptHash: hashExcerpt(excerpt) };
  if (commit !== undefined) anchor.commit = commit;
  const checked = codeAnchorSchema.safeParse(anchor);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new InputError(String(issue?.path[0] ?? 'anchor'), issue?.message ?? 'invalid anchor');
  }
  return checked.data;
}

export function resolveAnchorIn(index: TextIndex, anchor: CodeAnchor, locateSymbol?: SymbolLocator): AnchorResolution {
  const found = locateExcerpt(index, { excerpt: anchor.excerpt, range: anchor.range, symbol: anchor.symbol, locateSymbol });
  const healed: CodeAnchor = found.step === 'orphaned' ? { ...anchor } : { ...anchor, range: found.range };
  return { step: found.step, range: found.range, original: anchor, healed, reason: found.reason };
}

/** A text a resolver can index: a document's identity, its version, and its text (read only when needed). */
export interface VersionedText {
  key: string;
  version: number;
  getText(): string;
}

/**
 * The index of each document's current version, kept so that resolving many anchors in one file
 * (a landing, the tool, a topic's anchors) indexes it once per version, not once per anchor. Holds
 * the last `max` documents.
 */
export class AnchorIndexCache {
  private readonly entries = new Map<string, { version: number; index: TextIndex }>();
  constructor(private readonly max = 16) {}

  indexOf(doc: VersionedText): TextIndex {
    const hit = this.entries.get(doc.key);
    if (hit && hit.version === doc.version) {
      // Most recently used last.
      this.entries.delete(doc.key);
      this.entries.set(doc.key, hit);
      return hit.index;
    }
    const index = prepareText(doc.getText());
    this.entries.delete(doc.key);
    this.entries.set(doc.key, { version: doc.version, index });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return index;
  }

  /** A document closed: its next opening starts versions from 1 again, so its entry must go. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Resolves `anchor` in `doc` through the ladder, on the document's cached index. */
  resolve(doc: VersionedText, anchor: CodeAnchor, locateSymbol?: SymbolLocator): AnchorResolution {
    return resolveAnchorIn(this.indexOf(doc), anchor, locateSymbol);
  }
}
