/**
 * The dispatcher's health as a process without a dispatcher of its own sees it (`life-thread mcp`):
 * from the age of the pulse file the dispatching windows touch on every pass.
 */
import { timerCommandsLine, timerIsHealthy, timerRemindersLine } from '../core/service/timerHealth';
import { dispatcherHealth } from '../core/health';
import { readPulse, TIMER_PULSE_FILE } from './store/pulse';

export async function pulseHealthLine(storeDir: string, now: Date): Promise<string> {
  // While the OS timer passes, commands run without a window: two lines in one (README "Keep time while VS Code is closed").
  const timer = { kind: null, lastPassAt: await readPulse(storeDir, undefined, TIMER_PULSE_FILE).catch(() => null) };
  if (!timerIsHealthy(timer, now)) return windowsLine(storeDir, now, 'reminders and commands');
  return `${timerCommandsLine(timer, now)}; ${timerRemindersLine(await windowsLine(storeDir, now, 'reminders'))}`;
}

async function windowsLine(storeDir: string, now: Date, waiting: string): Promise<string> {
  const health = dispatcherHealth({ lastPassAt: await readPulse(storeDir).catch(() => null) }, now);
  if (health.healthy) return health.line;
  if (health.lastPassAt === null) return `${health.line}: ${waiting} fire while a VS Code window with Life Thread is open (or at life-thread dispatch --once)`;
  return `${health.line} (no VS Code window with Life Thread is open; ${waiting} wait for one, or for life-thread dispatch --once)`;
}
