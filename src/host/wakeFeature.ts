import * as vscode from 'vscode';
import { mayFire, ownerOf, type Holder } from '../core/claim';
import { InputError } from '../core/errors';
import { fileLink, parseQuery, wakeQuerySchema, type LandingRef } from '../core/landing';
import type { LandingInput, WakeWhen } from '../core/wake/contract';
import { coalesce, type WakeTrigger } from '../core/wake/coalesce';
import { deskAtDelivery, jobStatus, pulseEventOfRow, pulseWakeIds, renderPulse, type PulseEvent } from '../core/wake/pulse';
import { findCodeLocus } from '../core/codeLocus';
import type { CodeAnchor } from '../core/codeAnchor';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { capRoom, describeWake, HELD_WORDS, mayDeliver, nextDueAt, unreachableTooLong, type ClaimedWake, type HeldReason, type WakeOutcome, type WakeRow } from '../core/wake/row';
import { PLACEHOLDER, resumePack } from '../core/continuity';
import { EVIDENCE_DIR, pruneEvidence, writeEvidence } from '../node/evidence';
import { randomBase36 } from '../node/ids';
import { holderFor, processLiveness } from '../node/liveness';
import { readAllDecisions } from '../node/topicFiles';
import { WakeStore } from '../node/wakes';
import { readWakesPaused, writeWakesPaused } from '../node/wakePause';
import { sendToLifeThread, type WakeToolAnswer } from '../node/tools/wakeTool';
import type { Continuity } from './continuity';
import type { FeedFeature } from './feedFeature';
import type { Lander, LandResult } from './landing';
import type { HostDesk } from './desk';
import { isLoopbackUrl } from '../core/loopback';
import { MAX_WAKES_PER_HOUR, type DeskState } from '../core/wake/contract';
import { ownerZone, type ScheduleFeature } from './scheduleFeature';
import { setting, WINDOW_ID } from './settings';
import { Triggers, type JobEndEvent, type TriggerEvent } from './triggers';
import type { ViewModel } from './viewModel';
import { OFFLINE_SELECTOR, realModels } from './offlineModel';
import { describeTrace, mark, traceSteps, type WakeTrace } from '../core/wake/trace';

const PAUSED_KEY = 'lifeThread.wakesPaused';
const MAX_SLEEP_MS = 60_000;
const COALESCE_MS = 250;
/** How long a sent pulse may take to reach @life's handler before the wake waits and is tried again. */
const RECEIPT_TIMEOUT_MS = 20_000;
/** A wake held because the chat could not be reached is tried again after this long. */
const RETRY_UNREACHABLE_MS = 20_000;
const HEARTBEAT_MS = 30_000;
const EVIDENCE_PRUNE_EVERY_MS = 6 * 3_600_000;
/** The longest a pulse waits for its landing to be on screen. */
const LANDING_FIRST_MAX_MS = 1_500;
/** How soon a window looks again at a due wake that its MCP session still keeps. */
const KEPT_RECHECK_MS = 2_000;

interface Buffered {
  claimed: ClaimedWake;
  event: PulseEvent;
  at: number;
  endedAt?: number;
  trace?: WakeTrace;
}

interface Delivery {
  claims: ClaimedWake[];
  event: PulseEvent;
  endedAt?: number;
  threadId?: string;
  trace?: WakeTrace;
}

export interface WakeMetric {
  ids: string[];
  reason: WakeWhen;
  wakeChars: number;
  timeToLocusMs?: number;
  /** From the job's end to the @life handler holding the pulse. */
  timeToPulseMs?: number;
  /** That time step by step (ms each, in order): where a slow wake's time went. */
  steps?: { step: string; ms: number }[];
  at: string;
  via: 'life' | 'agent' | 'notification' | 'unreachable';
}

/**
 * Life thread wake (design §3, §9): durable wakes and their triggers, the job-finish pipeline (evidence
 * → landing → enqueue), coalescing per thread, and ignition as a new `@life` request. Every step is
 * on disk (../core/wake/row.ts): a wake held (paused, over the hourly cap, @life busy, chat unreachable)
 * waits in `wakes.json`, and a window of its workspace delivers it after a reload or crash. A wake is
 * delivered only when the @life handler has it (its id travels with the pulse).
 */
export class WakeFeature implements vscode.Disposable {
  readonly store: WakeStore;
  readonly triggers: Triggers;
  readonly holder: Holder = holderFor(WINDOW_ID);
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** Prunes evidence past 7 days even when no new evidence is written: a minute after start, then every 6 hours. */
  private pruneTimer: NodeJS.Timeout | undefined;
  private buffer: Buffered[] = [];
  private bufferTimer: NodeJS.Timeout | undefined;
  /** Claims this window holds now (buffered or being delivered): kept alive by its heartbeat. */
  private readonly inFlight = new Map<string, ClaimedWake>();
  private readonly warmTopics = new Set<string>();
  private busy = 0;
  /** The wakes being delivered from this window: called with the instant @life's handler had each. */
  private readonly receipts = new Map<string, (at: number) => void>();
  /** `terminal:<name>` wakes bound to the terminal that had the name when the wake was set. */
  private readonly terminalBindings = new Map<string, vscode.Terminal>();
  private ticking = false;
  readonly metrics: WakeMetric[] = [];
  private readonly _onDidDeliver = new vscode.EventEmitter<WakeMetric & { text: string; landing?: LandResult }>();
  readonly onDidDeliver = this._onDidDeliver.event;
  private readonly _onDidReceive = new vscode.EventEmitter<{ ids: string[]; at: number }>();
  /** The @life handler has a pulse (the moment job_end_to_pulse counts to). */
  readonly onDidReceive = this._onDidReceive.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly storeDir: string,
    private readonly model: ViewModel,
    private readonly lander: Lander,
    private readonly desk: HostDesk,
    private readonly schedule: ScheduleFeature,
    private readonly continuity: Continuity,
    private readonly feed: FeedFeature,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store = new WakeStore({ dir: storeDir });
    this.triggers = new Triggers(log);
  }

  /** The user's pause, from the store (it survives reloads and crashes; every window sees it); earlier versions kept it in globalState. */
  get paused(): boolean {
    return readWakesPaused(this.storeDir) ?? this.context.globalState.get<boolean>(PAUSED_KEY) ?? false;
  }

  /** This window's folders (URIs): it delivers wakes owned by them, and wakes with no workspace. */
  folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
  }

  private eligible = (row: WakeRow): boolean => mayDeliver(row, this.folders(), processLiveness);

  async start(): Promise<void> {
    this.schedule.paused = this.paused;
    this.triggers.start();
    void this.onlyOffline();
    this.subs.push(
      this.triggers,
      this.triggers.onDidTrigger((e) => this.track(e)),
      vscode.lm.onDidChangeChatModels(() => (this.onlyOffline$ = undefined)),
      vscode.window.onDidOpenTerminal((t) => this.bindOpenedTerminal(t)),
      this.schedule.dispatcher.onDidChange(() => this.arm(0)),
    );
    this.lander.wakeHandler = (query) => this.openWakeLink(query);
    this.heartbeatTimer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    const prune = (): void => {
      void pruneEvidence(join(this.storeDir, EVIDENCE_DIR)).catch((err: unknown) => this.log.warn(`evidence pruning: ${String(err)}`));
      this.pruneTimer = setTimeout(prune, EVIDENCE_PRUNE_EVERY_MS);
    };
    this.pruneTimer = setTimeout(prune, 60_000);
    // A reload or crash left wakes: take them over now (design §9: within 10 s of activation).
    await this.tick();
  }

  // ── @life's turns ────────────────────────────────────────────────────────────────────────────

  /** @life reports its turns: a wake that arrives meanwhile waits (held: busy) for the answer to end. */
  turnStarted(): void {
    this.busy++;
  }

  turnEnded(): void {
    this.busy = Math.max(0, this.busy - 1);
    if (this.busy === 0) setTimeout(() => void this.releaseHeld().catch((err: unknown) => this.log.warn(`wake release: ${String(err)}`)), 300);
  }

  /**
   * The @life handler got a request: when it is a pulse, its wakes are delivered (`via: life`) now —
   * the receiver has it. Returns the wakes it carried (empty when the text is not a pulse).
   */
  async received(prompt: string): Promise<WakeRow[]> {
    const ids = pulseWakeIds(prompt);
    if (ids.length === 0) return [];
    const at = Date.now();
    for (const id of ids) mark(this.traces.get(id), 'received', at);
    this._onDidReceive.fire({ ids, at });
    const delivered = await this.store.delivered(ids, { delivered: true, via: 'life' }).catch((err: unknown) => {
      this.log.warn(`wake receipt: ${String(err)}`);
      return [] as string[];
    });
    for (const id of ids) this.receipts.get(id)?.(at);
    const rows = await this.store.list().catch(() => [] as WakeRow[]);
    this.refreshView();
    if (delivered.length === 0) this.log.info(`a pulse for ${ids.join(', ')} reached @life again; it was delivered before`);
    return rows.filter((r) => ids.includes(r.id));
  }

  // ── the contract ────────────────────────────────────────────────────────────────────────────

  /** The contract (src/node/tools/wakeTool.ts), with what this window sees of its tasks and terminals. */
  async request(input: unknown, names?: Record<string, string>): Promise<WakeToolAnswer> {
    let bind: vscode.Terminal | undefined;
    let boundName: string | undefined;
    return sendToLifeThread(input, {
      store: this.store,
      commands: this.schedule.store,
      now: () => new Date(),
      zone: () => ownerZone(),
      owner: ownerOf(this.holder, { kind: 'window', folders: this.folders() }),
      ...(names ? { fieldNames: names } : {}),
      checkJob: async (parsed) => {
        const jobId = parsed.jobId ?? '';
        if (jobId.startsWith('terminal:')) {
          boundName = jobId.slice('terminal:'.length);
          // Two terminals with one name: the one in front is the one meant.
          const active = vscode.window.activeTerminal;
          bind = active?.name === boundName ? active : vscode.window.terminals.find((t) => t.name === boundName);
          return bind ? {} : { note: ` No terminal is named "${boundName}" now: the wake binds to the next one opened with that name.` };
        }
        if (vscode.tasks.taskExecutions.some((e) => e.task.name === jobId)) return { jobStartedAt: new Date() };
        const defined = await Promise.resolve(vscode.tasks.fetchTasks()).catch(() => [] as vscode.Task[]);
        return defined.some((t) => t.name === jobId) ? {} : { note: ` No task named "${jobId}" is defined in this workspace now; the wake waits until one with that name runs here.` };
      },
      added: (row) => {
        if (bind) this.terminalBindings.set(row.id, bind);
        else if (boundName !== undefined) this.pendingTerminalNames.set(row.id, boundName);
      },
      changed: () => {
        this.arm(0);
        this.refreshView();
      },
      landing: (input, field) => this.landingOf(input, field),
      note: () => (this.paused ? ' Wakes are paused: it will wait until they are resumed.' : ''),
    });
  }

  /**
   * A caller's landing as a LandingRef. A page for the desk — a report file (`.html`) or a server on
   * this machine — is remembered on the desk and lands as `cdp://evidence/<id>` (design §5).
   */
  private async landingOf(input: LandingInput, field: string): Promise<LandingRef> {
    if (input.kind === 'uri' && (isLoopbackUrl(input.uri) || /^file:\/\/\S+\.html?(?:[?#].*)?$/i.test(input.uri))) {
      return this.desk.rememberEvidence({ url: input.uri, evidenceId: `page-${randomBase36(8)}` }).catch((err: unknown) => {
        throw err instanceof InputError ? new InputError(`${field}.uri`, err.reason) : err;
      });
    }
    return this.lander.landingFor(input, field);
  }

  /** Wakes set on a terminal name that no terminal had yet: the next terminal opened with it. */
  private readonly pendingTerminalNames = new Map<string, string>();

  private bindOpenedTerminal(t: vscode.Terminal): void {
    for (const [id, name] of this.pendingTerminalNames) {
      if (t.name !== name) continue;
      this.terminalBindings.set(id, t);
      this.pendingTerminalNames.delete(id);
    }
  }

  /** Cancels one waiting wake (the sidebar's remove). */
  async cancel(id: string): Promise<WakeRow> {
    const row = await this.store.cancelById(id);
    this.terminalBindings.delete(id);
    this.pendingTerminalNames.delete(id);
    this.refreshView();
    return row;
  }

  // ── triggers → claims ───────────────────────────────────────────────────────────────────────

  /** Triggers whose claim is still being prepared, by when they happened: a pulse waits for those of its window. */
  private readonly pipelines = new Set<{ at: number; done: Promise<void> }>();

  private track(e: TriggerEvent): void {
    const at = e.kind === 'job.done' ? e.job.endedAt : e.at;
    const p = { at, done: this.onTrigger(e).catch((err: unknown) => this.log.error(`wake trigger: ${String(err)}`)) };
    this.pipelines.add(p);
    void p.done.finally(() => this.pipelines.delete(p));
  }

  private async onTrigger(e: TriggerEvent): Promise<void> {
    if (e.kind === 'job.done') return this.jobEnded(e.job);
    const match = (r: WakeRow): boolean => r.when === e.kind && this.eligible(r);
    const detail = e.kind === 'scm.changed' ? `${e.what} in ${e.repo}` : e.why;
    if (!(await this.store.list()).some((r) => r.status === 'pending' && match(r))) return;
    const claimed = await this.store.claimTriggered(match, { detail }, this.claimer());
    for (const c of claimed) this.enqueue(c, { ...pulseEventOfRow(c.row), reason: e.kind, detail }, { at: e.at });
  }

  /** Which pending wakes a job's end fires in this window (design §8 job_id, §9 ownership). */
  private jobMatcher(job: JobEndEvent): (r: WakeRow) => boolean {
    return (r) => {
      if (r.status !== 'pending' || r.when !== 'job.done' || r.jobId === undefined || !this.eligible(r)) return false;
      if (job.source === 'command') return r.jobId === job.jobId;
      // Task and terminal wakes set in a window bind to the job as that window sees it.
      const watcher = r.owner?.window ?? r.window;
      if (watcher !== undefined && watcher !== WINDOW_ID.slice(0, 80)) return false;
      if (job.source === 'terminal') {
        const bound = this.terminalBindings.get(r.id);
        if (bound) return bound === job.terminal;
        return r.jobId === job.jobId || (job.terminal !== undefined && r.jobId === `terminal:${job.terminal.name}`);
      }
      return r.jobId === job.jobId;
    };
  }

  /**
   * The job-finish pipeline (design §3): artifact → evidence surface → deep link → enqueue, only for
   * jobs a wake waits on. A failed job whose output names a place in the workspace lands there (a
   * CodeAnchor the ladder re-finds after edits); otherwise on the evidence's summary line.
   */
  private async jobEnded(job: JobEndEvent): Promise<void> {
    const match = this.jobMatcher(job);
    if (!(await this.store.list()).some(match)) return;
    const trace = job.trace;
    mark(trace, 'match', Date.now());
    const output = job.output;
    const evidenceId = `job-${randomBase36(8)}`;
    const status = jobStatus(job.exitCode);
    // The evidence, the desk and the code locus do not wait for each other.
    const evidence$ = (async (): Promise<LandingRef | undefined> => {
      if (job.logPath) {
        // A command row's log is its evidence already (redacted, capped); land on its summary line.
        const line = output.summaryLine !== undefined ? output.summaryLine + 1 : undefined;
        return { kind: 'deep_link', uri: fileLink(job.logPath, line) };
      }
      const ev = await writeEvidence(this.storeDir, evidenceId, job, output.text, output.summaryLine).catch((err: unknown) => {
        this.log.warn(`evidence for ${job.jobId}: ${String(err)}`);
        return undefined;
      });
      mark(trace, 'evidence', Date.now());
      return ev ? { kind: 'deep_link', uri: fileLink(ev.path, ev.focusLine) } : undefined;
    })();
    // A report page the output names goes on the desk (design §5): the landing brings it to front.
    const desk$ = this.desk
      .showJobReport({ output: output.text, evidenceId: `${evidenceId}-report`, ...(job.cwd ? { cwd: job.cwd } : {}) })
      .catch((err: unknown) => {
        this.log.warn(`desk for ${job.jobId}: ${String(err)}`);
        return undefined;
      })
      .finally(() => mark(trace, 'desk', Date.now()));
    const anchor$ = status === 'failed' ? this.codeLocus(output.text, job).catch(() => undefined).finally(() => mark(trace, 'code locus', Date.now())) : Promise.resolve(undefined);
    const [evidence, shown, anchor] = await Promise.all([evidence$, desk$, anchor$]);
    const desk: DeskState = shown ? shown.status : 'none';
    // The desk's landing only when the desk shows the page; without a desk browser (or one that
    // failed) the landing is the evidence's summary line, where the report's path is named too.
    const onDesk = shown && (shown.status === 'ok' || shown.status === 'prepared') ? shown.landing : undefined;
    const landing: LandingRef | undefined = anchor ? { kind: 'code_anchor', anchor } : (onDesk ?? evidence);
    const outcome: WakeOutcome = { jobStatus: status, exitCode: job.exitCode ?? null, summary: output.summary, ...(landing ? { landing } : {}), desk };
    const claimed = await this.store.claimTriggered(match, outcome, this.claimer());
    mark(trace, 'claim', Date.now());
    for (const c of claimed) {
      this.terminalBindings.delete(c.id);
      this.enqueue(c, { ...pulseEventOfRow(c.row), reason: 'job.done', job: { id: job.jobId, status, exitCode: job.exitCode ?? null } }, { at: job.endedAt, endedAt: job.endedAt, ...(trace ? { trace } : {}) });
    }
  }

  /** The code locus a failed job's output names, as a CodeAnchor taken from the file as it is now. */
  private async codeLocus(text: string, job: JobEndEvent): Promise<CodeAnchor | undefined> {
    const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const locus = findCodeLocus(text, roots, { ...(job.cwd ? { cwd: job.cwd } : {}), isFile: (p) => existsSync(p) });
    if (!locus) return undefined;
    try {
      return await this.lander.anchorAt(locus.path, locus.line);
    } catch (err) {
      this.log.warn(`code locus ${locus.path}:${locus.line}: ${String(err)}`);
      return undefined;
    }
  }

  private claimer(): { now: Date; holder: Holder } {
    return { now: new Date(), holder: this.holder };
  }

  /**
   * Triggers of one thread that happen within 250 ms become one pulse. The window counts from when
   * the first one happened (`trigger.at`: a job's end event, a repository change; else now), so the
   * time its claim took to prepare is not waited again; and it is not waited at all when no other
   * wake of the thread could join (see drainIfAlone).
   */
  private enqueue(claimed: ClaimedWake, event: PulseEvent, trigger: { at?: number; endedAt?: number; trace?: WakeTrace } = {}): void {
    this.inFlight.set(claimed.token, claimed);
    const now = Date.now();
    const at = Math.min(trigger.at ?? now, now);
    this.buffer.push({ claimed, event, at, ...(trigger.endedAt !== undefined ? { endedAt: trigger.endedAt } : {}), ...(trigger.trace ? { trace: trigger.trace } : {}) });
    if (!this.bufferTimer) this.bufferTimer = setTimeout(() => void this.drainBuffer(), Math.max(0, at + COALESCE_MS - now));
    void this.drainIfAlone().catch((err: unknown) => this.log.warn(`wake buffer: ${String(err)}`));
  }

  /**
   * Only a wake still pending can join a pulse (its trigger claims it): when no wake of the buffered
   * threads waits for a job, a repository change or the user's return here (timers never join), the
   * pulse goes now instead of at the window's end.
   */
  private async drainIfAlone(): Promise<void> {
    const rows = await this.store.list();
    if (!this.bufferTimer || this.buffer.length === 0) return;
    const topic = this.continuity.currentTopic();
    const threads = new Set(this.buffer.map((b) => b.claimed.row.threadId ?? topic));
    if (rows.some((r) => r.status === 'pending' && r.when !== 'timer' && threads.has(r.threadId ?? topic) && this.eligible(r))) return;
    clearTimeout(this.bufferTimer);
    void this.drainBuffer();
  }

  private async drainBuffer(): Promise<void> {
    this.bufferTimer = undefined;
    if (this.buffer.length === 0) return;
    // A trigger of the window whose claim is still being prepared (its evidence written) joins this pulse.
    const first = Math.min(...this.buffer.map((b) => b.at));
    const late = [...this.pipelines].filter((p) => p.at <= first + COALESCE_MS).map((p) => p.done);
    if (late.length > 0) await Promise.race([Promise.allSettled(late), new Promise((r) => setTimeout(r, COALESCE_MS))]);
    const items = this.buffer.splice(0);
    const byId = new Map(items.map((b) => [b.claimed.id, b]));
    const triggers: WakeTrigger[] = items.map((b) => ({
      reason: b.event.reason ?? b.claimed.row.when,
      at: b.at,
      // A wake without thread_id belongs to the workspace's current topic; wakes coalesce per topic.
      threadId: b.claimed.row.threadId ?? this.continuity.currentTopic(),
      wakeIds: [b.claimed.id],
      ...(b.event.job ? { job: b.event.job } : {}),
      ...(b.event.summary !== undefined ? { summary: b.event.summary } : {}),
      ...(b.event.detail !== undefined ? { detail: b.event.detail } : {}),
      ...(b.event.landing ? { landing: b.event.landing } : {}),
      ...(b.event.desk ? { desk: b.event.desk } : {}),
    }));
    for (const group of coalesce(triggers, COALESCE_MS)) {
      const members = group.wakeIds.map((id) => byId.get(id)).filter((b): b is Buffered => b !== undefined);
      const first = members[0];
      if (!first) continue;
      const endedAt = members.map((m) => m.endedAt).find((t) => t !== undefined);
      const trace = members.map((m) => m.trace).find((t) => t !== undefined);
      mark(trace, 'coalesce', Date.now());
      const event: PulseEvent = { ...group, wakeIds: group.wakeIds };
      await this.deliver({ claims: members.map((m) => m.claimed), event, ...(endedAt !== undefined ? { endedAt } : {}), ...(first.claimed.row.threadId ? { threadId: first.claimed.row.threadId } : {}), ...(trace ? { trace } : {}) }).catch(
        (err: unknown) => this.log.error(`wake delivery: ${String(err)}`),
      );
    }
  }

  // ── delivery ────────────────────────────────────────────────────────────────────────────────

  /** Decides whether a delivery may go now; if not, its wakes wait on disk with the reason. */
  private async deliver(d: Delivery): Promise<void> {
    const reason = await this.holdReason(d.claims.map((c) => c.id));
    mark(d.trace, 'hold check', Date.now());
    if (reason) {
      await this.hold(d.claims, reason);
      return;
    }
    await this.ignite(d);
  }

  private async holdReason(ids: readonly string[]): Promise<HeldReason | undefined> {
    if (this.paused) return 'paused';
    if (this.busy > 0) return 'busy';
    const rows = (await this.store.list()).filter((r) => !ids.includes(r.id));
    const cap = capRoom(rows, new Date(), setting('wake.maxPerHour', MAX_WAKES_PER_HOUR));
    if (cap.room < 1) {
      if (cap.retryAt) this.arm(Math.max(1000, cap.retryAt - Date.now()));
      return 'cap';
    }
    return undefined;
  }

  private async hold(claims: readonly ClaimedWake[], reason: HeldReason): Promise<void> {
    await this.store.hold(claims, reason);
    for (const c of claims) this.inFlight.delete(c.token);
    this.log.info(`wake ${claims.map((c) => c.id).join(', ')} held: ${reason}`);
    if (reason === 'unreachable') this.arm(RETRY_UNREACHABLE_MS);
    this.refreshView();
  }

  private async ignite(d: Delivery): Promise<void> {
    const first = d.claims[0];
    if (!first) return;
    const ids = d.claims.map((c) => c.id);
    const landing = d.event.landing;
    // A code anchor is re-found first (no UI): the pulse names the ladder's step and the range now.
    let event = d.event;
    let shownLanding: LandingRef | undefined;
    if (landing?.kind === 'code_anchor') {
      const res = await this.lander.resolveAnchor(landing.anchor).catch((err: unknown) => {
        this.log.warn(`wake landing: ${String(err)}`);
        return undefined;
      });
      if (res) {
        shownLanding = { kind: 'code_anchor', anchor: res.healed };
        event = { ...event, landing: shownLanding, landingStep: res.step };
      }
      mark(d.trace, 'anchor', Date.now());
    }
    // A desk page is brought to front first. The pulse says what the job-finish pipeline did on the
    // desk (prepared when it opened the page): this second prepare finds the page there (ok), so it
    // only decides for wakes the pipeline did not prepare, or when the page cannot be shown now.
    let landed: LandResult | undefined;
    let timeToLocusMs: number | undefined;
    if (landing?.kind === 'deep_link' && landing.uri.startsWith('cdp://')) {
      landed = await this.landTrusted(landing).catch((err: unknown) => {
        this.log.warn(`wake landing: ${String(err)}`);
        return undefined;
      });
      if (d.endedAt !== undefined && landed) timeToLocusMs = Date.now() - d.endedAt;
      if (landed?.desk) event = { ...event, desk: deskAtDelivery(event.desk, landed.desk) };
    }
    // Otherwise the landing opens first and the pulse goes out once it is on screen (at most
    // LANDING_FIRST_MAX_MS later): both need the workbench, and run together each slowed the other
    // (the wake bench measured the landing ~300 ms behind a plain showTextDocument). Time to report
    // locus is the seed's own metric; the agent's turn starting a moment later costs nobody.
    let landing$: Promise<void> | undefined;
    const startLanding = (): Promise<void> =>
      (landing$ ??=
        landing && !landed
          ? this.landTrusted(shownLanding ?? landing).then(
              (l) => {
                landed = l;
                if (d.endedAt !== undefined) timeToLocusMs = Date.now() - d.endedAt;
              },
              (err: unknown) => this.log.warn(`wake landing: ${String(err)}`),
            )
          : Promise.resolve());
    await Promise.race([startLanding(), new Promise<void>((resolve) => setTimeout(resolve, LANDING_FIRST_MAX_MS))]);
    mark(d.trace, 'landing', Date.now());
    const pulse = renderPulse(first.row, event, { maxChars: setting('wake.pulseMaxChars', 600) });
    const topic = d.threadId ?? this.continuity.currentTopic();
    let text = pulse;
    if (!this.warmTopics.has(topic)) {
      const pack = await this.coldPack(topic);
      if (pack) text = `${pulse}\n\n(cold start: the continuity pack of topic ${topic} follows)\n${pack}`;
    }
    mark(d.trace, 'pulse', Date.now());
    const reason = event.reason ?? first.row.when;
    const metric = (via: WakeMetric['via'], timeToPulseMs?: number): WakeMetric => ({
      ids,
      reason,
      wakeChars: pulse.length,
      ...(timeToLocusMs !== undefined ? { timeToLocusMs } : {}),
      ...(timeToPulseMs !== undefined ? { timeToPulseMs } : {}),
      ...(d.trace ? { steps: traceSteps(d.trace) } : {}),
      at: new Date().toISOString(),
      via,
    });
    const facts = (): { wakeChars: number; timeToLocusMs?: number } => ({ wakeChars: pulse.length, ...(timeToLocusMs !== undefined ? { timeToLocusMs } : {}) });
    if (shownLanding) await this.store.annotate(ids, {}, { landing: shownLanding }).catch(() => undefined);
    mark(d.trace, 'annotate', Date.now());

    if (setting<string>('wake.target', 'life') === 'agent') {
      // Agent mode gives no receipt: submitted, not seen (design §9).
      try {
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: text, isPartialQuery: false, mode: 'agent' });
        await startLanding();
        await this.store.delivered(ids, { delivered: true, via: 'agent', unverified: true, ...facts() });
        this.warmTopics.add(topic);
        this.finish(d, metric('agent'), text, landed);
        return;
      } catch (err) {
        this.log.warn(`wake to agent mode: ${String(err)}`);
      }
    } else {
      for (const id of ids) this.deliveringTopics.set(id, topic);
      if (d.trace) for (const id of ids) this.traces.set(id, d.trace);
      const got = this.waitForReceipt(ids, RECEIPT_TIMEOUT_MS).finally(() => {
        for (const id of ids) this.deliveringTopics.delete(id);
        for (const id of ids) this.traces.delete(id);
      });
      try {
        // With no language model, the chat must be told to use the offline responder, or it refuses the request.
        const offline = await this.onlyOffline();
        mark(d.trace, 'models', Date.now());
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life ${text}`, isPartialQuery: false, ...(offline ? { modelSelector: OFFLINE_SELECTOR } : {}) });
      } catch (err) {
        this.log.warn(`wake: the chat could not be opened (${String(err)})`);
      }
      void startLanding();
      if (await got) {
        if (d.trace) this.log.info(`wake ${ids.join(', ')}: job end → @life ${describeTrace(d.trace)}`);
        await startLanding();
        await this.store.annotate(ids, facts()).catch(() => undefined);
        this.warmTopics.add(topic);
        this.finish(d, metric('life', d.endedAt !== undefined ? this.receivedAt(ids) - d.endedAt : undefined), text, landed);
        return;
      }
    }
    // The chat could not be reached: wait and try again; after 2 minutes, a notification instead.
    await startLanding();
    const rows = (await this.store.list()).filter((r) => ids.includes(r.id));
    if (rows.some((r) => r.status === 'fired')) return;
    const tooLong = rows.some((r) => unreachableTooLong(r, new Date()));
    if (!tooLong) {
      await this.hold(d.claims, 'unreachable');
      this.emitMetric(metric('unreachable'), text, landed);
      return;
    }
    const why = 'the chat did not receive the pulse for 2 minutes (chat disabled, the view closed, or no model and no @life)';
    await this.store.delivered(ids, { delivered: false, via: 'notification', reason: why, ...facts() });
    await this.feed.push({ id: `${first.id}@${new Date().toISOString()}`, at: new Date().toISOString(), kind: 'wake', ref: first.id, title: `Wake ${first.id} (not delivered to the chat)`, body: pulse, tone: 'info' });
    // "Open Landing" only when there is a landing to open: a button that does nothing is worse than none.
    const buttons = landing ? ['Open in Chat', 'Open Landing'] : ['Open in Chat'];
    void vscode.window.showInformationMessage(`Life Thread wake ${first.id}: ${(first.row.text ?? '').slice(0, 160)} — ${why}.`, ...buttons).then((pick) => {
      if (pick === 'Open in Chat') void vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life ${pulse}`, isPartialQuery: false });
      if (pick === 'Open Landing' && landing) void this.landTrusted(landing);
    });
    this.finish(d, metric('notification'), text, landed);
  }

  private onlyOffline$: Promise<boolean> | undefined;

  /** Whether the offline responder is the only model: looked up once, again when the models change. */
  private onlyOffline(): Promise<boolean> {
    return (this.onlyOffline$ ??= realModels().then(
      (m) => m.length === 0,
      () => {
        this.onlyOffline$ = undefined;
        return false;
      },
    ));
  }

  private readonly receiptTimes = new Map<string, number>();
  /** The timings of the wakes being delivered, until @life has them. */
  private readonly traces = new Map<string, WakeTrace>();
  /** The topic of each wake being delivered from this window, for the transcript its pulse goes to. */
  private readonly deliveringTopics = new Map<string, string>();

  /** The topic (thread) a pulse belongs to, when it is one this window is delivering. */
  topicOfPulse(prompt: string): string | undefined {
    for (const id of pulseWakeIds(prompt)) {
      const t = this.deliveringTopics.get(id);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  private receivedAt(ids: readonly string[]): number {
    return Math.max(...ids.map((id) => this.receiptTimes.get(id) ?? Date.now()));
  }

  /** Resolves true when @life's handler has every id, false after `timeoutMs`. */
  private waitForReceipt(ids: readonly string[], timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const left = new Set(ids);
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        for (const id of ids) this.receipts.delete(id);
        resolve(ok);
      };
      for (const id of ids) {
        this.receipts.set(id, (at) => {
          this.receiptTimes.set(id, at);
          left.delete(id);
          if (left.size === 0) done(true);
        });
      }
    });
  }

  private finish(d: Delivery, metric: WakeMetric, text: string, landed: LandResult | undefined): void {
    for (const c of d.claims) this.inFlight.delete(c.token);
    this.emitMetric(metric, text, landed);
    this.refreshView();
  }

  private emitMetric(metric: WakeMetric, text: string, landed: LandResult | undefined): void {
    this.metrics.unshift(metric);
    this.metrics.splice(20);
    this._onDidDeliver.fire({ ...metric, text, ...(landed ? { landing: landed } : {}) });
  }

  /** A wake's landing: evidence Life Thread wrote itself (in the store), or a place in the workspace. */
  private landTrusted(ref: LandingRef): Promise<LandResult> {
    return this.lander.land(ref);
  }

  /**
   * The topic's continuity pack for a cold start: its latest approved TopicDecisions (current, else —
   * while a partition is being written — the newest filled ones in history/), decisions first.
   */
  private async coldPack(topic: string): Promise<string | undefined> {
    try {
      const all = await readAllDecisions(this.continuity.dir(topic));
      const filled = all.find((d) => d.kind !== 'draft' && !d.decisions.frame.trimStart().startsWith(PLACEHOLDER));
      // The pack is shown in the chat as the wake came: its times in the owner's zone (UTC beside), as /resume gives them.
      return filled ? resumePack(filled.decisions, undefined, undefined, { tz: ownerZone(), now: new Date() }) : undefined;
    } catch {
      return undefined;
    }
  }

  // ── the one timer: due timers, held wakes, orphans ───────────────────────────────────────────

  private arm(delayMs?: number): void {
    const delay = delayMs ?? MAX_SLEEP_MS;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), Math.min(MAX_SLEEP_MS, Math.max(0, delay)));
  }

  /** One pass: take over orphans, claim due timers, release held wakes whose reason passed; re-arm. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const own = new Set(this.inFlight.keys());
      const orphans = await this.store.takeOverOrphans(this.claimer(), { eligible: this.eligible, alive: processLiveness, ownLiveTokens: own });
      for (const id of orphans.lost) this.log.warn(`wake ${id}: the window watching its job is gone; it wakes as lost`);
      for (const c of orphans.claimed) this.enqueue(c, pulseEventOfRow(c.row));
      const due = await this.store.claimDue(this.claimer(), { eligible: this.eligible, maxLatenessMs: setting('catchUp.reminderMaxLatenessHours', 12) * 3600_000 });
      for (const c of due.claimed) this.enqueue(c, { ...pulseEventOfRow(c.row), reason: 'timer' });
      await this.releaseHeld();
      const rows = await this.store.list();
      const next = nextDueAt(rows.filter((r) => mayDeliver(r, this.folders())));
      const retry = rows.some((r) => r.status === 'held' && r.heldReason === 'unreachable') ? RETRY_UNREACHABLE_MS : MAX_SLEEP_MS;
      const untilNext = next ? next.getTime() - Date.now() : Infinity;
      // A due wake its MCP session still keeps (src/core/wake/row.ts keptBySession) is looked at again shortly, not in a tight loop.
      this.arm(Math.min(retry, untilNext > 0 ? untilNext : KEPT_RECHECK_MS));
    } catch (err) {
      this.log.warn(`wake timers: ${String(err)}`);
      this.arm(MAX_SLEEP_MS);
    } finally {
      this.ticking = false;
      this.refreshView();
    }
  }

  /** Held wakes whose reason no longer applies go out again (at most the hourly cap's room). */
  async releaseHeld(): Promise<void> {
    if (this.paused) return;
    const now = new Date();
    const rows = await this.store.list();
    const cap = capRoom(rows, now, setting('wake.maxPerHour', MAX_WAKES_PER_HOUR));
    if (cap.room < 1) return;
    const free = (r: WakeRow): boolean => {
      if (r.status !== 'held' || !this.eligible(r)) return false;
      switch (r.heldReason) {
        case 'busy':
          return this.busy === 0;
        case 'unreachable':
          return r.heldAt === undefined || now.getTime() - Date.parse(r.heldAt) >= RETRY_UNREACHABLE_MS || unreachableTooLong(r, now);
        default:
          return true;
      }
    };
    if (!rows.some(free) || this.busy > 0) return;
    const claimed = await this.store.claimHeld(this.claimer(), { eligible: free, max: cap.room });
    for (const c of claimed) this.enqueue(c, pulseEventOfRow(c.row));
  }

  private async beat(): Promise<void> {
    const tokens = new Set(this.inFlight.keys());
    if (tokens.size > 0) await this.store.heartbeat(tokens, new Date()).catch((err: unknown) => this.log.warn(`wake heartbeat: ${String(err)}`));
  }

  // ── surfaces ────────────────────────────────────────────────────────────────────────────────

  async setPaused(paused: boolean): Promise<void> {
    await writeWakesPaused(this.storeDir, paused);
    await this.context.globalState.update(PAUSED_KEY, paused);
    this.schedule.paused = paused;
    await this.schedule.refresh();
    if (!paused) await this.releaseHeld();
    this.refreshView();
  }

  /** Wakes waiting on disk because of a reason (paused, cap, busy, unreachable). */
  async heldCount(): Promise<number> {
    return (await this.store.list()).filter((r) => r.status === 'held' && this.eligible(r)).length;
  }

  refreshView(): void {
    void this.store
      .list()
      .then((rows) => {
        const now = new Date();
        const views = rows
          .filter((r) => r.status === 'pending' || r.status === 'held' || r.status === 'delivering')
          .map((r) => ({
            id: r.id,
            kind: 'wake' as const,
            title: r.text ?? JSON.stringify(r.payload ?? null),
            when: describeWake(r, now, ownerZone()),
            status: r.status,
            lastFact: r.status === 'held' ? `held: ${HELD_WORDS[r.heldReason ?? 'unreachable']}` : r.status === 'pending' && this.paused ? 'wakes are paused: it waits until they are resumed' : '',
            factTone: r.status === 'held' ? ('running' as const) : ('none' as const),
            hasLog: false,
          }));
        this.model.update({ wakes: views });
      })
      .catch(() => undefined);
  }

  private async openWakeLink(query: string): Promise<LandResult> {
    const q = parseQuery(query, wakeQuerySchema);
    const row = await this.store.get(q.id);
    if (!row) throw new InputError('id', `no wake ${q.id}`);
    const pulse = renderPulse(row, pulseEventOfRow(row));
    const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: pulse });
    await vscode.window.showTextDocument(doc, { preview: true });
    if (row.landing) return this.landTrusted(row.landing);
    return { kind: 'none', opened: `the pulse of wake ${row.id}` };
  }

  async doctorSection(): Promise<string> {
    const rows = await this.store.list().catch(() => [] as WakeRow[]);
    const count = (s: WakeRow['status']): number => rows.filter((r) => r.status === s).length;
    const lines = [
      `- Wakes: ${this.paused ? '**paused** (Resume Wakes releases them)' : 'active'}; cap ${setting('wake.maxPerHour', MAX_WAKES_PER_HOUR)} per hour; this window delivers wakes of ${this.folders().length ? this.folders().join(', ') : 'no workspace'} and wakes set outside a workspace`,
      `- In wakes.json: ${count('pending')} pending, ${count('held')} held, ${count('delivering')} delivering, ${count('fired')} fired, ${count('missed')} missed, ${count('cancelled')} cancelled`,
    ];
    for (const r of rows.filter((x) => x.status === 'held')) lines.push(`  - \`${r.id}\` held: ${HELD_WORDS[r.heldReason ?? 'unreachable']}`);
    if (!this.metrics.length) lines.push('- No wake has been delivered in this window yet.');
    for (const m of this.metrics.slice(0, 10)) {
      lines.push(`- \`${m.ids.join(', ')}\` ${m.reason} at ${m.at}: ${m.via}, wake_chars ${m.wakeChars}${m.timeToLocusMs !== undefined ? `, time-to-report-locus ${m.timeToLocusMs} ms` : ''}${m.timeToPulseMs !== undefined ? `, job end → pulse ${m.timeToPulseMs} ms` : ''}`);
    }
    return lines.join('\n');
  }

  /** Whether a wake row may fire in this window (used by the tools that list them). */
  mayDeliverHere(row: WakeRow): boolean {
    return mayFire(row.owner, this.folders());
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.pruneTimer) clearTimeout(this.pruneTimer);
    if (this.bufferTimer) clearTimeout(this.bufferTimer);
    for (const s of this.subs) s.dispose();
    this._onDidDeliver.dispose();
    this._onDidReceive.dispose();
  }
}
