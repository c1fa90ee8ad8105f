import * as vscode from 'vscode';
import { describePlan } from '../core/service/timerUnits';
import { runtimeWords } from '../core/shimText';
import { detectKind, findInstalled, installTimer, planTimer, timerStatus, uninstallTimer } from '../node/service/osTimer';
import { realSystem, type TimerSystem } from '../node/service/system';
import { readShim } from '../node/shim';
import { COMMANDS } from '../shared/commands';
import { contrib } from './contrib';
import type { Doctor } from './doctor';
import type { ScheduleFeature } from './scheduleFeature';

/** The confirmation, a seam: the test workbench refuses modals (README "Development"), host tests answer here. */
export interface TimerDialogs {
  /** Shows `detail` (exactly what will be written) and returns the action picked, or undefined. */
  choose(o: { title: string; detail: string; actions: readonly string[] }): Promise<string | undefined>;
}

const modalDialogs: TimerDialogs = {
  async choose(o) {
    return vscode.window.showInformationMessage(o.title, { modal: true, detail: o.detail }, ...o.actions);
  },
};

export type KeepTimeOutcome = { installed: boolean; changed?: boolean; removed?: boolean; reason?: string };

const INSTALL = 'Install';
const REINSTALL = 'Install Again';
const REMOVE = 'Remove the Timer';

/**
 * `Life Thread: Keep Time While VS Code Is Closed` (README "Keep time while VS Code is closed"): shows
 * exactly what the OS timer of this store will be and installs it once the user confirms; keeps the
 * schedule's health in two lines while it is installed; a Doctor section says what is installed.
 */
export class TimerFeature {
  /** The machine, a seam: host tests give a fake one, so no test touches the machine's own timers. */
  system: TimerSystem = realSystem();
  dialogs: TimerDialogs = modalDialogs;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly schedule: ScheduleFeature,
    doctor: Doctor,
    private readonly log: vscode.LogOutputChannel,
  ) {
    doctor.addSection('OS timer (while VS Code is closed)', () => this.doctorSection());
  }

  register(): void {
    this.context.subscriptions.push(contrib.registerCommand(COMMANDS.keepTimeWhileClosed, () => this.keepTime()));
  }

  /** Reads whether this store's timer is installed and hands it to the schedule's health. */
  async refresh(): Promise<void> {
    try {
      const found = await findInstalled(this.schedule.storeDir, this.system);
      this.schedule.timerKind = found[0]?.kind ?? null;
    } catch (err) {
      this.log.warn(`OS timer: could not tell whether it is installed: ${String(err)}`);
    }
    await this.schedule.refresh();
  }

  async keepTime(): Promise<KeepTimeOutcome> {
    const storeDir = this.schedule.storeDir;
    try {
      const cli = await this.schedule.cliReady;
      if (cli instanceof Error) throw new Error(`the store's life-thread CLI could not be written (${cli.message}); the timer would have nothing to run`);
      const found = await findInstalled(storeDir, this.system);
      const kind = found[0]?.kind ?? (await detectKind(this.system));
      const plan = planTimer(storeDir, kind, this.system);
      const title = found.length > 0 ? `Life Thread keeps time while VS Code is closed already (${kind}). Install it again as below, or remove it?` : `Keep time while VS Code is closed? Life Thread will install this ${kind} timer for its scheduled commands:`;
      const pick = await this.dialogs.choose({ title, detail: describePlan(plan), actions: found.length > 0 ? [REINSTALL, REMOVE] : [INSTALL] });
      if (pick === REMOVE) {
        const removed = await uninstallTimer(storeDir, this.system);
        await this.refresh();
        void vscode.window.showInformationMessage(`Life Thread: removed the ${removed.map((r) => r.kind).join(' and ')} timer; scheduled commands run only while a VS Code window is open.`);
        return { installed: false, removed: true };
      }
      if (pick !== INSTALL && pick !== REINSTALL) return { installed: found.length > 0, reason: 'not confirmed' };
      const done = await installTimer(plan, this.system);
      this.log.info(`OS timer: ${done.changed ? 'installed' : 'already installed'} (${kind}): ${plan.cronLine ?? plan.files.map((f) => f.path).join(', ')}`);
      await this.refresh();
      void vscode.window.showInformationMessage(`Life Thread: the ${kind} timer runs this store's scheduled commands every minute while VS Code is closed; reminders wait for a window.`);
      return { installed: true, changed: done.changed };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.log.error(`OS timer: ${reason}`);
      void vscode.window.showErrorMessage(`Life Thread: could not keep time while VS Code is closed — ${reason}`);
      return { installed: false, reason };
    }
  }

  private async doctorSection(): Promise<string> {
    const st = await timerStatus(this.schedule.storeDir, this.system);
    const shim = await readShim(this.schedule.storeDir).catch(() => null);
    const lines: string[] = [];
    if (st.installed && st.kind) {
      lines.push(`- Installed: **${st.kind}**`, ...st.entries.map((e) => `  - \`${e}\``));
    } else {
      lines.push(`- Not installed: scheduled commands run only while a window is open. \`Life Thread: Keep Time While VS Code Is Closed\` installs it${st.kind ? ` (${st.kind})` : `; ${st.unavailable ?? ''}`}.`);
    }
    lines.push(`- Runs every minute: \`${st.command}\``);
    lines.push(`- The store's CLI: ${shim ? `Life Thread ${shim.version} on ${runtimeWords(shim.runtime)}` : 'not written yet'}`);
    lines.push('- Remove it with `life-thread service uninstall` in a terminal of this window.');
    return lines.join('\n');
  }
}
