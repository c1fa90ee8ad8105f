/**
 * The exported transcript of a topic: one record per message with a stable id, a content
 * hash and the previous message's hash (a chain). Message anchors `{ msgId, start, end, quote }` point
 * into a record's text: UTF-16 offsets, end-exclusive.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

export const exportRecordSchema = z
  .object({
    id: z.string().min(1).max(100),
    role: z.enum(['user', 'assistant']),
    time: z.string(),
    text: z.string(),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    prevHash: z.string().regex(/^([0-9a-f]{64})?$/),
  })
  .strict();
export type ExportRecord = z.infer<typeof exportRecordSchema>;

export const messageAnchorSchema = z
  .object({ msgId: z.string().min(1).max(100), start: z.number().int().min(0), end: z.number().int().min(0), quote: z.string().max(4000) })
  .strict()
  .refine((a) => a.end >= a.start, { message: 'end must not be before start', path: ['end'] });
export type MessageAnchor = z.infer<typeof messageAnchorSchema>;

/** The hash of one message: over its id, role, time and text, and the previous message's hash. */
export function messageHash(r: Pick<ExportRecord, 'id' | 'role' | 'time' | 'text' | 'prevHash'>): string {
  return createHash('sha256').update(JSON.stringify([r.id, r.role, r.time, r.text, r.prevHash])).digest('hex');
}

export function parseExportJsonl(text: string): { records: ExportRecord[]; errors: string[] } {
  const records: ExportRecord[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const r = exportRecordSchema.safeParse(JSON.parse(line));
      if (r.success) records.push(r.data);
      else errors.push(`line ${i + 1}: ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? 'invalid'}`);
    } catch {
      errors.push(`line ${i + 1}: not JSON`);
    }
  });
  return { records, errors };
}

export interface SpanView {
  record: ExportRecord;
  before: string;
  span: string;
  after: string;
}

/** The span of a message with some context; null with a reason when the span does not exist. */
export function spanOf(records: readonly ExportRecord[], msgId: string, start: number, end: number, context = 200): SpanView | { error: string } {
  const record = records.find((r) => r.id === msgId);
  if (!record) return { error: `no message ${msgId} in the export` };
  if (end > record.text.length) return { error: `span ${start}-${end} is past the end of message ${msgId} (${record.text.length} characters)` };
  return {
    record,
    before: record.text.slice(Math.max(0, start - context), start),
    span: record.text.slice(start, end),
    after: record.text.slice(end, end + context),
  };
}
