import * as vscode from 'vscode';
import { firstDiskFolderPath } from './diskFolders';
import { fileURLToPath } from 'node:url';
import { fileLink } from '../core/anchor/links';
import { isInsideFolders, type LandingRef } from '../core/landing';
import type { PulseEvent } from '../core/wake/pulse';
import { copyEvidence, ensureEvidenceDir, storeEvidenceDir, workspaceEvidenceDir, writeEvidence, type EvidenceJob, type WrittenEvidence } from '../node/evidence';
import { setting } from './settings';

/**
 * Where this window keeps a wake's evidence (src/node/evidence.ts): the continuity folder of its first
 * workspace folder, `<folder>/evidence/<first wake id>.log`, so the pulse can name it relative to the
 * workspace; the store when there is no such folder, it is virtual, or it cannot be written.
 */
export class EvidenceHome {
  private warned = false;

  constructor(
    private readonly storeDir: string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The workspace's evidence folder (not yet made), or undefined when the first folder is not on disk. */
  workspaceDir(): string | undefined {
    const first = firstDiskFolderPath();
    return first === undefined ? undefined : workspaceEvidenceDir(first, setting('continuity.folder'));
  }

  /** Every folder this window prunes: the workspace's and the store's. */
  dirs(): string[] {
    const ws = this.workspaceDir();
    return [...(ws ? [ws] : []), storeEvidenceDir(this.storeDir)];
  }

  /** The folder to write evidence in now, made ready (with its .gitignore); the store's when the workspace's cannot be. */
  async dir(): Promise<{ dir: string; inWorkspace: boolean }> {
    const ws = this.workspaceDir();
    if (ws) {
      try {
        await ensureEvidenceDir(ws);
        return { dir: ws, inWorkspace: true };
      } catch (err) {
        if (!this.warned) this.log.warn(`evidence: ${ws} cannot be written (${String(err)}); evidence stays in the store`);
        this.warned = true;
      }
    }
    return { dir: storeEvidenceDir(this.storeDir), inWorkspace: false };
  }

  /**
   * Writes a job's evidence (src/node/evidence.ts writeEvidence) where `dir` says; when the workspace's
   * folder takes the folder but not the file (read-only, a name in the way), in the store instead.
   */
  async write(id: string, job: EvidenceJob, output: string, focusLine?: number): Promise<WrittenEvidence> {
    const home = await this.dir();
    if (!home.inWorkspace) return writeEvidence(home.dir, id, job, output, focusLine);
    try {
      return await writeEvidence(home.dir, id, job, output, focusLine);
    } catch (err) {
      this.log.warn(`evidence: ${id} cannot be written in ${home.dir} (${String(err)}); it goes to the store`);
      return writeEvidence(storeEvidenceDir(this.storeDir), id, job, output, focusLine);
    }
  }

  /**
   * A log Life Thread wrote in the store (a `life-thread run` log, a command row's `logs/<id>.log`,
   * evidence written outside a window) copied into the workspace as `<id>.log`, the link then pointing
   * at the copy on the same line; any other link, or when the copy fails, stays as it is.
   */
  async adopt(uri: string, id: string): Promise<string> {
    if (!/^file:/i.test(uri)) return uri;
    let path: string;
    let hash = '';
    try {
      const u = new URL(uri);
      hash = /^#L\d+(?:-L\d+)?$/.test(u.hash) ? u.hash : '';
      u.hash = '';
      path = fileURLToPath(u);
    } catch {
      return uri;
    }
    if (!isInsideFolders(path, [this.storeDir])) return uri;
    const home = await this.dir();
    if (!home.inWorkspace) return uri;
    try {
      const copy = await copyEvidence(path, home.dir, id);
      return `${fileLink(copy)}${hash}`;
    } catch (err) {
      this.log.warn(`evidence: copying ${path} into the workspace: ${String(err)}`);
      return uri;
    }
  }

  /** A pulse's landing with the store's logs it names copied into the workspace (see adopt). */
  async adoptLanding(event: PulseEvent, id: string): Promise<PulseEvent> {
    const l: LandingRef | undefined = event.landing;
    if (l?.kind === 'deep_link') {
      const uri = await this.adopt(l.uri, id);
      return uri === l.uri ? event : { ...event, landing: { ...l, uri } };
    }
    if (l?.kind === 'code_anchor' && l.evidence !== undefined) {
      const evidence = await this.adopt(l.evidence, id);
      return evidence === l.evidence ? event : { ...event, landing: { ...l, evidence } };
    }
    return event;
  }
}
