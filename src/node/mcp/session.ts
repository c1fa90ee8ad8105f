/**
 * One `life-thread mcp` session (./server.ts): its options, its stores, itself as a wake holder, the
 * SDK server, what its client takes, and which wakes are its own — those it set, those an ended
 * session of the same client and folder left (`earlier_session`), and those a `lifethread_wait`
 * call of it waits on (./waitTool.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LoggingLevelSchema, type LoggingLevel, type Notification, type Request, type Result } from '@modelcontextprotocol/sdk/types.js';
import type { Holder } from '../../core/claim';
import { fileUriOfPath, hostPathRules, uriInsideFolder } from '../../core/folderUri';
import { wakeUri } from '../../core/ids';
import type { Owner } from '../../core/schema';
import type { OwnerZone } from '../../core/time/ownerZone';
import type { WakeRow } from '../../core/wake/row';
import { commandWakeHook } from '../commandWakes';
import { holderFor, processLiveness } from '../liveness';
import { ScheduleStore } from '../schedule';
import { WakeStore } from '../wakes';

/** Claude Code channels: the capability the server declares and the notification it pushes. */
export const CHANNEL_CAPABILITY = 'claude/channel';
export interface ChannelNotification extends Notification {
  method: 'notifications/claude/channel';
  params: { content: string; meta: Record<string, string> };
}

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

export type McpServer = Server<Request, ChannelNotification, Result>;

/** What this session's client asked to be pushed besides channel events: log messages at a level, updates of wake resources. */
export class ClientReach {
  logLevel: LoggingLevel | undefined;
  readonly subscribed = new Set<string>();

  constructor(private readonly server: McpServer) {}

  /** The client said it reads channel events (Claude Code does not say so; it is pushed them all the same). */
  declaresChannel(): boolean {
    return this.server.getClientCapabilities()?.experimental?.[CHANNEL_CAPABILITY] !== undefined;
  }

  logsNotice(): boolean {
    const levels = LoggingLevelSchema.options;
    return this.logLevel !== undefined && levels.indexOf('notice') >= levels.indexOf(this.logLevel);
  }

  /** The client asked for something it shows as it comes: the pulse need not wait for a `life-thread wait`. */
  asked(row: WakeRow): boolean {
    return this.declaresChannel() || this.logsNotice() || this.subscribed.has(wakeUri(row.id));
  }
}

/** The `lifethread_wait` calls in flight, by wake id: a delivery hands its pulse to the first that takes it. */
export class WaitBoard {
  private readonly byId = new Map<string, Set<(pulse: string) => boolean>>();
  /** Every call waiting now is told when the table changed. */
  readonly listeners = new Set<(rows: readonly WakeRow[]) => void>();

  has(id: string): boolean {
    return (this.byId.get(id)?.size ?? 0) > 0;
  }

  add(id: string, take: (pulse: string) => boolean): () => void {
    const set = this.byId.get(id) ?? new Set();
    set.add(take);
    this.byId.set(id, set);
    return () => {
      set.delete(take);
      if (set.size === 0) this.byId.delete(id);
    };
  }

  /** Hands the pulse to a call waiting on one of `ids`; false when none took it (all timed out meanwhile). */
  hand(ids: readonly string[], pulse: string): boolean {
    for (const id of ids) for (const take of [...(this.byId.get(id) ?? [])]) if (take(pulse)) return true;
    return false;
  }
}

/** What the parts of one session share. */
export interface Session {
  opts: McpServeOptions;
  log: (line: string) => void;
  holder: Holder;
  wakes: WakeStore;
  schedule: ScheduleStore;
  server: McpServer;
  reach: ClientReach;
  waits: WaitBoard;
}

export function openSession(opts: McpServeOptions, log: (line: string) => void, instructions: string): Session {
  const holder = holderFor('mcp');
  const wakes = new WakeStore({ dir: opts.storeDir, lockWaitMs: opts.lockWaitMs });
  // A command row removed through the tools fires the wakes waiting on it as lost.
  const schedule = new ScheduleStore({ dir: opts.storeDir, lockWaitMs: opts.lockWaitMs, commandEnds: commandWakeHook(wakes, holder, (line) => log(`wakes: ${line}`)) });
  const server: McpServer = new Server<Request, ChannelNotification, Result>(
    { name: 'life-thread', version: opts.version },
    { capabilities: { tools: {}, logging: {}, resources: { subscribe: true }, experimental: { [CHANNEL_CAPABILITY]: {} } }, instructions },
  );
  return { opts, log, holder, wakes, schedule, server, reach: new ClientReach(server), waits: new WaitBoard() };
}

export function clientName(s: Session): string {
  return s.server.getClientVersion()?.name ?? 'unknown MCP client';
}

function sameProcess(owner: Owner | undefined, holder: Holder): boolean {
  return owner?.kind === 'mcp' && owner.pid === holder.pid && owner.start === holder.start && owner.host === holder.host;
}

/** Set by this session. */
export function ownRow(s: Session, row: WakeRow): boolean {
  return sameProcess(row.owner, s.holder);
}

/** Left by an ended session of the same client in this folder: it comes to this one, marked `earlier_session`. */
export function adoptable(s: Session, row: WakeRow): boolean {
  const o = row.owner;
  return o?.kind === 'mcp' && !ownRow(s, row) && o.cwd === s.opts.cwd && o.client === clientName(s) && processLiveness(o) === false;
}

/** Set for this session's folder: by a process in it, or by a window one of whose folders holds it. */
export function ofThisFolder(s: Session, row: WakeRow): boolean {
  const o = row.owner;
  if (o?.cwd !== undefined) return o.cwd === s.opts.cwd;
  const rules = hostPathRules();
  const here = fileUriOfPath(s.opts.cwd, rules);
  return (o?.folders ?? []).some((f) => uriInsideFolder(here, f, rules));
}

/** Where a wake was set, for an answer that refuses it. */
export function folderOfRow(row: WakeRow): string {
  const o = row.owner;
  return o?.cwd ?? (o?.folders && o.folders.length > 0 ? o.folders.join(', ') : 'no folder recorded');
}
