/**
 * Where Life Thread runs (README "Platforms"), and the parts that differ by platform: the notice native
 * Windows gets instead of the extension, and how its terminals' PATH is prefixed. The platform is passed
 * in, so each branch is tested on any machine.
 */
import * as path from 'node:path';

/** Why native Windows gets a notice instead of Life Thread; undefined where it runs (Linux, macOS, WSL and remote hosts report theirs). */
export function unsupportedPlatform(platform: string): string | undefined {
  if (platform !== 'win32') return undefined;
  return 'Life Thread does not run on native Windows yet: its scheduled commands and wakes need bash, POSIX process groups and a POSIX shell shim. Open the folder in WSL, a dev container or over Remote-SSH on Linux or macOS (Life Thread then runs there), or use code-server. Nothing is scheduled or run here.';
}

function pathsOf(platform: string): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** What terminals' PATH is prefixed with so the shim's folder comes first (`;` on Windows, `:` elsewhere). */
export function pathPrefix(binDir: string, platform: string): string {
  return `${binDir}${pathsOf(platform).delimiter}`;
}
