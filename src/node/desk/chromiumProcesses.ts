/**
 * Ending a desk Chromium: its process group (TERM, then KILL), then the helpers that left the group
 * but still name its profile (crashpad). Linux reads /proc; elsewhere the group is probed by signal 0.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

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

export async function stopStragglers(profileDir: string, graceMs = 2000): Promise<void> {
  const end = Date.now() + graceMs;
  while (profileProcesses(profileDir).length > 0 && Date.now() < end) await delay(50);
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
    while (profileProcesses(profileDir).length > 0 && Date.now() < until) await delay(50);
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
      await delay(50);
    }
    return !processGroupAlive(pgid);
  };
  if (!processGroupAlive(pgid)) return;
  signal('SIGTERM');
  if (await waitGone(graceMs)) return;
  signal('SIGKILL');
  if (!(await waitGone(3000))) throw new Error(`Chromium process group ${pgid} survived SIGKILL`);
}
