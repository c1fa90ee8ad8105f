/**
 * `life-thread service install [--kind systemd | launchd | cron] [--dry-run] | status | uninstall`
 * (README "Keep time while VS Code is closed"): the OS timer that runs this store's scheduled commands
 * once a minute while no VS Code window is open.
 */
import { InputError } from '../core/errors';
import { shimPath } from '../core/mcpConfig';
import { runtimeWords } from '../core/shimText';
import { describePlan, TIMER_KINDS, type TimerKind } from '../core/service/timerUnits';
import { timerCommandsLine } from '../core/service/timerHealth';
import { describeInstant } from '../core/time/describe';
import { detectKind, installTimer, planTimer, timerStatus, TimerError, uninstallTimer } from '../node/service/osTimer';
import { realSystem, type TimerSystem } from '../node/service/system';
import { findRuntime, installShim, readShim, thisRuntime } from '../node/shim';
import { version } from '../../package.json';
import { has, valueOf } from './args';
import { emitJson, noPositionals, zone, type Context } from './context';
import { ExitError } from './exits';

function kindFlag(ctx: Context): TimerKind | undefined {
  const raw = valueOf(ctx.args, 'kind');
  if (raw === undefined) return undefined;
  const kind = TIMER_KINDS.find((k) => k === raw.trim());
  if (!kind) throw new InputError('kind', `must be one of ${TIMER_KINDS.join(', ')}, got '${raw}'`);
  return kind;
}

/** The machine refused (no timer, systemctl or crontab failed): exit 3, as for a store that cannot be used. */
async function onMachine<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof TimerError) throw new ExitError('service', e.message, 3);
    throw e;
  }
}

function system(ctx: Context): TimerSystem {
  return realSystem(ctx.env);
}

export async function serviceInstall(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const sys = system(ctx);
  const kind = kindFlag(ctx) ?? (await onMachine(() => detectKind(sys)));
  const plan = planTimer(ctx.storeDir, kind, sys);
  if (has(ctx.args, 'dry-run')) {
    if (ctx.json) return emitJson(ctx, { kind: plan.kind, command: plan.command, files: plan.files, cronLine: plan.cronLine ?? null, steps: plan.steps });
    ctx.out(`Dry run: nothing is written.\n${describePlan(plan)}`);
    return;
  }
  // The timer runs the store's shim: this CLI's bundle goes there unless a newer one is in place.
  const runtime = await findRuntime(ctx.env.PATH, thisRuntime(process.versions.electron ? 'vscode' : 'node'));
  const shim = await installShim({ storeDir: ctx.storeDir, bundleDir: __dirname, version, runtime });
  const done = await onMachine(() => installTimer(plan, sys));
  if (ctx.json) return emitJson(ctx, { kind: plan.kind, installed: true, changed: done.changed, command: plan.command, replaced: done.replaced, runtime: shim.shim.runtime });
  const replaced = done.replaced.length > 0 ? ` (it replaces the ${done.replaced.map((r) => r.kind).join(' and ')} timer of this store)` : '';
  const what = plan.cronLine ?? plan.files.map((f) => f.path).join(', ');
  ctx.out(
    `${done.changed ? 'Installed' : 'Already installed, unchanged'}: the ${plan.kind} timer of this store${replaced}: ${what}\n` +
      `Every minute it runs ${plan.command} (commands only; reminders wait for a VS Code window), on ${runtimeWords(shim.shim.runtime)}.\n`,
  );
}

export async function serviceStatus(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const now = ctx.clock();
  const st = await onMachine(() => timerStatus(ctx.storeDir, system(ctx)));
  const shim = await readShim(ctx.storeDir);
  const next = (await ctx.store.listCommands()).rows
    .filter((r): r is typeof r & { nextRunAt: string } => r.status === 'pending' && r.nextRunAt !== null)
    .sort((a, b) => Date.parse(a.nextRunAt) - Date.parse(b.nextRunAt))[0];
  const nextDue = next ? { id: next.id, nextRunAt: next.nextRunAt, command: next.command } : null;
  if (ctx.json) {
    return emitJson(ctx, {
      kind: st.kind,
      installed: st.installed,
      command: st.command,
      lastPassAt: st.lastPassAt?.toISOString() ?? null,
      nextDue,
      entries: st.entries,
      runtime: shim?.runtime ?? null,
      shim: { path: shimPath(ctx.storeDir), version: shim?.version ?? null },
      ...(st.unavailable ? { unavailable: st.unavailable } : {}),
    });
  }
  const lines: string[] = [];
  if (st.installed && st.kind) {
    lines.push(`OS timer: ${st.kind}, installed`, ...st.entries.map((e) => `  ${e}`), timerCommandsLine({ kind: st.kind, lastPassAt: st.lastPassAt }, now));
  } else {
    lines.push(st.kind ? `OS timer: not installed; 'life-thread service install' would use ${st.kind}` : `OS timer: not installed; ${st.unavailable ?? 'this machine offers none'}`);
  }
  if (st.lastPassAt) lines.push(`Last pass: ${describeInstant(st.lastPassAt, ctx.tz, now)}`);
  lines.push(`Runs every minute: ${st.command}`);
  lines.push(nextDue ? `Next due command: ${nextDue.id} ${describeInstant(new Date(nextDue.nextRunAt), ctx.tz, now)} — ${nextDue.command}` : 'Next due command: none');
  lines.push(shim ? `CLI: ${shimPath(ctx.storeDir)}, Life Thread ${shim.version}, on ${runtimeWords(shim.runtime)}` : `CLI: no shim at ${shimPath(ctx.storeDir)} yet (a VS Code window or 'service install' writes it)`);
  lines.push(`Times in ${zone(ctx)}`);
  ctx.out(`${lines.join('\n')}\n`);
}

export async function serviceUninstall(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const removed = await onMachine(() => uninstallTimer(ctx.storeDir, system(ctx)));
  if (ctx.json) return emitJson(ctx, { removed });
  if (removed.length === 0) {
    ctx.out('Nothing to remove: no OS timer of this store is installed\n');
    return;
  }
  ctx.out(`Removed the ${removed.map((r) => r.kind).join(' and ')} timer of this store:\n${removed.flatMap((r) => r.entries.map((e) => `  ${e}`)).join('\n')}\n`);
}
