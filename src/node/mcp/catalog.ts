/**
 * The tools `life-thread mcp` offers (README "MCP and terminal agents"): `lifethread_wait` and the language-model tools
 * by the same names, their descriptions from package.json (the ones VS Code shows the model), input
 * schemas generated from the same zod schemas, and calls that run the same functions
 * (src/node/tools/).
 */
import { z } from 'zod';
import { contributes } from '../../../package.json';
import { remindInputSchema, resolveAnchorInputSchema, scheduleInputSchema, WAIT_TIMEOUT_MAX_S, waitInputSchema } from '../../core/toolInputs';
import { wakeInputSchema } from '../../core/wake/contract';
import { resolveAnchorTool, type AnchorToolHost } from '../tools/anchorTool';
import { remindTool, scheduleTool, type ScheduleToolHost } from '../tools/scheduleTools';
import { sendToLifeThread, type WakeToolHost } from '../tools/wakeTool';

export const MCP_TOOL_NAMES = ['lifethread_remind', 'lifethread_schedule', 'lifethread_sendToLifeThread', 'lifethread_resolveAnchor', 'lifethread_wait'] as const;
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

const SCHEMAS: Record<McpToolName, z.ZodType> = {
  lifethread_remind: remindInputSchema,
  lifethread_schedule: scheduleInputSchema,
  lifethread_sendToLifeThread: wakeInputSchema,
  lifethread_resolveAnchor: resolveAnchorInputSchema,
  lifethread_wait: waitInputSchema,
};

/** The one tool only MCP has (a VS Code chat is woken by Life Thread itself): its description here. */
const WAIT_DESCRIPTION = `Wait for a wake this session (or an ended session of this client in this folder) set, in this turn: answers with the wake's pulse as soon as it fires, else after timeout_seconds (at most ${WAIT_TIMEOUT_MAX_S}) with "Not yet" and the wake's state; call it again to keep waiting. Use it where you cannot run \`life-thread wait\` as a background command (Codex): it needs no access to the store from your sandbox.`;

/** Where the server's zone comes from (src/core/time/ownerZone.ts): no VS Code setting is read here. */
const ZONE =
  " Over MCP the owner's zone is the server's --tz or LIFE_THREAD_TZ when its command sets one, else the zone a VS Code window of this store last recorded (its lifeThread.timeZone, or the zone of the user's UI), else this machine's; it is read on every call.";

/** What differs outside a VS Code window, said in the description the client shows its model. */
const OUTSIDE_A_WINDOW: Partial<Record<McpToolName, string>> = {
  lifethread_remind: ZONE,
  lifethread_schedule: ZONE,
  lifethread_sendToLifeThread:
    ZONE +
    ' Over MCP the pulse comes back into this session where the client can take it (Claude Code channels; MCP log messages or resource updates), or to `life-thread wait <wake id>` run as a background command; when this session is gone, to @life in a VS Code window of this folder.',
  lifethread_resolveAnchor: ' Outside a VS Code window the symbol step is skipped (no symbol provider) and `open` is refused.',
};

export interface McpTool {
  name: McpToolName;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

function descriptionOf(name: McpToolName): string {
  if (name === 'lifethread_wait') return WAIT_DESCRIPTION;
  const t = contributes.languageModelTools.find((x) => x.name === name);
  return `${t?.modelDescription ?? name}${OUTSIDE_A_WINDOW[name] ?? ''}`;
}

export function mcpTools(): McpTool[] {
  return MCP_TOOL_NAMES.map((name) => {
    const { $schema: _s, ...schema } = z.toJSONSchema(SCHEMAS[name], { io: 'input', unrepresentable: 'any' });
    return { name, description: descriptionOf(name), inputSchema: { ...schema, type: 'object' } };
  });
}

export function isMcpToolName(name: string): name is McpToolName {
  return (MCP_TOOL_NAMES as readonly string[]).includes(name);
}

export interface McpToolHosts {
  schedule: ScheduleToolHost;
  wake: WakeToolHost;
  anchor: AnchorToolHost;
  /** `lifethread_wait`, run by the session (./waitTool.ts). */
  wait(args: unknown): Promise<string>;
}

/** Runs a tool; bad input throws InputError(field, reason), as the language-model tools do. */
export async function callMcpTool(name: McpToolName, args: unknown, hosts: McpToolHosts): Promise<string> {
  switch (name) {
    case 'lifethread_remind':
      return remindTool(args, hosts.schedule);
    case 'lifethread_schedule':
      return scheduleTool(args, hosts.schedule);
    case 'lifethread_sendToLifeThread':
      return (await sendToLifeThread(args, hosts.wake)).answer;
    case 'lifethread_resolveAnchor':
      return resolveAnchorTool(args, hosts.anchor);
    case 'lifethread_wait':
      return hosts.wait(args);
  }
}
