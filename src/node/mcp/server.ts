/**
 * `life-thread mcp` (README "MCP and terminal agents"): a stdio MCP server over the store, built on
 * the official SDK. It offers the language-model tools and `lifethread_wait` (./catalog.ts), records its
 * client as the owner of the rows it adds, and takes part in the wakes' claim protocol like a window
 * (../wakeLoop.ts), so a wake set here fires whether or not VS Code is open. Delivery: into a
 * `lifethread_wait` call waiting on it (verified); else a `life-thread wait` on it gets the first
 * moment (via wait, unverified); else it is pushed into the session as a Claude Code channel event
 * (and a log message or resource update where asked), recorded unverified, and the session's next
 * tool answer carries it again, which verifies it (./carry.ts). Once the session ended, its wakes go to
 * the next session of the same client and folder (./session.ts) or a VS Code window of the folder.
 *
 * Bundled apart (dist/mcp.js) and loaded only by this verb, so the SDK never slows other verbs.
 */
import { mkdir, readFile } from 'node:fs/promises';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ownerOf } from '../../core/claim';
import { InputError } from '../../core/errors';
import { isInsideFolders } from '../../core/landing';
import { WAKE_URI_PREFIX, wakeIdOfUri, wakeUri } from '../../core/ids';
import type { Owner } from '../../core/schema';
import type { OwnerZone } from '../../core/time/ownerZone';
import { pulseEventOutside } from '../pulseOutside';
import type { ClaimedWake, WakeRow } from '../../core/wake/row';
import { pulseHealthLine } from '../health';
import { landingFromInput } from '../landingInput';
import { processLiveness } from '../liveness';
import { StoreError } from '../store/errors';
import { resolveAnchorOnDisk } from '../tools/anchorTool';
import { WakeLoop, type Delivery, type WakeBatch } from '../wakeLoop';
import { rederiveCommandWakes } from '../commandWakes';
import { foldersHolding, liveWindows } from '../windows';
import { carryPulses, sessionPulse } from './carry';
import { callMcpTool, isMcpToolName, mcpTools, type McpToolHosts, type McpToolName } from './catalog';
import { INSTRUCTIONS, wakeNote } from './instructions';
import { adoptable, clientName, ofThisFolder, openSession, ownRow, type McpServeOptions, type Session } from './session';
import { StdioLines } from './stdioLines';
import { waitTool } from './waitTool';

/** How long a session whose client asked for no push leaves a due wake to a `life-thread wait` before it pushes it itself. */
const WAITER_FIRST_MS = 1000;
/** MCP's code for a resource that does not exist (JSON-RPC leaves -32000…-32099 to servers). */
const RESOURCE_NOT_FOUND = -32002;
/** Deep links a landing may use (VS Code's schemes; no window to ask for its own). */
const URI_SCHEMES = ['vscode', 'vscode-insiders', 'code-oss'];

function toolError(err: unknown): CallToolResult {
  const text =
    err instanceof InputError
      ? `Invalid input — ${err.field}: ${err.reason}`
      : err instanceof StoreError
        ? `The store cannot be used: ${err.message}`
        : `Life Thread failed: ${err instanceof Error ? err.message : String(err)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

async function ownerFor(s: Session, kind: 'row' | 'wake'): Promise<Owner> {
  const folders = kind === 'wake' ? foldersHolding(await liveWindows(s.opts.storeDir, processLiveness), s.opts.cwd) : [];
  return ownerOf(s.holder, { kind: 'mcp', client: clientName(s), cwd: s.opts.cwd, folders });
}

/** Pushes each claimed wake's pulse into the session: a channel event always, a log message or a resource update where the client asked. */
async function pushPulses(s: Session, claims: readonly ClaimedWake[]): Promise<void> {
  for (const c of claims) {
    const pulse = sessionPulse(s, c.row);
    const meta: Record<string, string> = { wake_id: c.id, reason: c.row.when };
    if (c.row.fact?.jobStatus) meta.job_status = c.row.fact.jobStatus;
    if (typeof c.row.fact?.exitCode === 'number') meta.exit_code = String(c.row.fact.exitCode);
    if (c.row.fact?.redelivered) meta.redelivered = 'true';
    if (c.row.fact?.timedOut === true) meta.timed_out = 'true';
    // Claude Code reads channel events without declaring so (when started with channels); other clients ignore them.
    await s.server.notification({ method: 'notifications/claude/channel', params: { content: pulse, meta } });
    if (s.reach.logsNotice()) await s.server.notification({ method: 'notifications/message', params: { level: 'notice', logger: 'life-thread', data: pulse } });
    const uri = wakeUri(c.id);
    if (s.reach.subscribed.has(uri)) await s.server.sendResourceUpdated({ uri });
  }
}

/** One pulse for a batch (its further wakes on `also_wake:` lines), with the landing re-found on disk. */
function batchPulse(s: Session, b: WakeBatch): string {
  const first = b.claims[0];
  if (!first) return '';
  const outside = pulseEventOutside(first.row);
  return sessionPulse(s, first.row, { ...b.event, ...(outside.landing ? { landing: outside.landing } : {}), ...(outside.landingStep ? { landingStep: outside.landingStep } : {}) });
}

/**
 * The session's part in the wakes' claim protocol. It claims its own wakes, those an ended session of
 * its client and folder left, and any of its folder a `lifethread_wait` call waits on. A waiting call
 * gets the pulse in its answer (verified); otherwise its own wakes are pushed (unverified, and carried
 * by the next tool answer) and an ended session's wait for the next tool answer.
 */
function sessionCourier(s: Session): WakeLoop {
  const waited = (r: WakeRow): boolean => s.waits.has(r.id) && r.owner?.kind !== 'window' && ofThisFolder(s, r);
  return new WakeLoop({
    store: s.wakes,
    holder: s.holder,
    claimable: (r) => ownRow(s, r) || adoptable(s, r) || waited(r),
    dueDelayMs: (r) => (s.reach.asked(r) || s.waits.has(r.id) ? 0 : WAITER_FIRST_MS),
    reachable: (r) => ownRow(s, r) || waited(r),
    watchStore: true,
    deliver: async (b): Promise<Delivery> => {
      const ids = b.claims.map((c) => c.id);
      // Only a wake an ended session of this client and folder set is `earlier_session`; one a
      // `lifethread_wait` collects (set from the CLI, say) is not this session's either, but was never
      // an earlier session's.
      const earlier = b.claims.filter((c) => adoptable(s, c.row)).map((c) => c.id);
      const notOwn = b.claims.some((c) => !ownRow(s, c.row));
      if (ids.some((id) => s.waits.has(id))) {
        if (earlier.length > 0) await s.wakes.annotate(earlier, { earlierSession: true });
        if (s.waits.hand(ids, batchPulse(s, b))) return { fact: { delivered: true, via: 'mcp' } };
      }
      if (notOwn) return { hold: 'unreachable' };
      await pushPulses(s, b.claims);
      // A push may stop at the client: unverified until a tool answer carries the pulse (./carry.ts).
      return { fact: { delivered: true, via: 'mcp', unverified: true } };
    },
    observe: (rows) => {
      for (const l of [...s.waits.listeners]) l(rows);
    },
    rederive: (rows) => rederiveCommandWakes(s.wakes, rows, () => s.schedule.listCommands(), s.holder),
    onError: (err) => s.log(`wakes: ${err instanceof Error ? err.message : String(err)}`),
  });
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
      note: (row) => wakeNote(opts.storeDir, row, new Date()),
    },
    anchor: {
      resolve: (anchor) => resolveAnchorOnDisk(anchor, [opts.cwd]),
      symbolStep: false,
      topicDir: (topic) => `${opts.cwd}/.life-thread/topics/${topic}`,
      noOpen: 'cannot open places outside a VS Code window; resolve without open, or use the landing in the answer',
    },
    wait: (args) => waitTool(s, courier, args),
  };
}

async function callTool(s: Session, courier: WakeLoop, name: McpToolName, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
  try {
    const h = toolHosts(s, courier, await s.opts.zone());
    if (name === 'lifethread_sendToLifeThread') h.wake.owner = await ownerFor(s, 'wake');
    else h.schedule.owner = await ownerFor(s, 'row');
    const text = await callMcpTool(name, args ?? {}, h);
    const carried = await carryPulses(s).catch((err: unknown) => {
      s.log(`carried wakes: ${String(err)}`);
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
    const text = ready ? sessionPulse(s, row) : `${row.id} is ${row.status}; its pulse is here once it fires.`;
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
  const session = openSession(opts, log, INSTRUCTIONS);
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
