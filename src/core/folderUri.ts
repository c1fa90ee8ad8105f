/**
 * Folders compared as VS Code compares them, for any URI scheme (`file:`, `vscode-remote:`, `vscode-vfs:`, …):
 * - the scheme and the authority compare case-insensitively (they name a protocol and a host);
 * - the path compares as the platform's file system does: case-sensitively on Linux, case-insensitively
 *   on Windows and macOS (VS Code's own `extUriIgnorePathCase` there), `\` a separator on Windows only;
 * - percent-escapes are decoded, and `.`/`..` segments, doubled and trailing slashes do not matter.
 * Window ownership (src/core/claim.ts), the MCP server's window lookup (src/node/windows.ts) and the
 * landing's folder check (src/core/landing.ts) all compare through here. README "Remote, containers and
 * Codespaces" says what a remote extension host reports for folder URIs.
 */

export interface PathRules {
  /** The file system folds case (Windows, macOS). */
  ignoreCase: boolean;
  /** `\` separates segments too (Windows). */
  backslash: boolean;
}

export function pathRulesOf(platform: string): PathRules {
  return { ignoreCase: platform === 'win32' || platform === 'darwin', backslash: platform === 'win32' };
}

/** The rules of the machine this runs on (it reads the platform, as systemZone reads the zone). */
export function hostPathRules(): PathRules {
  return pathRulesOf(process.platform);
}

function segments(path: string, rules: PathRules): string[] {
  const out: string[] = [];
  for (const seg of path.split(rules.backslash ? /[\\/]/ : '/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(rules.ignoreCase ? seg.toLowerCase() : seg);
  }
  return out;
}

function startsWith(inner: readonly string[], outer: readonly string[]): boolean {
  return outer.length <= inner.length && outer.every((s, i) => inner[i] === s);
}

/** True when `path` is `folder` or inside it (a sibling sharing a prefix is not). */
export function isInsidePath(path: string, folder: string, rules: PathRules = hostPathRules()): boolean {
  return startsWith(segments(path, rules), segments(folder, rules));
}

interface SplitUri {
  scheme: string;
  authority: string;
  path: string;
}

const URI = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)/;

function splitUri(uri: string): SplitUri | undefined {
  const m = URI.exec(uri);
  if (!m) return undefined;
  let path = m[3] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    // A stray `%` stays as written; both sides are compared the same way.
  }
  return { scheme: (m[1] ?? '').toLowerCase(), authority: (m[2] ?? '').toLowerCase(), path };
}

/** True when the two URIs name the same folder. */
export function sameFolder(a: string, b: string, rules: PathRules = hostPathRules()): boolean {
  return uriInsideFolder(a, b, rules) && uriInsideFolder(b, a, rules);
}

/** True when `uri` is the folder `folderUri` or inside it: same scheme, same authority, and the path within. */
export function uriInsideFolder(uri: string, folderUri: string, rules: PathRules = hostPathRules()): boolean {
  const u = splitUri(uri);
  const f = splitUri(folderUri);
  if (!u || !f) return uri.replace(/\/+$/, '') === folderUri.replace(/\/+$/, '');
  return u.scheme === f.scheme && u.authority === f.authority && isInsidePath(u.path, f.path, rules);
}

/**
 * A local path as a `file:` URI, for comparing it with folder URIs: `/home/a` → `file:///home/a`; on
 * Windows `C:\Users\a` → `file:///C:/Users/a` and `\\server\share\a` → `file://server/share/a`.
 */
export function fileUriOfPath(path: string, rules: PathRules = hostPathRules()): string {
  const enc = (p: string): string => p.split('/').map(encodeURIComponent).join('/');
  if (!rules.backslash) return `file://${enc(path)}`;
  const slashed = path.replace(/\\/g, '/');
  const unc = /^\/\/([^/]+)(\/.*)?$/.exec(slashed);
  if (unc) return `file://${unc[1] ?? ''}${enc(unc[2] ?? '/')}`;
  return `file://${enc(slashed.startsWith('/') ? slashed : `/${slashed}`)}`;
}
