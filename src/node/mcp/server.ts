/**
 * `life-thread mcp` (README "MCP and terminal agents"): a stdio MCP server over the store, built on
 * the official SDK. It offers the language-model tools (./catalog.ts), records its client as the
 * owner of the rows it adds, and takes part in the wakes' claim protocol like a window
 * (../wakeLoop.ts), so a wake set here fires whether or not VS Code is open. Delivery, in order:
 * pushed into this session where the client takes pushes (Claude Code channels; MCP log messages or
 * resource updates), or printed by a `life-thread wait` on it; otherwise it is held for a VS Code
 * window of its folder (falling back to a notification there), and the answer to the session's next
 * tool call carries it.
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
import { WAKE_URI_PREFIX, wakeIdOfUri, wakeUri } from '../../core/ids';
import { cliLine } from '../../core/mcpConfig';
import type { Owner } from '../../core/schema';
import type { OwnerZone } from '../../core/time/ownerZone';
import { renderPulse } from '../../core/wake/pulse';
import { pulseEventOutside } from '../pulseOutside';
import type { ClaimedWake, WakeRow } from '../../core/wake/row';
import { pulseHealthLine } from '../health';
import { landingFromInput } from '../landingInput';
import { holderFor, processLiveness } from '../liveness';
import { ScheduleStore } from '../schedule';
import { StoreError } from '../store/errors';
import { resolveAnchorOnDisk } from '../tools/anchorTool';
import { WakeLoop, type Delivery } from '../wakeLoop';
import { commandWakeHook, rederiveCommandWakes } from '../commandWakes';
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
  /** The owner's zone, asked on every tool call: the store's owner.json can change while the server runs. */
  zone: () => Promise<OwnerZone>;
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

type McpServer = Server<Request, ChannelNotification, Result>;

/** What this session's client takes: channel events, log messages at the level it set, updates of the wake resources it subscribed to. */
class ClientReach {
  logLevel: LoggingLevel | undefined;
  readonly subscribed = new Set<string>();

  constructor(private readonly server: McpServer) {}

  channel(): boolean {
    return this.server.getClientCapabilities()?.experimental?.[CHANNEL_CAPABILITY] !== undefined;
  }

  logsNotice(): boolean {
    const levels = LoggingLevelSchema.options;
    return this.logLevel !== undefined && levels.indexOf('notice') >= levels.indexOf(this.logLevel);
  }

  /** The wake's pulse can be pushed into this session (no `life-thread wait` needed). */
  pushable(row: WakeRow): boolean {
    return this.channel() || this.logsNotice() || this.subscribed.has(wakeUri(row.id));
  }
}

/** What the parts of one session share: its options, its stores, itself as a wake holder, the SDK server and its client's reach. */
interface Session {
  opts: McpServeOptions;
  log: (line: string) => void;
  holder: Holder;
  wakes: WakeStore;
  schedule: ScheduleStore;
  server: McpServer;
  reach: ClientReach;
}

function openSession(opts: McpServeOptions, log: (line: string) => void): Session {
  const holder = holderFor('mcp');
  const wakes = new WakeStore({ dir: opts.storeDir, lockWaitMs: opts.lockWaitMs });
  // A command row removed through the tools fires the wakes waiting on it as lost.
  const schedule = new ScheduleStore({ dir: opts.storeDir, lockWaitMs: opts.lockWaitMs, commandEnds: commandWakeHook(wakes, holder, (line) => log(`wakes: ${line}`)) });
  const server: McpServer = new Server<Request, ChannelNotification, Result>(
    { name: 'life-thread', version: opts.version },
    { capabilities: { tools: {}, logging: {}, resources: { subscribe: true }, experimental: { [CHANNEL_CAPABILITY]: {} } }, instructions: INSTRUCTIONS },
  );
  return { opts, log, holder, wakes, schedule, server, reach: new ClientReach(server) };
}

function ownRow(s: Session, row: WakeRow): boolean {
  return sameProcess(row.owner, s.holder);
}

/** A wake left by an earlier session in this folder whose server is gone comes back to this one. */
function adoptable(s: Session, row: WakeRow): boolean {
  return row.owner?.kind === 'mcp' && !ownRow(s, row) && row.owner.cwd === s.opts.cwd && processLiveness(row.owner) === false;
}

async function ownerFor(s: Session, kind: 'row' | 'wake'): Promise<Owner> {
  const folders = kind === 'wake' ? foldersHolding(await liveWindows(s.opts.storeDir, processLiveness), s.opts.cwd) : [];
  return ownerOf(s.holder, { kind: 'mcp', client: s.server.getClientVersion()?.name ?? 'unknown MCP client', cwd: s.opts.cwd, folders });
}

/** Sends each claimed wake's pulse every way the client takes it. */
async function pushPulses(s: Session, claims: readonly ClaimedWake[]): Promise<{ channel: boolean }> {
  const viaChannel = s.reach.channel();
  for (const c of claims) {
    const pulse = renderPulse(c.row, pulseEventOutside(c.row));
    const meta: Record<string, string> = { wake_id: c.id, reason: c.row.when };
    if (c.row.fact?.jobStatus) meta.job_status = c.row.fact.jobStatus;
    if (typeof c.row.fact?.exitCode === 'number') meta.exit_code = String(c.row.fact.exitCode);
    if (c.row.fact?.redelivered) meta.redelivered = 'true';
    if (c.row.fact?.timedOut === true) meta.timed_out = 'true';
    if (viaChannel) await s.server.notification({ method: 'notifications/claude/channel', params: { content: pulse, meta } });
    if (s.reach.logsNotice()) await s.server.notification({ method: 'notifications/message', params: { level: 'notice', logger: 'life-thread', data: pulse } });
    const uri = wakeUri(c.id);
    if (s.reach.subscribed.has(uri)) await s.server.sendResourceUpdated({ uri });
  }
  return { channel: viaChannel };
}

/** The session's part in the wakes' claim protocol: it claims its own wakes (and adoptable ones) and pushes them when it can. */
function sessionCourier(s: Session): WakeLoop {
  return new WakeLoop({
    store: s.wakes,
    holder: s.holder,
    claimable: (r) => ownRow(s, r) || adoptable(s, r),
    dueDelayMs: (r) => (s.reach.pushable(r) ? 0 : WAITER_FIRST_MS),
    reachable: (r) => s.reach.pushable(r),
    watchStore: true,
    deliver: async ({ claims }): Promise<Delivery> => {
      if (!claims.every((c) => s.reach.pushable(c.row))) return { hold: 'unreachable' };
      const sent = await pushPulses(s, claims);
      // Only a channel puts the pulse in front of the model; log lines and resource updates may stop at the client.
      return { fact: { delivered: true, via: 'mcp', ...(sent.channel ? {} : { unverified: true }) } };
    },
    rederive: (rows) => rederiveCommandWakes(s.wakes, rows, () => s.schedule.listCommands(), s.holder),
    onError: (err) => s.log(`wakes: ${err instanceof Error ? err.message : String(err)}`),
  });
}

/** Wakes of this session that waited for a receiver ride on the answer to its next tool call. */
async function carryHeld(s: Session): Promise<string> {
  const heldHere = (r: WakeRow): boolean => r.status === 'held' && r.heldReason === 'unreachable' && ownRow(s, r);
  const held = (await s.wakes.list()).filter(heldHere);
  if (held.length === 0) return '';
  const claims = await s.wakes.claimHeld({ now: new Date(), holder: s.holder }, { eligible: heldHere });
  if (claims.length === 0) return '';
  const pulses = claims.map((c) => renderPulse(c.row, pulseEventOutside(c.row)));
  await s.wakes.delivered(
    claims.map((c) => c.id),
    { delivered: true, via: 'mcp' },
  );
  return `\n\nWakes that fired while no receiver was listening:\n\n${pulses.join('\n\n')}`;
}

/** What the tools of ./catalog.ts act on in this session, in the owner's zone of this call. */
function toolHosts(s: Session, courier: WakeLoop, zone: OwnerZone): McpToolHosts {
  const { opts } = s;
  return {
    schedule: {
      store: s.schedule,
      now: () => new Date(),
      zone: () => zone,
      health: () => pulseHealthLine(opts.storeDir, new Date()),
      envPath: process.env.PATH,
      cwd: () => ({ dir: opts.cwd }),
    },
    wake: {
      store: s.wakes,
      commands: s.schedule,
      now: () => new Date(),
      zone: () => zone,
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
        s.reach.channel()
          ? ' It comes back into this session as a channel event.'
          : ` To be told here when it fires, run \`${cliLine(opts.storeDir, ['wait', row.id, '--store', opts.storeDir])}\` as a background command (it prints the pulse); without one it goes to @life in a VS Code window of this folder.`,
    },
    anchor: {
      resolve: (anchor) => resolveAnchorOnDisk(anchor, [opts.cwd]),
      symbolStep: false,
      topicDir: (topic) => `${opts.cwd}/.life-thread/topics/${topic}`,
      noOpen: 'cannot open places outside a VS Code window; resolve without open, or use the landing in the answer',
    },
  };
}

async function callTool(s: Session, courier: WakeLoop, name: McpToolName, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  try {
    const h = toolHosts(s, courier, await s.opts.zone());
    if (name === 'lifethread_sendToLifeThread') h.wake.owner = await ownerFor(s, 'wake');
    else h.schedule.owner = await ownerFor(s, 'row');
    const text = await callMcpTool(name, args ?? {}, h);
    const carried = await carryHeld(s).catch((err: unknown) => {
      s.log(`held wakes: ${String(err)}`);
      return '';
    });
    return { content: [{ type: 'text', text: `${text}${carried}` }] };
  } catch (err) {
    return toolError(err);
  }
}

/** The tools: listed from ./catalog.ts and called there. Returns the calls still running, which the session answers before it ends. */
function serveTools(s: Session, courier: WakeLoop): ReadonlySet<Promise<unknown>> {
  const inflight = new Set<Promise<unknown>>();
  const tracked = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    void work.then(
      () => inflight.delete(work),
      () => inflight.delete(work),
    );
    return work;
  };
  s.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpTools() }));
  s.server.setRequestHandler(CallToolRequestSchema, (req) => {
    // An unknown tool is a protocol error (-32602), not a tool's result: the client called what was never listed.
    const name = req.params.name;
    if (!isMcpToolName(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name} (tools: ${mcpTools().map((t) => t.name).join(', ')})`);
    return tracked(callTool(s, courier, name, req.params.arguments));
  });
  return inflight;
}

/** The session's wakes as resources `lifethread://wakes/<id>`: listed, and read as their pulse once fired. */
function serveResources(s: Session): void {
  s.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: `${WAKE_URI_PREFIX}{id}`, name: 'wake', description: 'A wake of this session: its pulse once it fired. Subscribe to be told when it fires.', mimeType: 'text/plain' }],
  }));
  s.server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await s.wakes.list()).filter((r) => ownRow(s, r)).map((r) => ({ uri: wakeUri(r.id), name: r.id, description: `${r.when} wake, ${r.status}`, mimeType: 'text/plain' })),
  }));
  s.server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const id = wakeIdOfUri(req.params.uri);
    const row = id === undefined ? undefined : await s.wakes.get(id);
    if (!row) throw new McpError(RESOURCE_NOT_FOUND, `resource not found: ${req.params.uri}`, { uri: req.params.uri });
    // The update is sent while the wake is being delivered (the row is marked fired right after), so a
    // client that reads at once finds a claimed, triggered row: its pulse is already fixed.
    const ready = row.status === 'fired' || (row.status === 'delivering' && row.triggeredAt !== undefined);
    const text = ready ? renderPulse(row, pulseEventOutside(row)) : `${row.id} is ${row.status}; its pulse is here once it fires.`;
    return { contents: [{ uri: req.params.uri, mimeType: 'text/plain', text }] };
  });
}

/** What the client asks to be pushed: a log level, or a wake resource's updates. Either may make a held wake deliverable now. */
function serveSubscriptions(s: Session, courier: WakeLoop): void {
  s.server.setRequestHandler(SetLevelRequestSchema, (req) => {
    s.reach.logLevel = req.params.level;
    courier.poke();
    return {};
  });
  s.server.setRequestHandler(SubscribeRequestSchema, (req) => {
    s.reach.subscribed.add(req.params.uri);
    courier.poke();
    return {};
  });
  s.server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    s.reach.subscribed.delete(req.params.uri);
    return {};
  });
}

/** The stdio transport, closed once the client closes our stdin and the calls still running are answered. */
function stdioTransport(s: Session, inflight: ReadonlySet<Promise<unknown>>): { transport: StdioLines; closed: Promise<void> } {
  const stdin = s.opts.stdin ?? process.stdin;
  const transport = new StdioLines(stdin, s.opts.stdout ?? process.stdout, s.log);
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
  return { transport, closed };
}

/** Serves one MCP session on stdio; resolves when the client closes it. */
export async function serveMcp(opts: McpServeOptions): Promise<void> {
  const log = opts.log ?? (() => undefined);
  // The courier watches the store directory: a first session on a new store makes it.
  await mkdir(opts.storeDir, { recursive: true });
  const session = openSession(opts, log);
  const courier = sessionCourier(session);
  const inflight = serveTools(session, courier);
  serveResources(session);
  serveSubscriptions(session, courier);
  const { transport, closed } = stdioTransport(session, inflight);
  session.server.oninitialized = () => courier.poke();
  await session.server.connect(transport);
  void courier.start();
  await closed;
  courier.stop();
  await courier.settle();
}
