/** The URLs the desk opens and compares: http(s) and file pages, and `cdp://evidence/<id>` landings of pages it remembers. */

/** Schemes the desk opens. `cdp://evidence/<id>` is resolved to a remembered page first. */
const PAGE_SCHEMES = new Set(['http:', 'https:', 'file:']);

/** The evidence id of a `cdp://evidence/<id>` landing, or undefined for any other URL. */
export function parseEvidenceUri(uri: string): string | undefined {
  const m = /^cdp:\/\/evidence\/([^/?#]+)\/?$/i.exec(uri.trim());
  if (!m?.[1]) return undefined;
  try {
    const id = decodeURIComponent(m[1]);
    return id.length > 0 && id.length <= 300 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The key under which the desk remembers an evidence page. */
export function evidenceKey(id: string): string {
  return `evidence:${id}`;
}

/** URL as the browser would report it (`http://a` → `http://a/`), for comparing pages. */
export function normalizeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

export function sameUrl(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

/** A URL the desk may open: http(s) or file. */
export function checkPageUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (!PAGE_SCHEMES.has(u.protocol)) return `the desk opens only http, https and file pages, not ${u.protocol} (${url})`;
  return undefined;
}
