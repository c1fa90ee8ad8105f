/**
 * Every verb of `life-thread` (dist/cli-main.js; the entry, ./entry.ts, hands it the routed verb), and
 * `main`, the whole CLI in one process, as tests and scripts call it.
 */
import { InputError } from '../core/errors';
import { addVerbs } from './addVerbs';
import * as agent from './agentVerbs';
import * as cmd from './commands';
import * as wakeCmd from './wakeVerbs';
import { exitFor, runVerb as runIn, type VerbCall, type VerbRun } from './context';
import { startCli } from './entry';
import type { Io } from './exits';
import { serviceInstall, serviceStatus, serviceUninstall } from './service';
import { topicVerify } from './topic';

const RUNS: Record<string, VerbRun> = {
  ...addVerbs,
  'remind list': cmd.remindList,
  'remind remove': cmd.remindRemove,
  'schedule list': cmd.scheduleList,
  'schedule remove': cmd.scheduleRemove,
  'schedule move': cmd.scheduleMove,
  'schedule run-now': cmd.scheduleRunNow,
  'schedule log': cmd.scheduleLog,
  'wake add': wakeCmd.wakeAdd,
  'wake list': wakeCmd.wakeList,
  'wake cancel': wakeCmd.wakeCancel,
  dispatch: cmd.dispatch,
  doctor: cmd.doctor,
  'service install': serviceInstall,
  'service status': serviceStatus,
  'service uninstall': serviceUninstall,
  mcp: agent.mcp,
  wait: agent.wait,
  run: agent.run,
};

export async function runVerb(words: string, call: VerbCall): Promise<number> {
  if (words === 'topic verify') {
    try {
      await topicVerify({ rest: call.rest, json: call.json, cwd: call.cwd, out: call.io.stdout });
      return 0;
    } catch (e) {
      return exitFor(e, call.io, call.json);
    }
  }
  const run = Object.hasOwn(RUNS, words) ? RUNS[words] : undefined;
  if (!run) return exitFor(new InputError('command', `unknown command '${words}'`), call.io, call.json);
  return runIn(run, call);
}

export function main(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, io: Io): Promise<number> {
  return startCli(argv, env, cwd, io, () => ({ runVerb }));
}
