/**
 * A conversation held with another chat participant (Copilot agent mode, any `@other`), imported
 * from VS Code's own chat export (`workbench.action.chat.export` with a target file: the JSON of the
 * last focused chat session's `toExport()`, measured in VS Code 1.139; README "Continuity").
 *
 * Each request becomes a user message (its text) and, when it has one, an assistant message (the
 * Markdown parts of its response; tool calls and other parts are left out). Ids are minted like
 * @life's (`m-<base36 time>-<6>`), derived from the export's request id so that importing the same
 * chat again yields the same ids. @life's own turns keep the ids @life minted for them (their
 * ChatResult metadata is in the export), so a turn recorded under another topic joins this one
 * once; a turn still in flight (no result yet) is left to @life, which records it when it ends, and
 * one @life did not keep (`transcript: 'skip'`) stays out.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { TranscriptMessage } from './export';
import { MESSAGE_TAIL_CHARS, messageId } from './ids';

/** The parts of an exported request that are read; everything else is ignored. */
const exportedRequestSchema = z.object({
  requestId: z.string().min(1).max(200),
  message: z.object({ text: z.string() }).loose(),
  response: z.array(z.unknown()).optional(),
  agent: z.object({ id: z.string() }).loose().optional(),
  result: z
    .object({
      metadata: z.object({ transcript: z.unknown().optional(), lifeThread: z.object({ requestId: z.string().min(1).max(100), responseId: z.string().min(1).max(100) }).loose().optional() }).loose().optional(),
    })
    .loose()
    .optional(),
  timestamp: z.number().optional(),
  responseTimestamp: z.number().optional(),
});

export const chatExportSchema = z.object({ requests: z.array(z.unknown()) }).loose();

export interface ImportedChat {
  messages: TranscriptMessage[];
  /** Requests of @life still in flight (no ids minted yet) or not kept by it, skipped. */
  skippedOwn: number;
  /** Requests that did not have the expected shape, skipped. */
  skippedBad: number;
  /** Participants whose turns were imported (their ids; '' for the default one). */
  participants: string[];
}

function markdownOf(part: unknown): string {
  if (typeof part !== 'object' || part === null) return '';
  const p = part as { kind?: unknown; value?: unknown; content?: { value?: unknown } };
  // toExport() replaces a markdownContent part by its IMarkdownString, which has no `kind`.
  if (p.kind === undefined && typeof p.value === 'string') return p.value;
  if (p.kind === 'markdownContent' && typeof p.content?.value === 'string') return p.content.value;
  return '';
}

/** An id like @life's, stable for one request of one chat. */
export function importedId(requestId: string, role: 'user' | 'assistant', at: number): string {
  const digest = createHash('sha256').update(`${requestId}\u0000${role}`).digest();
  let tail = '';
  for (let i = 0; i < MESSAGE_TAIL_CHARS; i++) tail += ((digest[i] ?? 0) % 36).toString(36);
  return messageId(at, tail);
}

function iso(ms: number | undefined, fallback: Date): string {
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : fallback.toISOString();
}

/**
 * The messages of an exported chat (the JSON `workbench.action.chat.export` writes), with the ids
 * @life minted for its own turns and new ones for the others'. Throws a zod error when the file is
 * not a chat export at all.
 */
export function importChatExport(json: unknown, opts: { ownParticipant: string; now: Date }): ImportedChat {
  const doc = chatExportSchema.parse(json);
  const messages: TranscriptMessage[] = [];
  const participants = new Set<string>();
  let skippedOwn = 0;
  let skippedBad = 0;
  for (const raw of doc.requests) {
    const p = exportedRequestSchema.safeParse(raw);
    if (!p.success) {
      skippedBad++;
      continue;
    }
    const r = p.data;
    const agent = r.agent?.id ?? '';
    const at = r.timestamp ?? opts.now.getTime();
    const answer = (r.response ?? []).map(markdownOf).join('');
    if (agent === opts.ownParticipant) {
      const ids = r.result?.metadata?.lifeThread;
      // In flight (no ids yet), or a turn @life chose not to keep (e.g. /partition with nothing new).
      if (!ids || r.result?.metadata?.transcript === 'skip') {
        skippedOwn++;
        continue;
      }
      // As @life records it: the prompt without the participant's name.
      const asked = r.message.text.replace(/^\s*@life\b\s*/, '');
      messages.push({ id: ids.requestId, role: 'user', time: iso(r.timestamp, opts.now), text: asked });
      messages.push({ id: ids.responseId, role: 'assistant', time: iso(r.responseTimestamp ?? r.timestamp, opts.now), text: answer });
      continue;
    }
    participants.add(agent);
    messages.push({ id: importedId(r.requestId, 'user', at), role: 'user', time: iso(r.timestamp, opts.now), text: r.message.text });
    if (answer.trim() !== '') messages.push({ id: importedId(r.requestId, 'assistant', r.responseTimestamp ?? at), role: 'assistant', time: iso(r.responseTimestamp ?? r.timestamp, opts.now), text: answer });
  }
  return { messages, skippedOwn, skippedBad, participants: [...participants].sort() };
}
