/**
 * A receipt seen after the fact: a pulse recorded `unverified` (an MCP channel push, a log message or a
 * resource update, which the client may drop) is verified once a tool answer carried it into the
 * session (src/node/mcp/carry.ts). Pure; applied under the table's lock by src/node/wakes.ts.
 */
import type { WakeRow } from './row';

/** Whether the row's pulse went out through MCP where no receipt could be seen. */
export function unverifiedMcp(row: WakeRow): boolean {
  return row.status === 'fired' && row.fact?.via === 'mcp' && row.fact.unverified === true;
}

/** The fired MCP rows among `ids` lose `unverified`: a tool answer held their pulse. */
export function markVerified(rows: readonly WakeRow[], ids: readonly string[]): { rows: WakeRow[]; verified: string[] } {
  const want = new Set(ids);
  const verified: string[] = [];
  const out = rows.map((r) => {
    if (!want.has(r.id) || !unverifiedMcp(r) || !r.fact) return r;
    verified.push(r.id);
    const { unverified: _u, ...fact } = r.fact;
    return { ...r, fact };
  });
  return { rows: verified.length > 0 ? out : [...rows], verified };
}
