/**
 * Paths as the pulse names them (docs/architecture.md, "String protocols"): a file inside a
 * workspace folder is named relative to it — `src/calc.js`, or `<folder name>/src/calc.js` when the
 * window has several folders — because an agent's file tools take workspace-relative paths; any other
 * place keeps its absolute path or URI. Rows keep absolute URIs: only the pulse's words change. Pure.
 */
import { hostPathRules, isInsidePath, type PathRules } from '../folderUri';

/** A workspace folder as the window passes it in: its name and its file-system path. */
export interface PulseFolder {
  name: string;
  path: string;
}

/** Segments of a path as written (case kept), `.` and `..` applied. */
function segmentsOf(path: string, rules: PathRules): string[] {
  const out: string[] = [];
  for (const seg of path.split(rules.backslash ? /[\\/]/ : '/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return out;
}

/**
 * `path` relative to the innermost folder holding it (`/` separated), led by the folder's name when
 * there are several folders; undefined when no folder holds it (or it is a folder itself).
 */
export function workspaceRelative(path: string, folders: readonly PulseFolder[], rules: PathRules = hostPathRules()): string | undefined {
  let best: { folder: PulseFolder; depth: number } | undefined;
  for (const f of folders) {
    if (!isInsidePath(path, f.path, rules)) continue;
    const depth = segmentsOf(f.path, rules).length;
    if (!best || depth > best.depth) best = { folder: f, depth };
  }
  if (!best) return undefined;
  const rest = segmentsOf(path, rules).slice(best.depth);
  if (rest.length === 0) return undefined;
  return folders.length > 1 ? [best.folder.name, ...rest].join('/') : rest.join('/');
}

/** A `file:` URI's path and its `#L…` fragment; undefined for any other URI. */
function fileUriParts(uri: string): { path: string; lines: string } | undefined {
  const m = /^file:\/\/(?:localhost)?(\/[^?#]*)(#L\d+(?:-L\d+)?)?$/i.exec(uri);
  if (!m) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(m[1] ?? '');
  } catch {
    return undefined;
  }
  // A Windows drive path comes as `/C:/…`.
  if (/^\/[A-Za-z]:\//.test(path)) path = path.slice(1);
  return { path, lines: m[2] ?? '' };
}

/** A deep link's words: `path: "src/calc.js#L16"` inside a folder, else `uri:` as it is. */
export function linkWords(uri: string, folders: readonly PulseFolder[], rules: PathRules = hostPathRules()): { key: 'path' | 'uri'; value: string } {
  const f = fileUriParts(uri);
  const rel = f && folders.length > 0 ? workspaceRelative(f.path, folders, rules) : undefined;
  return rel !== undefined && f ? { key: 'path', value: `${rel}${f.lines}` } : { key: 'uri', value: uri };
}

/**
 * The evidence beside a code anchor: a file link as its path and lines — relative inside a folder
 * (`.life-thread/evidence/w-a.log#L16`), absolute outside (`/store/evidence/job-1.log#L16`) —, any
 * other link (a desk page) as it is.
 */
export function evidenceWords(uri: string, folders: readonly PulseFolder[], rules: PathRules = hostPathRules()): string {
  const f = fileUriParts(uri);
  if (!f) return uri;
  return `${(folders.length > 0 ? workspaceRelative(f.path, folders, rules) : undefined) ?? f.path}${f.lines}`;
}

/** A code anchor's path: relative inside a folder, else as it is. */
export function anchorPathWords(path: string, folders: readonly PulseFolder[], rules: PathRules = hostPathRules()): string {
  return (folders.length > 0 ? workspaceRelative(path, folders, rules) : undefined) ?? path;
}
