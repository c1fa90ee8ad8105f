import * as vscode from 'vscode';
import { z } from 'zod';
import { codeAnchorSchema } from '../core/codeAnchor';
import { InputError } from '../core/errors';
import { decodeRef, parseDeepLink, parseRef, type LandingRef } from '../core/landing';
import { parseToolInput } from '../core/toolInputs';
import { spanOf } from '../core/transcript';
import { readAllRecords } from '../node/topicFiles';
import { COMMANDS } from '../shared/commands';
import type { Lander } from './landing';

const resolveInputSchema = z
  .object({
    anchor: codeAnchorSchema.optional(),
    message: z.object({ topic: z.string().min(1).max(100), msgId: z.string().min(1).max(100), start: z.number().int().min(0), end: z.number().int().min(0), quote: z.string().max(4000).optional() }).strict().optional(),
    open: z.boolean().optional(),
  })
  .strict();
type ResolveInput = z.infer<typeof resolveInputSchema>;

/** Reads what a person pasted: a LandingRef as JSON, a base64url ref, or a URI. */
export function parsePastedLanding(text: string, uriSchemes: readonly string[]): LandingRef {
  const t = text.trim();
  if (!t) throw new InputError('landing', 'is empty');
  if (t.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(t);
    } catch {
      throw new InputError('landing', 'looks like JSON but does not parse');
    }
    return parseRef(json, 'landing');
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(t)) {
    parseDeepLink(t, uriSchemes, 'landing');
    return { kind: 'deep_link', uri: t };
  }
  return decodeRef(t, 'landing');
}

export function registerLanding(context: vscode.ExtensionContext, lander: Lander): void {
  context.subscriptions.push(
    vscode.window.registerUriHandler({ handleUri: (uri) => void lander.handleUri(uri) }),
    vscode.commands.registerCommand(COMMANDS.openLanding, async (arg?: string | LandingRef) => {
      try {
        const ref =
          typeof arg === 'object'
            ? parseRef(arg)
            : parsePastedLanding(
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
        if (typeof arg !== 'object' && !arg && ref.kind === 'none') return undefined;
        return await lander.land(ref);
      } catch (err) {
        void vscode.window.showErrorMessage(`Life Thread: cannot open this landing — ${err instanceof InputError ? `${err.field}: ${err.reason}` : String(err)}`);
        return undefined;
      }
    }),
    vscode.lm.registerTool<ResolveInput>('lifethread_resolveAnchor', {
      prepareInvocation: (o) => ({ invocationMessage: o.input.anchor ? `Re-finding ${o.input.anchor.symbol || o.input.anchor.path}` : `Reading a message span of ${o.input.message?.topic ?? ''}` }),
      invoke: async (o) => {
        let input: ResolveInput;
        try {
          input = parseToolInput(resolveInputSchema, o.input);
          if (!input.anchor === !input.message) throw new InputError('anchor', 'give exactly one of anchor (a CodeAnchor) or message ({ topic, msgId, start, end, quote? })');
        } catch (err) {
          throw new Error(err instanceof InputError ? `Invalid input — ${err.field}: ${err.reason}` : String(err));
        }
        if (input.anchor) {
          const res = await lander.resolveAnchor(input.anchor);
          if (input.open) await lander.land({ kind: 'code_anchor', anchor: input.anchor });
          const lines = `${res.range.start.line + 1}-${res.range.end.line + 1}`;
          const text = res.step === 'orphaned' ? `The anchor is orphaned: ${res.reason}. Its old place was lines ${lines}.` : `Re-found by the "${res.step}" step at lines ${lines} of ${input.anchor.path}: ${res.reason}.`;
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`${text}\n\n${JSON.stringify({ step: res.step, range: res.range, healed: res.healed, original: res.original })}`)]);
        }
        const m = input.message;
        if (!m) throw new Error('Invalid input — message: missing');
        // Bounded partitions: the message may be in an earlier partition's export (history/).
        const records = await readAllRecords(lander.topicDir(m.topic)).catch(() => []);
        const span = spanOf(records, m.msgId, m.start, m.end);
        if ('error' in span) throw new Error(`Invalid input — message: ${span.error}`);
        const matches = m.quote === undefined ? undefined : span.span === m.quote;
        if (input.open) await lander.openMessage(m.topic, m.msgId, m.start, m.end);
        const verdict = matches === undefined ? '' : matches ? ' The quote stands at its span.' : ' The quote does NOT stand at its span.';
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`Message ${m.msgId} of topic ${m.topic}, characters ${m.start}-${m.end}: "${span.span}".${verdict}\n\n${JSON.stringify({ msgId: m.msgId, start: m.start, end: m.end, text: span.span, quoteMatches: matches ?? null })}`)]);
      },
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void lander.completePending()),
  );
  void lander.completePending();
}
