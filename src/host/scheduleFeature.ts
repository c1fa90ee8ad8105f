import * as vscode from 'vscode';
import { dirname, join } from 'node:path';
import { rowView } from '../core/rowView';
import type { ScheduleRow } from '../core/schema';
import { describeInstant, nextRunWords } from '../core/time/describe';
import { zoneWords } from '../core/time/ownerZone';
import { pathPrefix } from '../core/platform';
import type { ScheduleStore } from '../node/schedule';
import { readPulse, TIMER_PULSE_FILE } from '../node/store/pulse';
import { binDir, findRuntime, installShim, thisRuntime, type ShimInstall } from '../node/shim';
import { recordStore, registryPath } from '../node/service/storeRegistry';
import { timerCommandsLine, timerRemindersLine, type TimerHealth } from '../core/service/timerHealth';
import type { TimerKind } from '../core/service/timerUnits';
import { homedir } from 'node:os';
import { Dispatcher } from './dispatcher';
import { dispatcherHealth, statusBarWords } from '../core/health';
import type { Firer } from '../node/fire';
import type { Doctor } from './doctor';
import type { ViewModel } from './viewModel';
import type { Health } from '../shared/protocol';
import { setting, WINDOW_ID } from './settings';
import { ownerZone, ownerZoneRecord, viewZone } from './ownerZone';
import { holderFor } from '../node/liveness';
import { ownerOf } from '../core/claim';
import type { Owner } from '../core/schema';
import { SIDEBAR_VIEW_ID } from '../shared/commands';
import { WakePauseState } from './wakePauseState';

export { ownerZone } from './ownerZone';

/**
 * This window as the owner of the rows it adds: its workspace's folders, so
 * a reminder fires only in a window of that workspace.
 */
export function windowOwner(): Owner {
  return ownerOf(holderFor(WINDOW_ID), { kind: 'window', folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()) });
}

export function catchUpLimits(): { reminder: number; command: number } {
  return { reminder: setting('catchUp.reminderMaxLatenessHours') * 3600_000, command: setting('catchUp.commandMaxLatenessHours') * 3600_000 };
}

/**
 * The durable schedule in this window: store, dispatcher, the view of its rows (sidebar, panel,
 * status bar, Doctor) and the terminal environment that lets the CLI share the store.
 */
export class ScheduleFeature implements vscode.Disposable {
  readonly storeDir: string;
  readonly dispatcher: Dispatcher;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private rows: ScheduleRow[] = [];
  /** The wakes' pause, shared by every window of the store: the status bar, the sidebar and Doctor read it. */
  readonly pause: WakePauseState;
  /** The OS timer's kind while it is installed (set by the timer feature, src/host/timerFeature.ts). */
  timerKind: TimerKind | null = null;
  /** The OS timer's health as last read, while it is installed. */
  private timer: TimerHealth | null = null;
  /** The store's CLI entry, written at start (README "The CLI"). */
  cliReady: Promise<ShimInstall | Error> = Promise.resolve(new Error('not started'));

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly store: ScheduleStore,
    private readonly model: ViewModel,
    private readonly doctor: Doctor,
    firer: Firer,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.storeDir = store.dir;
    this.pause = new WakePauseState(store.dir, context.globalState, log);
    this.dispatcher = new Dispatcher({
      store: this.store,
      firer,
      holder: holderFor(WINDOW_ID),
      limits: catchUpLimits,
      log,
    });
    this.statusItem = vscode.window.createStatusBarItem('lifeThread.status', vscode.StatusBarAlignment.Right, 100);
    this.statusItem.name = 'Life Thread';
    this.statusItem.command = `${SIDEBAR_VIEW_ID}.focus`;
    this.disposables.push(this.dispatcher, this.statusItem, this.pause, this.dispatcher.onDidChange(() => void this.refresh()));
    // A report open in this window would go on saying the old pause beside a sidebar that says the new one.
    this.disposables.push(
      this.pause.onDidChange(() => {
        void this.refresh();
        doctor.refresh();
      }),
    );
    doctor.addSection('Dispatcher and store', () => this.doctorSection());
  }

  async start(): Promise<void> {
    this.cliReady = this.installCli();
    await this.setUpTerminals();
    this.dispatcher.start();
    this.pause.start();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('lifeThread')) {
          void this.setUpTerminals();
          void this.refresh();
        }
      }),
    );
    this.statusItem.show();
    await this.refresh();
    await this.cliReady;
  }

  /** `withPause` false: the dispatcher alone (Doctor states the pause once, in its Wakes section). */
  health(now = new Date(), withPause = true): Health {
    const h = this.dispatcher.health;
    const { healthy: _healthy, ...health } = dispatcherHealth({ lastPassAt: h.lastPassAt ?? null, readOnly: h.readOnly ? (h.error ?? '') : undefined, error: h.error ?? undefined, paused: withPause && this.pause.paused, ownDispatcher: true }, now);
    return health;
  }

  /** What the status bar shows now. */
  get statusText(): string {
    return this.statusItem.text;
  }

  /** Rows as last read, for List, tools and tests. */
  get currentRows(): readonly ScheduleRow[] {
    return this.rows;
  }

  async refresh(): Promise<void> {
    const now = new Date();
    let storeError: string | null = null;
    const kind = this.timerKind;
    this.timer = kind === null ? null : { kind, lastPassAt: await readPulse(this.storeDir, undefined, TIMER_PULSE_FILE).catch(() => null) };
    try {
      const [r, c] = await Promise.all([this.store.listReminders(), this.store.listCommands()]);
      this.rows = [...r.rows, ...c.rows];
      const views = (rows: ScheduleRow[]) => rows.sort(byNext).map((row) => rowView(row, now, 'command' in row && row.firedAt !== undefined));
      this.model.update({ ...viewZone(ownerZoneRecord()), health: this.health(now), reminders: views([...r.rows]), commands: views([...c.rows]), storeError });
    } catch (err) {
      storeError = err instanceof Error ? err.message : String(err);
      this.model.update({ ...viewZone(ownerZoneRecord()), health: this.health(now), storeError });
    }
    this.updateStatus(now);
  }

  /**
   * The health lines the status bar's tooltip and Doctor show: the dispatcher's, or — while the OS
   * timer is installed — two, commands (the timer) and reminders (they need a window).
   */
  healthLines(now = new Date(), withPause = true): string[] {
    const line = this.health(now, withPause).line;
    return this.timer ? [timerCommandsLine(this.timer, now), timerRemindersLine(line)] : [line];
  }

  private updateStatus(now: Date): void {
    const health = this.health(now);
    const next = this.rows.filter((r) => r.status === 'pending' && r.nextRunAt).map((r) => Date.parse(r.nextRunAt ?? ''));
    const earliest = next.length ? Math.min(...next) : null;
    const { words } = statusBarWords(health, nextRunWords(earliest, now));
    const icon = health.state === 'healthy' ? 'clock' : health.state === 'paused' ? 'debug-pause' : health.state === 'starting' ? 'loading~spin' : 'warning';
    this.statusItem.text = `$(${icon}) ${words}`;
    const lines = this.healthLines(now);
    const head = lines.length === 1 ? `**Life Thread** — ${lines[0] ?? ''}` : `**Life Thread**\n\n${lines.map((l) => `- ${l}`).join('\n')}`;
    // A run that is already due waits for the next pass: it reads "due", never "next … ago".
    const nextLine = earliest === null ? 'Nothing scheduled.' : `${earliest <= now.getTime() ? 'Due' : 'Next'}: ${describeInstant(new Date(earliest), ownerZone(), now)}`;
    this.statusItem.tooltip = new vscode.MarkdownString(`${head}\n\n${nextLine}\n\nTimes in ${zoneWords(ownerZoneRecord())}`);
    this.statusItem.backgroundColor = health.state === 'stalled' || health.state === 'readonly' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.statusItem.accessibilityInformation = { label: `Life Thread: ${words}${lines.length > 1 ? `; ${lines.join('; ')}` : ''}` };
  }

  private async doctorSection(): Promise<string> {
    const now = new Date();
    const pulse = await readPulse(this.storeDir).catch(() => null);
    const pulseWords = pulse ? ` (pulse file ${describeInstant(pulse, ownerZone(), now)})` : ' (no pulse file yet)';
    const health = this.healthLines(now, false);
    const lines =
      health.length === 1
        ? [`- Dispatcher: **${health[0] ?? ''}**${pulseWords}`]
        : [`- ${health[0] ?? ''}`, `- ${health[1] ?? ''}${pulseWords}`];
    lines.push(`- Store directory: \`${this.storeDir}\``);
    for (const table of [this.store.reminders, this.store.commands]) {
      try {
        const snap = await table.read();
        const q = await table.readQuarantine();
        lines.push(`- \`${table.name}.json\`: schema version ${snap.schemaVersion}, ${snap.rows.length} row(s)${snap.state === 'missing' ? ' (not created yet)' : ''}; quarantined: ${snap.quarantined.length + q.rows.length}${q.rows.length ? ` (see \`${table.quarantineFile}\`)` : ''}`);
        for (const reason of [...q.reasons, ...snap.quarantined.map((x) => x.reason)].slice(0, 10)) lines.push(`  - ${reason}`);
      } catch (err) {
        lines.push(`- \`${table.name}.json\`: **cannot be read** — ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const pending = this.rows.filter((r) => r.status === 'pending' && r.nextRunAt).sort(byNext).slice(0, 5);
    lines.push('', '**Next runs**', '');
    if (pending.length === 0) lines.push('- nothing scheduled');
    for (const r of pending) lines.push(`- \`${r.id}\` ${describeInstant(new Date(r.nextRunAt ?? ''), r.tz, now)} — ${'command' in r ? r.command : r.text}`.slice(0, 300));
    return lines.join('\n');
  }

  /** The owner's zone changed: the views' words and the terminals' LIFE_THREAD_TZ follow. */
  async zoneChanged(): Promise<void> {
    await this.setUpTerminals();
    await this.refresh();
  }

  /**
   * Terminals get the store, the store's `life-thread` on their PATH, and LIFE_THREAD_TZ only when the
   * zone is the setting's: a UI's zone would go stale in a terminal and outrank owner.json, which the
   * CLI reads instead.
   */
  private async setUpTerminals(): Promise<void> {
    const env = this.context.environmentVariableCollection;
    env.description = 'Life Thread: the `life-thread` CLI and its store';
    env.replace('LIFE_THREAD_STORE', this.storeDir);
    const zone = ownerZoneRecord();
    if (zone.source === 'setting') env.replace('LIFE_THREAD_TZ', zone.timeZone);
    else env.delete('LIFE_THREAD_TZ');
    env.prepend('PATH', pathPrefix(binDir(this.storeDir), process.platform));
  }

  /**
   * The store's one CLI entry (src/node/shim.ts): this version's CLI bundle copied into the store and
   * the shim pointing at it on a system Node, else this host's runtime — unless a newer Life Thread
   * wrote it. Also records the store for the uninstall hook.
   */
  private async installCli(): Promise<ShimInstall | Error> {
    const ext = this.context.extensionUri.fsPath;
    try {
      const runtime = await findRuntime(process.env.PATH, thisRuntime('vscode'));
      const r = await installShim({ storeDir: this.storeDir, bundleDir: join(ext, 'dist'), version: String(this.context.extension.packageJSON.version), runtime });
      this.log.info(`life-thread CLI: ${r.reason}`);
      await recordStore(registryPath(process.env, homedir()), this.storeDir, dirname(ext)).catch((err: unknown) => this.log.warn(`could not record the store for the uninstall hook: ${String(err)}`));
      return r;
    } catch (err) {
      this.log.warn(`could not write the store's life-thread CLI: ${String(err)}`);
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function byNext(a: ScheduleRow, b: ScheduleRow): number {
  const x = a.nextRunAt ? Date.parse(a.nextRunAt) : Infinity;
  const y = b.nextRunAt ? Date.parse(b.nextRunAt) : Infinity;
  return x - y || a.createdAt.localeCompare(b.createdAt);
}
