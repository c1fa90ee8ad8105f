import { fileLink } from '../core/anchor/links';
import * as vscode from 'vscode';
import { diskFolderPaths } from './diskFolders';
import { join, dirname } from 'node:path';
import { existsSync } from 'node:fs';
import { AnchorIndexCache, type AnchorResolution, type CodeAnchor } from '../core/anchor/code';
import { type TextRange } from '../core/anchor/text';
import { symbolPathAt } from '../core/anchor/symbolPath';
import type { LandingInput } from '../core/wake/contract';
import { landingFromInput } from '../node/landingInput';
import { InputError } from '../core/errors';
import { anchorQuerySchema, decodeRef, isInsideFolders, landQuerySchema, parseDeepLink, parseQuery, parseRef, type DeepLink, type LandingRef } from '../core/landing';
import { spanOf } from '../core/transcript';
import { readExports } from '../node/topicFiles';
import type { LifeThreadPanel } from './panel';
import { setting } from './settings';
import type { ViewModel } from './viewModel';


/** A refusal already shown to the user (with what they can do about it): callers must not show it again. */
export class ShownInputError extends InputError {}

export interface DeskPrepare {
  status: 'ok' | 'prepared' | 'needs_restore' | 'none';
  reason?: string;
}

/** What landing needs from the desk (the CDP browser). */
export interface DeskPort {
  /** `focus`: the user's own action asked for it (Open Landing, a link clicked); otherwise the focus stays where it is. */
  prepare(evidenceId: string, opts?: { focus: boolean }): Promise<DeskPrepare>;
  evidenceUrl(evidenceId: string): Promise<string | undefined>;
}

export interface LandResult {
  kind: 'file' | 'code_anchor' | 'cdp' | 'message' | 'none';
  /** What was opened, in words. */
  opened: string;
  uri?: string;
  range?: { startLine: number; endLine: number };
  anchor?: AnchorResolution;
  desk?: DeskPrepare['status'];
  warning?: string;
  /** A code landing's evidence link (the job's log or report), offered on the landed line (./evidenceLens.ts). */
  evidence?: string;
}

/** How a landing opens: `focus` only when the user asked for it (Open Landing, a Life Thread link). */
export interface LandOptions {
  focus?: boolean;
}

const PENDING_KEY = 'lifeThread.pendingLanding';

function folders(): string[] {
  return diskFolderPaths();
}

function toVsRange(r: TextRange): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** Flattens document symbols into "Class.member" paths for the anchor ladder's symbol step. */
function symbolLocator(symbols: readonly vscode.DocumentSymbol[] | undefined): (path: string) => TextRange | undefined {
  const map = new Map<string, vscode.Range>();
  const walk = (list: readonly vscode.DocumentSymbol[], prefix: string) => {
    for (const s of list) {
      const name = prefix ? `${prefix}.${s.name}` : s.name;
      if (!map.has(name)) map.set(name, s.range);
      walk(s.children ?? [], name);
    }
  };
  walk(symbols ?? [], '');
  return (path) => {
    const r = map.get(path);
    return r ? { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } } : undefined;
  };
}


/**
 * One resolver for every LandingRef: deep links open a place and never re-resolve code;
 * CodeAnchors go down the ladder (exact → symbol → excerpt → orphaned). Only places inside the open
 * workspace folders are opened; a link never runs a command or changes the store.
 */
export class Lander {
  private readonly _onDidLand = new vscode.EventEmitter<LandResult>();
  readonly onDidLand = this._onDidLand.event;
  private readonly _onDidRefuse = new vscode.EventEmitter<string>();
  /** Each document's index per version: many anchors in one file index it once. */
  private readonly anchorIndex = new AnchorIndexCache();
  private readonly subs: vscode.Disposable[] = [];
  /** A link that was refused, with the reason shown to the user. */
  readonly onDidRefuse = this._onDidRefuse.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly model: ViewModel,
    private readonly panel: LifeThreadPanel,
    private readonly desk: DeskPort | undefined,
    /** Folders Life Thread writes itself (the store's evidence and logs): landings may open files there. */
    private readonly ownDirs: readonly string[] = [],
  ) {
    this.subs.push(vscode.workspace.onDidCloseTextDocument((d) => this.anchorIndex.forget(d.uri.toString())));
  }

  get uriSchemes(): string[] {
    return [...new Set([vscode.env.uriScheme, 'vscode'])];
  }

  async land(ref: LandingRef, opts: LandOptions = {}): Promise<LandResult> {
    let result: LandResult;
    if (ref.kind === 'none') result = { kind: 'none', opened: 'nothing (the landing is "none")' };
    else if (ref.kind === 'code_anchor') result = { ...(await this.landAnchor(ref.anchor)), ...(ref.evidence !== undefined ? { evidence: ref.evidence } : {}) };
    else result = await this.landDeepLink(parseDeepLink(ref.uri, this.uriSchemes), opts);
    this._onDidLand.fire(result);
    return result;
  }

  private async landDeepLink(link: DeepLink, opts: LandOptions): Promise<LandResult> {
    switch (link.kind) {
      case 'file':
        return this.openFile(link.path, link.startLine, link.endLine);
      case 'cdp':
        return this.openEvidence(link.evidenceId, opts);
      case 'message':
        return this.openMessage(link.topic, link.msgId, link.start, link.end);
      case 'self':
        return this.landSelf(link.path, link.query, opts);
    }
  }

  /** `/land?ref=…`, `/anchor?…` (and `/wake?id=…`, answered by the wake feature). */
  async landSelf(path: string, query: string, opts: LandOptions = {}): Promise<LandResult> {
    if (path === '/land') {
      const q = parseQuery(query, landQuerySchema);
      const ref = decodeRef(q.ref);
      if (ref.kind === 'deep_link') {
        const inner = parseDeepLink(ref.uri, this.uriSchemes);
        if (inner.kind === 'self') throw new InputError('ref', 'points at another Life Thread link; nested links are not followed');
      }
      return this.land(ref, opts);
    }
    if (path === '/anchor') {
      const q = parseQuery(query, anchorQuerySchema);
      return this.openMessage(q.topic, q.msg, q.start, q.end);
    }
    if (path === '/wake') return this.wakeHandler(query);
    throw new InputError('uri', `has an unknown path "${path}"`);
  }

  /** Set by the wake feature: opens a wake's pulse and landing. */
  wakeHandler: (query: string) => Promise<LandResult> = async () => {
    throw new InputError('uri', '/wake links are not available in this build');
  };

  private guardPath(path: string): void {
    if (!isInsideFolders(path, folders())) {
      throw new InputError('uri', `${path} is outside the open workspace folders; a landing only opens places inside them`);
    }
  }

  /** `trusted`: a path Life Thread recorded itself (evidence, a job's log), not one taken from a link. */
  async openFile(path: string, startLine?: number, endLine?: number, trusted = false): Promise<LandResult> {
    if (!trusted && !isInsideFolders(path, folders()) && !isInsideFolders(path, this.ownDirs)) {
      const why = new ShownInputError('uri', `${path} is outside the open workspace folders; a landing only opens places inside them`);
      // One toast: the reason and the offer together; the caller shows nothing more.
      await this.offerFolder({ kind: 'deep_link', uri: fileLink(path, startLine, endLine) }, path, why.reason);
      throw why;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
    const options: vscode.TextDocumentShowOptions = { preview: false };
    let range: LandResult['range'];
    if (startLine) {
      const last = Math.min(doc.lineCount, endLine ?? startLine);
      const first = Math.min(startLine, last);
      const sel = new vscode.Range(first - 1, 0, last - 1, doc.lineAt(last - 1).text.length);
      options.selection = sel;
      range = { startLine: first, endLine: last };
    }
    const editor = await vscode.window.showTextDocument(doc, options);
    if (options.selection) editor.revealRange(options.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return { kind: 'file', opened: `${path}${range ? ` lines ${range.startLine}-${range.endLine}` : ''}`, uri: doc.uri.toString(), ...(range ? { range } : {}) };
  }

  /**
   * A caller's landing (a wake's `landing`) as a LandingRef: a deep link is checked; a code
   * anchor on lines of a workspace file takes its excerpt from the document now and the innermost
   * symbol around it from the document symbol provider (unless one is given). Throws InputError.
   */
  async landingFor(input: LandingInput, field = 'landing'): Promise<LandingRef> {
    const cwd = folders()[0] ?? process.cwd();
    const ref = await landingFromInput(input, {
      cwd,
      uriSchemes: this.uriSchemes,
      field,
      readText: async (path) => {
        if (!isInsideFolders(path, folders())) throw new InputError(`${field}.path`, `${path} is outside the open workspace folders`);
        return (await vscode.workspace.openTextDocument(vscode.Uri.file(path))).getText();
      },
      symbolAt: async (path, line) => {
        const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', vscode.Uri.file(path)).then(undefined, () => undefined);
        return symbolPathAt(symbols ?? [], line);
      },
    });
    if (ref.kind === 'code_anchor') this.guardPath(ref.anchor.path);
    return ref;
  }

  /** A CodeAnchor on a line of a workspace file (a failed job's code locus). */
  async anchorAt(path: string, line: number): Promise<CodeAnchor> {
    const ref = await this.landingFor({ kind: 'anchor', path, startLine: line, endLine: line });
    if (ref.kind !== 'code_anchor') throw new InputError('path', `${path} is not a file`);
    return ref.anchor;
  }

  async resolveAnchor(anchor: CodeAnchor): Promise<AnchorResolution> {
    this.guardPath(anchor.path);
    const uri = vscode.Uri.file(anchor.path);
    const doc = await vscode.workspace.openTextDocument(uri);
    const symbols = anchor.symbol ? await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', uri) : undefined;
    return this.anchorIndex.resolve({ key: doc.uri.toString(), version: doc.version, getText: () => doc.getText() }, anchor, symbolLocator(symbols));
  }

  private async landAnchor(anchor: CodeAnchor): Promise<LandResult> {
    const res = await this.resolveAnchor(anchor);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(anchor.path));
    const sel = toVsRange(res.range);
    const editor = await vscode.window.showTextDocument(doc, { preview: false, selection: sel });
    editor.revealRange(sel, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    const range = { startLine: res.range.start.line + 1, endLine: res.range.end.line + 1 };
    let warning: string | undefined;
    if (res.step === 'orphaned') {
      warning = `The anchor ${anchor.symbol || anchor.path} could not be found again (${res.reason}); showing its old place.`;
      void vscode.window.showWarningMessage(`Life Thread: ${warning}`);
    }
    return { kind: 'code_anchor', opened: `${anchor.path} lines ${range.startLine}-${range.endLine} (step: ${res.step})`, uri: doc.uri.toString(), range, anchor: res, ...(warning ? { warning } : {}) };
  }

  async openEvidence(evidenceId: string, opts: LandOptions = {}): Promise<LandResult> {
    const url = await this.desk?.evidenceUrl(evidenceId);
    if (!url) throw new InputError('uri', `cdp://evidence/${evidenceId} is not a page the desk remembers (pages are remembered when a job's report is shown on the desk)`);
    const prep: DeskPrepare = this.desk ? await this.desk.prepare(evidenceId, { focus: opts.focus ?? false }) : { status: 'none' };
    if (prep.status === 'ok' || prep.status === 'prepared') {
      return { kind: 'cdp', opened: `evidence ${evidenceId} on the desk`, desk: prep.status };
    }
    // No browser (or one that is gone and may not be restarted): show the evidence inside VS Code.
    const why = prep.status === 'none' ? 'no desk browser' : `desk needs a restore: ${prep.reason ?? ''}`;
    if (prep.status === 'needs_restore') void vscode.window.showWarningMessage(`Life Thread: the desk needs a restore — ${prep.reason ?? ''}`);
    if (url.startsWith('file://')) {
      const path = decodeURIComponent(new URL(url).pathname);
      const r = await this.openFile(path, undefined, undefined, true);
      return { ...r, kind: 'cdp', desk: prep.status, opened: `evidence ${evidenceId} in an editor (${why})`, ...(prep.reason ? { warning: prep.reason } : {}) };
    }
    await vscode.commands.executeCommand('simpleBrowser.show', url);
    return { kind: 'cdp', opened: `evidence ${evidenceId} in the Simple Browser (${why})`, desk: prep.status, ...(prep.reason ? { warning: prep.reason } : {}) };
  }

  /** Where a topic's files live: `<first workspace folder>/<lifeThread.continuity.folder>/topics/<topic>/`. */
  topicDir(topic: string): string {
    const root = folders()[0];
    if (!root) throw new InputError('topic', 'needs an open workspace folder');
    return join(root, setting('continuity.folder'), 'topics', topic);
  }

  /** Shows a span of a topic's export highlighted in the panel; the message may be in an earlier partition's export (history/). */
  async openMessage(topic: string, msgId: string, start: number, end: number): Promise<LandResult> {
    const dir = this.topicDir(topic);
    const exports = await readExports(dir);
    if (exports.length === 0) throw new InputError('topic', `no export for topic ${topic} (${join(dir, 'export.jsonl')})`);
    const holder = exports.find((e) => e.records.some((r) => r.id === msgId)) ?? exports[0];
    const file = join(dir, holder?.file ?? 'export.jsonl');
    const span = spanOf(holder?.records ?? [], msgId, start, end);
    if ('error' in span) throw new InputError('msg', span.error);
    this.model.update({
      focus: { title: `Topic ${topic} · message ${msgId} · ${start}-${end}`, source: file, before: span.before, span: span.span, after: span.after },
    });
    this.panel.show();
    return { kind: 'message', opened: `message ${msgId} of topic ${topic}, characters ${start}-${end}`, uri: `intercom://message/${topic}/${msgId}#${start}-${end}` };
  }

  /** A file outside the open folders: offer to open its folder; the landing completes after that. */
  private async offerFolder(ref: LandingRef, path: string, why = `${path} is not in this workspace`): Promise<void> {
    let dir = dirname(path);
    for (let d = dir; d !== '/'; d = dirname(d)) {
      if (existsSync(join(d, '.git'))) {
        dir = d;
        break;
      }
    }
    void vscode.window.showWarningMessage(`Life Thread: ${why}.`, `Open ${dir} and land there`).then(async (pick) => {
      if (!pick) return;
      await this.savePending(ref, dir);
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(dir));
    });
  }

  /** Saves a landing to complete when `folder` is open (it survives the reload that opening a folder causes). */
  async savePending(ref: LandingRef, folder: string): Promise<void> {
    await this.context.globalState.update(PENDING_KEY, { ref, folder, savedAt: Date.now() });
  }

  /** At activation and when folders change: finish a landing saved for a folder that is now open. */
  async completePending(): Promise<LandResult | undefined> {
    const pending = this.context.globalState.get<{ ref: unknown; folder: string; savedAt: number }>(PENDING_KEY);
    if (!pending) return undefined;
    if (Date.now() - pending.savedAt > 24 * 3600_000) {
      await this.context.globalState.update(PENDING_KEY, undefined);
      return undefined;
    }
    if (!isInsideFolders(pending.folder, folders())) return undefined;
    await this.context.globalState.update(PENDING_KEY, undefined);
    try {
      return await this.land(parseRef(pending.ref));
    } catch (err) {
      this.log.warn(`saved landing could not be completed: ${String(err)}`);
      return undefined;
    }
  }

  /** The URI handler: every error is shown and nothing else happens. */
  async handleUri(uri: vscode.Uri): Promise<LandResult | undefined> {
    try {
      const link = parseDeepLink(uri.toString(true), this.uriSchemes);
      if (link.kind !== 'self') throw new InputError('uri', 'is not a Life Thread link');
      return await this.landSelf(link.path, uri.query, { focus: true });
    } catch (err) {
      const msg = err instanceof InputError ? `${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err);
      this.log.warn(`refused link ${uri.toString(true).slice(0, 300)}: ${msg}`);
      if (!(err instanceof ShownInputError)) void vscode.window.showErrorMessage(`Life Thread: this link cannot be opened — ${msg}`);
      this._onDidRefuse.fire(msg);
      return undefined;
    }
  }

  dispose(): void {
    for (const d of this.subs) d.dispose();
    this._onDidLand.dispose();
    this._onDidRefuse.dispose();
  }
}
