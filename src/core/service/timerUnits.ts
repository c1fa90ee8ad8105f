/**
 * What the OS timer of a store is made of (README "Keep time while VS Code is closed"): a systemd user
 * timer and service, a launchd agent, or one crontab line — each running `<store>/bin/life-thread
 * dispatch --once --commands-only --store <store>` once a minute with its output appended to
 * `<store>/logs/timer.log`, and each named after a digest of the store's path, so every store (every
 * VS Code profile) has its own and `uninstall` finds exactly its own.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../errors';
import { shimPath } from '../mcpConfig';
import { sh } from '../shellQuote';

export type TimerKind = 'systemd' | 'launchd' | 'cron';
export const TIMER_KINDS: readonly TimerKind[] = ['systemd', 'launchd', 'cron'];

/** The verb the timer runs: commands only; reminders need a window (an agent turn). */
export const TIMER_ARGS = ['dispatch', '--once', '--commands-only'] as const;
/** Where the timer's passes write, relative to the store. */
export const TIMER_LOG = 'logs/timer.log';

export interface TimerNames {
  /** The first 12 hex digits of the SHA-256 of the store's path. */
  hash: string;
  /** systemd: `<unit>.service` and `<unit>.timer`. */
  unit: string;
  /** launchd: the agent's label and `~/Library/LaunchAgents/<label>.plist`. */
  label: string;
  /** The comment that ends the crontab line of this store. */
  marker: string;
}

/** Refuses a store path that no unit file, plist or crontab line can carry. */
export function checkStorePath(storeDir: string): string {
  if (!storeDir.startsWith('/')) throw new InputError('store', `must be an absolute path, got '${storeDir}'`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(storeDir)) throw new InputError('store', 'holds a control character (a newline?); the OS timer cannot name such a path');
  return storeDir.replace(/\/+$/, '') || '/';
}

export function timerNames(storeDir: string): TimerNames {
  const hash = createHash('sha256').update(checkStorePath(storeDir)).digest('hex').slice(0, 12);
  return { hash, unit: `life-thread-${hash}`, label: `lifethread.life-thread.${hash}`, marker: `# life-thread ${hash}` };
}

export function timerLogPath(storeDir: string): string {
  return `${checkStorePath(storeDir)}/${TIMER_LOG}`;
}

/** The timer's command as argv: the store's shim, the verb, the store. */
export function timerArgv(storeDir: string): string[] {
  const store = checkStorePath(storeDir);
  return [shimPath(store), ...TIMER_ARGS, '--store', store];
}

/** The same as one shell line, for status and Doctor. */
export function timerCommandLine(storeDir: string): string {
  return timerArgv(storeDir).map(sh).join(' ');
}

/** A value in a unit file: `%` starts a specifier, so it is doubled. */
function unitValue(s: string): string {
  return s.replace(/%/g, '%%');
}

/** An argument of ExecStart= (not its executable): always quoted; `\` and `"` escaped, `%` and `$` doubled (specifiers, variables). */
function execArg(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

/**
 * The systemd user units. The timer fires at every minute's start; `Persistent=true` runs a pass missed
 * while the machine slept or was off at once after it wakes. The service is skipped, not failed, when
 * the store's shim is gone (the store was deleted).
 */
export function systemdUnits(storeDir: string): { service: string; timer: string } {
  const store = checkStorePath(storeDir);
  const n = timerNames(store);
  const log = unitValue(timerLogPath(store));
  const service = [
    '[Unit]',
    `Description=${unitValue(`Life Thread: scheduled commands of ${store}`)}`,
    `ConditionFileIsExecutable=${unitValue(shimPath(store))}`,
    '',
    '[Service]',
    'Type=oneshot',
    // The shim is a sh script, run by /bin/sh: systemd refuses an executable path holding a quote or a backslash, not an argument.
    `ExecStart=/bin/sh ${timerArgv(store).map(execArg).join(' ')}`,
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    '',
  ].join('\n');
  const timer = [
    '[Unit]',
    `Description=${unitValue(`Life Thread: one pass a minute for the scheduled commands of ${store}`)}`,
    '',
    '[Timer]',
    'OnCalendar=*-*-* *:*:00',
    'AccuracySec=1s',
    'Persistent=true',
    `Unit=${n.unit}.service`,
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
  return { service, timer };
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The launchd agent: a pass every 60 s and one at load; both streams appended to the timer's log. */
export function launchdPlist(storeDir: string): string {
  const store = checkStorePath(storeDir);
  const n = timerNames(store);
  const log = timerLogPath(store);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${xml(n.label)}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...timerArgv(store).map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    '  <key>StartInterval</key>',
    '  <integer>60</integer>',
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>ProcessType</key>',
    '  <string>Background</string>',
    '  <key>StandardOutPath</key>',
    `  <string>${xml(log)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xml(log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/**
 * The crontab line. Its output goes to the store's log inside the line itself (cron would mail it,
 * and `MAILTO` is not per line); it does nothing, silently, once the store's shim is gone. cron turns
 * an unescaped `%` into a newline, so every `%` is escaped.
 */
export function cronLine(storeDir: string): string {
  const store = checkStorePath(storeDir);
  const shim = sh(shimPath(store));
  const run = `[ -x ${shim} ] && exec ${timerArgv(store).map(sh).join(' ')} >>${sh(timerLogPath(store))} 2>&1`;
  return `* * * * * ${run.replace(/%/g, '\\%')} ${timerNames(store).marker}`;
}

function isMarked(line: string, marker: string): boolean {
  return line.trimEnd().endsWith(` ${marker}`);
}

function linesOf(crontab: string | null): string[] {
  if (crontab === null || crontab === '') return [];
  const lines = crontab.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The store's line in a crontab, if it has one. */
export function findCronLine(crontab: string | null, marker: string): string | undefined {
  return linesOf(crontab).find((l) => isMarked(l, marker));
}

/** The crontab with this store's line (once, at the end); every other line kept as it was. */
export function crontabWith(crontab: string | null, line: string, marker: string): string {
  return `${[...linesOf(crontab).filter((l) => !isMarked(l, marker)), line].join('\n')}\n`;
}

/** The crontab without this store's line; null when no other line is left (the crontab is removed). */
export function crontabWithout(crontab: string | null, marker: string): string | null {
  const kept = linesOf(crontab).filter((l) => !isMarked(l, marker));
  return kept.length === 0 ? null : `${kept.join('\n')}\n`;
}

/** What an install writes and runs, as `service install --dry-run` prints it and the palette command shows it. */
export interface TimerPlan {
  kind: TimerKind;
  storeDir: string;
  /** The timer's command, as one shell line. */
  command: string;
  /** Files written (systemd units, the launchd plist). */
  files: { path: string; text: string }[];
  /** The crontab line added (cron). */
  cronLine?: string;
  /** Commands run after the files are written. */
  steps: string[][];
}

export function describePlan(plan: TimerPlan): string {
  const out: string[] = [`Every minute, the OS timer (${plan.kind}) will run:`, `  ${plan.command}`, `Output: ${timerLogPath(plan.storeDir)}`, ''];
  for (const f of plan.files) out.push(`Write ${f.path}:`, f.text.trimEnd(), '');
  if (plan.cronLine !== undefined) out.push('Add this line to your crontab (every other line stays as it is):', plan.cronLine, '');
  if (plan.steps.length > 0) out.push('Then run:', ...plan.steps.map((s) => `  ${s.map(sh).join(' ')}`), '');
  return `${out.join('\n').trimEnd()}\n`;
}
