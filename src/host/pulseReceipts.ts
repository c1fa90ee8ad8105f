import { pulseWakeIds } from '../core/wake/pulse';
import type { WakeTrace } from '../core/wake/trace';

/**
 * The wakes this window is delivering until @life's handler has them: a wake is delivered only when
 * the handler holds its pulse (its id travels with it), with the instant, the timings and the topic.
 */
export class PulseReceipts {
  /** The timings of the wakes being delivered, until @life has them. */
  private readonly traces = new Map<string, WakeTrace>();
  /** The topic of each wake being delivered from this window, for the transcript its pulse goes to. */
  private readonly deliveringTopics = new Map<string, string>();

  /** `awaitReceipt`: the wake loop's wait for the receiver (../node/wakeLoop.ts), with its time limit. */
  constructor(private readonly awaitReceipt: (ids: readonly string[]) => Promise<number | undefined>) {}

  trace(id: string): WakeTrace | undefined {
    return this.traces.get(id);
  }

  /** The topic (thread) a pulse belongs to, when it is one this window is delivering. */
  topicOfPulse(prompt: string): string | undefined {
    for (const id of pulseWakeIds(prompt)) {
      const t = this.deliveringTopics.get(id);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  /** Resolves with the instant @life's handler had every id of a pulse of `topic`, or undefined when it did not in time. */
  expect(ids: readonly string[], topic: string, trace: WakeTrace | undefined): Promise<number | undefined> {
    for (const id of ids) this.deliveringTopics.set(id, topic);
    if (trace) for (const id of ids) this.traces.set(id, trace);
    return this.awaitReceipt(ids).finally(() => {
      for (const id of ids) this.deliveringTopics.delete(id);
      for (const id of ids) this.traces.delete(id);
    });
  }
}
