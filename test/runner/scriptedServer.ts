/**
 * A scripted OpenAI-compatible server on 127.0.0.1: a real HTTP server that Life Thread's model
 * provider talks to, so the provider, `vscode.lm` and `@life` all run for real. Host tests extend it
 * (test/host/scriptedModel.ts); the browser tests point the settings at it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WireMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatBody {
  model: string;
  messages: WireMessage[];
  tools?: { function: { name: string } }[];
}

export type Reply =
  /** `wordDelayMs`: the text streams one word at a time with this pause before each (a model answering slowly). */
  | { text: string; wordDelayMs?: number }
  | { toolCalls: { name: string; args: object }[]; text?: string }
  | { status: number; error: string };

export class ScriptedServer {
  private server: Server | undefined;
  port = 0;
  readonly requests: ChatBody[] = [];
  /** When each answer's stream ended (`index` into `requests`; epoch ms), in the order they ended. */
  readonly answered: { index: number; at: number }[] = [];
  script: (body: ChatBody) => Reply = () => ({ text: 'ok' });
  /** While set, answers wait for it (a turn that is still running, e.g. to keep `@life` busy). */
  hold: Promise<void> | undefined;
  readonly modelId = 'scripted-model';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: this.modelId, object: 'model' }] }));
      return;
    }
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const body = JSON.parse(raw) as ChatBody;
    const index = this.requests.push(body) - 1;
    if (this.hold) await this.hold;
    let reply: Reply;
    try {
      reply = this.script(body);
    } catch (err) {
      reply = { status: 500, error: String(err) };
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: reply.error } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (obj: object) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
    if ('toolCalls' in reply) {
      if (reply.text) send({ choices: [{ index: 0, delta: { content: reply.text } }] });
      reply.toolCalls.forEach((c, i) => {
        const args = JSON.stringify(c.args);
        // Split the arguments over two chunks, as real servers do.
        send({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${i}_${Date.now()}`, type: 'function', function: { name: c.name, arguments: args.slice(0, 5) } }] } }] });
        send({ choices: [{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: args.slice(5) } }] } }] });
      });
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    } else {
      const words = reply.text.match(/\S+\s*/g) ?? [];
      for (const w of words) {
        if (reply.wordDelayMs) await new Promise((r) => setTimeout(r, reply.wordDelayMs));
        send({ choices: [{ index: 0, delta: { content: w } }] });
      }
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    res.end('data: [DONE]\n\n');
    this.answered.push({ index, at: Date.now() });
  }
}

/** The text of the last user message (what the model is answering). */
export function lastUser(body: ChatBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i];
    if (m?.role === 'user') return m.content ?? '';
  }
  return '';
}

export function toolResults(body: ChatBody): string[] {
  return body.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
}
