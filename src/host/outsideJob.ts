import * as vscode from 'vscode';
import { diskFolderPaths } from './diskFolders';
import { fileURLToPath } from 'node:url';
import type { CodeAnchor } from '../core/anchor/code';
import { isInsideFolders, type LandingRef } from '../core/landing';
import { isLoopbackUrl } from '../core/loopback';
import type { DeskState } from '../core/wake/contract';
import type { PulseEvent } from '../core/wake/pulse';
import type { WakeRow } from '../core/wake/row';
import { readLocusWords } from '../node/jobArtifacts';
import type { DeskShown, HostDesk } from './desk';
import type { Lander } from './landing';

export interface OutsideJobPorts {
  lander: Lander;
  desk: HostDesk;
  log: vscode.LogOutputChannel;
}

/**
 * A job that ended outside a window (`life-thread run`, a command row the OS timer ran) left on its
 * wake's fact the code locus and the report page its output names (src/node/jobArtifacts.ts). The
 * window that delivers the wake lands as for a task of its own: a CodeAnchor on the locus with the
 * job's evidence beside it, the report on the desk. Only places inside this window's folders are
 * taken; otherwise the job's log stays the landing. A wake whose landing is not the job's log (the
 * caller's own, or one already made) is left as it is.
 */
export async function landJobOutside(row: WakeRow, event: PulseEvent, ports: OutsideJobPorts): Promise<PulseEvent> {
  const fact = row.fact;
  const log = event.landing;
  if (fact?.locus === undefined && fact?.report === undefined) return event;
  if (log?.kind !== 'deep_link' || row.landing?.kind !== 'deep_link' || row.landing.uri !== log.uri) return event;
  const folders = diskFolderPaths();
  const [anchor, shown] = await Promise.all([anchorOf(fact.locus, folders, ports), reportOf(fact.report, row.id, folders, ports)]);
  const desk: DeskState = shown?.status ?? event.desk ?? 'none';
  // As the task path decides (src/host/wakeFeature.ts jobEnded): the desk's page when it shows it, else the log.
  const onDesk = shown && (shown.status === 'ok' || shown.status === 'prepared') ? shown.landing : undefined;
  const kept: LandingRef = onDesk ?? log;
  const landing: LandingRef = anchor ? { kind: 'code_anchor', anchor, ...(kept.kind === 'deep_link' ? { evidence: kept.uri } : {}) } : kept;
  return { ...event, landing, desk };
}

async function anchorOf(words: string | undefined, folders: readonly string[], ports: OutsideJobPorts): Promise<CodeAnchor | undefined> {
  const locus = words === undefined ? undefined : readLocusWords(words);
  if (!locus || !isInsideFolders(locus.path, folders)) return undefined;
  try {
    return await ports.lander.anchorAt(locus.path, locus.line);
  } catch (err) {
    ports.log.warn(`code locus ${words ?? ''}: ${String(err)}`);
    return undefined;
  }
}

async function reportOf(url: string | undefined, wakeId: string, folders: readonly string[], ports: OutsideJobPorts): Promise<DeskShown | undefined> {
  if (url === undefined) return undefined;
  let path: string | undefined;
  if (/^file:/i.test(url)) {
    try {
      path = fileURLToPath(url);
    } catch {
      return undefined;
    }
    if (!isInsideFolders(path, folders)) return undefined;
  } else if (!isLoopbackUrl(url)) return undefined;
  const title = path ? vscode.workspace.asRelativePath(path) : url;
  return ports.desk.showEvidence({ url, evidenceId: `${wakeId}-report`, title }).catch((err: unknown) => {
    ports.log.warn(`desk for ${wakeId}: ${String(err)}`);
    return undefined;
  });
}
