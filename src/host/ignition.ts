import * as vscode from 'vscode';
import type { LandingRef } from '../core/landing';
import { pulseEventOfRow, pulseWakeIds, renderPulse } from '../core/wake/pulse';
import type { WakeFact } from '../core/wake/row';
import { receiverOf } from '../core/wake/sender';
import { describeTrace, mark, traceSteps } from '../core/wake/trace';
import type { WakeBatch, WakeLoop } from '../node/wakeLoop';
import type { WakeStore } from '../node/wakes';
import { coldPack } from './coldPack';
import type { Continuity } from './continuity';
import type { FeedFeature } from './feedFeature';
import type { Lander, LandResult } from './landing';
import { OFFLINE_SELECTOR, realModels } from './offlineModel';
import { PulseLanding } from './pulseLanding';
import { pulseFolders } from './pulseFolders';
import type { PulseReceipts } from './pulseReceipts';
import { setting } from './settings';
import type { WakeMetric } from './wakeViews';
import type { HostDesk } from './desk';
import type { EvidenceHome } from './evidenceHome';
import { landJobOutside } from './outsideJob';
import type { WakeFocusGate } from './wakeFocus';
import type { AgentTurns } from './agentTurns';

/** What became of a pulse: sent (its receipt or agent mode recorded it), or the chat could not be reached (and how it falls back). */
export type Ignited = { sent: true } | { unreachable: { fallBack: { fact: WakeFact; notify(): Promise<void> }; held(): void } };

/** What ignition reads and tells in this window. */
export interface IgnitionHost {
  store: WakeStore;
  lander: Lander;
  desk: HostDesk;
  evidence: EvidenceHome;
  continuity: Continuity;
  feed: FeedFeature;
  receipts: PulseReceipts;
  log: vscode.LogOutputChannel;
  /** The wake loop: wakes the pulse could not name (its length cap) go back to it for the next pulse. */
  loop: WakeLoop;
  /** Holds a pulse while the user works in this window (./wakeFocus.ts). */
  focus: WakeFocusGate;
  /** Agent mode's model requests on Life Thread's provider, and the receipts they showed (./agentTurns.ts). */
  agents: AgentTurns;
  /** A pulse went out, waits, or fell back: Doctor's metric and the delivery event. */
  report(metric: WakeMetric, text: string, landed: LandResult | undefined): void;
}

/** A pulse made ready: its text, the wakes it names, the landing as opened, and its metric. */
interface Composed {
  batch: WakeBatch;
  ids: string[];
  pulse: string;
  text: string;
  topic: string;
  landing: PulseLanding;
  landingRef: LandingRef | undefined;
  metric(via: WakeMetric['via'], timeToPulseMs?: number): WakeMetric;
  facts(): { wakeChars: number; timeToLocusMs?: number };
}

/**
 * Ignition: a batch's landing opens, its pulse is rendered (with the topic's continuity pack on a
 * cold start) and goes to the chat as a new `@life` request (or Agent mode); a wake is delivered only
 * when the @life handler has it (its id travels with the pulse).
 */
export class Ignition {
  private readonly warmTopics = new Set<string>();
  private onlyOffline$: Promise<boolean> | undefined;

  constructor(private readonly h: IgnitionHost) {}

  /** Looks the models up ahead of the first pulse. */
  prefetch(): void {
    void this.onlyOffline();
  }

  /** The chat's models changed: the offline responder is looked up again. */
  modelsChanged(): void {
    this.onlyOffline$ = undefined;
  }

  async ignite(batch: WakeBatch): Promise<Ignited> {
    // Before the landing opens or the chat is touched: both take the keyboard focus.
    const go = await this.h.focus.ready(batch.claims.map((c) => c.id));
    mark(batch.trace, `focus ${go}`, Date.now());
    const c = await this.compose(batch);
    if (!c) return { sent: true };
    // Back to the sender (src/core/wake/sender.ts): the batch's first wake decides for a coalesced pulse.
    if (receiverOf(c.batch.claims[0]?.row ?? {}, setting('wake.target')) === 'agent') {
      if (await this.toAgent(c)) return { sent: true };
    } else if (await this.toLife(c)) return { sent: true };
    await c.landing.start();
    const fact: WakeFact = { delivered: false, via: 'notification', reason: UNREACHED, ...c.facts() };
    return { unreachable: { fallBack: { fact, notify: () => this.notify(c) }, held: () => this.report(c, c.metric('unreachable')) } };
  }

  private async compose(whole: WakeBatch): Promise<Composed | undefined> {
    let batch = whole;
    const first = batch.claims[0];
    if (!first) return undefined;
    // A job that ended outside a window lands here as a task of this window would (src/host/outsideJob.ts).
    batch = { ...batch, event: await landJobOutside(first.row, batch.event, { lander: this.h.lander, desk: this.h.desk, log: this.h.log }) };
    // A log the store holds (a `life-thread run`, a command row) is copied beside the workspace, where the pulse names it relative.
    batch = { ...batch, event: await this.h.evidence.adoptLanding(batch.event, first.id) };
    const landing = new PulseLanding(batch.event.landing, batch.event, batch.endedAt, this.h.lander, this.h.log, (ms) => this.h.loop.delay(ms));
    await landing.prepare(batch.trace);
    const event = landing.event;
    const pulse = renderPulse(first.row, event, { maxChars: setting('wake.pulseMaxChars'), folders: pulseFolders() });
    // Its receipt delivers exactly the wakes the pulse names; any the cap left out go in the next pulse.
    const named = new Set(pulseWakeIds(pulse));
    const left = named.size === 0 ? [] : batch.claims.filter((c) => !named.has(c.id));
    if (left.length > 0) batch = { ...batch, claims: batch.claims.filter((c) => named.has(c.id)) };
    for (const c of left) this.h.loop.enqueue(c, pulseEventOfRow(c.row));
    const ids = batch.claims.map((c) => c.id);
    const topic = batch.threadId ?? this.h.continuity.currentTopic();
    let text = pulse;
    if (!this.warmTopics.has(topic)) {
      const pack = await coldPack(this.h.continuity, topic);
      if (pack) text = `${pulse}\n\n(cold start: the continuity pack of topic ${topic} follows)\n${pack}`;
    }
    mark(batch.trace, 'pulse', Date.now());
    const reason = event.reason ?? first.row.when;
    const locus = (): { timeToLocusMs?: number } => (landing.timeToLocusMs !== undefined ? { timeToLocusMs: landing.timeToLocusMs } : {});
    const metric = (via: WakeMetric['via'], timeToPulseMs?: number): WakeMetric => ({
      ids,
      reason,
      wakeChars: pulse.length,
      ...locus(),
      ...(timeToPulseMs !== undefined ? { timeToPulseMs } : {}),
      ...(batch.trace ? { steps: traceSteps(batch.trace) } : {}),
      at: new Date().toISOString(),
      via,
    });
    if (landing.shown) await this.h.store.annotate(ids, {}, { landing: landing.shown }).catch(() => undefined);
    mark(batch.trace, 'annotate', Date.now());
    return { batch, ids, pulse, text, topic, landing, landingRef: batch.event.landing, metric, facts: () => ({ wakeChars: pulse.length, ...locus() }) };
  }

  /**
   * Agent mode gives no receipt of its own: the pulse is recorded submitted, `unverified`, and loses it
   * when Life Thread's provider sees it beside the call that set the wake (./agentTurns.ts); with another
   * vendor's model it stays unverified.
   */
  private async toAgent(c: Composed): Promise<boolean> {
    try {
      // `preserveInput`: the pulse is sent without going through the chat's input box, so a draft there stays.
      // `mode: 'agent'` switches an Ask chat without a dialog; the workbench asks only when leaving Edit mode with requests (README "Wakes", "Back to the sender").
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: c.text, isPartialQuery: false, preserveInput: true, mode: 'agent' });
      await c.landing.start();
      await this.h.store.delivered(c.ids, { delivered: true, via: 'agent', unverified: true, ...c.facts() });
      // The model's request can come before the fact is written: what it showed is applied now.
      await this.h.store.agentReceipt(this.h.agents.receiptsOf(c.ids)).catch((err: unknown) => this.h.log.warn(`agent-mode receipt: ${String(err)}`));
      this.warmTopics.add(c.topic);
      this.report(c, c.metric('agent'));
      return true;
    } catch (err) {
      this.h.log.warn(`wake to agent mode: ${String(err)}`);
      return false;
    }
  }

  /** Sends the pulse to `@life`; true once its handler had every wake it names. */
  private async toLife(c: Composed): Promise<boolean> {
    const got = this.h.receipts.expect(c.ids, c.topic, c.batch.trace);
    try {
      // With no language model, the chat must be told to use the offline responder, or it refuses the request.
      const offline = await this.onlyOffline();
      mark(c.batch.trace, 'models', Date.now());
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life ${c.text}`, isPartialQuery: false, preserveInput: true, ...(offline ? { modelSelector: OFFLINE_SELECTOR } : {}) });
    } catch (err) {
      this.h.log.warn(`wake: the chat could not be opened (${String(err)})`);
    }
    void c.landing.start();
    const at = await got;
    if (at === undefined) return false;
    const d = c.batch;
    if (d.trace) this.h.log.info(`wake ${c.ids.join(', ')}: job end → @life ${describeTrace(d.trace)}`);
    await c.landing.start();
    await this.h.store.annotate(c.ids, c.facts()).catch(() => undefined);
    this.warmTopics.add(c.topic);
    this.report(c, c.metric('life', d.endedAt !== undefined ? at - d.endedAt : undefined));
    return true;
  }

  /** The chat did not have the pulse for too long: the feed and a notification carry it instead. */
  private async notify(c: Composed): Promise<void> {
    const first = c.batch.claims[0];
    if (!first) return;
    await this.h.feed.push({ id: `${first.id}@${new Date().toISOString()}`, at: new Date().toISOString(), kind: 'wake', ref: first.id, title: `Wake ${first.id} (not delivered to the chat)`, body: c.pulse, tone: 'info' });
    // "Open Landing" only when there is a landing to open: a button that does nothing is worse than none.
    const landing = c.landingRef;
    const buttons = landing ? ['Open in Chat', 'Open Landing'] : ['Open in Chat'];
    void vscode.window.showInformationMessage(`Life Thread wake ${first.id}: ${(first.row.text ?? '').slice(0, 160)} — ${UNREACHED}.`, ...buttons).then((pick) => {
      if (pick === 'Open in Chat') void vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life ${c.pulse}`, isPartialQuery: false, preserveInput: true });
      if (pick === 'Open Landing' && landing) void this.h.lander.land(landing);
    });
    this.report(c, c.metric('notification'));
  }

  private report(c: Composed, metric: WakeMetric): void {
    this.h.report(metric, c.text, c.landing.landed);
  }

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
}

const UNREACHED = 'the chat did not receive the pulse for 2 minutes (chat disabled, the view closed, or no model and no @life)';
