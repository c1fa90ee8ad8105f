import * as vscode from 'vscode';
import { lifeThreadIcon } from './icon';
import { contrib } from './contrib';
import { CHAT_PARTICIPANT_ID } from '../shared/commands';
import type { ModelOffer } from './modelOffer';

export const CHAT_HELP = [
  '**Life Thread** lets an agent sleep on a long job and be woken into a prepared place.',
  '',
  '- `/remind` — add, list or remove a reminder; its text is a prompt the agent runs at the due time',
  '- `/schedule` — schedule a shell command, list, move, run now',
  '- `/wake` — wake this chat on a timer, a finished job, your return or a repository change',
  '- `/partition` — split this chat into TopicDecisions + Handover ops',
  '- `/resume` — start from a topic\u2019s TopicDecisions',
  '- `/doctor` — is the dispatcher alive, where is the store, what runs next',
].join('\n');

export type ChatCommandHandler = (
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
) => Promise<vscode.ChatResult | void>;

/** Called around every request: after-turn actions wait for the turn to end. */
export interface ChatTurnHooks {
  begin(): void;
  end(): void;
}

/** Keeps the conversation durably with minted message ids (the continuity feature's transcript). */
export interface ChatRecorder {
  topic(request: vscode.ChatRequest): string;
  record(topic: string, messages: { id: string; role: 'user' | 'assistant'; time: string; text: string }[]): Promise<void>;
  mint(): string;
}

/** The `@life` participant. Each slash command is routed to the feature that registered it. */
export class LifeChat {
  private readonly handlers = new Map<string, ChatCommandHandler>();
  private fallback: ChatCommandHandler | undefined;

  constructor(
    context: vscode.ExtensionContext,
    private readonly hooks: ChatTurnHooks,
    private readonly recorder: ChatRecorder,
    private readonly modelOffer?: Pick<ModelOffer, 'offer'>,
  ) {
    const participant = contrib.createChatParticipant(CHAT_PARTICIPANT_ID, (req, ctx, stream, token) => this.handle(req, ctx, stream, token));
    // Explicit colours per theme kind: the chat draws the icon as an image, so `currentColor` would be black on Dark Modern.
    participant.iconPath = lifeThreadIcon(context.extensionUri);
    context.subscriptions.push(participant);
  }

  on(command: string, handler: ChatCommandHandler): void {
    this.handlers.set(command, handler);
  }

  /** The handler for a request without a slash command (the agent loop, once a model is there). */
  onDefault(handler: ChatCommandHandler): void {
    this.fallback = handler;
  }

  private async handle(request: vscode.ChatRequest, context: vscode.ChatContext, rawStream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const rec = this.recorder;
    const topic = rec.topic(request);
    const requestId = rec.mint();
    const responseId = rec.mint();
    const askedAt = new Date().toISOString();
    let answer = '';
    // Capture what the response says, so the transcript keeps it under the minted id. (A Proxy cannot
    // be used: the stream's methods are non-configurable properties.)
    const stream = forwardingStream(rawStream, (text) => (answer += text));
    const ids = { lifeThread: { topic, requestId, responseId } };
    const handler = request.command ? this.handlers.get(request.command) : this.fallback;
    let keep = true;
    this.hooks.begin();
    try {
      if (!handler) {
        stream.markdown(request.command ? `\`/${request.command}\` is not available yet.\n\n${CHAT_HELP}` : CHAT_HELP);
        return { metadata: { command: request.command ?? 'help', ...ids } };
      }
      const result = await handler(request, context, stream, token);
      // The chat sent this to the offline responder: if a model is connected, say so with a button that picks it.
      await this.modelOffer?.offer(request.model, stream);
      const metadata = (result?.metadata ?? {}) as { transcript?: unknown };
      // A handler that wrote nothing (e.g. /partition with nothing new) keeps its turn out of the transcript too.
      keep = metadata.transcript !== 'skip';
      return { ...(result ?? {}), metadata: { command: request.command ?? 'default', ...metadata, ...ids } };
    } finally {
      this.hooks.end();
      // The request and its answer are written together, after the answer: a turn is kept whole, next to itself.
      if (keep) {
        const asked = request.command ? `/${request.command} ${request.prompt}`.trim() : request.prompt;
        await rec.record(topic, [
          { id: requestId, role: 'user', time: askedAt, text: asked },
          { id: responseId, role: 'assistant', time: new Date().toISOString(), text: answer },
        ]);
      }
    }
  }
}

/** A response stream that forwards every method to `target` and reports the Markdown it is given. */
function forwardingStream(target: vscode.ChatResponseStream, onMarkdown: (text: string) => void): vscode.ChatResponseStream {
  const out: Record<string, unknown> = {};
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const key of Object.getOwnPropertyNames(o)) {
      const v: unknown = Reflect.get(target, key);
      if (key !== 'constructor' && typeof v === 'function' && !(key in out)) out[key] = (v as (...a: unknown[]) => unknown).bind(target);
    }
  }
  out.markdown = (value: string | vscode.MarkdownString) => {
    onMarkdown(typeof value === 'string' ? value : value.value);
    target.markdown(value);
    return out;
  };
  return out as unknown as vscode.ChatResponseStream;
}
