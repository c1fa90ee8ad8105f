import * as vscode from 'vscode';
import { mayFire, type Holder } from '../core/claim';
import { pulseWakeIds } from '../core/wake/pulse';
import { mayDeliver, type WakeRow } from '../core/wake/row';
import { mark } from '../core/wake/trace';
import { receiverOf, type WakeSender } from '../core/wake/sender';
import type { AgentTurns } from './agentTurns';
import { pruneEvidenceEvery } from '../node/evidence';
import { holderFor, processLiveness } from '../node/liveness';
import { WakeLoop, type Delivery, type WakeBatch } from '../node/wakeLoop';
import { WakeStore } from '../node/wakes';
import type { WakeToolAnswer } from '../node/tools/wakeTool';
import type { Continuity } from './continuity';
import type { HostDesk } from './desk';
import { DeskWarmup } from './deskWarmup';
import { EvidenceHome } from './evidenceHome';
import type { FeedFeature } from './feedFeature';
import { Ignition } from './ignition';
import { WakeFocusGate } from './wakeFocus';
import { TerminalWakes } from './jobWakes';
import type { Lander, LandResult } from './landing';
import { PulseReceipts } from './pulseReceipts';
import { catchUpLimits, ownerZone, type ScheduleFeature } from './scheduleFeature';
import { setting, WINDOW_ID } from './settings';
import { Triggers } from './triggers';
import type { ViewModel } from './viewModel';
import { openWakeLink } from './wakeLink';
import { requestWake } from './wakeRequest';
import { WakeTriggers } from './wakeTriggers';
import { wakeDoctorLines, wakeRowViews, type WakeMetric } from './wakeViews';

/**
 * Life thread wake in a window: the VS Code glue around the one wake loop (src/node/wakeLoop.ts,
 * which claims, coalesces, holds and retries). Here: jobs seen ending (./wakeTriggers.ts), ignition
 * as a new `@life` request (./ignition.ts), the contract entry, the view. A wake held (paused, over
 * the hourly cap, @life busy, chat unreachable) waits in `wakes.json`, and a window of its workspace
 * delivers it after a reload or crash. A wake is delivered only when the @life handler has it.
 */
export class WakeFeature implements vscode.Disposable {
  readonly store: WakeStore;
  readonly triggers: Triggers;
  readonly holder: Holder = holderFor(WINDOW_ID);
  private readonly subs: vscode.Disposable[] = [];
  private readonly loop: WakeLoop;
  private readonly receipts: PulseReceipts;
  private readonly ignition: Ignition;
  /** Pulses wait here while the user works in this window (./wakeFocus.ts). */
  readonly focus: WakeFocusGate;
  private readonly terminals = new TerminalWakes();
  private readonly claims: WakeTriggers;
  /** Where evidence is written (the workspace's continuity folder, else the store). */
  readonly evidence: EvidenceHome;
  /** Desk and symbols made ready while a job a wake waits on runs (./deskWarmup.ts). */
  private readonly warmup: DeskWarmup;
  private busy = 0;
  private stopPruning: (() => void) | undefined;
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
    continuity: Continuity,
    feed: FeedFeature,
    private readonly log: vscode.LogOutputChannel,
    private readonly agents: AgentTurns,
  ) {
    this.store = new WakeStore({ dir: storeDir });
    this.evidence = new EvidenceHome(storeDir, log);
    this.warmup = new DeskWarmup(desk, lander, (r) => this.eligible(r), log);
    this.triggers = new Triggers(log);
    this.loop = new WakeLoop({
      store: this.store,
      holder: this.holder,
      claimable: this.eligible,
      // A due wake its MCP session still keeps arms the timer too: the window looks again shortly.
      watches: (r) => mayDeliver(r, this.folders()),
      deliver: (batch) => this.deliver(batch),
      paused: () => this.paused,
      maxPerHour: () => setting('wake.maxPerHour'),
      // Each receiver's own turns: @life's, or Agent mode's as Life Thread's provider sees them (./agentTurns.ts).
      busy: (rows) => rows.some((r) => (receiverOf(r, setting('wake.target')) === 'agent' ? this.agents.busy : this.busy > 0)),
      defaultThread: () => continuity.currentTopic(),
      sweeps: true,
      changed: () => this.refreshView(),
      info: (line) => log.info(line),
      onError: (err, where) => log.warn(`${where}: ${String(err)}`),
      maxLatenessMs: () => catchUpLimits().reminder,
    });
    this.receipts = new PulseReceipts((ids) => this.loop.awaitReceipt(ids));
    const report = (m: WakeMetric, text: string, landed: LandResult | undefined): void => this.report(m, text, landed);
    this.focus = new WakeFocusGate(log);
    this.ignition = new Ignition({ store: this.store, lander, desk, evidence: this.evidence, continuity, feed, receipts: this.receipts, log, loop: this.loop, report, focus: this.focus, agents });
    this.claims = new WakeTriggers({ store: this.store, holder: this.holder, evidence: this.evidence, desk, lander, log, loop: this.loop, terminals: this.terminals, eligible: this.eligible });
  }

  /** The user's pause, one for every window of the store (src/host/wakePauseState.ts). */
  get paused(): boolean {
    return this.schedule.pause.paused;
  }

  /** This window's folders (URIs): it delivers wakes owned by them, and wakes with no workspace. */
  folders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
  }

  private eligible = (row: WakeRow): boolean => mayDeliver(row, this.folders(), processLiveness);

  async start(): Promise<void> {
    this.triggers.start();
    this.ignition.prefetch();
    this.subs.push(
      this.triggers,
      this.triggers.onDidTrigger((e) => this.claims.track(e)),
      vscode.lm.onDidChangeChatModels(() => this.ignition.modelsChanged()),
      // Agent mode's turn ended: wakes held for it go out; its requests showed where its pulses landed.
      this.agents.onDidEnd(() => this.busy === 0 && this.loop.released()),
      this.agents.onDidSee((seen) => void this.agentReceipt(seen)),
      vscode.window.onDidOpenTerminal((t) => this.terminals.opened(t)),
      this.schedule.dispatcher.onDidChange(() => this.loop.poke()),
      // Paused or resumed here, in another window or by the CLI: the sidebar follows, a resume releases.
      this.schedule.pause.onDidChange((paused) => {
        this.refreshView();
        if (!paused) void this.releaseHeld().catch((err: unknown) => this.log.warn(`wake release: ${String(err)}`));
      }),
    );
    this.lander.wakeHandler = (query) => openWakeLink(query, this.store, this.lander);
    this.stopPruning = pruneEvidenceEvery(() => this.evidence.dirs(), (err) => this.log.warn(`evidence pruning: ${String(err)}`));
    // A reload or crash left wakes: take them over now (within 10 s of activation, so no wake waits on a window that is gone).
    await this.loop.start();
  }

  // ── @life's turns ────────────────────────────────────────────────────────────────────────────

  /** @life reports its turns: a wake that arrives meanwhile waits (held: busy) for the answer to end. */
  turnStarted(): void {
    this.busy++;
  }

  turnEnded(): void {
    this.busy = Math.max(0, this.busy - 1);
    if (this.busy === 0) this.loop.released();
  }

  /**
   * The @life handler got a request: when it is a pulse, its wakes are delivered (`via: life`) now —
   * the receiver has it. Returns the wakes it carried (empty when the text is not a pulse).
   */
  async received(prompt: string): Promise<WakeRow[]> {
    const ids = pulseWakeIds(prompt);
    if (ids.length === 0) return [];
    const at = Date.now();
    for (const id of ids) mark(this.receipts.trace(id), 'received', at);
    this._onDidReceive.fire({ ids, at });
    const delivered = await this.store.delivered(ids, { delivered: true, via: 'life' }).catch((err: unknown) => {
      this.log.warn(`wake receipt: ${String(err)}`);
      return [] as string[];
    });
    this.loop.received(ids, at);
    const rows = await this.store.list().catch(() => [] as WakeRow[]);
    this.refreshView();
    if (delivered.length === 0) this.log.info(`a pulse for ${ids.join(', ')} reached @life again; it was delivered before`);
    return rows.filter((r) => ids.includes(r.id));
  }

  /** What Agent mode's model requests showed of its pulses goes into their rows (verified, or landed elsewhere). */
  private async agentReceipt(seen: { verified: string[]; elsewhere: string[] }): Promise<void> {
    const changed = await this.store.agentReceipt(seen).catch((err: unknown) => {
      this.log.warn(`agent-mode receipt: ${String(err)}`);
      return [] as string[];
    });
    if (changed.length > 0) {
      this.log.info(`agent-mode receipt: ${seen.verified.length > 0 ? `verified ${seen.verified.join(', ')}` : ''}${seen.elsewhere.length > 0 ? ` elsewhere ${seen.elsewhere.join(', ')}` : ''}`);
      this.refreshView();
    }
  }

  /** The topic (thread) a pulse belongs to, when it is one this window is delivering. */
  topicOfPulse(prompt: string): string | undefined {
    return this.receipts.topicOfPulse(prompt);
  }

  // ── the contract ────────────────────────────────────────────────────────────────────────────

  /** The contract (src/node/tools/wakeTool.ts), with what this window sees of its tasks and terminals. */
  request(input: unknown, names?: Record<string, string>, sender: WakeSender = { kind: 'life' }): Promise<WakeToolAnswer> {
    return requestWake(input, names, sender, {
      store: this.store,
      commands: this.schedule.store,
      holder: this.holder,
      folders: this.folders(),
      terminals: this.terminals,
      desk: this.desk,
      lander: this.lander,
      paused: () => this.paused,
      changed: () => {
        this.loop.poke();
        this.refreshView();
      },
    });
  }

  /** Cancels one waiting wake (the sidebar's remove). */
  async cancel(id: string): Promise<WakeRow> {
    const row = await this.store.cancelById(id);
    this.terminals.forget(id);
    this.refreshView();
    return row;
  }

  // ── delivery ────────────────────────────────────────────────────────────────────────────────

  /** The loop's delivery in a window: ignition; a chat that did not have the pulse falls back to the feed and a notification. */
  private async deliver(batch: WakeBatch): Promise<Delivery> {
    const sent = await this.ignition.ignite(batch);
    if ('sent' in sent) return { recorded: true };
    return { hold: 'unreachable', fallBack: sent.unreachable.fallBack, held: sent.unreachable.held };
  }

  private report(metric: WakeMetric, text: string, landed: LandResult | undefined): void {
    this.metrics.unshift(metric);
    this.metrics.splice(20);
    this._onDidDeliver.fire({ ...metric, text, ...(landed ? { landing: landed } : {}) });
  }

  /** Held wakes whose reason no longer applies go out again (at most the hourly cap's room). */
  releaseHeld(): Promise<void> {
    return this.loop.releaseHeld();
  }

  // ── surfaces ────────────────────────────────────────────────────────────────────────────────

  async setPaused(paused: boolean): Promise<void> {
    await this.schedule.pause.set(paused);
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
        this.model.update({ wakes: wakeRowViews(rows, new Date(), ownerZone(), this.paused) });
        this.warmup.seen(rows);
      })
      .catch(() => undefined);
  }

  async doctorSection(): Promise<string> {
    const rows = await this.store.list().catch(() => [] as WakeRow[]);
    return wakeDoctorLines(rows, { paused: this.paused, maxPerHour: setting('wake.maxPerHour'), folders: this.folders(), metrics: this.metrics });
  }

  /** Whether a wake row may fire in this window (used by the tools that list them). */
  mayDeliverHere(row: WakeRow): boolean {
    return mayFire(row.owner, this.folders());
  }

  dispose(): void {
    this.loop.stop();
    this.focus.dispose();
    this.stopPruning?.();
    this.warmup.dispose();
    for (const s of this.subs) s.dispose();
    this._onDidDeliver.dispose();
    this._onDidReceive.dispose();
  }
}
