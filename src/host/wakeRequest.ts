import * as vscode from 'vscode';
import { ownerOf, type Holder } from '../core/claim';
import { InputError } from '../core/errors';
import type { LandingRef } from '../core/landing';
import { isLoopbackUrl } from '../core/loopback';
import type { LandingInput } from '../core/wake/contract';
import type { WakeSender } from '../core/wake/sender';
import { randomBase36 } from '../node/ids';
import type { ScheduleStore } from '../node/schedule';
import { sendToLifeThread, type WakeToolAnswer } from '../node/tools/wakeTool';
import type { WakeStore } from '../node/wakes';
import type { HostDesk } from './desk';
import type { TerminalWakes } from './jobWakes';
import type { Lander } from './landing';
import { zoneForAnswer } from './ownerZone';

/** What a wake request reads and tells in this window. */
export interface WakeRequestHost {
  store: WakeStore;
  commands: ScheduleStore;
  holder: Holder;
  folders: string[];
  terminals: TerminalWakes;
  desk: HostDesk;
  lander: Lander;
  paused(): boolean;
  /** The table changed: re-arm the timer and refresh the view. */
  changed(): void;
}

/** The contract (src/node/tools/wakeTool.ts), with what this window sees of its tasks and terminals. */
export async function requestWake(input: unknown, names: Record<string, string> | undefined, sender: WakeSender, host: WakeRequestHost): Promise<WakeToolAnswer> {
  let bind: vscode.Terminal | undefined;
  let boundName: string | undefined;
  return sendToLifeThread(input, {
    store: host.store,
    commands: host.commands,
    now: () => new Date(),
    zone: () => zoneForAnswer(),
    owner: ownerOf(host.holder, { kind: 'window', folders: host.folders }),
    sender,
    ...(names ? { fieldNames: names } : {}),
    checkJob: async (parsed) => {
      const jobId = parsed.jobId ?? '';
      if (jobId.startsWith('terminal:')) {
        boundName = jobId.slice('terminal:'.length);
        // Two terminals with one name: the one in front is the one meant.
        const active = vscode.window.activeTerminal;
        bind = active?.name === boundName ? active : vscode.window.terminals.find((t) => t.name === boundName);
        return bind ? {} : { note: ` No terminal is named "${boundName}" now: the wake binds to the next one opened with that name.` };
      }
      if (vscode.tasks.taskExecutions.some((e) => e.task.name === jobId)) return { jobStartedAt: new Date() };
      const defined = await Promise.resolve(vscode.tasks.fetchTasks()).catch(() => [] as vscode.Task[]);
      return defined.some((t) => t.name === jobId) ? {} : { note: ` No task named "${jobId}" is defined in this workspace now; the wake waits until one with that name runs here.` };
    },
    added: (row) => {
      if (bind) host.terminals.bind(row.id, bind);
      else if (boundName !== undefined) host.terminals.bindNext(row.id, boundName);
    },
    changed: () => host.changed(),
    landing: (input, field) => landingOf(input, field, host),
    note: () => (host.paused() ? ' Wakes are paused: it will wait until they are resumed.' : ''),
  });
}

/**
 * A caller's landing as a LandingRef. A page for the desk — a report file (`.html`) or a server on
 * this machine — is remembered on the desk and lands as `cdp://evidence/<id>`.
 */
async function landingOf(input: LandingInput, field: string, host: WakeRequestHost): Promise<LandingRef> {
  if (input.kind === 'uri' && (isLoopbackUrl(input.uri) || /^file:\/\/\S+\.html?(?:[?#].*)?$/i.test(input.uri))) {
    return host.desk.rememberEvidence({ url: input.uri, evidenceId: `page-${randomBase36(8)}` }).catch((err: unknown) => {
      throw err instanceof InputError ? new InputError(`${field}.uri`, err.reason) : err;
    });
  }
  return host.lander.landingFor(input, field);
}
