/**
 * The CLI's argv: global flags anywhere on the line, `--flag value` or `--flag=value`, `-h`, `--`
 * ends the flags. `node:util` parseArgs splits the line (non-strict, as tokens); the checks below
 * turn every problem into an error naming the flag, reported after `--json` and `--help` are known.
 */
import { parseArgs as splitArgv } from 'node:util';
import { InputError } from '../core/errors';
import { isIsoInstant } from '../core/instant';

export type FlagName =
  | 'store'
  | 'json'
  | 'now'
  | 'tz'
  | 'help'
  | 'version'
  | 'text'
  | 'when'
  | 'cron'
  | 'command'
  | 'timeout-minutes'
  | 'once'
  | 'reminder-max-lateness-hours'
  | 'command-max-lateness-hours'
  | 'allow-nested'
  | 'delay-seconds'
  | 'at'
  | 'on'
  | 'job-id'
  | 'thread'
  | 'cancel-token'
  | 'landing'
  | 'timeout'
  | 'wake'
  | 'commands-only'
  | 'kind'
  | 'dry-run';

const FLAGS: Record<FlagName, 'bool' | 'value'> = {
  store: 'value',
  json: 'bool',
  now: 'value',
  tz: 'value',
  help: 'bool',
  version: 'bool',
  text: 'value',
  when: 'value',
  cron: 'value',
  command: 'value',
  'timeout-minutes': 'value',
  once: 'bool',
  'reminder-max-lateness-hours': 'value',
  'command-max-lateness-hours': 'value',
  'allow-nested': 'bool',
  'delay-seconds': 'value',
  at: 'value',
  on: 'value',
  'job-id': 'value',
  thread: 'value',
  'cancel-token': 'value',
  landing: 'value',
  timeout: 'value',
  wake: 'value',
  'commands-only': 'bool',
  kind: 'value',
  'dry-run': 'bool',
};

export const GLOBAL_FLAGS: readonly FlagName[] = ['store', 'json', 'now', 'tz', 'help', 'version'];

function isFlagName(s: string): s is FlagName {
  return Object.hasOwn(FLAGS, s);
}

export interface ParsedArgs {
  positionals: string[];
  /** How many positionals came before `--` (undefined without one): `run -- <command…>` takes the rest as they are. */
  beforeDashDash?: number;
  flags: Map<FlagName, string | true>;
  /** The first problem met; reported only after `--json` and `--help` are known. */
  error: InputError | undefined;
}

const OPTIONS = Object.fromEntries(
  Object.entries(FLAGS).map(([name, kind]) => [name, { type: kind === 'bool' ? ('boolean' as const) : ('string' as const), ...(name === 'help' ? { short: 'h' } : {}) }]),
);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<FlagName, string | true>();
  let error: InputError | undefined;
  let beforeDashDash: number | undefined;
  const fail = (e: InputError): void => {
    error ??= e;
  };

  let rest = [...argv];
  for (let done = false; !done; ) {
    done = true;
    const { tokens } = splitArgv({ args: rest, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
    for (const t of tokens) {
      if (t.kind === 'option-terminator') beforeDashDash ??= positionals.length;
      if (t.kind === 'positional') positionals.push(t.value);
      if (t.kind !== 'option') continue;
      const name = t.name;
      if (!isFlagName(name)) {
        // A short group (`-xy`) is named as typed, not by its first letter.
        const typed = t.rawName.startsWith('--') ? t.rawName : (rest[t.index] ?? t.rawName);
        fail(new InputError(typed.replace(/^-+/, '') || typed, `unknown flag '${typed}'; see life-thread --help`));
        continue;
      }
      if (flags.has(name)) fail(new InputError(name, `is given more than once`));
      if (FLAGS[name] === 'bool') {
        if (t.inlineValue === true) fail(new InputError(name, `takes no value (got '${t.value ?? ''}')`));
        flags.set(name, true);
        continue;
      }
      if (t.value === undefined) {
        fail(new InputError(name, 'needs a value'));
        continue;
      }
      if (t.inlineValue === false && t.value.startsWith('--') && t.value.length > 2) {
        // A following `--flag` means the value was forgotten, not that it is the value: read on from that flag.
        fail(new InputError(name, 'needs a value'));
        rest = rest.slice(t.index + 1);
        done = false;
        break;
      }
      flags.set(name, t.value);
    }
  }
  return { positionals, flags, error, ...(beforeDashDash !== undefined ? { beforeDashDash } : {}) };
}

/** The value of a value flag, or undefined when absent. */
export function valueOf(args: ParsedArgs, name: FlagName): string | undefined {
  const v = args.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

export function has(args: ParsedArgs, name: FlagName): boolean {
  return args.flags.has(name);
}

/** Refuses flags the command does not take; global flags are always allowed. */
export function checkAllowed(args: ParsedArgs, allowed: readonly FlagName[], commandWords: string): void {
  for (const name of args.flags.keys()) {
    if (GLOBAL_FLAGS.includes(name) || allowed.includes(name)) continue;
    throw new InputError(name, `is not a flag of '${commandWords}'; see life-thread --help`);
  }
}

/** `--timeout-minutes`: a whole number of minutes from 1 to 60 ("5x", "1.5", 0 and 61 refused). */
export function parseTimeoutMinutes(raw: string, field = 'timeout-minutes'): number {
  const text = raw.trim();
  const n = Number(text);
  const why = !/^\d+$/.test(text) ? 'must be a whole number' : n < 1 ? 'must be at least 1' : n > 60 ? 'must be at most 60' : undefined;
  if (why !== undefined) throw new InputError(field, `must be a whole number of minutes from 1 to 60, got '${raw}' (${why})`);
  return n;
}

/** A catch-up limit in hours (fractions allowed), returned in milliseconds. */
export function parseHours(raw: string, field: string): number {
  const text = raw.trim();
  const n = Number(text);
  const why = !/^\d+(\.\d+)?$/.test(text) ? 'must be a number' : !(n > 0) ? 'must be more than 0' : n > 24 * 366 ? 'must be at most a year' : undefined;
  if (why !== undefined) throw new InputError(field, `must be a number of hours above 0, got '${raw}' (${why})`);
  return Math.round(n * 3600_000);
}

/** `--now`: an ISO-8601 instant with a zone designator. */
export function parseNow(raw: string): Date {
  const text = raw.trim();
  if (!isIsoInstant(text)) throw new InputError('now', `'${raw}' is not an ISO-8601 instant with a zone, e.g. 2026-10-03T07:00:00Z`);
  return new Date(Date.parse(text));
}

/** The test-only lock wait (LIFE_THREAD_LOCK_WAIT_MS); the spec's 10 s otherwise. */
export function lockWaitFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.LIFE_THREAD_LOCK_WAIT_MS;
  if (raw === undefined || !/^\d{1,7}$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}
