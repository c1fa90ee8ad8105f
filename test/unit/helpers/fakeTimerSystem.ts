/**
 * A machine for the OS timer's code that touches nothing real (src/node/service/system.ts): a
 * temporary home for unit files and plists, a crontab in memory, and systemctl / launchctl that
 * remember what was enabled or loaded. Every program run is recorded.
 */
import type { RunResult, TimerSystem } from '../../../src/node/service/system';

export interface FakeMachine extends TimerSystem {
  crontab: string | null;
  /** Every program run, as argv. */
  calls: string[][];
  enabled: Set<string>;
  loaded: Set<string>;
  /** Make every `crontab -l` fail with this message. */
  failCrontabRead?: string;
  /** Make the next `crontab -` fail with this message. */
  failCrontabWrite?: string;
  /** Make every `launchctl bootstrap` fail with this message. */
  failBootstrap?: string;
}

const ok = (stdout = ''): RunResult => ({ code: 0, stdout, stderr: '', notFound: false });
const fail = (stderr: string, code = 1): RunResult => ({ code, stdout: '', stderr, notFound: false });
const missing: RunResult = { code: null, stdout: '', stderr: 'spawn ENOENT', notFound: true };

export function fakeMachine(home: string, opts: { platform?: NodeJS.Platform; systemd?: boolean; cron?: boolean; crontab?: string | null } = {}): FakeMachine {
  const m: FakeMachine = {
    platform: opts.platform ?? 'linux',
    home,
    env: { HOME: home, PATH: '/usr/bin:/bin' },
    uid: 1234,
    crontab: opts.crontab ?? null,
    calls: [],
    enabled: new Set(),
    loaded: new Set(),
    run(cmd, args, input) {
      m.calls.push([cmd, ...args]);
      return Promise.resolve(answer(m, opts, cmd, [...args], input));
    },
  };
  return m;
}

function answer(m: FakeMachine, opts: { systemd?: boolean; cron?: boolean }, cmd: string, args: string[], input: string | undefined): RunResult {
  if (cmd === 'systemctl') {
    if (!opts.systemd) return fail('Failed to connect to bus: No medium found');
    const [, verb, ...rest] = args;
    const unit = rest.at(-1) ?? '';
    switch (verb) {
      case 'show-environment':
      case 'daemon-reload':
        return ok();
      case 'is-active':
      case 'is-enabled':
        return m.enabled.has(unit) ? ok(verb === 'is-active' ? 'active\n' : 'enabled\n') : fail(verb === 'is-active' ? 'inactive' : 'disabled', verb === 'is-active' ? 3 : 1);
      case 'enable':
        m.enabled.add(unit);
        return ok();
      case 'disable':
        m.enabled.delete(unit);
        return ok();
      default:
        return fail(`unknown verb ${verb ?? ''}`);
    }
  }
  if (cmd === 'crontab') {
    if (opts.cron === false) return missing;
    if (args[0] === '-l' && m.failCrontabRead) return fail(m.failCrontabRead);
    if (args[0] === '-l') return m.crontab === null ? fail('no crontab for tester') : ok(m.crontab);
    if (args[0] === '-r') {
      if (m.crontab === null) return fail('no crontab for tester');
      m.crontab = null;
      return ok();
    }
    if (args[0] === '-') {
      if (m.failCrontabWrite) return fail(m.failCrontabWrite);
      m.crontab = input ?? '';
      return ok();
    }
    return fail('usage');
  }
  if (cmd === 'launchctl') {
    const target = args[0] === 'bootstrap' ? `${args[1] ?? ''}/${(args[2] ?? '').replace(/^.*\//, '').replace(/\.plist$/, '')}` : (args[1] ?? '');
    if (args[0] === 'print') return m.loaded.has(target) ? ok() : fail('Could not find service', 113);
    if (args[0] === 'bootstrap') {
      if (m.failBootstrap) return fail(m.failBootstrap, 5);
      m.loaded.add(target);
      return ok();
    }
    if (args[0] === 'bootout') {
      m.loaded.delete(target);
      return ok();
    }
  }
  return missing;
}
