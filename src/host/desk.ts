import * as vscode from 'vscode';
import { join } from 'node:path';
import { Desk } from '../node/desk/desk';
import type { PrepareOptions, PrepareResult } from '../node/desk/prepare';
import type { DeskPort, DeskPrepare } from './landing';
import { setting } from './settings';

/** The desk as this window uses it: settings → prepare options; the profile and thumbnail live in the store. */
export class HostDesk implements DeskPort, vscode.Disposable {
  readonly desk: Desk;
  lastResult: PrepareResult | undefined;

  constructor(
    context: vscode.ExtensionContext,
    private readonly storeDir: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.desk = new Desk({ storeDir });
    void context;
  }

  options(): PrepareOptions {
    return {
      endpoint: setting('cdp.endpoint', 'http://127.0.0.1:9222'),
      allowRemote: setting('cdp.allowRemote', false),
      chromiumPath: setting('cdp.chromiumPath', ''),
      chromiumArgs: setting<string[]>('cdp.chromiumArgs', []),
      profileDir: join(this.storeDir, 'desk-profile'),
      startAllowed: true,
      thumbnailPath: join(this.storeDir, 'desk-thumbnail.png'),
    };
  }

  /** Prepares the desk for evidence: a known id (cdp://evidence/<id>) or a new page to remember under an id. */
  async prepareEvidence(evidence: { id: string; url: string; title?: string } | undefined): Promise<PrepareResult> {
    const r = await this.desk.prepare(evidence, this.options());
    this.lastResult = r;
    this.log.info(`desk prepare${evidence ? ` ${evidence.id}` : ''}: ${r.status}${r.reason ? ` (${r.reason})` : ''} in ${r.timings.totalMs} ms`);
    return r;
  }

  async prepare(evidenceId: string): Promise<DeskPrepare> {
    const r = await this.prepareEvidence({ id: evidenceId, url: `cdp://evidence/${evidenceId}` });
    return { status: r.status, ...(r.reason ? { reason: r.reason } : {}) };
  }

  async evidenceUrl(evidenceId: string): Promise<string | undefined> {
    const pages = await this.desk.pages();
    return pages.find((p) => p.evidenceId === evidenceId)?.url;
  }

  async doctorSection(): Promise<string> {
    const o = this.options();
    const pages = await this.desk.pages().catch(() => []);
    const last = this.lastResult;
    return [
      `- Endpoint: \`${o.endpoint || '(none)'}\`${o.allowRemote ? ' (remote allowed)' : ''}; start Chromium: ${o.chromiumPath ? `\`${o.chromiumPath}\`` : 'no (lifeThread.cdp.chromiumPath is empty)'}`,
      `- Remembered pages: ${pages.length}${pages.length ? ` — ${pages.slice(0, 5).map((p) => `${p.evidenceId ? `evidence ${p.evidenceId}` : p.key}: ${p.url}`).join('; ')}` : ''}`,
      `- Last prepare: ${last ? `${last.status}${last.reason ? ` — ${last.reason}` : ''} (${last.timings.totalMs} ms)` : 'none in this window'}`,
    ].join('\n');
  }

  dispose(): void {
    void this.desk.stopStarted();
  }
}
