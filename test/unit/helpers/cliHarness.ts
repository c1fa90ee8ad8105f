/** Runs the built `life-thread` CLI as a user does: `node dist/cli.js` in a child process. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before } from 'node:test';
import { tempDirs } from './tempDirs';
import { SCHEMA_VERSION } from '../../../src/core/schema';

export function repoRoot(): string {
  for (let d = __dirname; d !== path.dirname(d); d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json')) && fs.existsSync(path.join(d, 'src/cli/main.ts'))) return d;
  }
  throw new Error(`no repository root above ${__dirname}`);
}

export const REPO = repoRoot();
export const CLI = path.join(REPO, 'dist/cli.js');

export interface CliResult {
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOpts {
  /** Added to (or, with undefined, removed from) a terminal's environment without LIFE_THREAD_* and with TZ=UTC. */
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** The environment of a terminal with no Life Thread variables and a UTC machine zone. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC' };
  for (const k of Object.keys(env)) if (k.startsWith('LIFE_THREAD_')) delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], opts: RunOpts & { cwd: string }): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: baseEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (stdout += c));
    child.stderr.on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ args, code, stdout, stderr, ms: Date.now() - started }));
  });
}

/** A temp root for the file's stores, created before and removed after its tests. */
export function tempStores(prefix: string): { root: () => string; freshStore: () => string } {
  const dirs = tempDirs(prefix);
  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run node scripts/build.mjs first`);
  });
  return { root: dirs.root, freshStore: dirs.freshDir };
}

/** A table file in the store's own layout, one row per line (src/node/store/codec.ts encodeTableBytes), as a writer of this code leaves it minus the digest. */
export function encodeTable(lines: readonly string[]): string {
  return `{"schemaVersion":${SCHEMA_VERSION},"rows":[\n${lines.length ? `${lines.join(',\n')}\n` : ''}]}\n`;
}

export function writeTable(dir: string, name: string, rows: unknown[], schemaVersion = 1): void {
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify({ schemaVersion, rows }, null, 2)}\n`);
}

/** Runs tasks a few at a time: the machine has 2 cores and other suites may run beside this one. */
export async function pool<T>(tasks: (() => Promise<T>)[], width = 3): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        const task = tasks[i];
        if (task) out[i] = await task();
      }
    }),
  );
  return out;
}
