/**
 * The MCP server's stdio transport: one JSON-RPC message per line, as the SDK's own stdio transport
 * reads them, plus the answers JSON-RPC asks for that the SDK's transport leaves out (it drops such
 * lines silently): a line that is not JSON gets -32700, an invalid request (wrong `jsonrpc`, no
 * method, a batch array) gets -32600, a request whose params do not fit its method gets -32602 naming
 * the field (./requestCheck.ts), and a line over the size limit is refused with an answer and a
 * stderr line while the session goes on. An empty line is ignored. Tested line by line in
 * test/unit/mcpProtocol.test.ts.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkRequest } from './requestCheck';

/** The longest line read; the SDK's transport uses the same limit (and ends the session past it). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

type Id = string | number | null;

/** A JSON-RPC error answer. */
export function errorAnswer(id: Id, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id: id as string | number, error: { code, message } };
}

/** The id of a request as JSON-RPC allows it (a string or a number), else null. */
function idOf(value: unknown): Id {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * What one line holds: a message to hand on, an error to answer (JSON-RPC's codes), or nothing
 * (an empty line).
 */
export function readLine(line: string): { message: JSONRPCMessage } | { answer: JSONRPCMessage } | { ignore: true } {
  if (line.trim() === '') return { ignore: true };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return { answer: errorAnswer(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${e instanceof Error ? e.message : String(e)})`) };
  }
  if (Array.isArray(value)) return { answer: errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid request: batches are not supported; send one message per line') };
  if (typeof value !== 'object' || value === null) return { answer: errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid request: a message must be a JSON object') };
  const v = value as Record<string, unknown>;
  if (v.jsonrpc !== '2.0') return { answer: errorAnswer(idOf(v), ErrorCode.InvalidRequest, `Invalid request: jsonrpc must be "2.0", got ${JSON.stringify(v.jsonrpc) ?? 'nothing'}`) };
  const isResponse = !('method' in v) && ('result' in v || 'error' in v);
  if (!isResponse && typeof v.method !== 'string') return { answer: errorAnswer(idOf(v), ErrorCode.InvalidRequest, 'Invalid request: method must be a string') };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) return { answer: errorAnswer(idOf(v), ErrorCode.InvalidRequest, 'Invalid request: not a JSON-RPC 2.0 request, notification or response') };
  const message = parsed.data;
  if ('method' in message && 'id' in message) {
    const problem = checkRequest(message.method, (message as { params?: unknown }).params);
    if (problem) return { answer: errorAnswer(message.id, ErrorCode.InvalidParams, `Invalid params: ${problem}`) };
  }
  return { message };
}

export class StdioLines implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Inside a line over the limit: its bytes are dropped up to its end. */
  private skipping = false;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly warn: (line: string) => void,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('the stdio transport is already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  private readonly onError = (err: Error): void => this.onerror?.(err);

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      const nl = buf.indexOf(10);
      if (nl < 0) {
        this.keep(buf);
        return;
      }
      this.keep(buf.subarray(0, nl));
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  };

  private keep(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > this.maxLineBytes) {
      this.chunks = [];
      this.size = 0;
      this.skipping = true;
      return;
    }
    this.chunks.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      this.refuseLongLine();
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    const read = readLine(line);
    if ('message' in read) this.onmessage?.(read.message);
    else if ('answer' in read) void this.send(read.answer);
  }

  private refuseLongLine(): void {
    const why = `a line over ${this.maxLineBytes} bytes was refused (the largest message this server reads)`;
    this.warn(why);
    void this.send(errorAnswer(null, ErrorCode.InvalidRequest, `Invalid request: ${why}`));
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.onclose?.();
  }
}
