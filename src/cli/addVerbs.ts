/**
 * `remind add` and `schedule add-command`: the verbs a terminal runs most, bundled apart
 * (dist/cli-add.js) so that they load the store and the `when` grammar and nothing else.
 */
import { InputError } from '../core/errors';
import { valueOf, parseTimeoutMinutes } from './args';
import { CLI_FIELDS, cliOwner, emitJson, nestedGuard, noPositionals, runVerb as runIn, timeFlags, zone, type Context, type VerbCall, type VerbRun } from './context';

export async function remindAdd(ctx: Context): Promise<void> {
  noPositionals(ctx);
  nestedGuard(ctx);
  const text = valueOf(ctx.args, 'text');
  if (text === undefined) throw new InputError('text', 'is missing: give --text "what to remind"');
  const t = timeFlags(ctx);
  const added = await ctx.store.addReminder({ text, ...t, tz: ctx.tz, now: ctx.clock(), owner: cliOwner(ctx) }, CLI_FIELDS);
  if (ctx.json) return emitJson(ctx, added.row);
  ctx.out(`Added ${added.row.id}: ${added.description} (${zone(ctx)})\n`);
}

export async function scheduleAddCommand(ctx: Context): Promise<void> {
  noPositionals(ctx);
  nestedGuard(ctx);
  const command = valueOf(ctx.args, 'command');
  if (command === undefined) throw new InputError('command', 'is missing: give --command "shell command line"');
  const t = timeFlags(ctx);
  const rawTimeout = valueOf(ctx.args, 'timeout-minutes');
  const timeoutMinutes = rawTimeout === undefined ? undefined : parseTimeoutMinutes(rawTimeout);
  const added = await ctx.store.addCommand({ command, cwd: ctx.cwd, envPath: ctx.env.PATH, timeoutMinutes, ...t, tz: ctx.tz, now: ctx.clock(), owner: cliOwner(ctx) }, CLI_FIELDS);
  if (ctx.json) return emitJson(ctx, added.row);
  ctx.out(`Added ${added.row.id}: ${added.description}; runs in ${added.row.cwd} with a ${added.row.timeoutMinutes} min timeout (${zone(ctx)})\n`);
}

export const addVerbs: Record<string, VerbRun> = { 'remind add': remindAdd, 'schedule add-command': scheduleAddCommand };

/** This bundle's verbs (./entry.ts routes only these words here). */
export function runVerb(words: string, call: VerbCall): Promise<number> {
  const run = Object.hasOwn(addVerbs, words) ? addVerbs[words] : undefined;
  if (!run) throw new Error(`dist/cli-add.js has no verb '${words}'`);
  return runIn(run, call);
}
