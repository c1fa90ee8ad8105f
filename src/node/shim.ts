/**
 * The store's one CLI entry (README "The CLI"): `<store>/bin/life-thread`, a shim that runs the CLI
 * bundle copied into `<store>/bin/cli-<version>-<build>/` with a runtime — a system Node ≥ 20 found on
 * PATH, else VS Code's own. Terminals, MCP configs, tool answers and the OS timer run it by its path,
 * so nothing points into a versioned extension folder that the next update deletes.
 *
 * Every window writes it at its start, and after an update windows of two versions start side by
 * side: the check and the write happen under the store's `bin` lock, the bundle appears by one rename
 * of a complete folder, the shim by one atomic rename, and a shim written by a newer version is never
 * replaced by an older one.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { shimPath } from '../core/mcpConfig';
import { compareVersions, parseShimHeader, shimText, type ShimHeader, type ShimRuntime } from '../core/shimText';
import { writeFileAtomic } from './atomicFile';
import { randomBase36 } from './ids';
import { acquireLock } from './lock';
import { DEFAULT_LOCK_WAIT_MS, LOCKS_DIR } from './store/table';

/** What the CLI bundle is made of (scripts/build.mjs): the entry and the bundles it loads. */
export const CLI_BUNDLE_FILES = ['cli.js', 'cli-add.js', 'cli-main.js', 'cli-chrono.js', 'mcp.js'] as const;
/** The oldest system Node the CLI runs on (package.json engines). */
const MIN_NODE_MAJOR = 20;
/** A bundle no shim points at any more is kept this long: a process started from it may still load its parts. */
const OLD_BUNDLE_KEEP_MS = 7 * 24 * 3600_000;
const COMPLETE = '.complete';

export function binDir(storeDir: string): string {
  return path.join(storeDir, 'bin');
}

/** The shim's header, or null when there is no shim or one without a header (an older Life Thread's). */
export async function readShim(storeDir: string): Promise<ShimHeader | null> {
  try {
    return parseShimHeader(await fsp.readFile(shimPath(storeDir), 'utf8')) ?? null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** A digest of the bundle's files; throws naming a missing one. */
async function bundleBuild(bundleDir: string): Promise<string> {
  const h = createHash('sha256');
  for (const name of CLI_BUNDLE_FILES) {
    h.update(`${name}\0`);
    h.update(await fsp.readFile(path.join(bundleDir, name)));
  }
  return h.digest('hex').slice(0, 12);
}

function nodeVersionOf(file: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, ['-p', 'process.versions.node'], { timeout: 5000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, (err, stdout) => {
      resolve(err ? undefined : stdout.trim());
    });
  });
}

/**
 * The runtime for the shim: the first `node` on `PATH` that is Node ≥ 20, else `fallback` (the
 * running process: VS Code's runtime in the extension host).
 */
export async function findRuntime(envPath: string | undefined, fallback: ShimRuntime): Promise<ShimRuntime> {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir.startsWith('/')) continue;
    const file = path.join(dir, 'node');
    try {
      await fsp.access(file, 1);
    } catch {
      continue;
    }
    const version = await nodeVersionOf(file);
    const major = Number(/^(\d+)\./.exec(version ?? '')?.[1]);
    if (version !== undefined && major >= MIN_NODE_MAJOR) return { kind: 'node', path: file, version };
  }
  return fallback;
}

/** This process as a runtime: VS Code's when it runs inside Electron or an extension host, else a Node. */
export function thisRuntime(kind: ShimRuntime['kind']): ShimRuntime {
  return { kind, path: process.execPath, version: process.versions.node };
}

export interface ShimInstall {
  /** The shim now in place (ours, or the newer one left alone). */
  shim: ShimHeader;
  written: boolean;
  /** Why it was or was not written, in words for the log. */
  reason: string;
}

/**
 * Puts this bundle (`bundleDir`, holding CLI_BUNDLE_FILES) and a shim pointing at it into the store,
 * unless the shim there comes from a newer version (or from this very build on this runtime).
 */
export async function installShim(opts: { storeDir: string; bundleDir: string; version: string; runtime: ShimRuntime; now?: Date; lockWaitMs?: number }): Promise<ShimInstall> {
  const bin = binDir(opts.storeDir);
  const build = await bundleBuild(opts.bundleDir);
  const bundle = `cli-${opts.version}-${build}`;
  const mine: ShimHeader = { version: opts.version, build, bundle, runtime: opts.runtime, writtenAt: (opts.now ?? new Date()).toISOString() };
  await fsp.mkdir(bin, { recursive: true });
  const lock = await acquireLock(path.join(opts.storeDir, LOCKS_DIR, 'bin'), { waitMs: opts.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS });
  try {
    const current = await readShim(opts.storeDir);
    const complete = async (name: string): Promise<boolean> => (await fsp.stat(path.join(bin, name, COMPLETE)).catch(() => null)) !== null;
    if (current && compareVersions(current.version, opts.version) > 0) {
      return { shim: current, written: false, reason: `the shim comes from a newer Life Thread (${current.version}); this one is ${opts.version}` };
    }
    if (current && current.build === build && current.bundle === bundle && sameRuntime(current.runtime, opts.runtime) && (await complete(bundle))) {
      return { shim: current, written: false, reason: 'the shim is this build on this runtime already' };
    }
    if (!(await complete(bundle))) await copyBundle(opts.bundleDir, bin, bundle);
    await writeFileAtomic(shimPath(opts.storeDir), shimText(bin, mine), { mode: 0o755 });
    // The bundle just replaced may still serve a running process: its week starts now.
    if (current && current.bundle !== bundle) await fsp.utimes(path.join(bin, current.bundle), new Date(), new Date()).catch(() => undefined);
    await collectOldBundles(bin, bundle);
    return { shim: mine, written: true, reason: current ? `replaced ${current.version} (${current.build}) with ${opts.version} (${build})` : `wrote ${opts.version} (${build})` };
  } finally {
    await lock.release();
  }
}

function sameRuntime(a: ShimRuntime, b: ShimRuntime): boolean {
  return a.kind === b.kind && a.path === b.path && a.version === b.version;
}

/** Copies the bundle into a temporary folder, marks it complete, and renames it into place. */
async function copyBundle(from: string, bin: string, bundle: string): Promise<void> {
  const tmp = path.join(bin, `.${bundle}.${process.pid}.${randomBase36(6)}.tmp`);
  await fsp.mkdir(tmp);
  try {
    for (const name of CLI_BUNDLE_FILES) await fsp.copyFile(path.join(from, name), path.join(tmp, name));
    await fsp.writeFile(path.join(tmp, COMPLETE), '');
    // A folder of that name without the mark is a copy a killed process left half done.
    await fsp.rm(path.join(bin, bundle), { recursive: true, force: true });
    await fsp.rename(tmp, path.join(bin, bundle));
  } catch (e) {
    await fsp.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  }
}

/** Removes bundles no shim has pointed at for a week, and copies a killed process left behind. */
async function collectOldBundles(bin: string, keep: string): Promise<void> {
  const now = Date.now();
  for (const name of await fsp.readdir(bin)) {
    const isBundle = name.startsWith('cli-');
    const isLeftover = name.startsWith('.cli-') && name.endsWith('.tmp');
    if ((!isBundle && !isLeftover) || name === keep) continue;
    const st = await fsp.stat(path.join(bin, name)).catch(() => null);
    if (st && now - st.mtimeMs > (isLeftover ? 3600_000 : OLD_BUNDLE_KEEP_MS)) await fsp.rm(path.join(bin, name), { recursive: true, force: true }).catch(() => undefined);
  }
}
