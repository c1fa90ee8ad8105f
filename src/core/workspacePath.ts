/**
 * Paths a job's output names, read as places in the workspace: relative ones against the job's
 * working directory, then each workspace folder; absolute ones and `file://` URLs as they are. A
 * place outside every folder, or inside a dependency folder (node_modules, site-packages), is none.
 * Posix and Windows paths alike, each compared in its own style. Pure.
 */

const DEPENDENCY_DIRS = new Set(['node_modules', 'site-packages', 'dist-packages']);

/** A workspace folder (or the job's cwd) ready for comparisons. */
export interface Folder {
  /** As given, without a trailing separator. */
  path: string;
  windows: boolean;
  /** Comparable form: `/` separators, `.`/`..` resolved; lower case on Windows. */
  key: string;
  base: string;
}

export function isWindowsPath(p: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

export function folderOf(p: string): Folder {
  const trimmed = p.replace(/[\\/]+$/, '') || p;
  const windows = isWindowsPath(p);
  const key = keyOf(trimmed, windows);
  return { path: trimmed, windows, key, base: key.split('/').pop() ?? '' };
}

/** `/`-separated, `.` and `..` resolved (never above the root); Windows paths compare case-insensitively. */
function keyOf(p: string, windows: boolean): string {
  const unc = windows && p.startsWith('\\\\');
  const parts: string[] = [];
  for (const seg of p.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  const joined = `${unc ? '//' : windows ? '' : '/'}${parts.join('/')}`;
  return windows ? joined.toLowerCase() : joined;
}

/** The absolute path inside a workspace folder that `raw` names, or undefined. */
export function placeOf(raw: string, folders: readonly Folder[], cwd: Folder | undefined, isFile: ((path: string) => boolean) | undefined, dirs: readonly string[] | undefined): string | undefined {
  let p = raw.trim().replace(/^["']|["']$/g, '');
  if (p.startsWith('file://')) {
    p = p.slice('file://'.length).replace(/^\/([A-Za-z]:[\\/])/, '$1');
    try {
      p = decodeURIComponent(p);
    } catch {
      return undefined;
    }
  }
  if (p === '' || p.startsWith('<') || /^[a-z][a-z0-9+.-]*:(?![\\/])/i.test(p) || /^[a-z][a-z0-9+.-]{1,}:\/\//i.test(p)) return undefined; // node:fs, internal:, http://
  if (p.startsWith('internal/') || p.includes('\0')) return undefined;
  if (p.startsWith('/') || isWindowsPath(p)) return inside(p, folders);
  const bases = [...(cwd ? [cwd] : []), ...folders];
  const rels = (dirs && dirs.length > 0 ? orderDirs(dirs, folders) : ['']).map((d) => (d === '' ? p : `${d}/${p}`));
  let first: string | undefined;
  for (const rel of rels) {
    for (const b of bases) {
      const abs = inside(`${b.path}${b.windows ? '\\' : '/'}${rel}`, folders);
      if (abs === undefined) continue;
      if (!isFile) return abs;
      first ??= abs;
      if (isFile(abs)) return abs;
    }
  }
  return isFile ? undefined : first;
}

/** go test: the tail of the import path after the folder's own name first (module `…/inventory` in folder `inventory`), then every tail. */
function orderDirs(dirs: readonly string[], folders: readonly Folder[]): string[] {
  const full = (dirs[dirs.length - 1] ?? '').split('/');
  const likely = folders.flatMap((f) => {
    const at = full.findIndex((s) => s.toLowerCase() === f.base.toLowerCase());
    return at >= 0 ? [full.slice(at + 1).join('/')] : [];
  });
  return [...new Set([...likely, ...dirs])];
}

/** The path in its folder's style when it lies inside one and outside any dependency folder. */
function inside(p: string, folders: readonly Folder[]): string | undefined {
  const windows = isWindowsPath(p);
  for (const f of folders) {
    if (f.windows !== windows) continue;
    const key = keyOf(p, windows);
    if (!key.startsWith(`${f.key}/`)) continue;
    const rel = keyOf(p, false).split('/').filter((s) => s !== '');
    const relParts = rel.slice(rel.length - (key.split('/').length - f.key.split('/').length));
    if (relParts.some((s) => DEPENDENCY_DIRS.has(s.toLowerCase()))) return undefined;
    return `${f.path}${f.windows ? '\\' : '/'}${relParts.join(f.windows ? '\\' : '/')}`;
  }
  return undefined;
}
