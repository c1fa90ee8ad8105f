/**
 * The desk (design §5): a browser the agent and the user look at, driven over the Chrome DevTools
 * Protocol. The desk remembers its pages in `<storeDir>/desk.json`; `prepare` connects (starting a
 * Chromium of its own when it is gone and that is allowed), restores the remembered pages that are
 * missing, opens or refreshes the evidence page, brings it to front and takes a thumbnail.
 *
 * desk.json is a small state file, not a table: a file that does not parse or validate is reported
 * (`warnings`) and left untouched; only when the desk must write (a page remembered, a browser
 * started) is it first moved aside to `desk.json.corrupt-<ms>`, then a fresh file is written. A file
 * of a newer schemaVersion is never rewritten. Writes are atomic (temp file, fsync, rename); the last
 * writer wins between windows, which is fine for this file.
 */
import { writeFileAtomic } from './atomicFile';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import {
  ChromeRemoteTransport,
  checkEndpoint,
  CdpPageGoneError,
  CdpTimeoutError,
  errText,
  parseEndpoint,
  withTimeout,
  type CdpTarget,
  type CdpTransport,
} from './cdpTransport';

export const DESK_FILE = 'desk.json';
export const DESK_SCHEMA_VERSION = 1;
export const CHROMIUM_PATH_SETTING = 'lifeThread.cdp.chromiumPath';
export const CHROMIUM_ARGS_SETTING = 'lifeThread.cdp.chromiumArgs';
const MAX_DESK_FILE_BYTES = 1024 * 1024;
/** Schemes the desk opens. `cdp://evidence/<id>` is resolved to a remembered page first. */
const PAGE_SCHEMES = new Set(['http:', 'https:', 'file:']);

// ---------------------------------------------------------------------------------------------
// Starting Chromium

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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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
  await sleep(0);
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
    await sleep(50);
  }
  await stop();
  throw new Error(
    `Chromium (${opts.chromiumPath}) did not answer on its DevTools endpoint within ${timeoutMs} ms (${port === 0 ? 'no DevToolsActivePort file was written' : lastError}); it was stopped${logTail()}`,
  );
}

/** Live (non-zombie) processes of a process group; on Linux read from /proc, elsewhere by signal 0. */
export function processGroupAlive(pgid: number): boolean {
  if (process.platform === 'linux') {
    let entries: string[];
    try {
      entries = fs.readdirSync('/proc');
    } catch {
      entries = [];
    }
    if (entries.length > 0) {
      for (const e of entries) {
        if (!/^\d+$/.test(e)) continue;
        let stat: string;
        try {
          stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        } catch {
          continue;
        }
        // pid (comm) state ppid pgrp … — comm may contain spaces and parentheses.
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(rest[2]) === pgid && rest[0] !== 'Z' && rest[0] !== 'X') return true;
      }
      return false;
    }
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Chromium helpers outside its process group that name the profile (Linux): the crashpad handlers
 * run in sessions of their own and end shortly after the browser. Waits for them, then signals them.
 */
export function profileProcesses(profileDir: string): number[] {
  if (process.platform !== 'linux') return [];
  const out: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const argv = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      if (!/chrom|crashpad/i.test(path.basename(argv[0] ?? ''))) continue;
      if (argv.some((a) => a.includes(`=${profileDir}`) || a.includes(`${profileDir}${path.sep}`) || a === profileDir)) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function stopStragglers(profileDir: string, graceMs = 2000): Promise<void> {
  const end = Date.now() + graceMs;
  while (profileProcesses(profileDir).length > 0 && Date.now() < end) await sleep(50);
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const left = profileProcesses(profileDir);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
    const until = Date.now() + 2000;
    while (profileProcesses(profileDir).length > 0 && Date.now() < until) await sleep(50);
  }
}

/** TERM to the group, wait up to `graceMs`, then KILL and wait again. */
export async function stopProcessGroup(pgid: number, graceMs = 5000): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pgid, s);
    } catch {
      // already gone
    }
  };
  const waitGone = async (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (!processGroupAlive(pgid)) return true;
      await sleep(50);
    }
    return !processGroupAlive(pgid);
  };
  if (!processGroupAlive(pgid)) return;
  signal('SIGTERM');
  if (await waitGone(graceMs)) return;
  signal('SIGKILL');
  if (!(await waitGone(3000))) throw new Error(`Chromium process group ${pgid} survived SIGKILL`);
}

// ---------------------------------------------------------------------------------------------
// desk.json

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not a date');

export const DeskPageSchema = z.object({
  key: z.string().min(1).max(300),
  url: z.string().min(1).max(8192),
  title: z.string().max(2000),
  evidenceId: z.string().min(1).max(300).optional(),
  lastSeenAt: isoDate,
});
export type DeskPage = z.infer<typeof DeskPageSchema>;

export const DeskStateSchema = z.object({
  schemaVersion: z.literal(DESK_SCHEMA_VERSION),
  pages: z.array(DeskPageSchema).refine((ps) => new Set(ps.map((p) => p.key)).size === ps.length, 'page keys must be unique'),
  chromium: z.object({ pid: z.number().int().positive(), endpoint: z.string().min(1) }).optional(),
});
export type DeskState = z.infer<typeof DeskStateSchema>;

export function emptyDeskState(): DeskState {
  return { schemaVersion: DESK_SCHEMA_VERSION, pages: [] };
}

export interface DeskStateRead {
  state: DeskState;
  status: 'ok' | 'missing' | 'corrupt' | 'newer';
  /** What is wrong with the file (status corrupt or newer). */
  problem?: string;
}

export interface DeskStateUpdate {
  state: DeskState;
  wrote: boolean;
  /** Where a corrupt desk.json was moved before the fresh one was written. */
  backup?: string;
  problem?: string;
}

export class DeskStateStore {
  readonly dir: string;
  readonly file: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
    this.file = path.join(this.dir, DESK_FILE);
  }

  async read(): Promise<DeskStateRead> {
    let text: string;
    try {
      const st = await fsp.stat(this.file);
      if (st.size > MAX_DESK_FILE_BYTES) return { state: emptyDeskState(), status: 'corrupt', problem: `${this.file} is ${st.size} bytes, more than a desk state file can be` };
      text = await fsp.readFile(this.file, 'utf8');
    } catch (e) {
      if (isCode(e, 'ENOENT')) return { state: emptyDeskState(), status: 'missing' };
      return { state: emptyDeskState(), status: 'corrupt', problem: `${this.file} cannot be read: ${errText(e)}` };
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (e) {
      return { state: emptyDeskState(), status: 'corrupt', problem: `${this.file} is not JSON (${errText(e)}); the desk starts with no remembered pages and leaves the file as it is until it must write` };
    }
    if (typeof data === 'object' && data !== null && 'schemaVersion' in data && typeof data.schemaVersion === 'number' && data.schemaVersion > DESK_SCHEMA_VERSION) {
      return {
        state: emptyDeskState(),
        status: 'newer',
        problem: `${this.file} has schemaVersion ${data.schemaVersion}, newer than this version of Life Thread reads (${DESK_SCHEMA_VERSION}); it is not rewritten`,
      };
    }
    const parsed = DeskStateSchema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : 'invalid';
      return { state: emptyDeskState(), status: 'corrupt', problem: `${this.file} does not hold a desk state (${where}); the desk starts with no remembered pages and leaves the file as it is until it must write` };
    }
    return { state: parsed.data, status: 'ok' };
  }

  /**
   * Reads, applies `fn` (undefined = nothing to write), and writes atomically. A corrupt file is
   * moved aside to `desk.json.corrupt-<ms>` before the write; a newer file makes this throw.
   */
  async update(fn: (state: DeskState) => DeskState | undefined): Promise<DeskStateUpdate> {
    const current = await this.read();
    const next = fn(structuredClone(current.state));
    if (next === undefined) return { state: current.state, wrote: false, ...(current.problem ? { problem: current.problem } : {}) };
    if (current.status === 'newer') throw new Error(current.problem ?? `${this.file} is newer than this version reads`);
    const valid = DeskStateSchema.parse(next);
    let backup: string | undefined;
    if (current.status === 'corrupt') {
      backup = `${this.file}.corrupt-${Date.now()}`;
      await fsp.rename(this.file, backup).catch((e: unknown) => {
        if (!isCode(e, 'ENOENT')) throw e;
        backup = undefined;
      });
    }
    await this.atomicWrite(`${JSON.stringify(valid, null, 2)}\n`);
    return { state: valid, wrote: true, ...(backup ? { backup } : {}), ...(current.problem ? { problem: current.problem } : {}) };
  }

  private async atomicWrite(data: string): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file, data);
  }
}

/** Temp file in the same directory, write, fsync, rename over `target`. */
export { writeFileAtomic };

function isCode(e: unknown, code: string): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && e.code === code;
}

// ---------------------------------------------------------------------------------------------
// URLs

/** The evidence id of a `cdp://evidence/<id>` landing, or undefined for any other URL. */
export function parseEvidenceUri(uri: string): string | undefined {
  const m = /^cdp:\/\/evidence\/([^/?#]+)\/?$/i.exec(uri.trim());
  if (!m?.[1]) return undefined;
  try {
    const id = decodeURIComponent(m[1]);
    return id.length > 0 && id.length <= 300 ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The key under which the desk remembers an evidence page. */
export function evidenceKey(id: string): string {
  return `evidence:${id}`;
}

/** URL as the browser would report it (`http://a` → `http://a/`), for comparing pages. */
export function normalizeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

export function sameUrl(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

/** A URL the desk may open: http(s) or file. */
export function checkPageUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (!PAGE_SCHEMES.has(u.protocol)) return `the desk opens only http, https and file pages, not ${u.protocol} (${url})`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The desk

export type DeskStatus = 'ok' | 'prepared' | 'needs_restore' | 'none';

export interface Evidence {
  id: string;
  /** The page, or `cdp://evidence/<id>` for one the desk remembers. */
  url: string;
  title?: string;
}

export interface PrepareOptions {
  /** `lifeThread.cdp.endpoint`; empty = none configured. */
  endpoint: string;
  /** `lifeThread.cdp.allowRemote` */
  allowRemote: boolean;
  /** `lifeThread.cdp.chromiumPath`; empty/undefined = do not start one. */
  chromiumPath?: string;
  /** `lifeThread.cdp.chromiumArgs` */
  chromiumArgs: readonly string[];
  /** The profile (user-data-dir) of a Chromium the desk starts. */
  profileDir: string;
  /** May this prepare start Chromium when none answers? */
  startAllowed: boolean;
  /** Write the thumbnail PNG here; without it the result carries a data: URL. */
  thumbnailPath?: string;
  /** May missing remembered pages be reopened? Default true; false → needs_restore naming them. */
  restoreAllowed?: boolean;
  /** Default 480 CSS pixels. */
  thumbnailMaxWidth?: number;
}

export interface PrepareResult {
  status: DeskStatus;
  reason?: string;
  /** Keys of the remembered pages that were reopened. */
  restored: string[];
  evidencePage?: { id: string; url: string };
  /** The thumbnail's path (thumbnailPath) or a `data:image/png;base64,…` URL. */
  thumbnail?: string;
  endpoint?: string;
  /** Set when this prepare started Chromium. */
  started?: { pid: number };
  /** Things that went wrong without failing the prepare (desk.json problems, a page that would not reopen, the thumbnail). */
  warnings?: string[];
  timings: { connectMs: number; totalMs: number };
}

export interface DeskOptions {
  /** Where desk.json lives (the store directory). */
  storeDir: string;
  /** Default: a ChromeRemoteTransport per endpoint. */
  transportFor?: (endpoint: string) => CdpTransport;
  /** Default: startChromium. */
  startBrowser?: (opts: StartChromiumOptions) => Promise<StartedChromium>;
  /** Each transport call is given up after this long. Default 15000 ms (the real transport's own steps time out after 5 s each). */
  callTimeoutMs?: number;
  now?: () => Date;
}

export class Desk {
  readonly store: DeskStateStore;
  /** The Chromium this Desk started (in this process), if any. */
  started: StartedChromium | undefined;
  private readonly transportFor: (endpoint: string) => CdpTransport;
  private readonly startBrowser: (opts: StartChromiumOptions) => Promise<StartedChromium>;
  private readonly callTimeoutMs: number;
  private readonly now: () => Date;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(opts: DeskOptions) {
    this.store = new DeskStateStore(opts.storeDir);
    this.transportFor = opts.transportFor ?? ((e) => new ChromeRemoteTransport(e));
    this.startBrowser = opts.startBrowser ?? startChromium;
    this.callTimeoutMs = opts.callTimeoutMs ?? 15_000;
    this.now = opts.now ?? (() => new Date());
  }

  /** One desk operation at a time in this process. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  async pages(): Promise<DeskPage[]> {
    return (await this.store.read()).state.pages;
  }

  /** Remembers (or updates) a page under `key`. Throws for a URL the desk does not open. */
  remember(page: { key: string; url: string; title?: string; evidenceId?: string }): Promise<DeskPage> {
    return this.serial(async () => {
      const bad = checkPageUrl(page.url);
      if (bad) throw new Error(bad);
      const row: DeskPage = {
        key: page.key,
        url: page.url,
        title: page.title ?? '',
        ...(page.evidenceId ? { evidenceId: page.evidenceId } : {}),
        lastSeenAt: this.now().toISOString(),
      };
      await this.store.update((s) => ({ ...s, pages: [...s.pages.filter((p) => p.key !== row.key), row] }));
      return row;
    });
  }

  /** Forgets the page under `key`; false when there was none. */
  forget(key: string): Promise<boolean> {
    return this.serial(async () => {
      let found = false;
      await this.store.update((s) => {
        found = s.pages.some((p) => p.key === key);
        return found ? { ...s, pages: s.pages.filter((p) => p.key !== key) } : undefined;
      });
      return found;
    });
  }

  /** Stops the Chromium this Desk started and forgets it in desk.json. */
  stopStarted(): Promise<boolean> {
    return this.serial(async () => {
      const s = this.started;
      if (!s) return false;
      this.started = undefined;
      await s.stop();
      await this.store.update((st) => (st.chromium?.pid === s.pid ? { schemaVersion: st.schemaVersion, pages: st.pages } : undefined)).catch(() => undefined);
      return true;
    });
  }

  prepare(evidence: Evidence | undefined, opts: PrepareOptions): Promise<PrepareResult> {
    return this.serial(() => this.prepareNow(evidence, opts));
  }

  private call<T>(transport: CdpTransport, what: string, p: () => Promise<T>): Promise<T> {
    return withTimeout(p(), this.callTimeoutMs, `CDP ${what} at ${transport.endpoint}`);
  }

  private async prepareNow(evidence: Evidence | undefined, opts: PrepareOptions): Promise<PrepareResult> {
    const t0 = performance.now();
    const warnings: string[] = [];
    const restored: string[] = [];
    let connectMs = 0;
    const finish = (r: Omit<PrepareResult, 'timings' | 'restored' | 'warnings'>): PrepareResult => ({
      ...r,
      restored,
      ...(warnings.length ? { warnings } : {}),
      timings: { connectMs: Math.round(connectMs * 10) / 10, totalMs: Math.round((performance.now() - t0) * 10) / 10 },
    });

    const configured = opts.endpoint.trim();
    const chromiumPath = opts.chromiumPath?.trim() ?? '';
    if (!configured && !chromiumPath) {
      return finish({ status: 'none', reason: 'no browser is configured (lifeThread.cdp.endpoint and lifeThread.cdp.chromiumPath are empty): open the evidence inside VS Code' });
    }

    const read = await this.store.read();
    if (read.problem) warnings.push(read.problem);
    let state = read.state;

    // 1. Connect: the configured endpoint, then a Chromium the desk started earlier, then start one.
    const tc = performance.now();
    let transport: CdpTransport | undefined;
    let startedNow: StartedChromium | undefined;
    const failures: string[] = [];
    if (configured) {
      const check = checkEndpoint(configured, opts.allowRemote);
      if (!check.ok) {
        connectMs = performance.now() - tc;
        return finish({ status: 'needs_restore', reason: check.reason });
      }
      const t = this.transportFor(check.endpoint.url);
      try {
        await this.call(t, 'version', () => t.version());
        transport = t;
      } catch (e) {
        failures.push(`the browser at ${check.endpoint.url} is not running (${errText(e)})`);
      }
    }
    if (!transport && state.chromium && state.chromium.endpoint !== (configured ? normalizeEndpoint(configured) : '')) {
      const check = checkEndpoint(state.chromium.endpoint, false);
      if (check.ok) {
        const t = this.transportFor(check.endpoint.url);
        try {
          await this.call(t, 'version', () => t.version());
          transport = t;
        } catch {
          // the desk's own Chromium is gone too; nothing to report beyond the configured endpoint
        }
      }
    }
    if (!transport) {
      const gone = failures.join('; ') || 'no browser is running';
      if (!chromiumPath) {
        connectMs = performance.now() - tc;
        return finish({ status: 'needs_restore', reason: `${gone} and ${CHROMIUM_PATH_SETTING} is empty` });
      }
      if (!opts.startAllowed) {
        connectMs = performance.now() - tc;
        return finish({ status: 'needs_restore', reason: `${gone} and starting ${chromiumPath} is not allowed for this prepare` });
      }
      try {
        startedNow = await this.startBrowser({ chromiumPath, profileDir: opts.profileDir, extraArgs: opts.chromiumArgs });
        const t = this.transportFor(startedNow.endpoint);
        await this.call(t, 'version', () => t.version());
        transport = t;
        this.started = startedNow;
      } catch (e) {
        if (startedNow) await startedNow.stop().catch(() => undefined);
        connectMs = performance.now() - tc;
        return finish({ status: 'needs_restore', reason: `${gone} and starting ${chromiumPath} failed: ${errText(e)}` });
      }
      const sc = { pid: startedNow.pid, endpoint: startedNow.endpoint };
      state = { ...state, chromium: sc };
      await this.save((s) => ({ ...s, chromium: sc }), warnings);
    }
    connectMs = performance.now() - tc;
    const tr = transport;
    const endpoint = tr.endpoint;
    const extra = startedNow ? { started: { pid: startedNow.pid } } : {};

    let step = 'list pages';
    try {
      // 2. Which URL is the evidence?
      let evidenceUrl: string | undefined;
      let evidenceProblem: string | undefined;
      if (evidence) {
        const landingId = parseEvidenceUri(evidence.url);
        if (landingId !== undefined) {
          const known = state.pages.find((p) => p.evidenceId === landingId) ?? state.pages.find((p) => p.key === evidenceKey(landingId));
          if (known) evidenceUrl = known.url;
          else evidenceProblem = `cdp://evidence/${landingId} is not a page the desk remembers (it was never opened here, or desk.json was lost)`;
        } else {
          evidenceProblem = checkPageUrl(evidence.url);
          if (!evidenceProblem) evidenceUrl = evidence.url;
        }
      }
      const evidenceId = evidence ? (parseEvidenceUri(evidence.url) ?? evidence.id) : undefined;

      // 3. Restore the remembered pages that are missing (by URL).
      let targets = await this.call(tr, 'list', () => tr.list());
      const isOpen = (url: string) => targets.some((t) => sameUrl(t.url, url));
      const missing = state.pages.filter((p) => !isOpen(p.url) && !(evidenceUrl && sameUrl(p.url, evidenceUrl)));
      if (missing.length > 0 && opts.restoreAllowed === false) {
        return finish({ status: 'needs_restore', reason: `desk pages are gone and restoring is not allowed: ${missing.map((p) => p.key).join(', ')}`, endpoint, ...extra });
      }
      for (const p of missing) {
        step = `restore ${p.key}`;
        try {
          const t = await this.call(tr, `open ${p.url}`, () => tr.newPage(p.url));
          targets = [...targets, t];
          restored.push(p.key);
        } catch (e) {
          warnings.push(`could not restore ${p.key} (${p.url}): ${errText(e)}`);
        }
      }
      const seen = new Set(state.pages.filter((p) => isOpen(p.url)).map((p) => p.key));

      if (evidenceProblem) {
        await this.touch(seen, undefined, warnings);
        return finish({ status: 'needs_restore', reason: evidenceProblem, endpoint, ...extra });
      }

      // 4. Open or refresh the evidence page, bring it to front, take the thumbnail.
      let opened = false;
      let page: CdpTarget | undefined;
      let thumbnail: string | undefined;
      if (evidence && evidenceUrl) {
        const url = evidenceUrl;
        // Refresh an open copy; one that vanished meanwhile (closed, or still closing when listed) is skipped.
        step = 'refresh the evidence page';
        let candidates = targets.filter((t) => sameUrl(t.url, url));
        for (let attempt = 0; !page && candidates.length > 0 && attempt < 3; attempt++) {
          const c = candidates[0];
          if (!c) break;
          try {
            await this.call(tr, `reload ${c.id}`, () => tr.reload(c.id));
            page = c;
          } catch (e) {
            if (!(e instanceof CdpPageGoneError)) throw e;
            candidates = (await this.call(tr, 'list', () => tr.list())).filter((t) => sameUrl(t.url, url) && t.id !== c.id);
          }
        }
        if (!page) {
          step = 'open the evidence page';
          page = await this.call(tr, `open ${url}`, () => tr.newPage(url));
          opened = true;
        }
        const id = page.id;
        step = 'bring the evidence page to front';
        await this.call(tr, `activate ${id}`, () => tr.activate(id));
        step = 'take the thumbnail';
        try {
          const png = await this.call(tr, `screenshot ${id}`, () => tr.screenshot(id, { maxWidth: opts.thumbnailMaxWidth ?? 480 }));
          if (opts.thumbnailPath) {
            await fsp.mkdir(path.dirname(opts.thumbnailPath), { recursive: true });
            await writeFileAtomic(opts.thumbnailPath, png);
            thumbnail = opts.thumbnailPath;
          } else {
            thumbnail = `data:image/png;base64,${png.toString('base64')}`;
          }
        } catch (e) {
          warnings.push(`no thumbnail: ${errText(e)}`);
        }
        const key = evidenceKey(evidenceId ?? evidence.id);
        const prior = state.pages.find((p) => p.key === key);
        await this.touch(seen, { key, url, title: evidence.title ?? (page.title || prior?.title || ''), evidenceId: evidenceId ?? evidence.id }, warnings);
      } else {
        await this.touch(seen, undefined, warnings);
      }

      const status: DeskStatus = restored.length > 0 || opened ? 'prepared' : 'ok';
      return finish({
        status,
        ...(missing.length > restored.length ? { reason: `${missing.length - restored.length} desk page(s) could not be restored` } : {}),
        ...(page ? { evidencePage: { id: page.id, url: evidenceUrl ?? page.url } } : {}),
        ...(thumbnail ? { thumbnail } : {}),
        endpoint,
        ...extra,
      });
    } catch (e) {
      const kind = e instanceof CdpTimeoutError ? 'timed out' : 'failed';
      return finish({ status: 'needs_restore', reason: `the desk could not ${step} (${kind}): ${errText(e)}`, endpoint, ...extra });
    }
  }

  /** lastSeenAt for the pages seen open, and the evidence page remembered. */
  private async touch(seen: Set<string>, evidencePage: Omit<DeskPage, 'lastSeenAt'> | undefined, warnings: string[]): Promise<void> {
    if (seen.size === 0 && !evidencePage) return;
    const at = this.now().toISOString();
    await this.save((s) => {
      const pages = s.pages.map((p) => (seen.has(p.key) ? { ...p, lastSeenAt: at } : p));
      if (!evidencePage) return { ...s, pages };
      const row: DeskPage = { ...evidencePage, lastSeenAt: at };
      const i = pages.findIndex((p) => p.key === row.key);
      if (i >= 0) pages[i] = row;
      else pages.push(row);
      return { ...s, pages };
    }, warnings);
  }

  private async save(fn: (s: DeskState) => DeskState | undefined, warnings: string[]): Promise<void> {
    try {
      const r = await this.store.update(fn);
      if (r.backup) warnings.push(`the unreadable desk.json was moved to ${r.backup} and a fresh one written`);
    } catch (e) {
      warnings.push(`desk.json was not updated: ${errText(e)}`);
    }
  }
}

function normalizeEndpoint(raw: string): string {
  try {
    return parseEndpoint(raw).url;
  } catch {
    return raw;
  }
}
