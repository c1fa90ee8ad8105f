/**
 * The one claim module, shared by the schedule dispatcher
 * and the wakes: who holds a row in flight, whether that holder is gone, heartbeats, and who may fire
 * a row at all (ownership). Pure: whether a process runs is asked of an injected `Liveness`.
 */
import { hostPathRules, sameFolder, type PathRules } from './folderUri';
import type { Claim, Owner } from './schema';

/** The process and window that claims: a VS Code window's extension host, the CLI, or the MCP server. */
export interface Holder {
  pid: number;
  /** A window id, or 'cli' / 'mcp'. */
  window: string;
  host?: string;
  boot?: string;
  start?: string;
  /** The Linux PID namespace its pid belongs to (`pid:[<inode>]`). */
  pidns?: string;
}

/** Whether the process still runs: true/false when it can tell (this host, same PID namespace), undefined when it cannot. */
export type Liveness = (p: { pid?: number; host?: string; boot?: string; start?: string; pidns?: string }) => boolean | undefined;

/** A holder whose liveness cannot be checked is gone once its heartbeat is this old. */
export const HEARTBEAT_STALE_MS = 120_000;

export interface ClaimJudge {
  holder: Holder;
  /** Claims of this holder that it still runs; any other claim of this holder was left by its earlier life. */
  ownLiveTokens?: ReadonlySet<string>;
  alive?: Liveness;
  staleMs?: number;
}

export function newClaim(holder: Holder, token: string, now: Date, scheduledFor: Date): Claim {
  return {
    token,
    pid: holder.pid,
    ...(holder.host !== undefined ? { host: holder.host } : {}),
    ...(holder.boot !== undefined ? { boot: holder.boot } : {}),
    ...(holder.start !== undefined ? { start: holder.start } : {}),
    ...(holder.pidns !== undefined ? { pidns: holder.pidns } : {}),
    window: holder.window.slice(0, 80),
    heartbeatAt: now.toISOString(),
    scheduledFor: scheduledFor.toISOString(),
  };
}

function isMine(claim: Claim, holder: Holder): boolean {
  // Two sandboxes number their processes alike: a pid of another namespace is another process.
  if (claim.pidns !== undefined && holder.pidns !== undefined && claim.pidns !== holder.pidns) return false;
  return claim.pid === holder.pid && claim.window === holder.window.slice(0, 80);
}

/**
 * Why the claim's holder is gone, or undefined while it lives. A holder on this host and in this PID
 * namespace is judged by its process (a stopped process is alive); one that cannot be checked (another
 * host or namespace), by its heartbeat's age.
 */
export function deadClaimReason(claim: Claim, now: Date, judge: ClaimJudge): string | undefined {
  if (isMine(claim, judge.holder)) {
    if (judge.ownLiveTokens === undefined || judge.ownLiveTokens.has(claim.token)) return undefined;
    return 'this window restarted before the run recorded a fact';
  }
  const who = claim.window === 'cli' ? 'CLI process' : claim.window === 'mcp' ? 'MCP server' : 'window';
  const alive = judge.alive?.(claim);
  if (alive === true) return undefined;
  if (alive === false || now.getTime() - Date.parse(claim.heartbeatAt) > (judge.staleMs ?? HEARTBEAT_STALE_MS)) {
    return `the ${who} running it (pid ${claim.pid}) stopped before recording a fact`;
  }
  return undefined;
}

/** Refreshes the heartbeat of the claims whose tokens a holder still runs. */
export function refreshHeartbeats<R extends { claim?: Claim }>(rows: readonly R[], tokens: ReadonlySet<string>, now: Date): { rows: R[]; changed: boolean } {
  let changed = false;
  const out = rows.map((row) => {
    if (!row.claim || !tokens.has(row.claim.token)) return row;
    changed = true;
    return { ...row, claim: { ...row.claim, heartbeatAt: now.toISOString() } };
  });
  return { rows: changed ? out : [...rows], changed };
}

/**
 * Whether a dispatcher with these workspace folders may fire a row of `owner`: a row with
 * folders only in a window that has one of them open; a row without folders anywhere. A dispatcher
 * that is not a window (`folders` undefined: the CLI, the MCP server) fires only rows without folders.
 */
export function mayFire(owner: Owner | undefined, folders: readonly string[] | undefined, rules: PathRules = hostPathRules()): boolean {
  const own = owner?.folders;
  if (own === undefined || own.length === 0) return true;
  if (folders === undefined) return false;
  // Any scheme: a remote window's folders compare by scheme, authority and path (src/core/folderUri.ts).
  return own.some((f) => folders.some((mine) => sameFolder(f, mine, rules)));
}

/** An owner for a row set by this holder: the window with its folders, or the CLI / MCP with its directory. */
export function ownerOf(holder: Holder, extra: { kind: Owner['kind']; folders?: readonly string[]; client?: string; cwd?: string }): Owner {
  return {
    kind: extra.kind,
    ...(extra.folders && extra.folders.length > 0 ? { folders: extra.folders.slice(0, 64).map(String) } : {}),
    ...(extra.kind === 'window' ? { window: holder.window.slice(0, 80) } : {}),
    pid: holder.pid,
    ...(holder.host !== undefined ? { host: holder.host } : {}),
    ...(holder.boot !== undefined ? { boot: holder.boot } : {}),
    ...(holder.start !== undefined ? { start: holder.start } : {}),
    ...(holder.pidns !== undefined ? { pidns: holder.pidns } : {}),
    ...(extra.client !== undefined ? { client: extra.client.slice(0, 200) } : {}),
    ...(extra.cwd !== undefined ? { cwd: extra.cwd.slice(0, 4096) } : {}),
  };
}
