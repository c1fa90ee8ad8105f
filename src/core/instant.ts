/** An ISO-8601 instant with a zone designator (`Z` or an offset) that parses to a finite time. */
export function isIsoInstant(s: string): boolean {
  return /T.*(Z|[+-]\d\d:\d\d)$/.test(s) && Number.isFinite(Date.parse(s));
}
