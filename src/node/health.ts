/**
 * The dispatcher's health as a process without a dispatcher of its own sees it (`life-thread mcp`):
 * from the age of the pulse file the dispatching windows touch on every pass (design §2).
 */
import { timerCommandsLine, timerIsHealthy, timerRemindersLine } from '../core/service/timerHealth';
import { formatDuration } from '../core/time/describe';
import { readPulse, TIMER_PULSE_FILE } from './store/pulse';

/** A pass counts as alive for this long (design §8: healthy = a pass within the last 120 s). */
const HEALTHY_WITHIN_MS = 120_000;

export async function pulseHealthLine(storeDir: string, now: Date): Promise<string> {
  // While the OS timer passes, commands run without a window: two lines in one (README "Keep time while VS Code is closed").
  const timer = { kind: null, lastPassAt: await readPulse(storeDir, undefined, TIMER_PULSE_FILE).catch(() => null) };
  if (!timerIsHealthy(timer, now)) return windowsLine(storeDir, now, 'reminders and commands');
  return `${timerCommandsLine(timer, now)}; ${timerRemindersLine(await windowsLine(storeDir, now, 'reminders'))}`;
}

async function windowsLine(storeDir: string, now: Date, waiting: string): Promise<string> {
  const last = await readPulse(storeDir).catch(() => null);
  if (last === null) return `No dispatcher has run on this store yet: ${waiting} fire while a VS Code window with Life Thread is open (or at life-thread dispatch --once)`;
  const age = Math.max(0, now.getTime() - last.getTime());
  if (age <= HEALTHY_WITHIN_MS) return `Dispatcher healthy · last pass ${Math.round(age / 1000)} s ago`;
  return `STALLED: no dispatcher pass for ${formatDuration(age / 1000)} (no VS Code window with Life Thread is open; ${waiting} wait for one, or for life-thread dispatch --once)`;
}
