/**
 * What every store verb of the CLI is handed (the store, the clock, the zone), how it is built from the
 * command line, and how a verb's error becomes its exit code. Each CLI bundle runs its verbs through
 * `runVerb`, so a lean bundle (dist/cli-add.js) and the full one answer alike.
 */
import * as path from 'node:path';
import { ownerOf } from '../core/claim';
import { InputError } from '../core/errors';
import { stringifyDeep } from '../core/jsonText';
import type { Owner } from '../core/schema';
import { checkClock } from '../core/time/limits';
import { zoneWords, type OwnerZone } from '../core/time/ownerZone';
import { cliHolder } from '../node/liveness';
import { ScheduleStore, type FieldNames } from '../node/schedule';
import { StoreError } from '../node/store/errors';
import { zoneOutsideWindow } from '../node/ownerFile';
import { has, lockWaitFromEnv, parseNow, valueOf, type ParsedArgs } from './args';
import { ExitError, report, reportUnexpected, type Io } from './exits';

export interface Context {
  args: ParsedArgs;
  /** Positional arguments after the command words. */
  rest: string[];
  json: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  storeDir: string;
  store: ScheduleStore;
  clock: () => Date;
  tz: string;
  /** The zone with its source (`--tz`, LIFE_THREAD_TZ, owner.json, the system), as answers name it. */
  zone: OwnerZone;
  out: (text: string) => void;
}

/** What the entry (./entry.ts) knows when it hands a routed verb to a bundle. */
export interface VerbCall {
  args: ParsedArgs;
  rest: string[];
  json: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  io: Io;
}

/** A verb; one that returns a number exits with it (`run` passes on its command's exit code). */
export type VerbRun = (ctx: Context) => Promise<void | number>;

/** The CLI spells fields as its flags. */
export const CLI_FIELDS: FieldNames = {
  when: 'when',
  cron: 'cron',
  tz: 'tz',
  timeoutMinutes: 'timeout-minutes',
  text: 'text',
  command: 'command',
  id: 'id',
};

function resolveStore(args: ParsedArgs, env: NodeJS.ProcessEnv, cwd: string): string {
  const flag = valueOf(args, 'store');
  const raw = flag ?? env.LIFE_THREAD_STORE;
  if (raw === undefined || raw.trim() === '') {
    throw new InputError('store', 'no store directory: give --store DIR or set LIFE_THREAD_STORE (the extension sets it in its terminals)');
  }
  return path.resolve(cwd, raw);
}

/** The exit code of an error a verb threw, reported on stderr (2 bad input, 3 store, 1 a bug; README "The CLI"). */
export function exitFor(e: unknown, io: Io, json: boolean): number {
  if (e instanceof InputError) {
    report(io, json, e.field, e.reason);
    return 2;
  }
  if (e instanceof ExitError) {
    report(io, json, e.field, e.message);
    return e.exitCode;
  }
  if (e instanceof StoreError) {
    report(io, json, 'store', `${e.message}${e.message.includes(e.path) ? '' : ` (${e.path})`}`);
    return 3;
  }
  return reportUnexpected(io, json, e);
}

/** Builds the verb's context (store, --now, zone) and runs it; its exit code. */
export async function runVerb(run: VerbRun, call: VerbCall): Promise<number> {
  const { args, env, cwd, io, json } = call;
  try {
    const storeDir = resolveStore(args, env, cwd);
    const rawNow = valueOf(args, 'now');
    // --now stops the clock at that instant, so answers computed from it are exact.
    const fixed = rawNow === undefined ? undefined : checkClock(parseNow(rawNow), new Date());
    const clock = (): Date => (fixed === undefined ? new Date() : new Date(fixed.getTime()));
    const zone = await zoneOutsideWindow(storeDir, valueOf(args, 'tz'), env.LIFE_THREAD_TZ);
    const store = new ScheduleStore({ dir: storeDir, lockWaitMs: lockWaitFromEnv(env) });
    const code = await run({ args, rest: call.rest, json, env, cwd, storeDir, store, clock, tz: zone.timeZone, zone, out: io.stdout });
    return code ?? 0;
  } catch (e) {
    return exitFor(e, io, json);
  }
}

/** JSON on stdout; without recursion, so doctor can print a quarantined row nested thousands of levels deep. */
export function emitJson(ctx: Context, value: unknown): void {
  ctx.out(`${stringifyDeep(value, 2)}\n`);
}

/** "zone X, source: ui (…), as no --tz was given": every answer that shows a time names its zone and where it came from. */
export function zone(ctx: Context): string {
  return ctx.zone.source === 'flag' ? zoneWords(ctx.zone) : `${zoneWords(ctx.zone)}, as no --tz was given`;
}

export function noPositionals(ctx: Context): void {
  const [extra] = ctx.rest;
  if (extra !== undefined) throw new InputError('command', `unexpected argument '${extra}'`);
}

/** --when or --cron, exactly one. */
export function timeFlags(ctx: Context): { when?: string; cron?: string } {
  const when = valueOf(ctx.args, 'when');
  const cron = valueOf(ctx.args, 'cron');
  if (when !== undefined && cron !== undefined) throw new InputError('when', 'give either --when or --cron, not both');
  if (when === undefined && cron === undefined) {
    throw new InputError('when', "is missing: give --when (e.g. 'in 20 minutes', 'every weekday at 09:00') or --cron '0 9 * * 1-5'");
  }
  return when !== undefined ? { when } : { cron };
}

/** A command job must not multiply schedules by accident: inside a job (LIFE_THREAD_JOB set) adding needs --allow-nested. */
export function nestedGuard(ctx: Context): void {
  const job = ctx.env.LIFE_THREAD_JOB;
  if (job !== undefined && job !== '' && !has(ctx.args, 'allow-nested')) {
    throw new InputError('nested', `this runs inside the command job ${job} (LIFE_THREAD_JOB is set); adding a schedule from a job needs --allow-nested`);
  }
}

/** Rows added from a terminal belong to no workspace: the first window (or dispatch --once) fires them. */
export function cliOwner(ctx: Context): Owner {
  return ownerOf(cliHolder(), { kind: 'cli', cwd: ctx.cwd });
}
