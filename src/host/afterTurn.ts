import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../node/atomicFile';
import { join } from 'node:path';
import { afterTurnStateSchema, describeRequest, failRequest, requestAfterTurn, settleOnStart, startRequest, afterTurnActions, type AfterTurnAction, type AfterTurnState } from '../core/afterTurn';
import { InputError } from '../core/errors';
import { parseToolInput } from '../core/toolInputs';
import { z } from 'zod';
import { randomBase36 } from '../node/ids';
import type { AgentTurns } from './agentTurns';

export const AFTER_TURN_FILE = 'after-turn.json';
const COMMAND_FOR: Record<AfterTurnAction, string> = {
  reload_window: 'workbench.action.reloadWindow',
  restart_extension_host: 'workbench.action.restartExtensionHost',
};
/**
 * When the request came from neither an @life turn nor an Agent-mode turn on Life Thread's own models
 * (another vendor's model gives no sign of its turn's end), it runs after this quiet time.
 */
const OUTSIDE_TURN_DELAY_MS = 3000;
/** After the turn's final answer: long enough for the chat to show it before a reload takes the window. */
const AFTER_ANSWER_MS = 200;

const inputSchema = z.object({ action: z.enum(afterTurnActions) }).strict();

/**
 * Durable after-turn requests: stored in the store, carried out when the turn ends (an @life turn, or
 * an Agent-mode turn on Life Thread's own models: ./agentTurns.ts), settled after the reload.
 */
export class AfterTurn implements vscode.Disposable {
  private readonly file: string;
  private turnsInFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly agentEnded: vscode.Disposable | undefined;
  /** Set in tests: carry out requests by recording instead of reloading. */
  executor: (command: string) => Thenable<unknown> = (command) => vscode.commands.executeCommand(command);

  constructor(
    private readonly storeDir: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly agents?: AgentTurns,
  ) {
    this.file = join(storeDir, AFTER_TURN_FILE);
    this.agentEnded = agents?.onDidEnd(() => {
      if (this.turnsInFlight === 0) this.schedule(AFTER_ANSWER_MS);
    });
  }

  /** Whether a turn is running whose end this window sees. */
  private get inTurn(): boolean {
    return this.turnsInFlight > 0 || this.agents?.busy === true;
  }

  async read(): Promise<AfterTurnState> {
    try {
      return afterTurnStateSchema.parse(JSON.parse(await readFile(this.file, 'utf8')));
    } catch {
      return { current: null };
    }
  }

  private async write(state: AfterTurnState): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify(state, null, 2));
  }

  /** At activation: settle a request the previous host was running (the reload it asked for happened). */
  async settleAtStart(): Promise<void> {
    const state = await this.read();
    const next = settleOnStart(state, new Date());
    if (next !== state) {
      await this.write(next);
      if (next.current) this.log.info(`after-turn: ${describeRequest(next.current)}`);
    }
  }

  /** What the next turn can read. */
  async lastOutcome(): Promise<string | undefined> {
    const s = await this.read();
    return s.current ? describeRequest(s.current) : undefined;
  }

  beginTurn(): void {
    this.turnsInFlight++;
  }

  endTurn(): void {
    this.turnsInFlight = Math.max(0, this.turnsInFlight - 1);
    if (!this.inTurn) this.schedule(AFTER_ANSWER_MS);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.runPending(), ms);
  }

  private async runPending(): Promise<void> {
    if (this.inTurn) return;
    const state = await this.read();
    if (state.current?.status !== 'pending') return;
    const running = startRequest(state, new Date());
    await this.write(running);
    const req = running.current;
    if (!req) return;
    this.log.info(`after-turn: carrying out ${req.action}`);
    try {
      await this.executor(COMMAND_FOR[req.action]);
    } catch (err) {
      await this.write(failRequest(running, new Date(), `could not ${req.action}: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  tool(): vscode.LanguageModelTool<{ action: AfterTurnAction }> {
    return {
      prepareInvocation: (options) => ({
        invocationMessage: `Requesting ${options.input.action} after this turn`,
        confirmationMessages: { title: options.input.action === 'reload_window' ? 'Reload the window after this turn?' : 'Restart the extension host after this turn?', message: 'It runs when the current turn has ended; the outcome is kept for the next turn.' },
      }),
      invoke: async (options) => {
        let action: AfterTurnAction;
        try {
          action = parseToolInput(inputSchema, options.input).action;
        } catch (err) {
          throw new Error(err instanceof InputError ? `Invalid input — ${err.field}: ${err.reason}` : String(err));
        }
        const state = await this.read();
        const { state: next, answer } = requestAfterTurn(state, action, new Date(), `a-${randomBase36(8)}`);
        if (answer.kind === 'refused') throw new Error(`refused: ${answer.reason}`);
        if (next !== state) await this.write(next);
        // In a turn, its end carries the request out (endTurn, or the agent's final answer).
        if (!this.inTurn) this.schedule(OUTSIDE_TURN_DELAY_MS);
        const text =
          answer.kind === 'accepted'
            ? `Accepted: ${action} will run after this turn ends (request ${answer.request.id}). The outcome is kept and shown to the next turn.`
            : `Already accepted: ${describeRequest(answer.request)}. It runs after this turn ends.`;
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`${text}\n\n${JSON.stringify(answer.request)}`)]);
      },
    };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.agentEnded?.dispose();
  }
}
