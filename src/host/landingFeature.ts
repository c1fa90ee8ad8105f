import * as vscode from 'vscode';
import { contrib } from './contrib';
import { InputError } from '../core/errors';
import { parseRef, readPastedLanding, type LandingRef } from '../core/landing';
import type { ResolveAnchorInput } from '../core/toolInputs';
import { resolveAnchorTool } from '../node/tools/anchorTool';
import { COMMANDS } from '../shared/commands';
import { ShownInputError, type Lander } from './landing';
import { registerEvidenceLens } from './evidenceLens';

/** Reads what a person pasted: a LandingRef as JSON, a base64url ref, or a URI. */
export function parsePastedLanding(text: string, uriSchemes: readonly string[]): LandingRef {
  const ref = readPastedLanding(text, uriSchemes);
  if (!ref) throw new InputError('landing', 'is empty');
  return ref;
}

export function registerLanding(context: vscode.ExtensionContext, lander: Lander): void {
  context.subscriptions.push(
    contrib.registerUriHandler({ handleUri: (uri) => void lander.handleUri(uri) }),
    contrib.registerCommand(COMMANDS.openLanding, async (arg?: string | LandingRef) => {
      try {
        const ref =
          typeof arg === 'object'
            ? parseRef(arg)
            : readPastedLanding(
                arg ??
                  (await vscode.window.showInputBox({
                    title: 'Open Landing',
                    prompt: 'Paste a LandingRef (JSON or base64url), a file:///path#L10-L20 link, a cdp://evidence/<id>, an intercom://message/… or a Life Thread link',
                    ignoreFocusOut: true,
                    validateInput: (v) => {
                      if (!v.trim()) return undefined;
                      try {
                        parsePastedLanding(v, lander.uriSchemes);
                        return undefined;
                      } catch (err) {
                        return err instanceof InputError ? `${err.field}: ${err.reason}` : String(err);
                      }
                    },
                  })) ??
                  '',
                lander.uriSchemes,
              );
        // Nothing pasted (the box cancelled or left empty) is not an error: say nothing.
        if (ref === null) return undefined;
        if (typeof arg !== 'object' && !arg && ref.kind === 'none') return undefined;
        return await lander.land(ref, { focus: true });
      } catch (err) {
        if (err instanceof ShownInputError) return undefined;
        void vscode.window.showErrorMessage(`Life Thread: cannot open this landing — ${err instanceof InputError ? `${err.field}: ${err.reason}` : String(err)}`);
        return undefined;
      }
    }),
    contrib.registerTool<ResolveAnchorInput>('lifethread_resolveAnchor', {
      prepareInvocation: (o) => ({ invocationMessage: o.input.anchor ? `Re-finding ${o.input.anchor.symbol || o.input.anchor.path}` : `Reading a message span of ${o.input.message?.topic ?? ''}` }),
      invoke: async (o) => {
        try {
          const text = await resolveAnchorTool(o.input, {
            resolve: (anchor) => lander.resolveAnchor(anchor),
            symbolStep: true,
            topicDir: (topic) => lander.topicDir(topic),
            open: {
              anchor: async (anchor) => void (await lander.land({ kind: 'code_anchor', anchor })),
              message: async (topic, msgId, start, end) => void (await lander.openMessage(topic, msgId, start, end)),
            },
          });
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
        } catch (err) {
          throw err instanceof InputError ? new Error(`Invalid input — ${err.field}: ${err.reason}`) : err;
        }
      },
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void lander.completePending()),
  );
  registerEvidenceLens(context, lander);
  void lander.completePending();
}
