/**
 * `life-thread`: the durable schedule from a terminal (README "The CLI"). Exit codes: 0 ok, 2 bad
 * input, 3 store unreadable / newer schema / lock not obtained; 1 only for a bug.
 *
 * This part reads the line, answers `--help` and `--version`, and refuses an unknown command or flag;
 * it loads nothing else, so those answers cost little more than starting node. A routed verb is then
 * handed to the bundle that holds it (`load`): dist/cli-add.js for the add verbs, dist/cli-main.js for
 * the rest.
 */
import { InputError } from '../core/errors';
import { version } from '../../package.json';
import { checkAllowed, has, parseArgs, type FlagName, type ParsedArgs } from './args';
import type { VerbCall } from './context';
import { report, reportUnexpected, type Io } from './exits';
import { USAGE } from './usage';

/** Which bundle holds a verb: `add` is the lean one. */
export type Bundle = 'add' | 'main';

export interface VerbModule {
  runVerb: (words: string, call: VerbCall) => Promise<number>;
}

interface Verb {
  flags: readonly FlagName[];
  bundle: Bundle;
}

const TIME: readonly FlagName[] = ['when', 'cron'];

const ROUTES: Record<string, Record<string, Verb>> = {
  remind: {
    add: { flags: ['text', ...TIME, 'allow-nested'], bundle: 'add' },
    list: { flags: [], bundle: 'main' },
    remove: { flags: [], bundle: 'main' },
  },
  schedule: {
    'add-command': { flags: ['command', ...TIME, 'timeout-minutes', 'allow-nested'], bundle: 'add' },
    list: { flags: [], bundle: 'main' },
    remove: { flags: [], bundle: 'main' },
    move: { flags: [...TIME, 'timeout-minutes'], bundle: 'main' },
    'run-now': { flags: [], bundle: 'main' },
    log: { flags: [], bundle: 'main' },
  },
  wake: {
    add: { flags: ['text', 'delay-seconds', 'at', 'on', 'job-id', 'thread', 'cancel-token', 'landing', 'allow-nested'], bundle: 'main' },
    list: { flags: [], bundle: 'main' },
    cancel: { flags: [], bundle: 'main' },
  },
  service: {
    install: { flags: ['kind', 'dry-run'], bundle: 'main' },
    status: { flags: [], bundle: 'main' },
    uninstall: { flags: [], bundle: 'main' },
  },
};

/** Verbs that read a workspace's files, not the store: a bad verb is named before anything else. */
const NO_STORE: Record<string, Record<string, Verb>> = {
  topic: { verify: { flags: [], bundle: 'main' } },
};

const SINGLE: Record<string, Verb> = {
  dispatch: { flags: ['once', 'commands-only', 'reminder-max-lateness-hours', 'command-max-lateness-hours'], bundle: 'main' },
  doctor: { flags: [], bundle: 'main' },
  mcp: { flags: [], bundle: 'main' },
  wait: { flags: ['timeout'], bundle: 'main' },
  run: { flags: ['wake', 'timeout-minutes', 'allow-nested'], bundle: 'main' },
};

function route(args: ParsedArgs): { verb: Verb; words: string; rest: string[] } {
  const [group, sub, ...rest] = args.positionals;
  if (group === undefined) throw new InputError('command', 'is missing; see life-thread --help');
  const single = Object.hasOwn(SINGLE, group) ? SINGLE[group] : undefined;
  if (single) return { verb: single, words: group, rest: args.positionals.slice(1) };
  const verbs = Object.hasOwn(ROUTES, group) ? ROUTES[group] : undefined;
  if (!verbs) throw new InputError('command', `unknown command '${group}'; commands: remind, schedule, wake, dispatch, doctor, service, topic, mcp, wait, run, help`);
  const names = Object.keys(verbs).join(', ');
  if (sub === undefined) throw new InputError('command', `'${group}' needs a verb: ${names}`);
  const verb = Object.hasOwn(verbs, sub) ? verbs[sub] : undefined;
  if (!verb) throw new InputError('command', `unknown command '${group} ${sub}'; '${group}' takes ${names}`);
  return { verb, words: `${group} ${sub}`, rest };
}

/** The topic verbs, which need no store: routed before the store verbs, so their errors come first. */
function routeTopic(args: ParsedArgs): { verb: Verb; words: string; rest: string[] } | undefined {
  const [group, sub] = args.positionals;
  const verbs = group !== undefined && Object.hasOwn(NO_STORE, group) ? NO_STORE[group] : undefined;
  if (!verbs) return undefined;
  const names = Object.keys(verbs).join(', ');
  const verb = sub !== undefined && Object.hasOwn(verbs, sub) ? verbs[sub] : undefined;
  if (!verb) throw new InputError('command', sub === undefined ? `'${group}' needs a verb: ${names}` : `unknown command '${group} ${sub}'; '${group}' takes ${names}`);
  return { verb, words: `${group} ${sub}`, rest: args.positionals.slice(2) };
}

/** Runs the command line `argv`; its exit code. `load` gives the module that holds a bundle's verbs. */
export async function startCli(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, io: Io, load: (bundle: Bundle) => VerbModule): Promise<number> {
  const args = parseArgs(argv);
  const json = has(args, 'json');
  let routed: { verb: Verb; words: string; rest: string[] };
  try {
    if (has(args, 'help') || args.positionals[0] === 'help') {
      io.stdout(json ? `${JSON.stringify({ usage: USAGE })}\n` : USAGE);
      return 0;
    }
    if (has(args, 'version')) {
      io.stdout(json ? `${JSON.stringify({ version })}\n` : `life-thread ${version}\n`);
      return 0;
    }
    routed = routeTopic(args) ?? route(args);
    if (args.error) throw args.error;
    checkAllowed(args, routed.verb.flags, routed.words);
  } catch (e) {
    if (e instanceof InputError) {
      report(io, json, e.field, e.reason);
      return 2;
    }
    return reportUnexpected(io, json, e);
  }
  let module: VerbModule;
  try {
    module = load(routed.verb.bundle);
  } catch (e) {
    return reportUnexpected(io, json, e);
  }
  // A bundle reports its verbs' errors itself; what escapes it is a bug (exit 1), not a crash.
  return module.runVerb(routed.words, { args, rest: routed.rest, json, env, cwd, io }).catch((e: unknown) => reportUnexpected(io, json, e));
}
