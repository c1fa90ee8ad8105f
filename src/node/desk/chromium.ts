/**
 * A Chromium of the desk's own: its command line — remote debugging on 127.0.0.1, its own
 * profile, `--headless=new` where there is no display, `--no-sandbox` as root, the flags that keep it
 * off the network, then `lifeThread.cdp.chromiumArgs` — and starting it in its own process group.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ChromeRemoteTransport, errText } from '../cdpTransport';
import { stopProcessGroup, stopStragglers } from './chromiumProcesses';

export const CHROMIUM_PATH_SETTING = 'lifeThread.cdp.chromiumPath';
export const CHROMIUM_ARGS_SETTING = 'lifeThread.cdp.chromiumArgs';

export interface ChromiumArgsOptions {
  profileDir: string;
  /** 0 (default): Chromium picks a free port and writes it to `<profileDir>/DevToolsActivePort`. */
  port?: number;
  /** `lifeThread.cdp.chromiumArgs` */
  extraArgs?: readonly string[];
  /** Empty or undefined: no display → `--headless=new`. */
  display?: string | undefined;
  /** Root → `--no-sandbox` (Chromium refuses to start as root with its sandbox). */
  isRoot?: boolean;
}

/** Flags the desk owns: chromiumArgs may not change where the DevTools endpoint listens or the profile. */
const OWNED_FLAGS = ['--remote-debugging-address', '--remote-debugging-port', '--remote-debugging-pipe', '--user-data-dir'];

export const OFFLINE_FLAGS = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] as const;

function defaultDisplay(): string | undefined {
  if (process.platform !== 'linux') return 'native';
  return process.env.DISPLAY || process.env.WAYLAND_DISPLAY || undefined;
}

function defaultIsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The command line of a desk Chromium (pure). Throws when extraArgs try to change a flag the desk owns. */
export function chromiumArgs(opts: ChromiumArgsOptions): string[] {
  const extra = opts.extraArgs ?? [];
  for (const a of extra) {
    const flag = a.split('=')[0] ?? a;
    if (OWNED_FLAGS.includes(flag)) {
      throw new Error(`${CHROMIUM_ARGS_SETTING} may not contain ${flag}: the desk listens on 127.0.0.1 with its own profile (${a})`);
    }
  }
  const display = opts.display === undefined && !('display' in opts) ? defaultDisplay() : opts.display;
  const isRoot = opts.isRoot ?? defaultIsRoot();
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad DevTools port ${port}`);
  const args = [
    '--remote-debugging-address=127.0.0.1',
    `--remote-debugging-port=${port}`,
    `--user-data-dir=${opts.profileDir}`,
  ];
  if (!display && !extra.some((a) => a.startsWith('--headless'))) args.push('--headless=new');
  if (isRoot) args.push('--no-sandbox');
  args.push(...OFFLINE_FLAGS, '--disable-gpu', '--disable-dev-shm-usage', ...extra);
  return args;
}

export interface StartChromiumOptions extends ChromiumArgsOptions {
  chromiumPath: string;
  /** How long to wait for /json/version to answer. Default 15000 ms. */
  timeoutMs?: number;
  /** Added to the environment (after the desk's own HOME, XDG_* and TMPDIR under the profile). */
  env?: Record<string, string>;
}

export interface StartedChromium {
  endpoint: string;
  pid: number;
  args: string[];
  /** Signals the browser's process group (TERM, then KILL) and waits until no process of it is left. */
  stop(): Promise<void>;
}

/**
 * HOME and XDG_* for Chromium under `<profileDir>/.desk-env` (it writes there: NSS db, caches, crash dumps);
 * TMPDIR, where it puts its SingletonSocket, under the short `socketDir`: a socket path over ~107 bytes aborts it.
 */
export function chromiumEnv(profileDir: string, headless: boolean, socketDir: string): Record<string, string> {
  const home = path.join(profileDir, '.desk-env', 'home');
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    TMPDIR: path.join(socketDir, 'tmp'),
  };
  // With a display, XDG_RUNTIME_DIR holds the Wayland socket: leave it alone then.
  if (headless) env.XDG_RUNTIME_DIR = path.join(socketDir, 'run');
  return env;
}

/** A new directory for Chromium's sockets, short even when the OS temp dir is not (macOS's is ~50 bytes). */
async function makeSocketDir(): Promise<string> {
  const osTemp = os.tmpdir();
  return fsp.mkdtemp(path.join(osTemp.length <= 40 || process.platform === 'win32' ? osTemp : '/tmp', 'lt-chromium-'));
}

/**
 * Starts Chromium with remote debugging on 127.0.0.1 and its own profile, detached in its own process
 * group (it may outlive the extension host: the desk is the user's too), output to
 * `<profileDir>/chromium.log`. Resolves once /json/version answers.
 */
export async function startChromium(opts: StartChromiumOptions): Promise<StartedChromium> {
  const profileDir = path.resolve(opts.profileDir);
  const args = chromiumArgs({ ...opts, profileDir });
  const headless = args.some((a) => a.startsWith('--headless'));
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const socketDir = await makeSocketDir();
  const removeSocketDir = () => fsp.rm(socketDir, { recursive: true, force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, ...chromiumEnv(profileDir, headless, socketDir), ...opts.env };
  delete env.ELECTRON_RUN_AS_NODE;
  for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'TMPDIR', 'XDG_RUNTIME_DIR']) {
    const d = env[key];
    if (d && (d.startsWith(profileDir) || d.startsWith(socketDir))) await fsp.mkdir(d, { recursive: true, mode: 0o700 });
  }
  await fsp.mkdir(profileDir, { recursive: true, mode: 0o700 });
  const portFile = path.join(profileDir, 'DevToolsActivePort');
  await fsp.rm(portFile, { force: true });
  const logFile = path.join(profileDir, 'chromium.log');
  const logFd = fs.openSync(logFile, 'w', 0o600);
  let spawnError: Error | undefined;
  let exited: string | undefined;
  const child = (() => {
    try {
      return spawn(opts.chromiumPath, args, { env, detached: true, stdio: ['ignore', logFd, logFd] });
    } finally {
      fs.closeSync(logFd);
    }
  })();
  child.once('error', (e) => {
    spawnError = e;
  });
  child.once('exit', (code, signal) => {
    exited = signal ? `signal ${signal}` : `exit code ${code ?? '?'}`;
  });
  child.unref();
  const logTail = () => {
    try {
      const s = fs.readFileSync(logFile, 'utf8').trim();
      return s ? `; its log ends: ${s.slice(-600)}` : '';
    } catch {
      return '';
    }
  };
  await delay(0);
  const pid = child.pid;
  if (spawnError || pid === undefined) {
    await removeSocketDir();
    throw new Error(`${CHROMIUM_PATH_SETTING}: cannot start ${opts.chromiumPath}: ${spawnError ? errText(spawnError) : 'no process id'}`);
  }
  const stop = async () => {
    await stopProcessGroup(pid);
    await stopStragglers(profileDir);
    await removeSocketDir();
  };
  const deadline = Date.now() + timeoutMs;
  let port = opts.port ?? 0;
  let lastError = '';
  while (Date.now() < deadline) {
    if (spawnError) {
      await removeSocketDir();
      throw new Error(`${CHROMIUM_PATH_SETTING}: cannot start ${opts.chromiumPath}: ${errText(spawnError)}`);
    }
    if (exited) {
      await stop();
      throw new Error(`Chromium (${opts.chromiumPath}) ended with ${exited} before its DevTools endpoint answered${logTail()}`);
    }
    if (port === 0) {
      try {
        const first = (await fsp.readFile(portFile, 'utf8')).split('\n')[0] ?? '';
        if (/^\d+$/.test(first.trim())) port = Number(first.trim());
      } catch {
        // not written yet
      }
    }
    if (port !== 0) {
      const endpoint = `http://127.0.0.1:${port}`;
      try {
        await new ChromeRemoteTransport(endpoint, { timeoutMs: 1000 }).version();
        return { endpoint, pid, args, stop };
      } catch (e) {
        lastError = errText(e);
      }
    }
    await delay(50);
  }
  await stop();
  throw new Error(
    `Chromium (${opts.chromiumPath}) did not answer on its DevTools endpoint within ${timeoutMs} ms (${port === 0 ? 'no DevToolsActivePort file was written' : lastError}); it was stopped${logTail()}`,
  );
}
