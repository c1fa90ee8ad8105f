/**
 * LandingRef and deep links (formats: docs/architecture.md, "String protocols"). A landing only opens
 * a place: parsing here refuses every scheme but ours, and every query is parsed with zod before
 * anything is opened.
 */
import { hostPathRules, isInsidePath, type PathRules } from './folderUri';
import { EXTENSION_ID } from '../shared/commands';
import { z } from 'zod';
import { codeAnchorSchema } from './anchor/code';
import { InputError } from './errors';
import { parseLineFragment } from './anchor/links';
import { isEvidenceId, MESSAGE_ID, TOPIC_ID, WAKE_ID } from './ids';

/** The authority of Life Thread's own links: the extension's id. */
export const EXTENSION_AUTHORITY = EXTENSION_ID;
export const MAX_QUERY_CHARS = 16_384;
export const MAX_URI_CHARS = 8_192;

export const landingRefSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('deep_link'), uri: z.string().min(1).max(MAX_URI_CHARS) }).strict(),
  // `evidence`: the deep link the job's evidence (its log, its report on the desk) stays at when the wake lands on code.
  z.object({ kind: z.literal('code_anchor'), anchor: codeAnchorSchema, evidence: z.string().min(1).max(MAX_URI_CHARS).optional() }).strict(),
  z.object({ kind: z.literal('none') }).strict(),
]);
export type LandingRef = z.infer<typeof landingRefSchema>;

const topicId = z.string().regex(TOPIC_ID, 'must be letters, digits, dot, dash or underscore (at most 100)');
const messageId = z.string().regex(MESSAGE_ID, 'must be letters, digits, dot, colon, dash or underscore (at most 100)');
const offset = z.coerce.number().int().min(0).max(10_000_000);

export const anchorQuerySchema = z
  .object({ topic: topicId, msg: messageId, start: offset, end: offset })
  .strict()
  .refine((q) => q.end >= q.start, { message: 'end must not be before start', path: ['end'] });

export const wakeQuerySchema = z.object({ id: z.string().regex(WAKE_ID, 'must be a wake id (w-…)') }).strict();
export const landQuerySchema = z.object({ ref: z.string().min(1).max(MAX_QUERY_CHARS).regex(/^[A-Za-z0-9_-]+$/, 'must be base64url without padding') }).strict();

/** An evidence id as `cdp://evidence/<id>` carries it (a page the desk remembers). */

export type DeepLink =
  | { kind: 'file'; path: string; startLine?: number; endLine?: number }
  | { kind: 'self'; path: string; query: string }
  | { kind: 'cdp'; evidenceId: string }
  | { kind: 'message'; topic: string; msgId: string; start: number; end: number };

export function decodeRef(encoded: string, field = 'ref'): LandingRef {
  if (encoded.length > MAX_QUERY_CHARS) throw new InputError(field, `is ${encoded.length} characters; at most ${MAX_QUERY_CHARS}`);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) throw new InputError(field, 'is not base64url (letters, digits, - and _ only, no padding)');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new InputError(field, 'does not decode to JSON');
  }
  return parseRef(json, field);
}

export function parseRef(json: unknown, field = 'ref'): LandingRef {
  const r = landingRefSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InputError(issue?.path.length ? `${field}.${issue.path.join('.')}` : field, issue?.message ?? 'is not a LandingRef');
  }
  return r.data;
}

/** Parses a query string with a schema; unknown or repeated keys are refused. */
export function parseQuery<T>(query: string, schema: z.ZodType<T>): T {
  if (query.length > MAX_QUERY_CHARS) throw new InputError('query', `is ${query.length} characters; at most ${MAX_QUERY_CHARS}`);
  const params = new URLSearchParams(query);
  const obj: Record<string, string> = {};
  for (const [k, v] of params) {
    if (k in obj) throw new InputError(k, 'is given twice');
    obj[k] = v;
  }
  const r = schema.safeParse(obj);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (issue?.code === 'unrecognized_keys') throw new InputError(issue.keys[0] ?? 'query', 'is not a parameter of this link');
  throw new InputError(issue?.path.map(String).join('.') || 'query', issue?.message ?? 'is invalid');
}

/**
 * Parses a deep-link URI. `uriSchemes` are the schemes that mean "this VS Code" (the
 * window's `env.uriScheme`, and `vscode`). Anything else — `command:`, `http:`, `javascript:` — is refused.
 */
export function parseDeepLink(uri: string, uriSchemes: readonly string[], field = 'uri'): DeepLink {
  if (uri.length > MAX_URI_CHARS) throw new InputError(field, `is ${uri.length} characters; at most ${MAX_URI_CHARS}`);
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(uri);
  const scheme = m?.[1]?.toLowerCase();
  if (!scheme) throw new InputError(field, 'has no scheme');
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new InputError(field, 'is not a valid URI');
  }
  if (scheme === 'file') {
    if (url.host && url.host !== 'localhost') throw new InputError(field, `points at another host (${url.host})`);
    const path = decodeURIComponent(url.pathname);
    if (!path.startsWith('/') || path.includes('\0')) throw new InputError(field, 'must be an absolute file path');
    const lines = parseLineFragment(url.hash, field);
    return { kind: 'file', path, ...lines };
  }
  if (scheme === 'cdp') {
    const id = /^\/\/evidence\/([^/]*)$/.exec(uri.slice(4).split(/[?#]/)[0] ?? '')?.[1];
    if (id === undefined || !isEvidenceId(id)) throw new InputError(field, 'must be cdp://evidence/<id>');
    return { kind: 'cdp', evidenceId: id };
  }
  if (scheme === 'intercom') {
    const mm = /^intercom:\/\/message\/([^/]+)\/([^/#?]+)#(\d+)-(\d+)$/.exec(uri);
    if (!mm) throw new InputError(field, 'must be intercom://message/<topic>/<msgId>#<start>-<end>');
    const q = anchorQuerySchema.safeParse({ topic: decodeURIComponent(mm[1] ?? ''), msg: decodeURIComponent(mm[2] ?? ''), start: mm[3], end: mm[4] });
    if (!q.success) throw new InputError(field, q.error.issues[0]?.message ?? 'is not a message span');
    return { kind: 'message', topic: q.data.topic, msgId: q.data.msg, start: q.data.start, end: q.data.end };
  }
  if (uriSchemes.includes(scheme)) {
    if (url.host.toLowerCase() !== EXTENSION_AUTHORITY) throw new InputError(field, `names another extension (${url.host}); only ${EXTENSION_AUTHORITY} links are opened`);
    if (!['/land', '/anchor', '/wake'].includes(url.pathname)) throw new InputError(field, `has an unknown path "${url.pathname}" (known: /land, /anchor, /wake)`);
    return { kind: 'self', path: url.pathname, query: url.search.replace(/^\?/, '') };
  }
  throw new InputError(field, `uses the scheme "${scheme}:", which a landing never opens (allowed: file, cdp, intercom, ${uriSchemes.join(', ')})`);
}

/**
 * True when `path` is one of `folders` or inside one of them (no `..` escapes: paths are normalized first;
 * case as the platform's file system has it, src/core/folderUri.ts).
 */
export function isInsideFolders(path: string, folders: readonly string[], rules: PathRules = hostPathRules()): boolean {
  return folders.some((f) => isInsidePath(path, f, rules));
}

/**
 * What a person pasted into Open Landing: a LandingRef as JSON, a base64url ref, or a URI; null when
 * nothing was pasted (a cancelled or empty box), which is not an error.
 */
export function readPastedLanding(text: string | undefined, uriSchemes: readonly string[]): LandingRef | null {
  const t = (text ?? '').trim();
  if (!t) return null;
  if (t.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(t);
    } catch {
      throw new InputError('landing', 'looks like JSON but does not parse');
    }
    return parseRef(json, 'landing');
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(t)) {
    parseDeepLink(t, uriSchemes, 'landing');
    return { kind: 'deep_link', uri: t };
  }
  return decodeRef(t, 'landing');
}
