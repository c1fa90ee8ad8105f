import * as vscode from 'vscode';
import type { NeutralMessage } from '../core/openai';
import { agentReceipt } from '../core/wake/receipt';
import { WAKE_TOOL } from './agentTurn';

/** A turn whose model went quiet this long (no request, no streamed part) counts as ended. */
export const AGENT_SILENCE_MS = 2 * 60_000;

/** One model request to Life Thread's provider, as the provider reports it. */
export interface AgentRequest {
  /** A part streamed back. */
  activity(): void;
  /** The response ended (done, failed or cancelled); `toolCalled` when it asked for a tool, so the turn goes on. */
  end(toolCalled: boolean): void;
}

/**
 * Agent mode's turns as Life Thread's own language-model provider sees them (src/host/openaiProvider.ts):
 * the chat's agent (Copilot's, or any extension's) asks the model, runs the tools the model called and
 * asks again, and its turn ends with a response that calls no tool. Between the first request and that
 * response the agent is busy: a wake for it waits (held: busy) and an after-turn request waits
 * (src/host/afterTurn.ts). Requests Life Thread sends itself (`@life`, reminder turns) have their own
 * accounting and are not reported here. With another vendor's model nothing is seen, so nothing is busy.
 *
 * The same requests carry receipts: a request holding a pulse's `wake:` line and the tool call that set
 * that wake shows the pulse reached the conversation that set it (src/core/wake/receipt.ts).
 */
export class AgentTurns implements vscode.Disposable {
  private inFlight = 0;
  /** The last response asked for a tool: the agent runs it and asks again. */
  private toolPending = false;
  private silence: NodeJS.Timeout | undefined;
  /** What requests showed of pulses, kept for a pulse whose model request came before its fact was written. */
  private readonly seen = new Map<string, 'verified' | 'elsewhere'>();
  private readonly _onDidEnd = new vscode.EventEmitter<void>();
  /** The agent's turn ended: its final answer, or AGENT_SILENCE_MS without a word. */
  readonly onDidEnd = this._onDidEnd.event;
  private readonly _onDidSee = new vscode.EventEmitter<{ verified: string[]; elsewhere: string[] }>();
  /** A request showed pulses sent into Agent mode (ids only of pulses it held). */
  readonly onDidSee = this._onDidSee.event;

  constructor(private readonly silenceMs = AGENT_SILENCE_MS) {}

  get busy(): boolean {
    return this.inFlight > 0 || this.toolPending;
  }

  /** A request from outside Life Thread reached one of its models (`real`: not the offline responder). */
  request(messages: readonly NeutralMessage[], real: boolean): AgentRequest {
    this.inFlight++;
    this.touch();
    if (real) this.look(messages);
    let ended = false;
    return {
      activity: () => this.touch(),
      end: (toolCalled) => {
        if (ended) return;
        ended = true;
        this.inFlight = Math.max(0, this.inFlight - 1);
        this.toolPending = toolCalled;
        if (this.busy) this.touch();
        else this.finish();
      },
    };
  }

  /** The wakes among `ids` a request already showed, and how. */
  receiptsOf(ids: readonly string[]): { verified: string[]; elsewhere: string[] } {
    return { verified: ids.filter((id) => this.seen.get(id) === 'verified'), elsewhere: ids.filter((id) => this.seen.get(id) === 'elsewhere') };
  }

  private look(messages: readonly NeutralMessage[]): void {
    const r = agentReceipt(messages, WAKE_TOOL);
    // Every later request of a conversation holds its pulses again: only what is new goes to the table.
    const fresh = { verified: r.verified.filter((id) => this.seen.get(id) !== 'verified'), elsewhere: r.elsewhere.filter((id) => !this.seen.has(id)) };
    if (fresh.verified.length === 0 && fresh.elsewhere.length === 0) return;
    for (const id of fresh.verified) this.seen.set(id, 'verified');
    for (const id of fresh.elsewhere) this.seen.set(id, 'elsewhere');
    // A pulse is looked up again only right after it was sent: keep the memory small.
    while (this.seen.size > 200) this.seen.delete(this.seen.keys().next().value as string);
    this._onDidSee.fire(fresh);
  }

  private touch(): void {
    if (this.silence) clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      this.silence = undefined;
      this.inFlight = 0;
      this.toolPending = false;
      this._onDidEnd.fire();
    }, this.silenceMs);
  }

  private finish(): void {
    if (this.silence) clearTimeout(this.silence);
    this.silence = undefined;
    this._onDidEnd.fire();
  }

  dispose(): void {
    if (this.silence) clearTimeout(this.silence);
    this._onDidEnd.dispose();
    this._onDidSee.dispose();
  }
}
