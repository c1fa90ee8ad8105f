/**
 * The store's one CLI entry, `<store>/bin/life-thread` (README "The CLI"): a POSIX shell script that
 * runs the CLI bundle copied into `<store>/bin/<bundle>/` with a runtime. Its second line is a header
 * that says which version and runtime wrote it, so a newer Life Thread rewrites it and an older one
 * leaves it alone, and `life-thread service status` can say which runtime the OS timer uses.
 */
import * as z from 'zod/mini';
import { sh } from './shellQuote';

const HEADER_PREFIX = '# life-thread shim: ';

const runtimeSchema = z.strictObject({
  /** `node`: a system Node found on PATH; `vscode`: the VS Code runtime (Electron as Node, or code-server's Node). */
  kind: z.enum(['node', 'vscode']),
  path: z.string().check(z.minLength(1), z.maxLength(4096)),
  /** The Node version it runs (process.versions.node). */
  version: z.string().check(z.maxLength(40)),
});
export type ShimRuntime = z.infer<typeof runtimeSchema>;

const headerSchema = z.strictObject({
  version: z.string().check(z.regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/)),
  /** A digest of the bundle's files: two builds of one version differ here. */
  build: z.string().check(z.regex(/^[0-9a-f]{8,64}$/)),
  /** The bundle's folder under `<store>/bin/`. */
  bundle: z.string().check(z.regex(/^cli-[0-9A-Za-z.+-]+$/)),
  runtime: runtimeSchema,
  writtenAt: z.string().check(z.maxLength(40)),
});
export type ShimHeader = z.infer<typeof headerSchema>;

/** The shim's text: the header, then one `exec` of the runtime on the bundle's entry. */
export function shimText(binDir: string, h: ShimHeader): string {
  const entry = `${binDir.replace(/\/+$/, '')}/${h.bundle}/cli.js`;
  const lines = [
    '#!/bin/sh',
    `${HEADER_PREFIX}${JSON.stringify(h)}`,
    '# The Life Thread CLI of this store. Each VS Code start rewrites it with the newest Life Thread seen; do not edit.',
  ];
  // VS Code's runtime is Electron: it runs as plain Node only with this variable.
  if (h.runtime.kind === 'vscode') lines.push('ELECTRON_RUN_AS_NODE=1', 'export ELECTRON_RUN_AS_NODE');
  lines.push(`exec ${sh(h.runtime.path)} ${sh(entry)} "$@"`, '');
  return lines.join('\n');
}

/** The header of a shim's text; undefined for a shim without one (written by an older Life Thread) or a broken one. */
export function parseShimHeader(text: string): ShimHeader | undefined {
  const line = text.split('\n', 3)[1];
  if (line === undefined || !line.startsWith(HEADER_PREFIX)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(line.slice(HEADER_PREFIX.length));
  } catch {
    return undefined;
  }
  const parsed = headerSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** Orders `x.y.z` versions numerically (a pre-release sorts before its release); negative when a < b. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string): { nums: number[]; pre: string } => {
    const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?/.exec(v);
    return m ? { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? '' } : { nums: [0, 0, 0], pre: v };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === '') return 1;
  if (y.pre === '') return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** In words for status and Doctor: "system Node 20.20.2 (/usr/bin/node)". */
export function runtimeWords(r: ShimRuntime): string {
  return r.kind === 'node' ? `system Node ${r.version} (${r.path})` : `VS Code's runtime, Node ${r.version} (${r.path})`;
}
