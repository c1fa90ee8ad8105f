import * as vscode from 'vscode';
import { contrib } from './contrib';
import { COMMANDS } from '../shared/commands';

export const DOCTOR_SCHEME = 'lifethread-doctor';

/** One section of the Doctor report; features register theirs at activation. */
export type DoctorSection = () => Promise<string> | string;

/**
 * `Life Thread: Doctor` — a read-only Markdown report (a content-provider document, so the user
 * cannot edit it by mistake) assembled from every registered section.
 */
export class Doctor implements vscode.TextDocumentContentProvider {
  private readonly sections: { title: string; build: DoctorSection }[] = [];
  private readonly _onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this._onDidChange.event;
  private readonly uri = vscode.Uri.from({ scheme: DOCTOR_SCHEME, path: '/Life Thread Doctor.md' });

  constructor(context: vscode.ExtensionContext) {
    context.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(DOCTOR_SCHEME, this),
      contrib.registerCommand(COMMANDS.doctor, () => this.open()),
      this._onDidChange,
    );
  }

  addSection(title: string, build: DoctorSection): void {
    this.sections.push({ title, build });
  }

  async report(): Promise<string> {
    const parts = ['# Life Thread Doctor', '', `_Checked ${new Date().toISOString()}_`, ''];
    for (const s of this.sections) {
      let body: string;
      try {
        body = await s.build();
      } catch (err) {
        body = `**Could not check:** ${err instanceof Error ? err.message : String(err)}`;
      }
      parts.push(`## ${s.title}`, '', body, '');
    }
    return parts.join('\n');
  }

  provideTextDocumentContent(): Promise<string> {
    return this.report();
  }

  /** An open report is re-read (VS Code asks the provider again); one not open is read when it opens. */
  refresh(): void {
    this._onDidChange.fire(this.uri);
  }

  async open(): Promise<vscode.TextEditor> {
    this.refresh();
    const doc = await vscode.workspace.openTextDocument(this.uri);
    const md = await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    return vscode.window.showTextDocument(md, { preview: false });
  }
}
