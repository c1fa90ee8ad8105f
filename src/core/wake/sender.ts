/**
 * Who set a wake, and so where its pulse goes back to: `life` (`@life`'s own tool loop, the palette,
 * `/wake`, links into the extension), `agent` (the language-model tool called by any other chat
 * request, e.g. Agent mode's default agent), `mcp` (the MCP server; `client` names the client) or
 * `cli`. A row written before senders were recorded reads as `life`.
 */
import { z } from 'zod';
import type { Owner } from '../schema';

export const wakeSenderSchema = z.strictObject({
  kind: z.enum(['life', 'agent', 'mcp', 'cli']),
  client: z.optional(z.string().min(1).max(200)),
});
export type WakeSender = z.infer<typeof wakeSenderSchema>;

/** `lifeThread.wake.target`: back to the sender, or always `@life`, or always Agent mode. */
export const WAKE_TARGETS = ['auto', 'life', 'agent'] as const;
export type WakeTarget = (typeof WAKE_TARGETS)[number];

/** The sender a row records; none recorded reads as `life`. */
export function senderOf(row: { sender?: WakeSender | undefined }): WakeSender {
  return row.sender ?? { kind: 'life' };
}

/** The sender a setter's owner implies when its route says nothing more: an MCP client, the CLI, else the window's own `life`. */
export function senderOfOwner(owner: Owner | undefined): WakeSender {
  if (owner?.kind === 'mcp') return { kind: 'mcp', ...(owner.client ? { client: owner.client } : {}) };
  if (owner?.kind === 'cli') return { kind: 'cli' };
  return { kind: 'life' };
}

/**
 * Where a window sends a wake's pulse: with `auto`, a wake set from Agent mode goes back to Agent mode
 * and every other one (`@life`, MCP, CLI) to `@life`, as before senders were recorded.
 */
export function receiverOf(row: { sender?: WakeSender | undefined }, target: WakeTarget): 'life' | 'agent' {
  if (target !== 'auto') return target;
  return senderOf(row).kind === 'agent' ? 'agent' : 'life';
}
