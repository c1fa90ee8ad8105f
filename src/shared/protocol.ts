/**
 * The host↔webview protocol: one zod schema per message. The host owns the state and pushes it;
 * the webview renders it and asks for actions by request id. Nothing crossing the boundary is cast.
 */
import { z } from 'zod';

export const healthSchema = z.object({
  state: z.enum(['healthy', 'stalled', 'paused', 'starting', 'readonly']),
  /** One line for the user, e.g. "Dispatcher healthy · last pass 12 s ago". */
  line: z.string(),
  lastPassAt: z.string().nullable(),
});
export type Health = z.infer<typeof healthSchema>;

export const rowViewSchema = z.object({
  id: z.string(),
  kind: z.enum(['reminder', 'command', 'wake']),
  title: z.string(),
  /** "Once, Fri 3 Oct 09:00 CEST (07:00Z), in 2 h 14 min" */
  when: z.string(),
  status: z.string(),
  /** "delivered", "error: …", "exit 1", "running", or "" when the row has not fired yet. */
  lastFact: z.string(),
  factTone: z.enum(['none', 'ok', 'error', 'running']),
  hasLog: z.boolean(),
});
export type RowView = z.infer<typeof rowViewSchema>;

export const feedItemSchema = z.object({
  id: z.string(),
  at: z.string(),
  title: z.string(),
  body: z.string(),
  tone: z.enum(['info', 'ok', 'error']),
  /** The row it is about, when there is one. */
  ref: z.string().optional(),
});
export type FeedItem = z.infer<typeof feedItemSchema>;

/** A quoted span shown in the panel (a message anchor landing): the span is highlighted between its context. */
export const focusSchema = z.object({
  title: z.string(),
  source: z.string(),
  before: z.string(),
  span: z.string(),
  after: z.string(),
  note: z.string().optional(),
});
export type Focus = z.infer<typeof focusSchema>;

const anchorViewSchema = z.object({ topic: z.string(), msgId: z.string(), start: z.number(), end: z.number(), quote: z.string() });
const itemViewSchema = z.object({ text: z.string(), reason: z.string(), carried: z.boolean(), anchors: z.array(anchorViewSchema) });

/** A partition waiting for the user's approval: the agent's TopicDecisions, the diff, the lint's problems. */
export const partitionViewSchema = z.object({
  topic: z.string(),
  partition: z.number(),
  frame: z.string(),
  rejected: z.array(itemViewSchema),
  accepted: z.array(itemViewSchema),
  new: z.array(z.string()),
  next: z.array(z.string()),
  diff: z.array(z.string()),
  problems: z.array(z.string()),
});
export type PartitionView = z.infer<typeof partitionViewSchema>;

/** The desk (a browser over CDP): the last prepare's status in this window and the last thumbnail. */
export const deskViewSchema = z.object({
  /** The wake's `desk` of the last prepare in this window; null before the first. */
  status: z.enum(['ok', 'prepared', 'needs_restore', 'none']).nullable(),
  /** One line for the user, e.g. "Prepared · Test report in front · 3 pages remembered". */
  line: z.string(),
  pages: z.number().int().nonnegative(),
  /** The title (or URL) of the page in front after the last prepare. */
  front: z.string().nullable(),
  /** The last thumbnail as a PNG data URI (the webview's CSP allows `data:` images); null in the sidebar. */
  thumbnail: z
    .string()
    .max(1_500_000)
    .regex(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/)
    .nullable(),
});
export type DeskView = z.infer<typeof deskViewSchema>;

export const viewStateSchema = z.object({
  focus: focusSchema.nullable(),
  partition: partitionViewSchema.nullable(),
  tz: z.string(),
  health: healthSchema,
  reminders: z.array(rowViewSchema),
  commands: z.array(rowViewSchema),
  wakes: z.array(rowViewSchema),
  feed: z.array(feedItemSchema),
  storeError: z.string().nullable(),
  desk: deskViewSchema,
  /** 'sidebar' renders compactly; 'panel' at full size. */
  surface: z.enum(['sidebar', 'panel']),
});
export type ViewState = z.infer<typeof viewStateSchema>;

const requestId = z.number().int().nonnegative();
const rowAction = z.object({ id: z.string().min(3).max(60) });

/** Requests the webview may make; each names a method and its params. */
export const webviewRequestSchema = z.discriminatedUnion('method', [
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('addReminder'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('scheduleCommand'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('doctor'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('openPanel'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('openDesk'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('runNow'), params: rowAction }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('move'), params: rowAction }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('remove'), params: rowAction }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('showLog'), params: rowAction }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('approvePartition'), params: z.object({ topic: z.string().max(100) }) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('editPartition'), params: z.object({ topic: z.string().max(100) }) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('openAnchor'), params: anchorViewSchema }),
]);
export type WebviewRequest = z.infer<typeof webviewRequestSchema>;
export type WebviewMethod = WebviewRequest['method'];

export const webviewMessageSchema = z.union([z.object({ type: z.literal('ready') }), webviewRequestSchema]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), state: viewStateSchema }),
  z.object({ type: z.literal('response'), id: requestId, ok: z.boolean(), message: z.string().optional() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;
