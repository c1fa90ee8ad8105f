/** Streams a chat completion from an OpenAI-compatible server over HTTP(S) with fetch. */
import { ChatStreamParser, requestBody, type NeutralMessage, type NeutralTool, type StreamEvent } from '../core/openai';

export interface ChatRequest {
  baseUrl: string;
  apiKey?: string;
  model: string;
  messages: readonly NeutralMessage[];
  tools: readonly NeutralTool[];
  toolChoice: 'auto' | 'required';
  maxTokens?: number;
  signal?: AbortSignal;
}

export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export async function* streamChat(req: ChatRequest): AsyncGenerator<StreamEvent> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (req.apiKey) headers.authorization = `Bearer ${req.apiKey}`;
  const res = await fetch(endpoint(req.baseUrl, 'chat/completions'), {
    method: 'POST',
    headers,
    body: JSON.stringify(requestBody(req.model, req.messages, req.tools, req.toolChoice, req.maxTokens)),
    signal: req.signal,
  });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    throw new Error(`the model server answered ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 300)}` : ''}`);
  }
  const parser = new ChatStreamParser();
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const e of parser.push(decoder.decode(chunk, { stream: true }))) yield e;
  }
  for (const e of parser.push(decoder.decode())) yield e;
  for (const e of parser.end()) yield e;
}

/** The models a server lists at /models; used to show the configured model is there. */
export async function listModels(baseUrl: string, apiKey: string | undefined, signal?: AbortSignal): Promise<string[]> {
  const res = await fetch(endpoint(baseUrl, 'models'), { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal });
  if (!res.ok) throw new Error(`${endpoint(baseUrl, 'models')} answered ${res.status}`);
  const body = (await res.json()) as { data?: { id?: unknown }[] };
  return (body.data ?? []).map((m) => (typeof m.id === 'string' ? m.id : '')).filter(Boolean);
}
