/**
 * Installs, finds and removes the OS timer of a store (README "Keep time while VS Code is closed"):
 * `life-thread service install | status | uninstall` and the palette's `Keep Time While VS Code Is
 * Closed` both run this. An install is idempotent (nothing is rewritten when it is already there) and
 * replaces an install of another kind for the same store; an uninstall removes exactly what this
 * store's timer consists of and keeps every other crontab line.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { cronLine, crontabWith, crontabWithout, findCronLine, launchdPlist, systemdUnits, timerCommandLine, timerLogPath, timerNames, type TimerKind, type TimerPlan } from '../../core/service/timerUnits';
import { writeFileAtomic } from '../atomicFile';
import { readPulse, TIMER_PULSE_FILE } from '../store/pulse';
import type { RunResult, TimerSystem } from './system';

/** The timer could not be installed, found or removed; the message says what the system answered. */
export class TimerError extends Error {
  override readonly name = 'TimerError';
}

function configHome(sys: TimerSystem): string {
  const x = sys.env.XDG_CONFIG_HOME;
  return x && x.startsWith('/') ? x : path.join(sys.home, '.config');
}

function systemdDir(sys: TimerSystem): string {
  return path.join(configHome(sys), 'systemd', 'user');
}

function plistPath(sys: TimerSystem, storeDir: string): string {
  return path.join(sys.home, 'Library', 'LaunchAgents', `${timerNames(storeDir).label}.plist`);
}

function unitPaths(sys: TimerSystem, storeDir: string): { service: string; timer: string } {
  const unit = timerNames(storeDir).unit;
  return { service: path.join(systemdDir(sys), `${unit}.service`), timer: path.join(systemdDir(sys), `${unit}.timer`) };
}

function said(r: RunResult): string {
  const text = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(0, 3).join(' ');
  return text || (r.code === null ? 'it did not run' : `exit ${r.code}`);
}

/** Which timer this machine offers: launchd on macOS, a running systemd user instance, else cron. */
export async function detectKind(sys: TimerSystem): Promise<TimerKind> {
  if (sys.platform === 'darwin') return 'launchd';
  const systemd = await sys.run('systemctl', ['--user', 'show-environment']);
  if (systemd.code === 0) return 'systemd';
  const cron = await sys.run('crontab', ['-l']);
  if (!cron.notFound) return 'cron';
  const why = systemd.notFound ? 'systemctl is not installed' : `systemctl --user: ${said(systemd)}`;
  throw new TimerError(`this machine offers no OS timer: no systemd user instance (${why}) and no crontab (install cron, e.g. apt-get install cron, and start its daemon)`);
}

/** What an install of `kind` writes and runs. */
export function planTimer(storeDir: string, kind: TimerKind, sys: TimerSystem): TimerPlan {
  const base = { kind, storeDir, command: timerCommandLine(storeDir) };
  const n = timerNames(storeDir);
  switch (kind) {
    case 'systemd': {
      const units = systemdUnits(storeDir);
      const p = unitPaths(sys, storeDir);
      return {
        ...base,
        files: [
          { path: p.service, text: units.service },
          { path: p.timer, text: units.timer },
        ],
        steps: [
          ['systemctl', '--user', 'daemon-reload'],
          ['systemctl', '--user', 'enable', '--now', `${n.unit}.timer`],
        ],
      };
    }
    case 'launchd':
      return { ...base, files: [{ path: plistPath(sys, storeDir), text: launchdPlist(storeDir) }], steps: [['launchctl', 'bootstrap', `gui/${sys.uid}`, plistPath(sys, storeDir)]] };
    case 'cron':
      return { ...base, files: [], cronLine: cronLine(storeDir), steps: [] };
  }
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function removeFile(file: string): Promise<boolean> {
  try {
    await fsp.unlink(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new TimerError(`could not remove ${file}: ${(e as Error).message}`);
  }
}

/** The user's crontab, or null when there is none. */
export async function readCrontab(sys: TimerSystem): Promise<string | null> {
  const r = await sys.run('crontab', ['-l']);
  if (r.code === 0) return r.stdout;
  if (r.notFound) throw new TimerError('crontab is not installed (install cron, e.g. apt-get install cron)');
  if (/no crontab/i.test(r.stderr)) return null;
  throw new TimerError(`crontab -l failed: ${said(r)}`);
}

async function writeCrontab(sys: TimerSystem, content: string | null): Promise<void> {
  if (content === null) {
    const r = await sys.run('crontab', ['-r']);
    if (r.code !== 0 && !/no crontab/i.test(r.stderr)) throw new TimerError(`crontab -r failed: ${said(r)}`);
    return;
  }
  const r = await sys.run('crontab', ['-'], content);
  if (r.code !== 0) throw new TimerError(`crontab - failed: ${said(r)}`);
}

async function must(sys: TimerSystem, cmd: string, args: string[]): Promise<void> {
  const r = await sys.run(cmd, args);
  if (r.code !== 0) throw new TimerError(`${[cmd, ...args].join(' ')} failed: ${said(r)}`);
}

export interface InstalledTimer {
  kind: TimerKind;
  /** The unit files or plist, or the crontab line. */
  entries: string[];
}

/** Every piece of this store's timer found on the machine, of any kind. */
export async function findInstalled(storeDir: string, sys: TimerSystem): Promise<InstalledTimer[]> {
  const found: InstalledTimer[] = [];
  const units = unitPaths(sys, storeDir);
  const unitFiles: string[] = [];
  for (const f of [units.service, units.timer]) if ((await readText(f)) !== null) unitFiles.push(f);
  if (unitFiles.length > 0) found.push({ kind: 'systemd', entries: unitFiles });
  const plist = plistPath(sys, storeDir);
  if ((await readText(plist)) !== null) found.push({ kind: 'launchd', entries: [plist] });
  const r = await sys.run('crontab', ['-l']);
  // "no crontab for <user>" and no cron at all mean none is installed; any other failure (not allowed to
  // use crontab, a broken spool) says nothing of whether our line is there, so it is not read as absent.
  if (r.code !== 0 && !r.notFound && !/no crontab/i.test(r.stderr)) throw new TimerError(`crontab -l failed: ${said(r)}`);
  const line = r.code === 0 ? findCronLine(r.stdout, timerNames(storeDir).marker) : undefined;
  if (line !== undefined) found.push({ kind: 'cron', entries: [line] });
  return found;
}

/**
 * Installs the plan; `changed` is false when everything was already in place. Other kinds of this
 * store's timer are removed only once the new one is in place, so a failed switch keeps the timer
 * that ran; a failed install puts back the files it wrote, so nothing half installed is left behind.
 */
export async function installTimer(plan: TimerPlan, sys: TimerSystem): Promise<{ changed: boolean; replaced: InstalledTimer[] }> {
  const storeDir = plan.storeDir;
  await fsp.mkdir(path.dirname(timerLogPath(storeDir)), { recursive: true });
  const others = (await findInstalled(storeDir, sys)).filter((t) => t.kind !== plan.kind);
  const changed = await installKind(plan, sys);
  for (const t of others) await removeInstalled(storeDir, t, sys);
  return { changed: changed || others.length > 0, replaced: others };
}

/** Puts each file back as it was before this install: its old text, or no file. */
async function restoreFiles(before: readonly { path: string; text: string | null }[]): Promise<void> {
  for (const f of before) {
    await (f.text === null ? fsp.unlink(f.path) : writeFileAtomic(f.path, f.text, { mode: 0o644 })).catch(() => undefined);
  }
}

async function installKind(plan: TimerPlan, sys: TimerSystem): Promise<boolean> {
  const storeDir = plan.storeDir;
  const n = timerNames(storeDir);
  if (plan.kind === 'cron') {
    const line = plan.cronLine ?? cronLine(storeDir);
    const current = await readCrontab(sys);
    const next = crontabWith(current, line, n.marker);
    if (next === current) return false;
    await writeCrontab(sys, next);
    return true;
  }
  const before: { path: string; text: string | null }[] = [];
  for (const f of plan.files) {
    const text = await readText(f.path);
    if (text !== f.text) before.push({ path: f.path, text });
  }
  const wrote = before.length > 0;
  let wasLoaded = false;
  try {
    for (const f of plan.files) if (before.some((b) => b.path === f.path)) await writeFileAtomic(f.path, f.text, { mode: 0o644 });
    if (plan.kind === 'systemd') {
      if (wrote) await must(sys, 'systemctl', ['--user', 'daemon-reload']);
      const active = await sys.run('systemctl', ['--user', 'is-active', `${n.unit}.timer`]);
      const enabled = await sys.run('systemctl', ['--user', 'is-enabled', `${n.unit}.timer`]);
      if (!wrote && active.code === 0 && enabled.code === 0) return false;
      await must(sys, 'systemctl', ['--user', 'enable', '--now', `${n.unit}.timer`]);
      return true;
    }
    const target = `gui/${sys.uid}`;
    const loaded = (await sys.run('launchctl', ['print', `${target}/${n.label}`])).code === 0;
    if (!wrote && loaded) return false;
    // A changed agent is loaded afresh: bootstrap refuses one that is loaded already.
    if (loaded) {
      await sys.run('launchctl', ['bootout', `${target}/${n.label}`]);
      wasLoaded = true;
    }
    await must(sys, 'launchctl', ['bootstrap', target, plistPath(sys, storeDir)]);
    return true;
  } catch (e) {
    await restoreFiles(before);
    // systemd reads the units again so that it does not keep the ones just put back.
    if (plan.kind === 'systemd' && wrote) await sys.run('systemctl', ['--user', 'daemon-reload']);
    // The agent that ran before this install is loaded again from its old plist.
    if (wasLoaded) await sys.run('launchctl', ['bootstrap', `gui/${sys.uid}`, plistPath(sys, storeDir)]);
    throw e;
  }
}

async function removeInstalled(storeDir: string, t: InstalledTimer, sys: TimerSystem): Promise<void> {
  const n = timerNames(storeDir);
  switch (t.kind) {
    case 'systemd': {
      // The user instance may not run (a shell without a session): the files go all the same.
      await sys.run('systemctl', ['--user', 'disable', '--now', `${n.unit}.timer`]);
      const p = unitPaths(sys, storeDir);
      await removeFile(p.timer);
      await removeFile(p.service);
      await sys.run('systemctl', ['--user', 'daemon-reload']);
      return;
    }
    case 'launchd':
      await sys.run('launchctl', ['bootout', `gui/${sys.uid}/${n.label}`]);
      await removeFile(plistPath(sys, storeDir));
      return;
    case 'cron': {
      const current = await readCrontab(sys);
      const next = crontabWithout(current, n.marker);
      if (next !== current) await writeCrontab(sys, next);
      return;
    }
  }
}

/** Removes every piece of this store's timer; what was removed (empty when nothing was installed). */
export async function uninstallTimer(storeDir: string, sys: TimerSystem): Promise<InstalledTimer[]> {
  const found = await findInstalled(storeDir, sys);
  for (const t of found) await removeInstalled(storeDir, t, sys);
  return found;
}

export interface TimerStatus {
  /** The kind installed, else the kind an install would choose (null when the machine offers none). */
  kind: TimerKind | null;
  installed: boolean;
  /** The timer's command as one shell line. */
  command: string;
  /** The unit files or plist, or the crontab line. */
  entries: string[];
  /** The timer's last pass (`timer.tick`); null when it has not passed yet. */
  lastPassAt: Date | null;
  /** Why no kind could be chosen, when `kind` is null. */
  unavailable?: string;
}

export async function timerStatus(storeDir: string, sys: TimerSystem): Promise<TimerStatus> {
  const found = await findInstalled(storeDir, sys);
  const lastPassAt = await readPulse(storeDir, undefined, TIMER_PULSE_FILE).catch(() => null);
  const command = timerCommandLine(storeDir);
  const first = found[0];
  if (first) return { kind: first.kind, installed: true, command, entries: found.flatMap((f) => f.entries), lastPassAt };
  try {
    return { kind: await detectKind(sys), installed: false, command, entries: [], lastPassAt };
  } catch (e) {
    return { kind: null, installed: false, command, entries: [], lastPassAt, unavailable: e instanceof Error ? e.message : String(e) };
  }
}
