/**
 * A scripted model server on 127.0.0.1 for the real terminal agents: Anthropic's Messages API (Claude
 * Code, through ANTHROPIC_BASE_URL) and OpenAI's Responses API (Codex, through a model provider in its
 * config). It refuses nothing, answers only what the test scripts (anything else gets one fixed line of
 * text), and records every request it gets with its path, so a test can read what the agent sent. It
 * is also the agents' proxy (HTTPS_PROXY): whatever they try to reach outside is refused and listed.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Recorded {
  /** Order of arrival, from 0. */
  n: number;
  at: number;
  method: string;
  path: string;
  body: Json;
  /** What the server answered, in the test's words ('unscripted' when the script had no answer). */
  answered?: string;
}

/** One model turn: text that ends it, or one tool call (`namespace`: a Responses API tool namespace, as Codex groups an MCP server's tools). */
export type Turn = { text: string } | { tool: string; namespace?: string; input: Record<string, Json> };

/** The line an unscripted request gets: the agent sees a model that says only this. */
export const UNSCRIPTED = 'Not scripted.';

export class AgentModelServer {
  private server: Server | undefined;
  port = 0;
  readonly requests: Recorded[] = [];
  /** Returns the turn for a model request, or undefined when the test did not script it. */
  script: (r: Recorded) => Turn | undefined = () => undefined;
  private waiters: (() => void)[] = [];

  /** `log`: a file that gets one JSON line per request (kept for the report when a run fails). */
  constructor(private readonly log?: string) {}

  /** Hosts the agent tried to reach through the proxy variables (HTTPS_PROXY / HTTP_PROXY point here): refused, recorded. */
  readonly outside: string[] = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    // The sink for outside traffic: a CONNECT (HTTPS through a proxy) is refused and its host recorded.
    this.server.on('connect', (req: IncomingMessage, socket: Duplex) => {
      this.outside.push(`CONNECT ${req.url ?? ''}`);
      if (this.log) appendFileSync(this.log, `${JSON.stringify({ outside: `CONNECT ${req.url ?? ''}`, at: Date.now() })}\n`);
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  /** Waits until a recorded request matches `pick`. */
  async until(pick: (r: Recorded) => boolean, ms: number, what: string): Promise<Recorded> {
    const end = Date.now() + ms;
    for (;;) {
      const hit = this.requests.find(pick);
      if (hit) return hit;
      if (Date.now() > end) throw new Error(`no model request ${what} within ${ms} ms (${this.requests.length} requests: ${this.requests.map((r) => `${r.method} ${r.path} → ${r.answered ?? '?'}`).join('; ')})`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 250);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    let body: Json = raw;
    try {
      body = raw ? (JSON.parse(raw) as Json) : null;
    } catch {
      // kept as the raw text
    }
    // A plain-HTTP proxy request names a whole URL: outside traffic, refused and recorded.
    if (/^[a-z]+:\/\//i.test(req.url ?? '')) {
      this.outside.push(`${req.method ?? ''} ${req.url ?? ''}`);
      if (this.log) appendFileSync(this.log, `${JSON.stringify({ outside: `${req.method ?? ''} ${req.url ?? ''}`, at: Date.now() })}\n`);
      res.writeHead(403).end();
      return;
    }
    const path = (req.url ?? '').split('?')[0] ?? '';
    const rec: Recorded = { n: this.requests.length, at: Date.now(), method: req.method ?? '', path, body };
    this.requests.push(rec);
    try {
      if (path.endsWith('/messages') && req.method === 'POST') this.anthropic(rec, res);
      else if (path.endsWith('/responses') && req.method === 'POST') this.responses(rec, res);
      else if (path.endsWith('/count_tokens')) this.json(rec, res, 200, { input_tokens: 1 }, 'count_tokens');
      else if (path.endsWith('/models')) this.json(rec, res, 200, { object: 'list', data: [] }, 'no models');
      else this.json(rec, res, 404, { error: { message: `not served: ${req.method} ${path}` } }, '404');
    } catch (err) {
      this.json(rec, res, 500, { error: { message: String(err) } }, `500 ${String(err)}`);
    }
    if (this.log) appendFileSync(this.log, `${JSON.stringify(rec)}\n`);
    for (const w of this.waiters.splice(0)) w();
  }

  private json(rec: Recorded, res: ServerResponse, status: number, body: object, answered: string): void {
    rec.answered = answered;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private turnFor(rec: Recorded): Turn {
    const turn = this.script(rec);
    rec.answered = turn === undefined ? 'unscripted' : 'tool' in turn ? `tool ${turn.tool}` : `text ${turn.text}`;
    return turn ?? { text: UNSCRIPTED };
  }

  /** Anthropic's Messages API, streamed as server-sent events when asked (Claude Code asks). */
  private anthropic(rec: Recorded, res: ServerResponse): void {
    const turn = this.turnFor(rec);
    const body = rec.body as { model?: string; stream?: boolean };
    const id = `msg_${rec.n}`;
    const block = 'tool' in turn ? { type: 'tool_use', id: `toolu_${rec.n}`, name: turn.tool, input: turn.input } : { type: 'text', text: turn.text };
    const stop = 'tool' in turn ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id, type: 'message', role: 'assistant', model: body.model ?? 'scripted', content: [block], stop_reason: stop, stop_sequence: null, usage };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: object): void => void res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('message_start', { message: { ...message, content: [], stop_reason: null } });
    if ('tool' in turn) {
      send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${rec.n}`, name: turn.tool, input: {} } });
      const args = JSON.stringify(turn.input);
      // Split over two deltas, as the real API streams a tool's input.
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(0, 5) } });
      send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(5) } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: turn.text } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
    send('message_stop', {});
    res.end();
  }

  /** OpenAI's Responses API as Codex streams it: the output item, then `response.completed`. */
  private responses(rec: Recorded, res: ServerResponse): void {
    const turn = this.turnFor(rec);
    const id = `resp_${rec.n}`;
    const item =
      'tool' in turn
        ? { type: 'function_call', id: `fc_${rec.n}`, call_id: `call_${rec.n}`, ...(turn.namespace ? { namespace: turn.namespace } : {}), name: turn.tool, arguments: JSON.stringify(turn.input), status: 'completed' }
        : { type: 'message', id: `msg_${rec.n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: object): void => void res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
    send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
    if (!('tool' in turn)) send('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: turn.text });
    send('response.output_item.done', { output_index: 0, item });
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 };
    send('response.completed', { response: { id, object: 'response', status: 'completed', output: [item], usage } });
    res.end();
  }
}

/** Every string inside a JSON value, joined: what a request holds, for matching text anywhere in it. */
export function textOf(v: Json): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(textOf).join('\n');
  if (v && typeof v === 'object') return Object.values(v).map(textOf).join('\n');
  return '';
}
