import * as vscode from 'vscode';
import type { NeutralMessage } from '../core/openai';
import { agentReceipt } from '../core/wake/receipt';
import { AgentBusy, type AgentRequest } from '../node/agentBusy';
import { WAKE_TOOL } from './agentTurn';

export type { AgentRequest } from '../node/agentBusy';

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
  /** What requests showed of pulses, kept for a pulse whose model request came before its fact was written. */
  private readonly seen = new Map<string, 'verified' | 'elsewhere'>();
  private readonly _onDidEnd = new vscode.EventEmitter<void>();
  /** The agent's turn ended: its final answer, or AGENT_SILENCE_MS without a word. */
  readonly onDidEnd = this._onDidEnd.event;
  private readonly _onDidSee = new vscode.EventEmitter<{ verified: string[]; elsewhere: string[] }>();
  /** A request showed pulses sent into Agent mode (ids only of pulses it held). */
  readonly onDidSee = this._onDidSee.event;

  private readonly turn = new AgentBusy(() => this._onDidEnd.fire());

  get busy(): boolean {
    return this.turn.busy;
  }

  /** A request from outside Life Thread reached one of its models (`real`: not the offline responder). */
  request(messages: readonly NeutralMessage[], real: boolean): AgentRequest {
    const r = this.turn.request();
    if (real) this.look(messages);
    return r;
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

  dispose(): void {
    this.turn.dispose();
    this._onDidEnd.dispose();
    this._onDidSee.dispose();
  }
}
