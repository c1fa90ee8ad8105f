/**
 * The OpenAI-compatible chat-completions wire format (Ollama, llama.cpp's server, vLLM, OpenAI):
 * request bodies from neutral messages, and an incremental parser for the server-sent-event stream
 * that yields text and complete tool calls. Pure: the HTTP client lives in src/node.
 */
import { z } from 'zod';

export type NeutralPart =
  | { kind: 'text'; text: string }
  | { kind: 'toolCall'; callId: string; name: string; input: unknown }
  | { kind: 'toolResult'; callId: string; text: string };

export interface NeutralMessage {
  role: 'user' | 'assistant' | 'system';
  parts: NeutralPart[];
}

export interface NeutralTool {
  name: string;
  description: string;
  inputSchema?: object;
}

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Neutral messages → the `messages` array of a chat-completions request. */
export function toWireMessages(messages: readonly NeutralMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const m of messages) {
    const text = m.parts.filter((p): p is { kind: 'text'; text: string } => p.kind === 'text').map((p) => p.text).join('');
    if (m.role === 'assistant') {
      const calls = m.parts.filter((p): p is Extract<NeutralPart, { kind: 'toolCall' }> => p.kind === 'toolCall');
      out.push({
        role: 'assistant',
        content: text || (calls.length ? null : ''),
        ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.callId, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) } })) } : {}),
      });
      continue;
    }
    for (const p of m.parts) if (p.kind === 'toolResult') out.push({ role: 'tool', tool_call_id: p.callId, content: p.text });
    if (text || !m.parts.some((p) => p.kind === 'toolResult')) out.push({ role: m.role, content: text });
  }
  return out;
}

export function requestBody(model: string, messages: readonly NeutralMessage[], tools: readonly NeutralTool[], toolChoice: 'auto' | 'required', maxTokens?: number): object {
  return {
    model,
    stream: true,
    messages: toWireMessages(messages),
    ...(tools.length
      ? {
          tools: tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema ?? { type: 'object', properties: {} } } })),
          tool_choice: toolChoice,
        }
      : {}),
    ...(maxTokens ? { max_tokens: maxTokens } : {}),
  };
}

const deltaSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullable().optional(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative().optional(),
                  id: z.string().optional(),
                  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
                }),
              )
              .optional(),
          })
          .optional(),
        message: z.object({ content: z.string().nullable().optional() }).optional(),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .optional(),
  error: z.union([z.string(), z.object({ message: z.string().optional() }).passthrough()]).optional(),
});

export type StreamEvent = { kind: 'text'; text: string } | { kind: 'toolCall'; callId: string; name: string; input: unknown } | { kind: 'done'; finishReason: string | null };

/**
 * Feeds SSE bytes (as decoded text) and yields events. Tool-call argument fragments are gathered
 * per index and emitted whole when the stream says the call is complete (or at the end).
 */
export class ChatStreamParser {
  private buffer = '';
  private calls = new Map<number, { id: string; name: string; args: string }>();
  private finished = false;
  private finishReason: string | null = null;
  /** Servers that reuse index 0 for parallel calls (with distinct ids) get fresh slots from here. */
  private nextSlot = 1_000_000;
  private slotFor = new Map<number, number>();

  push(chunk: string): StreamEvent[] {
    this.buffer += chunk;
    const events: StreamEvent[] = [];
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      events.push(...this.line(line));
    }
    return events;
  }

  end(): StreamEvent[] {
    const events = this.buffer.trim() ? this.line(this.buffer.trim()) : [];
    this.buffer = '';
    if (!this.finished) events.push(...this.flushCalls(), { kind: 'done', finishReason: null });
    return events;
  }

  private line(line: string): StreamEvent[] {
    if (!line.startsWith('data:')) return [];
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      if (this.finished) return [];
      this.finished = true;
      return [...this.flushCalls(), { kind: 'done', finishReason: this.finishReason ?? 'stop' }];
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new Error(`the model server sent a line that is not JSON: ${data.slice(0, 120)}`);
    }
    const parsed = deltaSchema.safeParse(json);
    if (!parsed.success) return [];
    const err = parsed.data.error;
    if (err !== undefined) throw new Error(`the model server reported: ${typeof err === 'string' ? err : (err.message ?? JSON.stringify(err))}`);
    const events: StreamEvent[] = [];
    for (const choice of parsed.data.choices ?? []) {
      const content = choice.delta?.content ?? choice.message?.content;
      if (content) events.push({ kind: 'text', text: content });
      for (const tc of choice.delta?.tool_calls ?? []) {
        const wire = tc.index ?? 0;
        let index = this.slotFor.get(wire) ?? wire;
        const existing = this.calls.get(index);
        // A new id at a wire index already in use is a new parallel call (some servers send every call at index 0).
        if (existing && tc.id && existing.id && tc.id !== existing.id) index = this.nextSlot++;
        this.slotFor.set(wire, index);
        const cur = this.calls.get(index) ?? { id: '', name: '', args: '' };
        if (tc.id) cur.id = tc.id;
        if (tc.function?.name) cur.name += tc.function.name;
        if (tc.function?.arguments) cur.args += tc.function.arguments;
        this.calls.set(index, cur);
      }
      if (choice.finish_reason) {
        this.finishReason = choice.finish_reason;
        events.push(...this.flushCalls());
      }
    }
    return events;
  }

  private flushCalls(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const [index, c] of [...this.calls.entries()].sort((a, b) => a[0] - b[0])) {
      let input: unknown = {};
      if (c.args.trim()) {
        try {
          input = JSON.parse(c.args);
        } catch {
          throw new Error(`the model sent tool call ${c.name} with arguments that are not JSON: ${c.args.slice(0, 120)}`);
        }
      }
      out.push({ kind: 'toolCall', callId: c.id || `call_${index}`, name: c.name, input });
    }
    this.calls.clear();
    this.slotFor.clear();
    return out;
  }
}

/** A rough token count (about four characters a token) for servers that expose no tokenizer. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
