/**
 * dist/extension.js: what VS Code loads and activates. It registers a light proxy for everything
 * package.json contributes and returns at once; the rest of Life Thread (dist/main.js: zod, cron, zone
 * arithmetic, time words, continuity, the desk) is loaded right after activate() returns, and every
 * proxy waits for it. `activationMs` is the load and activate() of this file; `readyMs` runs until
 * the dispatcher, the wake sources and the views are running (api.ready).
 */
import * as vscode from 'vscode';
import { lifeThreadIcon } from './icon';
import type { Registrar } from './contrib';
import { unsupportedPlatform } from '../core/platform';

interface Main {
  activate(context: vscode.ExtensionContext, registrar: Registrar): Promise<Record<string, unknown> & { ready: Promise<void> }>;
}

interface Contributes {
  commands?: { command: string }[];
  languageModelTools?: { name: string }[];
  chatParticipants?: { id: string }[];
  languageModelChatProviders?: { vendor: string }[];
  views?: Record<string, { id: string; type?: string }[]>;
}

/** A value that arrives when the main module registers it; the proxies wait for it. */
class Slot<T> {
  value: T | undefined;
  private waiters: ((v: T) => void)[] = [];
  constructor(
    private readonly what: string,
    private readonly failed: () => Error | undefined,
  ) {}
  set(v: T | undefined): void {
    this.value = v;
    if (v === undefined) return;
    for (const w of this.waiters.splice(0)) w(v);
  }
  /** The value once registered; while the main module loads, waits for it (and fails if it never comes). */
  get(loaded: Promise<unknown>): Promise<T> {
    if (this.value !== undefined) return Promise.resolve(this.value);
    return new Promise<T>((resolve, reject) => {
      this.waiters.push(resolve);
      void loaded.then(() => {
        if (this.value !== undefined) return resolve(this.value);
        reject(this.failed() ?? new Error(`Life Thread: ${this.what} is not available`));
      });
    });
  }
}

export function activate(context: vscode.ExtensionContext): Record<string, unknown> {
  const t0 = (globalThis as { __lifeThreadLoadStart?: number }).__lifeThreadLoadStart ?? performance.now();
  const contributes = ((context.extension.packageJSON as { contributes?: Contributes }).contributes ?? {}) as Contributes;
  const notice = unsupportedPlatform(process.platform);
  if (notice !== undefined) return activateUnsupported(context, contributes, notice, t0);
  let loadError: Error | undefined;
  const failed = (): Error | undefined => loadError;
  let markLoaded: () => void = () => undefined;
  const loaded = new Promise<void>((r) => (markLoaded = r));
  const subs = context.subscriptions;

  const commands = new Map<string, Slot<(...args: unknown[]) => unknown>>();
  for (const c of contributes.commands ?? []) {
    const slot = new Slot<(...args: unknown[]) => unknown>(`the command ${c.command}`, failed);
    commands.set(c.command, slot);
    subs.push(vscode.commands.registerCommand(c.command, async (...args: unknown[]) => (await slot.get(loaded))(...args)));
  }

  const tools = new Map<string, Slot<vscode.LanguageModelTool<unknown>>>();
  for (const t of contributes.languageModelTools ?? []) {
    const slot = new Slot<vscode.LanguageModelTool<unknown>>(`the tool ${t.name}`, failed);
    tools.set(t.name, slot);
    subs.push(
      vscode.lm.registerTool<unknown>(t.name, {
        invoke: async (options, token) => (await slot.get(loaded)).invoke(options, token),
        prepareInvocation: async (options, token) => (await slot.get(loaded)).prepareInvocation?.(options, token),
      }),
    );
  }

  const participants = new Map<string, { participant: vscode.ChatParticipant; handler: Slot<vscode.ChatRequestHandler> }>();
  for (const p of contributes.chatParticipants ?? []) {
    const handler = new Slot<vscode.ChatRequestHandler>(`@${p.id}`, failed);
    const participant = vscode.chat.createChatParticipant(p.id, async (request, ctx, stream, token) => (await handler.get(loaded))(request, ctx, stream, token));
    participant.iconPath = lifeThreadIcon(context.extensionUri);
    subs.push(participant);
    participants.set(p.id, { participant, handler });
  }

  const vendors = new Map<string, { provider: Slot<vscode.LanguageModelChatProvider>; changed: vscode.EventEmitter<void> }>();
  for (const v of contributes.languageModelChatProviders ?? []) {
    const provider = new Slot<vscode.LanguageModelChatProvider>(`the models of ${v.vendor}`, failed);
    const changed = new vscode.EventEmitter<void>();
    subs.push(
      changed,
      vscode.lm.registerLanguageModelChatProvider(v.vendor, {
        onDidChangeLanguageModelChatInformation: changed.event,
        provideLanguageModelChatInformation: async (options, token) => (await provider.get(loaded)).provideLanguageModelChatInformation(options, token),
        provideLanguageModelChatResponse: async (model, messages, options, progress, token) => (await provider.get(loaded)).provideLanguageModelChatResponse(model, messages, options, progress, token),
        provideTokenCount: async (model, text, token) => (await provider.get(loaded)).provideTokenCount(model, text, token),
      }),
    );
    vendors.set(v.vendor, { provider, changed });
  }

  const views = new Map<string, Slot<vscode.WebviewViewProvider>>();
  for (const v of Object.values(contributes.views ?? {}).flat()) {
    if (v.type !== 'webview') continue;
    const slot = new Slot<vscode.WebviewViewProvider>(`the view ${v.id}`, failed);
    views.set(v.id, slot);
    subs.push(
      vscode.window.registerWebviewViewProvider(v.id, {
        resolveWebviewView: async (view, ctx, token) => {
          // Something to see at once, in the theme's colours, while the rest loads.
          if (slot.value === undefined) view.webview.html = LOADING_HTML;
          try {
            await (await slot.get(loaded)).resolveWebviewView(view, ctx, token);
          } catch (err) {
            view.webview.html = LOADING_HTML.replace('Loading Life Thread…', `Life Thread could not start: ${escapeHtml(err instanceof Error ? err.message : String(err))}`);
          }
        },
      }),
    );
  }

  // A panel left open is restored only if its serializer is there while the window restores it, which
  // can be before the main module has loaded: every `onWebviewPanel:` view type gets a proxy now.
  const serializers = new Map<string, Slot<vscode.WebviewPanelSerializer>>();
  for (const event of (context.extension.packageJSON as { activationEvents?: string[] }).activationEvents ?? []) {
    if (!event.startsWith('onWebviewPanel:')) continue;
    const viewType = event.slice('onWebviewPanel:'.length);
    const slot = new Slot<vscode.WebviewPanelSerializer>(`the panel ${viewType}`, failed);
    serializers.set(viewType, slot);
    subs.push(
      vscode.window.registerWebviewPanelSerializer(viewType, {
        deserializeWebviewPanel: async (panel, state) => {
          if (slot.value === undefined) panel.webview.html = LOADING_HTML;
          await (await slot.get(loaded)).deserializeWebviewPanel(panel, state);
        },
      }),
    );
  }

  const uri = new Slot<vscode.UriHandler>('the link handler', failed);
  subs.push(vscode.window.registerUriHandler({ handleUri: async (u) => (await uri.get(loaded)).handleUri(u) }));

  const owned = <T>(slot: Slot<T>, value: T): vscode.Disposable => {
    slot.set(value);
    return new vscode.Disposable(() => slot.value === value && slot.set(undefined));
  };
  const registrar: Registrar = {
    registerCommand: (id, run) => {
      const slot = commands.get(id);
      return slot ? owned(slot, run as (...args: unknown[]) => unknown) : vscode.commands.registerCommand(id, run as (...args: unknown[]) => unknown);
    },
    registerTool: (name, tool) => {
      const slot = tools.get(name);
      return slot ? owned(slot, tool as vscode.LanguageModelTool<unknown>) : vscode.lm.registerTool(name, tool);
    },
    createChatParticipant: (id, handler) => {
      const p = participants.get(id);
      if (!p) return vscode.chat.createChatParticipant(id, handler);
      p.handler.set(handler);
      return p.participant;
    },
    registerLanguageModelChatProvider: (vendor, provider) => {
      const v = vendors.get(vendor);
      if (!v) return vscode.lm.registerLanguageModelChatProvider(vendor, provider);
      const real = provider as unknown as vscode.LanguageModelChatProvider;
      const forward = real.onDidChangeLanguageModelChatInformation?.(() => v.changed.fire());
      const d = owned(v.provider, real);
      // The models may have been asked for before they were there: ask again.
      v.changed.fire();
      return vscode.Disposable.from(d, ...(forward ? [forward] : []));
    },
    registerWebviewViewProvider: (id, provider, options) => {
      const slot = views.get(id);
      return slot ? owned(slot, provider) : vscode.window.registerWebviewViewProvider(id, provider, options);
    },
    registerUriHandler: (handler) => owned(uri, handler),
    registerWebviewPanelSerializer: (viewType, serializer) => {
      const slot = serializers.get(viewType);
      return slot ? owned(slot, serializer) : vscode.window.registerWebviewPanelSerializer(viewType, serializer);
    },
  };

  const activationMs = performance.now() - t0;
  const api: Record<string, unknown> = { activatedAt: Date.now(), activationMs };
  const ready = new Promise<void>((resolve, reject) => {
    setImmediate(() => {
      (async () => {
        try {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- the main bundle, loaded after activate() returns
          const main = require('./main.js') as Main;
          const full = await main.activate(context, registrar);
          const { ready: mainReady, ...rest } = full;
          delete rest.activationMs;
          Object.assign(api, rest);
          markLoaded();
          await mainReady;
          api.readyMs = performance.now() - t0;
          resolve();
        } catch (err) {
          loadError = err instanceof Error ? err : new Error(String(err));
          loadError.message = `Life Thread could not start: ${loadError.message}`;
          markLoaded();
          void vscode.window.showErrorMessage(loadError.message);
          reject(loadError);
        }
      })();
    });
  });
  ready.catch(() => undefined);
  api.ready = ready;
  return api;
}

/**
 * Native Windows (README "Platforms"): nothing else loads; every contribution answers with one notice —
 * the palette's commands (hidden there by their `!isWindows` when clauses, but still reachable from
 * buttons and keys), the tools, `@life`, the sidebar and links — and Doctor shows it as its platform line.
 */
function activateUnsupported(context: vscode.ExtensionContext, contributes: Contributes, notice: string, t0: number): Record<string, unknown> {
  const subs = context.subscriptions;
  const say = (): void => void vscode.window.showWarningMessage(notice);
  const doctor = async (): Promise<void> => {
    const platform = `native Windows (${process.platform}, ${process.arch})`;
    const content = ['# Life Thread Doctor', '', `_Checked ${new Date().toISOString()}_`, '', '## Environment', '', `- Platform: **${platform} — not supported.** ${notice}`, ''].join('\n');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'markdown', content }), { preview: false });
  };
  for (const c of contributes.commands ?? []) subs.push(vscode.commands.registerCommand(c.command, c.command === 'lifeThread.doctor' ? doctor : say));
  for (const t of contributes.languageModelTools ?? []) {
    subs.push(
      vscode.lm.registerTool<unknown>(t.name, {
        invoke: () => {
          throw new Error(notice);
        },
      }),
    );
  }
  for (const p of contributes.chatParticipants ?? []) {
    const participant = vscode.chat.createChatParticipant(p.id, (_request, _ctx, stream) => {
      stream.markdown(notice);
      return {};
    });
    participant.iconPath = lifeThreadIcon(context.extensionUri);
    subs.push(participant);
  }
  for (const v of contributes.languageModelChatProviders ?? []) {
    subs.push(
      vscode.lm.registerLanguageModelChatProvider(v.vendor, {
        provideLanguageModelChatInformation: () => [],
        provideLanguageModelChatResponse: () => Promise.reject(new Error(notice)),
        provideTokenCount: () => Promise.resolve(0),
      }),
    );
  }
  for (const v of Object.values(contributes.views ?? {}).flat()) {
    if (v.type !== 'webview') continue;
    subs.push(
      vscode.window.registerWebviewViewProvider(v.id, {
        resolveWebviewView: (view) => {
          view.webview.html = LOADING_HTML.replace('Loading Life Thread…', escapeHtml(notice));
        },
      }),
    );
  }
  subs.push(vscode.window.registerUriHandler({ handleUri: say }));
  say();
  return { activatedAt: Date.now(), activationMs: performance.now() - t0, unsupported: notice, ready: Promise.resolve() };
}

const LOADING_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';"></head><body style="font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-descriptionForeground); padding: 8px 12px;">Loading Life Thread…</body></html>`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
