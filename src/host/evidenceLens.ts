import * as vscode from 'vscode';
import { contrib } from './contrib';
import { InputError } from '../core/errors';
import { parseDeepLink } from '../core/landing';
import { ShownInputError, type Lander, type LandResult } from './landing';

/** The lens's command: not in the palette, it opens only evidence a landing left on a line. */
const OPEN_EVIDENCE = 'lifeThread.openEvidence';

interface LandedEvidence {
  /** 0-based line the code landing selected; moved with edits above it. */
  line: number;
  /** The deep link of the job's evidence (its log on the summary line, its report on the desk). */
  evidence: string;
}

/**
 * "Open evidence" on the line a wake's code landing opened: the code anchor is where the job failed, the
 * evidence (the job's log or report) stays one click away, opened as the pulse's `evidence:` link is.
 * Only documents a code landing with evidence opened have a lens; closing the document forgets it.
 */
class EvidenceLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly byDocument = new Map<string, LandedEvidence>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  private registration: vscode.Disposable | undefined;

  constructor(private readonly lander: Lander) {
    this.subs.push(
      lander.onDidLand((r) => this.landed(r)),
      contrib.registerCommand(OPEN_EVIDENCE, (document: unknown, line: unknown) => this.open(document, line)),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (this.byDocument.delete(d.uri.toString())) this.changed.fire();
      }),
      vscode.workspace.onDidChangeTextDocument((e) => this.follow(e)),
    );
  }

  private landed(r: LandResult): void {
    if (r.kind !== 'code_anchor' || r.evidence === undefined || r.uri === undefined || r.range === undefined) return;
    // A link back into Life Thread is never evidence: the lens opens places, not other links.
    try {
      if (parseDeepLink(r.evidence, this.lander.uriSchemes).kind === 'self') return;
    } catch {
      return;
    }
    this.byDocument.set(r.uri, { line: r.range.startLine - 1, evidence: r.evidence });
    // Registered for the documents landed on, once the first is: a window with no code landing asks nothing of it.
    this.registration ??= vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this);
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const at = this.byDocument.get(document.uri.toString());
    if (!at || at.line >= document.lineCount) return [];
    const range = document.lineAt(at.line).range;
    return [new vscode.CodeLens(range, { title: 'Open evidence', tooltip: `The job's evidence: ${at.evidence}`, command: OPEN_EVIDENCE, arguments: [document.uri.toString(), at.line] })];
  }

  /** Lines inserted or removed above the landed line move it, so the lens stays on the code it was put on. */
  private follow(e: vscode.TextDocumentChangeEvent): void {
    const at = this.byDocument.get(e.document.uri.toString());
    if (!at) return;
    for (const c of e.contentChanges) {
      if (c.range.end.line >= at.line) continue;
      at.line += c.text.split('\n').length - 1 - (c.range.end.line - c.range.start.line);
    }
  }

  private async open(document: unknown, line: unknown): Promise<LandResult | undefined> {
    const at = typeof document === 'string' ? this.byDocument.get(document) : undefined;
    if (!at || at.line !== line) {
      void vscode.window.showInformationMessage('Life Thread: this line has no evidence to open any more (its document was closed or landed on again).');
      return undefined;
    }
    try {
      return await this.lander.land({ kind: 'deep_link', uri: at.evidence });
    } catch (err) {
      if (!(err instanceof ShownInputError)) void vscode.window.showErrorMessage(`Life Thread: cannot open the evidence — ${err instanceof InputError ? `${err.field}: ${err.reason}` : String(err)}`);
      return undefined;
    }
  }

  dispose(): void {
    this.registration?.dispose();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

/** Offers "Open evidence" on the lines code landings open (the lens lives as long as the extension). */
export function registerEvidenceLens(context: vscode.ExtensionContext, lander: Lander): void {
  context.subscriptions.push(new EvidenceLens(lander));
}
