/**
 * Health in two lines while the OS timer is installed (README "Keep time while VS Code is closed"):
 * commands run on the timer, reminders need a VS Code window. Doctor, the status bar, `life-thread
 * doctor` and the tools' answers all say it with these words.
 */
import { passIsAlive } from '../health';
import { formatDuration } from '../time/describe';
import type { TimerKind } from './timerUnits';


export interface TimerHealth {
  /** Null where only the timer's pulse is known (a process that did not ask the machine which timer runs). */
  kind: TimerKind | null;
  /** The timer's last pass (`timer.tick`), null before its first. */
  lastPassAt: Date | null;
}

export function timerIsHealthy(t: TimerHealth, now: Date): boolean {
  // The timer passes every minute; like a window's dispatcher, it counts as alive within 120 s.
  return passIsAlive(t.lastPassAt, now);
}

/** "Commands: OS timer (cron) · last pass 20 s ago", or STALLED with how long it has been silent. */
export function timerCommandsLine(t: TimerHealth, now: Date): string {
  const what = `Commands: OS timer${t.kind ? ` (${t.kind})` : ''}`;
  if (t.lastPassAt === null) return `${what} installed · no pass yet (its first comes within a minute)`;
  const age = Math.max(0, now.getTime() - t.lastPassAt.getTime());
  if (passIsAlive(t.lastPassAt, now)) return `${what} · last pass ${Math.round(age / 1000)} s ago`;
  return `${what} STALLED · no pass for ${formatDuration(age / 1000)} (see ${'`'}life-thread service status${'`'} and the store's logs/timer.log)`;
}

/** "Reminders: need a VS Code window · <the window's dispatcher line>". */
export function timerRemindersLine(windowLine: string): string {
  return `Reminders: need a VS Code window · ${windowLine}`;
}
