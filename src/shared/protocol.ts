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

const anchorViewSchema = z.object({ topic: z.string(), msgId: z.string(), start: z.number(), end: z.number(), quote: z.string() });
const itemViewSchema = z.object({ text: z.string(), reason: z.string(), carried: z.boolean(), anchors: z.array(anchorViewSchema) });
export type AnchorView = z.infer<typeof anchorViewSchema>;

/** TopicDecisions as the panel shows them: Frame, Rejected and Accepted with reasons and anchors, New, Next. */
export const decisionsViewSchema = z.object({
  partition: z.number(),
  createdAt: z.string(),
  /** createdAt in the owner's zone, in words ("Thu 3 Dec 14:43:26 UTC, 2 min ago"). */
  written: z.string(),
  frame: z.string(),
  rejected: z.array(itemViewSchema),
  accepted: z.array(itemViewSchema),
  new: z.array(z.string()),
  next: z.array(z.string()),
  anchors: z.array(anchorViewSchema),
});
export type DecisionsView = z.infer<typeof decisionsViewSchema>;

/** Handover ops as the panel shows them, with the state found when they were last re-checked. */
export const opsViewSchema = z.object({
  partition: z.number(),
  createdAt: z.string(),
  expiresAt: z.string(),
  /** expiresAt in the owner's zone, in words. */
  expires: z.string(),
  root: z.string(),
  branch: z.string(),
  head: z.string(),
  dirty: z.array(z.string()),
  runningTasks: z.array(z.string()),
  openItems: z.array(z.string()),
  firstMoves: z.array(z.string()),
  /** null: not re-checked yet. */
  stale: z.boolean().nullable(),
  /** What changed since the ops were written ("HEAD moved from … to …"). */
  changes: z.array(z.string()),
  checkedAt: z.string().nullable(),
  /** checkedAt in the owner's zone, in words. */
  checked: z.string().nullable(),
});
export type OpsView = z.infer<typeof opsViewSchema>;

/** A draft waiting for the user's approval: its decisions, the diff against the previous partition, the lint's problems. */
export const reviewViewSchema = z.object({
  partition: z.number(),
  decisions: decisionsViewSchema,
  diff: z.array(z.string()),
  problems: z.array(z.string()),
});

/** The current topic's pair in the panel: decisions beside ops, the review, the export check, the history. */
export const topicViewSchema = z.object({
  topic: z.string(),
  topics: z.array(z.string()),
  /** The partition being written (a stub) or the latest approved; null before the first partition. */
  partition: z.number().nullable(),
  /** 'none': no partition yet; 'stub': started, not filled; 'review': a draft waits; 'approved'. */
  state: z.enum(['none', 'stub', 'review', 'approved']),
  /** The decisions in force (approved), null before the first approval. */
  decisions: decisionsViewSchema.nullable(),
  review: reviewViewSchema.nullable(),
  ops: opsViewSchema.nullable(),
  verify: z.object({ ok: z.boolean(), line: z.string(), problems: z.array(z.string()), notFilled: z.array(z.string()) }),
  history: z.array(z.object({ partition: z.number(), createdAt: z.string(), written: z.string(), frame: z.string(), messages: z.number() })),
  /** Messages recorded since the current export (conversation, not /partition or /resume turns). */
  newMessages: z.number(),
  /** A line about what is going on, e.g. "partition 2 started; waiting for the agent to fill TopicDecisions". */
  note: z.string().optional(),
});
export type TopicView = z.infer<typeof topicViewSchema>;

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
  topic: topicViewSchema.nullable(),
  /** The owner's zone the rows' words are shown in, and where it came from (the setting, the UI's report, the extension host). */
  tz: z.string(),
  tzSource: z.enum(['setting', 'ui', 'host']),
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
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('recheckOps'), params: z.object({ topic: z.string().max(100) }) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('showTopic'), params: z.object({ topic: z.string().max(100) }) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('closeFocus'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('clearFeed'), params: z.object({}) }),
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('clearFired'), params: z.object({}) }),
  /** The UI's IANA zone (`Intl.DateTimeFormat().resolvedOptions().timeZone`), sent by every view when it shows. */
  z.object({ type: z.literal('request'), id: requestId, method: z.literal('reportZone'), params: z.object({ timeZone: z.string().min(1).max(64) }) }),
]);
export type WebviewRequest = z.infer<typeof webviewRequestSchema>;

export const webviewMessageSchema = z.union([z.object({ type: z.literal('ready') }), webviewRequestSchema]);

export const hostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), state: viewStateSchema }),
  z.object({ type: z.literal('response'), id: requestId, ok: z.boolean(), message: z.string().optional() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;
