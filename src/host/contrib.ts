import * as vscode from 'vscode';

/**
 * Where the host registers what package.json contributes (commands, tools, `@life`, the model vendor,
 * the sidebar, the URI handler, the panel's serializer). The boot (`boot.ts`, dist/extension.js) registers light proxies for
 * all of them while the extension activates, then loads the rest (dist/main.js) after activate()
 * returns; the features hand their real handlers to the proxies through this seam. Without a boot
 * (a test that loads the main module itself) the calls go straight to the VS Code API.
 */
export interface Registrar {
  registerCommand(id: string, run: (...args: never[]) => unknown): vscode.Disposable;
  registerTool<T>(name: string, tool: vscode.LanguageModelTool<T>): vscode.Disposable;
  createChatParticipant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant;
  registerLanguageModelChatProvider<T extends vscode.LanguageModelChatInformation>(vendor: string, provider: vscode.LanguageModelChatProvider<T>): vscode.Disposable;
  registerWebviewViewProvider(id: string, provider: vscode.WebviewViewProvider, options?: { readonly webviewOptions?: { readonly retainContextWhenHidden?: boolean } }): vscode.Disposable;
  registerUriHandler(handler: vscode.UriHandler): vscode.Disposable;
  registerWebviewPanelSerializer(viewType: string, serializer: vscode.WebviewPanelSerializer): vscode.Disposable;
}

const direct: Registrar = {
  registerCommand: (id, run) => vscode.commands.registerCommand(id, run as (...args: unknown[]) => unknown),
  registerTool: (name, tool) => vscode.lm.registerTool(name, tool),
  createChatParticipant: (id, handler) => vscode.chat.createChatParticipant(id, handler),
  registerLanguageModelChatProvider: (vendor, provider) => vscode.lm.registerLanguageModelChatProvider(vendor, provider),
  registerWebviewViewProvider: (id, provider, options) => vscode.window.registerWebviewViewProvider(id, provider, options),
  registerUriHandler: (handler) => vscode.window.registerUriHandler(handler),
  registerWebviewPanelSerializer: (viewType, serializer) => vscode.window.registerWebviewPanelSerializer(viewType, serializer),
};

let current: Registrar = direct;

/** Called once by the main module's activate() with the boot's registrar. */
export function useRegistrar(r: Registrar | undefined): void {
  current = r ?? direct;
}

const ranCommand = new vscode.EventEmitter<string>();
/** Fires with the id when one of Life Thread's commands starts (the walkthrough reads it as the user at work elsewhere). */
export const onDidRunCommand = ranCommand.event;
let running = 0;
/** Whether one of Life Thread's commands is still running (e.g. waiting in its quick input, which has the focus). */
export function commandRunning(): boolean {
  return running > 0;
}

/** The registrar in use: the boot's proxies, or the VS Code API itself. */
export const contrib: Registrar = {
  registerCommand: (id, run) =>
    current.registerCommand(id, async (...args: never[]) => {
      ranCommand.fire(id);
      running++;
      try {
        return await run(...args);
      } finally {
        running--;
      }
    }),
  registerTool: (name, tool) => current.registerTool(name, tool),
  createChatParticipant: (id, handler) => current.createChatParticipant(id, handler),
  registerLanguageModelChatProvider: (vendor, provider) => current.registerLanguageModelChatProvider(vendor, provider),
  registerWebviewViewProvider: (id, provider, options) => current.registerWebviewViewProvider(id, provider, options),
  registerUriHandler: (handler) => current.registerUriHandler(handler),
  registerWebviewPanelSerializer: (viewType, serializer) => current.registerWebviewPanelSerializer(viewType, serializer),
};
