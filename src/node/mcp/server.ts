/**
 * `life-thread mcp` (design §9 "MCP"): a stdio MCP server over the store, built on the official SDK.
 * It offers the language-model tools (./catalog.ts), records its client as the owner of the rows it
 * adds, and takes part in the wakes' claim protocol like a window (../wakeCourier.ts), so a wake set
 * here fires whether or not VS Code is open. Delivery, in order: pushed into this session where the
 * client takes pushes (Claude Code channels; MCP log messages or resource updates), or printed by a
 * `life-thread wait` on it; otherwise it is held for a VS Code window of its folder (falling back to a
 * notification there), and the answer to the session's next tool call carries it.
 *
 * Bundled apart (dist/mcp.js) and loaded only by this verb, so the SDK never slows other verbs.
 */
import { mkdir, readFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type Notification,
  type Request,
  type Result,
} from '@modelcontextprotocol/sdk/types.js';
import { ownerOf, type Holder } from '../../core/claim';
import { InputError } from '../../core/errors';
import { isInsideFolders } from '../../core/landing';
import { cliLine } from '../../core/mcpConfig';
import type { Owner } from '../../core/schema';
import { renderPulse } from '../../core/wake/pulse';
import { pulseEventOutside } from '../pulseOutside';
import type { ClaimedWake, WakeRow } from '../../core/wake/row';
import { pulseHealthLine } from '../health';
import { landingFromInput } from '../landingInput';
import { holderFor, processLiveness } from '../liveness';
import { ScheduleStore } from '../schedule';
import { StoreError } from '../store/errors';
import { resolveAnchorOnDisk } from '../tools/anchorTool';
import { WakeCourier, type Delivery } from '../wakeCourier';
import { WakeStore } from '../wakes';
import { foldersHolding, liveWindows } from '../windows';
import { callMcpTool, isMcpToolName, mcpTools, type McpToolHosts, type McpToolName } from './catalog';
import { StdioLines } from './stdioLines';

/** How long a session that cannot take pushes leaves a due wake to a `life-thread wait` before it holds it for a window. */
export const WAITER_FIRST_MS = 1000;
/** MCP's code for a resource that does not exist (JSON-RPC leaves -32000…-32099 to servers). */
const RESOURCE_NOT_FOUND = -32002;
/** Deep links a landing may use (VS Code's schemes; no window to ask for its own). */
const URI_SCHEMES = ['vscode', 'vscode-insiders', 'code-oss'];
const WAKE_URI = /^lifethread:\/\/wakes\/(w-[A-Za-z0-9_-]{1,40})$/;

/** Claude Code channels (research preview): the capability and the notification its documentation names. */
const CHANNEL_CAPABILITY = 'claude/channel';
interface ChannelNotification extends Notification {
  method: 'notifications/claude/channel';
  params: { content: string; meta: Record<string, string> };
}

export const INSTRUCTIONS = [
  'Life Thread keeps durable reminders, scheduled commands and wakes. Call lifethread_sendToLifeThread to be woken later (a timer, or when a `life-thread run` job ends) instead of polling.',
  'A wake comes back as a pulse: the text you left yourself, then a `life_wake:` block (wake id, reason, job status and exit code, a one-line summary, a landing on the evidence). Continue the work it names.',
  'With Claude Code channels the pulse arrives as a <channel source="life-thread" wake_id="w-…" reason="…"> event. Otherwise run `life-thread wait <wake id>` as a background command: it prints the pulse when the wake fires.',
].join('\n');

export interface McpServeOptions {
  storeDir: string;
  /** The server's working directory: the owner's `cwd`, command rows' directory, the folder anchors may read. */
  cwd: string;
  tz: string;
  version: string;
  lockWaitMs?: number;
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics (stderr): never stdout, which carries the protocol. */
  log?: (line: string) => void;
}

function sameProcess(owner: Owner | undefined, holder: Holder): boolean {
  return owner?.kind === 'mcp' && owner.pid === holder.pid && owner.start === holder.start && owner.host === holder.host;
}

function toolError(err: unknown): CallToolResult {
  const text =
    err instanceof InputError
      ? `Invalid input — ${err.field}: ${err.reason}`
      : err instanceof StoreError
        ? `The store cannot be used: ${err.message}`
        : `Life Thread failed: ${err instanceof Error ? err.message : String(err)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Serves one MCP session on stdio; resolves when the client closes it. */
export async function serveMcp(opts: McpServeOptions): Promise<void> {
  const log = opts.log ?? (() => undefined);
  // The courier watches the store directory: a first session on a new store makes it.
  await mkdir(opts.storeDir, { recursive: true });
  const holder = holderFor('mcp');
  const schedule = new ScheduleStore({ dir: opts.storeDir, lockWaitMs: opts.lockWaitMs });
  const wakes = new WakeStore({ dir: opts.storeDir, lockWaitMs: opts.lockWaitMs });
  const server = new Server<Request, ChannelNotification, Result>(
    { name: 'life-thread', version: opts.version },
    { capabilities: { tools: {}, logging: {}, resources: { subscribe: true }, experimental: { [CHANNEL_CAPABILITY]: {} } }, instructions: INSTRUCTIONS },
  );

  let logLevel: LoggingLevel | undefined;
  const subscribed = new Set<string>();
  const client = (): string => server.getClientVersion()?.name ?? 'unknown MCP client';
  const channel = (): boolean => server.getClientCapabilities()?.experimental?.[CHANNEL_CAPABILITY] !== undefined;
  const levels = LoggingLevelSchema.options;
  const logsNotice = (): boolean => logLevel !== undefined && levels.indexOf('notice') >= levels.indexOf(logLevel);
  const pushable = (row: WakeRow): boolean => channel() || logsNotice() || subscribed.has(`lifethread://wakes/${row.id}`);

  const own = (row: WakeRow): boolean => sameProcess(row.owner, holder);
  // A wake left by an earlier session in this folder whose server is gone comes back to this one.
  const adoptable = (row: WakeRow): boolean => row.owner?.kind === 'mcp' && !own(row) && row.owner.cwd === opts.cwd && processLiveness(row.owner) === false;

  const ownerFor = async (kind: 'row' | 'wake'): Promise<Owner> => {
    const folders = kind === 'wake' ? foldersHolding(await liveWindows(opts.storeDir, processLiveness), opts.cwd) : [];
    return ownerOf(holder, { kind: 'mcp', client: client(), cwd: opts.cwd, folders });
  };

  const push = async (claims: readonly ClaimedWake[]): Promise<{ channel: boolean }> => {
    const viaChannel = channel();
    for (const c of claims) {
      const pulse = renderPulse(c.row, pulseEventOutside(c.row));
      const meta: Record<string, string> = { wake_id: c.id, reason: c.row.when };
      if (c.row.fact?.jobStatus) meta.job_status = c.row.fact.jobStatus;
      if (typeof c.row.fact?.exitCode === 'number') meta.exit_code = String(c.row.fact.exitCode);
      if (viaChannel) await server.notification({ method: 'notifications/claude/channel', params: { content: pulse, meta } });
      if (logsNotice()) await server.notification({ method: 'notifications/message', params: { level: 'notice', logger: 'life-thread', data: pulse } });
      const uri = `lifethread://wakes/${c.id}`;
      if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
    }
    return { channel: viaChannel };
  };

  const courier = new WakeCourier({
    store: wakes,
    holder,
    claimable: (r) => own(r) || adoptable(r),
    dueDelayMs: (r) => (pushable(r) ? 0 : WAITER_FIRST_MS),
    takesHeld: (r) => pushable(r),
    deliver: async (claims): Promise<Delivery> => {
      if (!claims.every((c) => pushable(c.row))) return { hold: 'unreachable' };
      const sent = await push(claims);
      // Only a channel puts the pulse in front of the model; log lines and resource updates may stop at the client.
      return { fact: { delivered: true, via: 'mcp', ...(sent.channel ? {} : { unverified: true }) } };
    },
    onError: (err) => log(`wakes: ${err instanceof Error ? err.message : String(err)}`),
  });

  /** Wakes of this session that waited for a receiver ride on the answer to its next tool call. */
  const carryHeld = async (): Promise<string> => {
    const held = (await wakes.list()).filter((r) => r.status === 'held' && r.heldReason === 'unreachable' && own(r));
    if (held.length === 0) return '';
    const claims = await wakes.claimHeld({ now: new Date(), holder }, { eligible: (r) => r.status === 'held' && r.heldReason === 'unreachable' && own(r) });
    if (claims.length === 0) return '';
    const pulses = claims.map((c) => renderPulse(c.row, pulseEventOutside(c.row)));
    await wakes.delivered(
      claims.map((c) => c.id),
      { delivered: true, via: 'mcp' },
    );
    return `\n\nWakes that fired while no receiver was listening:\n\n${pulses.join('\n\n')}`;
  };

  const hosts = (): McpToolHosts => ({
    schedule: {
      store: schedule,
      now: () => new Date(),
      zone: () => opts.tz,
      health: () => pulseHealthLine(opts.storeDir, new Date()),
      envPath: process.env.PATH,
      cwd: () => ({ dir: opts.cwd }),
    },
    wake: {
      store: wakes,
      commands: schedule,
      now: () => new Date(),
      zone: () => opts.tz,
      owner: { kind: 'mcp' },
      // Outside a window: anchored from the file on disk inside the server's folder (no symbol provider).
      landing: (input, field) =>
        landingFromInput(input, {
          cwd: opts.cwd,
          uriSchemes: URI_SCHEMES,
          field,
          readText: async (p) => {
            if (!isInsideFolders(p, [opts.cwd])) throw new InputError(`${field}.path`, `${p} is outside ${opts.cwd}`);
            return readFile(p, 'utf8');
          },
        }),
      changed: () => courier.poke(),
      note: (row) =>
        channel()
          ? ' It comes back into this session as a channel event.'
          : ` To be told here when it fires, run \`${cliLine(opts.storeDir, ['wait', row.id, '--store', opts.storeDir])}\` as a background command (it prints the pulse); without one it goes to @life in a VS Code window of this folder.`,
    },
    anchor: {
      resolve: (anchor) => resolveAnchorOnDisk(anchor, [opts.cwd]),
      symbolStep: false,
      topicDir: (topic) => `${opts.cwd}/.life-thread/topics/${topic}`,
      noOpen: 'cannot open places outside a VS Code window; resolve without open, or use the landing in the answer',
    },
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpTools() }));
  // Calls still running when the client closes our stdin are answered before the session ends.
  const inflight = new Set<Promise<unknown>>();
  const tracked = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    void work.then(
      () => inflight.delete(work),
      () => inflight.delete(work),
    );
    return work;
  };
  const callTool = async (name: McpToolName, args: Record<string, unknown> | undefined): Promise<CallToolResult> => {
    try {
      const h = hosts();
      if (name === 'lifethread_sendToLifeThread') h.wake.owner = await ownerFor('wake');
      else h.schedule.owner = await ownerFor('row');
      const text = await callMcpTool(name, args ?? {}, h);
      const carried = await carryHeld().catch((err: unknown) => {
        log(`held wakes: ${String(err)}`);
        return '';
      });
      return { content: [{ type: 'text', text: `${text}${carried}` }] };
    } catch (err) {
      return toolError(err);
    }
  };
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    // An unknown tool is a protocol error (-32602), not a tool's result: the client called what was never listed.
    const name = req.params.name;
    if (!isMcpToolName(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name} (tools: ${mcpTools().map((t) => t.name).join(', ')})`);
    return tracked(callTool(name, req.params.arguments));
  });
  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    logLevel = req.params.level;
    courier.poke();
    return {};
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: 'lifethread://wakes/{id}', name: 'wake', description: 'A wake of this session: its pulse once it fired. Subscribe to be told when it fires.', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await wakes.list()).filter(own).map((r) => ({ uri: `lifethread://wakes/${r.id}`, name: r.id, description: `${r.when} wake, ${r.status}`, mimeType: 'text/plain' })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const id = WAKE_URI.exec(req.params.uri)?.[1];
    const row = id === undefined ? undefined : await wakes.get(id);
    if (!row) throw new McpError(RESOURCE_NOT_FOUND, `resource not found: ${req.params.uri}`, { uri: req.params.uri });
    // The update is sent while the wake is being delivered (the row is marked fired right after), so a
    // client that reads at once finds a claimed, triggered row: its pulse is already fixed.
    const ready = row.status === 'fired' || (row.status === 'delivering' && row.triggeredAt !== undefined);
    const text = ready ? renderPulse(row, pulseEventOutside(row)) : `${row.id} is ${row.status}; its pulse is here once it fires.`;
    return { contents: [{ uri: req.params.uri, mimeType: 'text/plain', text }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, (req) => {
    subscribed.add(req.params.uri);
    courier.poke();
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });

  const stdin = opts.stdin ?? process.stdin;
  const transport = new StdioLines(stdin, opts.stdout ?? process.stdout, log);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  // The client closing our stdin ends the session (the SDK transport does not watch for it).
  let ending = false;
  const end = (): void => {
    if (ending) return;
    ending = true;
    void Promise.allSettled([...inflight])
      // The SDK sends an answer a few microtasks after its handler settles: close on the next turn.
      .then(() => new Promise((res) => setImmediate(res)))
      .then(() => transport.close());
  };
  stdin.once('end', end);
  stdin.once('close', end);
  server.oninitialized = () => courier.poke();
  await server.connect(transport);
  courier.start();
  await closed;
  courier.stop();
  await courier.settle();
}
