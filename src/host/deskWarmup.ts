import * as vscode from 'vscode';
import { extname } from 'node:path';
import type { WakeRow } from '../core/wake/row';
import type { HostDesk } from './desk';
import type { Lander } from './landing';
import { setting } from './settings';

/** A desk the warm-up started stops after this long with no wake waiting and no desk use. */
export const DESK_IDLE_STOP_MS = 10 * 60_000;
/** Files looked at to tell the workspace's main language. */
const LANGUAGE_SAMPLE = 200;
const SOURCE = '**/*.{ts,tsx,js,jsx,mjs,cjs,py,go,rs,java,kt,cs,cpp,cc,c,h,hpp,rb,php,swift,scala,lua,dart}';
const NOT_SOURCE = '**/{node_modules,.git,dist,out,build,target,vendor,.venv,venv,__pycache__}/**';

/**
 * Prepare while the job runs: once a `job.done` wake this window may deliver is waiting, the desk is
 * started (when `lifeThread.cdp.chromiumPath` is set) and the document-symbol provider is warmed with
 * one call, so the job's end does not wait for Chromium to start or a language server to load. Nothing
 * is shown and nothing takes focus: the file is opened as a document, not in an editor. The desk
 * stops after DESK_IDLE_STOP_MS with no wake waiting and no desk use. `lifeThread.wake.prepare: false`
 * turns it off (the job's end then starts whatever it needs).
 */
export class DeskWarmup implements vscode.Disposable {
  private waiting = false;
  private warmed: Promise<void> | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private lastLanded: vscode.Uri | undefined;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly desk: HostDesk,
    lander: Lander,
    private readonly eligible: (row: WakeRow) => boolean,
    private readonly log: vscode.LogOutputChannel,
    private readonly idleMs = DESK_IDLE_STOP_MS,
  ) {
    this.sub = lander.onDidLand((r) => {
      if (r.kind === 'code_anchor' && r.uri) this.lastLanded = vscode.Uri.parse(r.uri);
    });
  }

  /** The wake table as it is now: warms up when a job.done wake starts waiting, arms the idle stop when none is left. */
  seen(rows: readonly WakeRow[]): void {
    const waiting = rows.some((r) => r.when === 'job.done' && (r.status === 'pending' || r.status === 'held') && this.eligible(r));
    if (waiting) {
      if (this.idle !== undefined) clearTimeout(this.idle);
      this.idle = undefined;
      if (!this.waiting && setting('wake.prepare')) this.warmed ??= this.warm().finally(() => (this.warmed = undefined));
    } else if (this.waiting || this.idle === undefined) this.armIdle();
    this.waiting = waiting;
  }

  private armIdle(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.waiting) return;
      if (Date.now() - this.desk.lastUsedAt < this.idleMs) return this.armIdle();
      void this.desk.stopStarted().then((stopped) => {
        if (stopped) this.log.info(`desk: stopped after ${Math.round(this.idleMs / 60_000)} idle minutes with no wake waiting`);
      });
    }, this.idleMs);
  }

  private async warm(): Promise<void> {
    const t0 = Date.now();
    const desk = setting('cdp.chromiumPath').trim() !== '' ? this.desk.warm() : Promise.resolve();
    const symbols = this.warmSymbols();
    await Promise.all([desk, symbols]);
    this.log.info(`wake prepare: desk and symbols ready in ${Date.now() - t0} ms`);
  }

  /** One document-symbol call on the last landed file, else on a file of the workspace's main language. */
  private async warmSymbols(): Promise<void> {
    try {
      const uri = this.lastLanded ?? (await mainLanguageFile());
      if (!uri) return;
      await vscode.commands.executeCommand('vscode.executeDocumentSymbolProvider', uri);
    } catch (err) {
      this.log.warn(`wake prepare: symbols: ${String(err)}`);
    }
  }

  dispose(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.sub.dispose();
  }
}

/** A file of the extension the workspace's source files use most (a sample of LANGUAGE_SAMPLE files). */
async function mainLanguageFile(): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles(SOURCE, NOT_SOURCE, LANGUAGE_SAMPLE);
  const count = new Map<string, vscode.Uri[]>();
  for (const f of files) {
    const ext = extname(f.path).toLowerCase();
    count.set(ext, [...(count.get(ext) ?? []), f]);
  }
  const best = [...count.values()].sort((a, b) => b.length - a.length)[0];
  return best?.[0];
}
