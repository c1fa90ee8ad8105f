/**
 * What `life-thread mcp` tells the agent about being woken (README "MCP and terminal agents"): the
 * server's instructions and the note on every wake it sets. Each route is spelled exactly: the store's
 * CLI entry by its absolute path with `--store` and `--timeout` (an agent's shell may have neither
 * `life-thread` on its PATH nor the store in its environment), or the `lifethread_wait` call.
 */
import { cliLine } from '../../core/mcpConfig';
import { WAIT_TIMEOUT_MAX_S } from '../../core/toolInputs';
import type { WakeRow } from '../../core/wake/row';

export const INSTRUCTIONS = [
  'Life Thread keeps durable reminders, scheduled commands and wakes. Call lifethread_sendToLifeThread to be woken later (a timer, or when a `life-thread run` job ends) instead of polling.',
  'A wake comes back as a pulse: the text you left yourself, then a `life_wake:` block (wake id, reason, job status and exit code, a one-line summary, a landing on the evidence). Continue the work it names.',
  'To be woken, use the route the answer that set the wake names. Claude Code: run the `<store>/bin/life-thread wait <wake id> --store <store> --timeout <s>` command it gives as a background command (the pulse is its output; Claude Code started with channels also gets it as a <channel source="life-thread"> event). Codex, or any client without background commands: call lifethread_wait { wake_id, timeout_seconds ≤ 50 } in the same turn, again while it answers "not yet".',
  'The next answer of any Life Thread tool in this session also carries every pulse pushed to it, and those of an ended session of this client and folder (marked earlier_session: true).',
].join('\n');

/** Seconds a background `wait` gives a wake before it stops (exit 4): a timer's time to come due and a margin, else an hour. */
export function waitTimeoutSeconds(row: WakeRow, now: Date): number {
  if (row.when === 'timer' && row.nextRunAt !== null) return Math.max(60, Math.ceil((Date.parse(row.nextRunAt) - now.getTime()) / 1000) + 300);
  return 3600;
}

/** The note on a wake set through MCP: how each agent is woken by it. */
export function wakeNote(storeDir: string, row: WakeRow, now: Date): string {
  const wait = cliLine(storeDir, ['wait', row.id, '--store', storeDir, '--timeout', String(waitTimeoutSeconds(row, now))]);
  const call = JSON.stringify({ wake_id: row.id, timeout_seconds: WAIT_TIMEOUT_MAX_S });
  return [
    ` To be woken when it fires — Claude Code: run \`${wait}\` as a background command (it prints the pulse and exits, which wakes you).`,
    ` Codex and clients without background commands: call lifethread_wait ${call} in this turn, again while it answers "not yet".`,
    ' Otherwise the next answer of a Life Thread tool in this session carries it; once this session ends, the next session of this client in this folder, or @life in a VS Code window of it.',
  ].join('');
}
