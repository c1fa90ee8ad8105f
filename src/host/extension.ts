// Composition root: activate() only wires features together; each feature registers itself.
import * as vscode from 'vscode';
import { COMMANDS } from '../shared/commands';
import type { WebviewRequest } from '../shared/protocol';
import { ViewModel } from './viewModel';
import { registerSidebar } from './sidebar';
import { LifeThreadPanel } from './panel';
import { Doctor } from './doctor';
import { LifeChat } from './chat';
import { configuredZone } from './settings';

/** What the extension exports to other extensions and to its own host tests. */
export interface LifeThreadApi {
  readonly activatedAt: number;
  /** From the start of evaluating the bundle to the end of activate(). */
  readonly activationMs: number;
  readonly storeDir: string;
  readonly model: ViewModel;
  readonly doctor: Doctor;
  readonly panel: LifeThreadPanel;
}

export async function activate(context: vscode.ExtensionContext): Promise<LifeThreadApi> {
  const t0 = (globalThis as { __lifeThreadLoadStart?: number }).__lifeThreadLoadStart ?? performance.now();
  const log = vscode.window.createOutputChannel('Life Thread', { log: true });
  context.subscriptions.push(log);
  await vscode.workspace.fs.createDirectory(context.globalStorageUri);
  const storeDir = context.globalStorageUri.fsPath;

  const model = new ViewModel(configuredZone());
  context.subscriptions.push(model);

  const doctor = new Doctor(context);
  doctor.addSection('Environment', () =>
    [
      `- Life Thread ${String(context.extension.packageJSON.version)} on VS Code ${vscode.version} (${vscode.env.appName}, ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''})`,
      `- Store: \`${storeDir}\``,
      `- Owner's time zone: ${configuredZone()}`,
    ].join('\n'),
  );

  const handle = async (req: WebviewRequest): Promise<void> => {
    switch (req.method) {
      case 'doctor':
        await vscode.commands.executeCommand(COMMANDS.doctor);
        return;
      case 'openPanel':
        await vscode.commands.executeCommand(COMMANDS.openPanel);
        return;
      default:
        await vscode.commands.executeCommand(commandFor(req));
    }
  };

  registerSidebar(context, model, handle, log);
  const panel = new LifeThreadPanel(context, model, handle, log);
  context.subscriptions.push(panel, vscode.commands.registerCommand(COMMANDS.openPanel, () => void panel.show()));

  new LifeChat(context);

  context.subscriptions.push(
    vscode.window.registerUriHandler({
      handleUri(uri) {
        void vscode.window.showErrorMessage(`Life Thread: unknown link path "${uri.path}".`);
      },
    }),
  );

  const activationMs = performance.now() - t0;
  log.info(`activated in ${activationMs.toFixed(1)} ms; store ${storeDir}`);
  return { activatedAt: Date.now(), activationMs, storeDir, model, doctor, panel };
}

function commandFor(req: WebviewRequest): string {
  switch (req.method) {
    case 'addReminder':
      return COMMANDS.addReminder;
    case 'scheduleCommand':
      return COMMANDS.scheduleCommand;
    default:
      throw new Error(`"${req.method}" is not available yet`);
  }
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
