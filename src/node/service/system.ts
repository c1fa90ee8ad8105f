/**
 * The parts of the machine the OS timer touches, as a seam: the platform, the user's home and
 * environment, and the programs it runs (`systemctl --user`, `launchctl`, `crontab`). The CLI and
 * the extension use the real one; tests give a fake one (a temporary home, a crontab in memory), so
 * no test touches the machine's own timers except the real-cron test (test/timer/).
 */
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';

export interface RunResult {
  /** Exit code; null when killed or when the program could not start. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The program is not installed (ENOENT). */
  notFound: boolean;
}

export interface TimerSystem {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
  uid: number;
  run(cmd: string, args: readonly string[], input?: string): Promise<RunResult>;
}

const RUN_TIMEOUT_MS = 15_000;

/** Runs a program with `input` on its stdin; never throws (a missing program is `notFound`). */
export function runProgram(cmd: string, args: readonly string[], input?: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = RUN_TIMEOUT_MS): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const done = (r: RunResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const child = spawn(cmd, [...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ code: null, stdout, stderr: `${stderr}${cmd} did not finish within ${timeoutMs / 1000} s`, notFound: false });
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', (e: NodeJS.ErrnoException) => done({ code: null, stdout, stderr: e.message, notFound: e.code === 'ENOENT' }));
    child.on('close', (code) => done({ code, stdout, stderr, notFound: false }));
    // A program that exits without reading its stdin must not crash us with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

export function realSystem(env: NodeJS.ProcessEnv = process.env): TimerSystem {
  return {
    platform: process.platform,
    home: env.HOME && env.HOME.startsWith('/') ? env.HOME : homedir(),
    env,
    uid: process.getuid?.() ?? 0,
    run: (cmd, args, input) => runProgram(cmd, args, input, env),
  };
}
