/**
 * `life-thread`: the durable schedule from a terminal (design §8 "CLI"). Exit codes: 0 ok, 2 bad
 * input, 3 store unreadable / newer schema / lock not obtained; 1 only for a bug.
 */
import * as path from 'node:path';
import { InputError } from '../core/errors';
import { checkClock } from '../core/time/limits';
import { systemZone, validateZone } from '../core/time/zone';
import { ScheduleStore } from '../node/schedule';
import { StoreError } from '../node/store';
import { version } from '../../package.json';
import { checkAllowed, has, lockWaitFromEnv, parseArgs, parseNow, valueOf, type FlagName, type ParsedArgs } from './args';
import * as agent from './agentVerbs';
import * as cmd from './commands';
import { USAGE, type ZoneSource } from './format';
import { TopicBroken, topicVerify } from './topic';

/** A verb; one that returns a number exits with it (`run` passes on its command's exit code). */
type Verb = { flags: readonly FlagName[]; run: (ctx: cmd.Context) => Promise<void | number> };

const TIME: readonly FlagName[] = ['when', 'cron'];

const ROUTES: Record<string, Record<string, Verb>> = {
  remind: {
    add: { flags: ['text', ...TIME, 'allow-nested'], run: cmd.remindAdd },
    list: { flags: [], run: cmd.remindList },
    remove: { flags: [], run: cmd.remindRemove },
  },
  schedule: {
    'add-command': { flags: ['command', ...TIME, 'timeout-minutes', 'allow-nested'], run: cmd.scheduleAddCommand },
    list: { flags: [], run: cmd.scheduleList },
    remove: { flags: [], run: cmd.scheduleRemove },
    move: { flags: [...TIME, 'timeout-minutes'], run: cmd.scheduleMove },
    'run-now': { flags: [], run: cmd.scheduleRunNow },
    log: { flags: [], run: cmd.scheduleLog },
  },
  wake: {
    add: { flags: ['text', 'delay-seconds', 'at', 'on', 'job-id', 'thread', 'cancel-token', 'landing', 'allow-nested'], run: cmd.wakeAdd },
    list: { flags: [], run: cmd.wakeList },
    cancel: { flags: [], run: cmd.wakeCancel },
  },
};

/** Verbs that read a workspace's files, not the store. */
const NO_STORE: Record<string, Record<string, { run: typeof topicVerify }>> = {
  topic: { verify: { run: topicVerify } },
};

const SINGLE: Record<string, Verb> = {
  dispatch: { flags: ['once', 'reminder-max-lateness-hours', 'command-max-lateness-hours'], run: cmd.dispatch },
  doctor: { flags: [], run: cmd.doctor },
  mcp: { flags: [], run: agent.mcp },
  wait: { flags: ['timeout'], run: agent.wait },
  run: { flags: ['wake', 'timeout-minutes', 'allow-nested'], run: agent.run },
};

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

function route(args: ParsedArgs): { verb: Verb; words: string; rest: string[] } {
  const [group, sub, ...rest] = args.positionals;
  if (group === undefined) throw new InputError('command', 'is missing; see life-thread --help');
  const single = Object.hasOwn(SINGLE, group) ? SINGLE[group] : undefined;
  if (single) return { verb: single, words: group, rest: args.positionals.slice(1) };
  const verbs = Object.hasOwn(ROUTES, group) ? ROUTES[group] : undefined;
  if (!verbs) throw new InputError('command', `unknown command '${group}'; commands: remind, schedule, wake, dispatch, doctor, topic, mcp, wait, run, help`);
  const names = Object.keys(verbs).join(', ');
  if (sub === undefined) throw new InputError('command', `'${group}' needs a verb: ${names}`);
  const verb = Object.hasOwn(verbs, sub) ? verbs[sub] : undefined;
  if (!verb) throw new InputError('command', `unknown command '${group} ${sub}'; '${group}' takes ${names}`);
  return { verb, words: `${group} ${sub}`, rest };
}

function resolveZone(args: ParsedArgs, env: NodeJS.ProcessEnv): { tz: string; source: ZoneSource } {
  const flag = valueOf(args, 'tz');
  if (flag !== undefined) return { tz: validateZone(flag, 'tz'), source: 'flag' };
  const fromEnv = env.LIFE_THREAD_TZ;
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    try {
      return { tz: validateZone(fromEnv, 'tz'), source: 'env' };
    } catch (e) {
      if (e instanceof InputError) throw new InputError('tz', `LIFE_THREAD_TZ: ${e.reason}`);
      throw e;
    }
  }
  return { tz: systemZone(), source: 'system' };
}

function resolveStore(args: ParsedArgs, env: NodeJS.ProcessEnv, cwd: string): string {
  const flag = valueOf(args, 'store');
  const raw = flag ?? env.LIFE_THREAD_STORE;
  if (raw === undefined || raw.trim() === '') {
    throw new InputError('store', 'no store directory: give --store DIR or set LIFE_THREAD_STORE (the extension sets it in its terminals)');
  }
  return path.resolve(cwd, raw);
}

function report(io: Io, json: boolean, field: string, reason: string): void {
  if (json) io.stderr(`${JSON.stringify({ error: { field, reason } })}\n`);
  else io.stderr(`life-thread: ${field}: ${reason.replace(/\s*\n\s*/g, ' ')}\n`);
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, io: Io): Promise<number> {
  const args = parseArgs(argv);
  const json = has(args, 'json');
  try {
    if (has(args, 'help') || args.positionals[0] === 'help') {
      io.stdout(json ? `${JSON.stringify({ usage: USAGE })}\n` : USAGE);
      return 0;
    }
    if (has(args, 'version')) {
      io.stdout(json ? `${JSON.stringify({ version })}\n` : `life-thread ${version}\n`);
      return 0;
    }
    const [group, sub] = args.positionals;
    const topicVerbs = group !== undefined && Object.hasOwn(NO_STORE, group) ? NO_STORE[group] : undefined;
    if (topicVerbs) {
      const names = Object.keys(topicVerbs).join(', ');
      const v = sub !== undefined && Object.hasOwn(topicVerbs, sub) ? topicVerbs[sub] : undefined;
      if (!v) throw new InputError('command', sub === undefined ? `'${group}' needs a verb: ${names}` : `unknown command '${group} ${sub}'; '${group}' takes ${names}`);
      if (args.error) throw args.error;
      checkAllowed(args, [], `${group} ${sub}`);
      await v.run({ rest: args.positionals.slice(2), json, cwd, out: io.stdout });
      return 0;
    }
    const { verb, words, rest } = route(args);
    if (args.error) throw args.error;
    checkAllowed(args, verb.flags, words);
    const storeDir = resolveStore(args, env, cwd);
    const rawNow = valueOf(args, 'now');
    // --now stops the clock at that instant, so answers computed from it are exact.
    const fixed = rawNow === undefined ? undefined : checkClock(parseNow(rawNow), new Date());
    const clock = (): Date => (fixed === undefined ? new Date() : new Date(fixed.getTime()));
    const { tz, source } = resolveZone(args, env);
    const store = new ScheduleStore({ dir: storeDir, lockWaitMs: lockWaitFromEnv(env) });
    const code = await verb.run({ args, rest, json, env, cwd, storeDir, store, clock, tz, tzSource: source, out: io.stdout });
    return code ?? 0;
  } catch (e) {
    if (e instanceof InputError) {
      report(io, json, e.field, e.reason);
      return 2;
    }
    if (e instanceof TopicBroken) {
      report(io, json, e.field, e.message);
      return e.exitCode;
    }
    if (e instanceof agent.TimedOut) {
      report(io, json, 'timeout', e.message);
      return e.exitCode;
    }
    if (e instanceof cmd.Stopped) {
      report(io, json, 'interrupted', e.message);
      return e.exitCode;
    }
    if (e instanceof StoreError) {
      report(io, json, 'store', `${e.message}${e.message.includes(e.path) ? '' : ` (${e.path})`}`);
      return 3;
    }
    report(io, json, 'internal', `unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 1;
  }
}
