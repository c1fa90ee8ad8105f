/**
 * Liveness of the processes named in claims and owners (README "How the lock works"): on this host a
 * process is alive while its pid runs with the same boot and start time — a stopped process is alive;
 * a process on another host, or in another PID namespace (a sandbox), cannot be checked by its pid,
 * so its heartbeat decides.
 */
import type { Holder, Liveness } from '../core/claim';
import { pidVisible, processAlive, selfIdentity } from './lock';

export const processLiveness: Liveness = (p) => {
  if (p.pid === undefined || p.host === undefined || !pidVisible(p)) return undefined;
  return processAlive(p.pid, p.boot, p.start);
};

/** This process as the holder of claims: `window` is the VS Code window id, or 'cli' / 'mcp'. */
export function holderFor(window: string): Holder {
  return { ...selfIdentity(), window };
}

export function cliHolder(): Holder {
  return holderFor('cli');
}
