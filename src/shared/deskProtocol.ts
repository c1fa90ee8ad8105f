/**
 * The desk view's messages (src/host/deskView.ts ↔ webview/desk.ts): the host pushes the page's frames
 * and what the view shows about the desk; the view asks for actions. Both sides parse with these schemas.
 */
import { z } from 'zod';

export const DESK_VIEW_TYPE = 'lifeThread.desk';

const deskPageSchema = z.object({
  key: z.string().max(300),
  title: z.string().max(500),
  url: z.string().max(4000),
  /** The page the view shows. */
  shown: z.boolean(),
});

export const deskInfoSchema = z.object({
  /** What the view is doing: showing the page live, paused (hidden), connecting, or unable to show it (the message says why). */
  state: z.enum(['live', 'paused', 'connecting', 'error']),
  /** One line for the user (the reason of an error, or how to get the desk going). */
  message: z.string().max(2000),
  /** The shown page's title and URL as the browser reports them; empty before the first. */
  title: z.string().max(500),
  url: z.string().max(4000),
  pages: z.array(deskPageSchema).max(200),
  /** "Open in a browser" is offered only where the browser runs on the user's machine (not a remote window). */
  canOpenExternal: z.boolean(),
});
export type DeskInfo = z.infer<typeof deskInfoSchema>;

export const deskHostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('info'), info: deskInfoSchema }),
  z.object({
    type: z.literal('frame'),
    /** Counts up per view: the view reports the last one it drew. */
    seq: z.number().int().nonnegative(),
    /** A JPEG of the page, base64. */
    data: z
      .string()
      .max(8_000_000)
      .regex(/^[A-Za-z0-9+/]+=*$/),
    width: z.number().nonnegative(),
    height: z.number().nonnegative(),
  }),
]);
export type DeskHostMessage = z.infer<typeof deskHostMessageSchema>;

export const deskViewMessageSchema = z.discriminatedUnion('type', [
  /** The view is loaded (again: it is rebuilt each time it becomes visible) and can take frames this large. */
  z.object({ type: z.literal('ready'), width: z.number().int().min(1).max(10_000), height: z.number().int().min(1).max(10_000) }),
  /** A frame was drawn. */
  z.object({ type: z.literal('drawn'), seq: z.number().int().nonnegative() }),
  z.object({ type: z.literal('reload') }),
  z.object({ type: z.literal('bringToFront') }),
  z.object({ type: z.literal('openExternal') }),
  z.object({ type: z.literal('showPage'), key: z.string().min(1).max(300) }),
]);
export type DeskViewMessage = z.infer<typeof deskViewMessageSchema>;

/** What the view keeps across a reload (its webview state): the page it showed. */
export const deskViewStateSchema = z.object({ key: z.string().min(1).max(300) });
