/**
 * The dispatcher's pulse: `reminders.tick` holds the time of the last pass, so Doctor, lists and the
 * status bar can say whether a dispatcher is alive (healthy = a pass within 120 s).
 */
import * as path from 'node:path';
import { nodeFs, type FsSeam } from '../fs-seam';
import { errCode, ioError } from './errors';

export const PULSE_FILE = 'reminders.tick';
/** The OS timer's own pulse (`dispatch --once --commands-only`): it runs commands only, so it never touches the windows'. */
export const TIMER_PULSE_FILE = 'timer.tick';

/** Records a dispatcher pass: `reminders.tick` (or the timer's `timer.tick`) holds the ISO time and gets a fresh mtime. */
export async function touchPulse(dir: string, fs: FsSeam = nodeFs, now: Date = new Date(), name: string = PULSE_FILE): Promise<void> {
  const file = path.join(dir, name);
  try {
    await fs.mkdir(dir);
    await fs.writeFile(file, `${now.toISOString()}\n`);
  } catch (e) {
    throw ioError('write', file, e);
  }
}

/** The last pass: the time written in the pulse file, else its mtime; null when there is none. */
export async function readPulse(dir: string, fs: FsSeam = nodeFs, name: string = PULSE_FILE): Promise<Date | null> {
  const file = path.join(dir, name);
  let mtime: Date;
  try {
    mtime = (await fs.stat(file)).mtime;
  } catch (e) {
    if (errCode(e) === 'ENOENT') return null;
    throw ioError('stat', file, e);
  }
  try {
    const text = (await fs.readFile(file)).toString('utf8').trim();
    const t = Date.parse(text);
    if (/^\d{4}-\d\d-\d\dT/.test(text) && Number.isFinite(t)) return new Date(t);
  } catch {
    // A torn or unreadable pulse still has a usable mtime.
  }
  return mtime;
}
