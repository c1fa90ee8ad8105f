/**
 * The continuity pair's documents: TopicDecisions (what this line of work decided, long-lived) and
 * Handover ops (the state of the desk, short-lived), linked both ways; decisions anchor into the
 * topic's export (src/core/export.ts). README "Continuity" tells what each file holds.
 *
 * Ops never carry Frame/Rejected/Accepted: their schema is strict. A placeholder is a string that
 * begins with `TODO` (the stub's marker), or an anchor whose msgId is `TODO`; the lint refuses any left in.
 */
import { z } from 'zod';
import { messageAnchorSchema } from '../transcript';
import { TOPIC_ID } from '../ids';

export const DECISIONS_FILE = 'TopicDecisions.md';
export const DECISIONS_JSON = 'topic-decisions.json';
export const OPS_FILE = 'HandoverOps.md';
export const OPS_JSON = 'handover-ops.json';
export const EXPORT_MD = 'export.md';
export const EXPORT_JSONL = 'export.jsonl';

export const topicNameSchema = z.string().regex(TOPIC_ID, 'must be letters, digits, dot, dash or underscore, starting with a letter or digit (at most 100)');

/** The stub's placeholder marker. */
export const PLACEHOLDER = 'TODO';
export const PLACEHOLDER_MSG_ID = 'TODO';

const text = z.string().max(4000);
const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO date-time');
const partition = z.number().int().min(1).max(1_000_000);

export const decisionItemSchema = z
  .object({
    text,
    reason: text,
    anchors: z.array(messageAnchorSchema).max(50),
    /** The partition in which this Rejected item was first rejected, when carried forward. */
    carriedFrom: partition.optional(),
    /** The normalized text of an earlier Rejected item this one replaces. */
    supersedes: text.optional(),
  })
  .strict();
export type DecisionItem = z.infer<typeof decisionItemSchema>;

export const newItemSchema = z
  .object({ text, anchors: z.array(messageAnchorSchema).max(50).optional(), supersedes: text.optional() })
  .strict();
export type NewItem = z.infer<typeof newItemSchema>;

export const topicDecisionsSchema = z
  .object({
    schemaVersion: z.literal(1),
    topic: topicNameSchema,
    partition,
    createdAt: isoTime,
    frame: z.string().max(8000),
    rejected: z.array(decisionItemSchema).max(500),
    accepted: z.array(decisionItemSchema).max(500),
    new: z.array(newItemSchema).max(500),
    next: z.array(text).max(100),
    anchors: z.array(messageAnchorSchema).max(200),
    opsLink: z.string().min(1).max(400),
    previous: partition.optional(),
  })
  .strict();
export type TopicDecisions = z.infer<typeof topicDecisionsSchema>;

const pathList = z.array(z.string().max(4096)).max(10_000);

export const repoStateSchema = z
  .object({
    root: z.string().min(1).max(4096),
    /** '' when HEAD is detached. */
    branch: z.string().max(400),
    /** '' in a repository without commits. */
    head: z.string().regex(/^([0-9a-f]{7,64})?$/, 'must be a hex SHA'),
    /** Paths relative to root, sorted. */
    dirty: pathList,
  })
  .strict();
export type RepoState = z.infer<typeof repoStateSchema>;

export const handoverOpsSchema = z
  .object({
    schemaVersion: z.literal(1),
    topic: topicNameSchema,
    partition,
    createdAt: isoTime,
    expiresAt: isoTime,
    decisionsLink: z.string().min(1).max(400),
    repo: repoStateSchema.nullable(),
    openEditors: pathList,
    runningTasks: z.array(z.string().max(400)).max(200),
    openItems: z.array(text).max(200),
    firstMoves: z.array(text).max(50),
  })
  .strict();
export type HandoverOps = z.infer<typeof handoverOpsSchema>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; field: string; reason: string };

function parseWith<T>(schema: z.ZodType<T>, value: unknown): ParseResult<T> {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  return { ok: false, field: issue?.path.map(String).join('.') || 'value', reason: issue?.message ?? 'invalid' };
}

export function parseDecisions(value: unknown): ParseResult<TopicDecisions> {
  return parseWith(topicDecisionsSchema, value);
}

export function parseOps(value: unknown): ParseResult<HandoverOps> {
  return parseWith(handoverOpsSchema, value);
}
