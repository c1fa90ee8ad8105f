/**
 * The accounting of an agent's turn from the model requests it makes (src/host/agentTurns.ts feeds
 * it what Life Thread's provider sees): busy from a request until a response that calls no tool, or
 * until `silenceMs` pass without a request, a streamed part or a response's end. Free of `vscode`, with
 * the timer seam of ./dispatchLoop.ts, so unit tests run it on a fake clock.
 */
import { realTimers, type Timers } from './dispatchLoop';

/** A turn whose model went quiet this long counts as ended. */
export const AGENT_SILENCE_MS = 2 * 60_000;

/** One model request of the agent. */
export interface AgentRequest {
  /** A part streamed back. */
  activity(): void;
  /** The response ended (done, failed or cancelled); `toolCalled` when it asked for a tool, so the turn goes on. */
  end(toolCalled: boolean): void;
}

export class AgentBusy {
  private inFlight = 0;
  /** The last response asked for a tool: the agent runs it and asks again. */
  private toolPending = false;
  private silence: unknown;

  constructor(
    /** The turn ended: its final answer, or the silence. */
    private readonly ended: () => void,
    private readonly silenceMs = AGENT_SILENCE_MS,
    private readonly timers: Timers = realTimers,
  ) {}

  get busy(): boolean {
    return this.inFlight > 0 || this.toolPending;
  }

  request(): AgentRequest {
    this.inFlight++;
    this.touch();
    let done = false;
    return {
      activity: () => {
        if (!done) this.touch();
      },
      end: (toolCalled) => {
        if (done) return;
        done = true;
        this.inFlight = Math.max(0, this.inFlight - 1);
        // A response that called a tool keeps the turn going; one that did not ends it, unless another request runs.
        this.toolPending = toolCalled || (this.inFlight > 0 && this.toolPending);
        if (this.busy) this.touch();
        else this.finish();
      },
    };
  }

  private touch(): void {
    if (this.silence !== undefined) this.timers.clearTimeout(this.silence);
    this.silence = this.timers.setTimeout(() => {
      this.silence = undefined;
      this.inFlight = 0;
      this.toolPending = false;
      this.ended();
    }, this.silenceMs);
  }

  private finish(): void {
    if (this.silence !== undefined) this.timers.clearTimeout(this.silence);
    this.silence = undefined;
    this.ended();
  }

  dispose(): void {
    if (this.silence !== undefined) this.timers.clearTimeout(this.silence);
    this.silence = undefined;
  }
}
