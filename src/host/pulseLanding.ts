import type * as vscode from 'vscode';
import type { LandingRef } from '../core/landing';
import { deskAtDelivery, type PulseEvent } from '../core/wake/pulse';
import { mark, type WakeTrace } from '../core/wake/trace';
import type { Lander, LandResult } from './landing';

/** The longest a pulse waits for its landing to be on screen. */
const LANDING_FIRST_MAX_MS = 1_500;

/**
 * A delivery's landing, made ready before its pulse goes out: the pulse names what the landing is
 * now (a code anchor re-found, a desk page brought to front), and the landing opens first.
 */
export class PulseLanding {
  /** The pulse's event, with the landing as re-found and the desk as it is now. */
  event: PulseEvent;
  /** The code anchor as re-found, when the landing is one. */
  shown: LandingRef | undefined;
  landed: LandResult | undefined;
  /** From the job's end to the landing on screen. */
  timeToLocusMs: number | undefined;
  private landing$: Promise<void> | undefined;

  constructor(
    private readonly landing: LandingRef | undefined,
    event: PulseEvent,
    private readonly endedAt: number | undefined,
    private readonly lander: Lander,
    private readonly log: vscode.LogOutputChannel,
    /** Resolves after the given time (the wake loop's clock). */
    private readonly delay: (ms: number) => Promise<void>,
  ) {
    this.event = event;
  }

  /** Re-finds a code anchor, brings a desk page to front, and opens the landing (the pulse waits at most LANDING_FIRST_MAX_MS for it). */
  async prepare(trace: WakeTrace | undefined): Promise<void> {
    const landing = this.landing;
    // A code anchor is re-found first (no UI): the pulse names the ladder's step and the range now.
    if (landing?.kind === 'code_anchor') {
      const res = await this.lander.resolveAnchor(landing.anchor).catch((err: unknown) => {
        this.log.warn(`wake landing: ${String(err)}`);
        return undefined;
      });
      if (res) {
        this.shown = { ...landing, anchor: res.healed };
        this.event = { ...this.event, landing: this.shown, landingStep: res.step };
      }
      mark(trace, 'anchor', Date.now());
    }
    // A desk page is brought to front first. The pulse says what the job-finish pipeline did on the
    // desk (prepared when it opened the page): this second prepare finds the page there (ok), so it
    // only decides for wakes the pipeline did not prepare, or when the page cannot be shown now.
    if (landing?.kind === 'deep_link' && landing.uri.startsWith('cdp://')) {
      this.landed = await this.lander.land(landing).catch((err: unknown) => {
        this.log.warn(`wake landing: ${String(err)}`);
        return undefined;
      });
      if (this.endedAt !== undefined && this.landed) this.timeToLocusMs = Date.now() - this.endedAt;
      if (this.landed?.desk) this.event = { ...this.event, desk: deskAtDelivery(this.event.desk, this.landed.desk) };
    }
    // Otherwise the landing opens first and the pulse goes out once it is on screen (at most
    // LANDING_FIRST_MAX_MS later): both need the workbench, and run together each slowed the other
    // (the wake bench measured the landing ~300 ms behind a plain showTextDocument). Time to report
    // locus is what the user waits for; the agent's turn starting a moment later costs nobody.
    await Promise.race([this.start(), this.delay(LANDING_FIRST_MAX_MS)]);
    mark(trace, 'landing', Date.now());
  }

  /** Opens the landing once (later calls wait for the same opening). */
  start(): Promise<void> {
    return (this.landing$ ??=
      this.landing && !this.landed
        ? this.lander.land(this.shown ?? this.landing).then(
            (l) => {
              this.landed = l;
              if (this.endedAt !== undefined) this.timeToLocusMs = Date.now() - this.endedAt;
            },
            (err: unknown) => this.log.warn(`wake landing: ${String(err)}`),
          )
        : Promise.resolve());
  }
}
