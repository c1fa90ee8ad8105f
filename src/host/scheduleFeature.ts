import * as vscode from 'vscode';
import { dirname, join } from 'node:path';
import { rowView } from '../core/rowView';
import type { ScheduleRow } from '../core/schema';
import { describeInstant } from '../core/time/describe';
import { validateZone } from '../core/time/zone';
import type { ScheduleStore } from '../node/schedule';
import { readPulse, TIMER_PULSE_FILE } from '../node/store/pulse';
import { binDir, findRuntime, installShim, thisRuntime, type ShimInstall } from '../node/shim';
import { recordStore, registryPath } from '../node/service/storeRegistry';
import { timerCommandsLine, timerRemindersLine, type TimerHealth } from '../core/service/timerHealth';
import type { TimerKind } from '../core/service/timerUnits';
import { homedir } from 'node:os';
import { Dispatcher, HEALTHY_WITHIN_MS } from './dispatcher';
import type { Firer } from '../node/fire';
import type { Doctor } from './doctor';
import type { ViewModel } from './viewModel';
import type { Health } from '../shared/protocol';
import { configuredZone, setting, WINDOW_ID } from './settings';
import { holderFor } from '../node/liveness';
import { ownerOf } from '../core/claim';
import type { Owner } from '../core/schema';
import { SIDEBAR_VIEW_ID } from '../shared/commands';

/** The owner's zone, validated: a bad setting falls back to the host's zone and says so once. */
export function ownerZone(log?: vscode.LogOutputChannel): string {
  const tz = configuredZone();
  try {
    return validateZone(tz, 'lifeThread.timeZone');
  } catch (err) {
    log?.warn(`${String(err)}; using UTC`);
    return 'UTC';
  }
}

/**
 * This window as the owner of the rows it adds (design §9 "Ownership"): its workspace's folders, so
 * a reminder fires only in a window of that workspace.
 */
export function windowOwner(): Owner {
  return ownerOf(holderFor(WINDOW_ID), { kind: 'window', folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()) });
}

export function catchUpLimits(): { reminder: number; command: number } {
  const h = (key: string, fallback: number) => {
    const v = setting<number>(key, fallback);
    return (typeof v === 'number' && v >= 0 ? v : fallback) * 3600_000;
  };
  return { reminder: h('catchUp.reminderMaxLatenessHours', 12), command: h('catchUp.commandMaxLatenessHours', 1) };
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
  private refreshTimer: NodeJS.Timeout | undefined;
  private rows: ScheduleRow[] = [];
  paused = false;
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
    this.disposables.push(this.dispatcher, this.statusItem, this.dispatcher.onDidChange(() => void this.refresh()));
    doctor.addSection('Dispatcher and store', () => this.doctorSection());
  }

  async start(): Promise<void> {
    this.cliReady = this.installCli();
    await this.setUpTerminals();
    this.dispatcher.start();
    // The "in 5 min" words age; refresh the views while anything is shown.
    this.refreshTimer = setInterval(() => void this.refresh(), 30_000);
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

  health(now = new Date()): Health {
    const h = this.dispatcher.health;
    if (h.readOnly) return { state: 'readonly', line: `Store is read-only: ${h.error ?? ''}`, lastPassAt: h.lastPassAt?.toISOString() ?? null };
    if (h.error) return { state: 'stalled', line: `STALLED: ${h.error}`, lastPassAt: h.lastPassAt?.toISOString() ?? null };
    if (!h.lastPassAt) return { state: 'starting', line: 'Dispatcher starting…', lastPassAt: null };
    const age = now.getTime() - h.lastPassAt.getTime();
    if (age > HEALTHY_WITHIN_MS) return { state: 'stalled', line: `STALLED: no pass for ${Math.round(age / 1000)} s`, lastPassAt: h.lastPassAt.toISOString() };
    if (this.paused) return { state: 'paused', line: 'Wakes paused · dispatcher healthy', lastPassAt: h.lastPassAt.toISOString() };
    return { state: 'healthy', line: `Dispatcher healthy · last pass ${Math.max(0, Math.round(age / 1000))} s ago`, lastPassAt: h.lastPassAt.toISOString() };
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
      this.model.update({ tz: ownerZone(), health: this.health(now), reminders: views([...r.rows]), commands: views([...c.rows]), storeError });
    } catch (err) {
      storeError = err instanceof Error ? err.message : String(err);
      this.model.update({ tz: ownerZone(), health: this.health(now), storeError });
    }
    this.updateStatus(now);
  }

  /**
   * The health lines the status bar's tooltip and Doctor show: the dispatcher's, or — while the OS
   * timer is installed — two, commands (the timer) and reminders (they need a window).
   */
  healthLines(now = new Date()): string[] {
    const line = this.health(now).line;
    return this.timer ? [timerCommandsLine(this.timer, now), timerRemindersLine(line)] : [line];
  }

  private updateStatus(now: Date): void {
    const health = this.health(now);
    const next = this.rows.filter((r) => r.status === 'pending' && r.nextRunAt).map((r) => Date.parse(r.nextRunAt ?? ''));
    const earliest = next.length ? Math.min(...next) : null;
    const words = earliest === null ? 'nothing scheduled' : `next ${describeInstant(new Date(earliest), ownerZone(), now).split(', ').pop() ?? ''}`;
    const tag = health.state === 'healthy' ? 'healthy' : health.state === 'stalled' || health.state === 'readonly' ? 'STALLED' : health.state;
    this.statusItem.text = `$(${health.state === 'healthy' ? 'clock' : health.state === 'paused' ? 'debug-pause' : 'warning'}) ${words} · ${tag}`;
    const lines = this.healthLines(now);
    const head = lines.length === 1 ? `**Life Thread** — ${lines[0] ?? ''}` : `**Life Thread**\n\n${lines.map((l) => `- ${l}`).join('\n')}`;
    this.statusItem.tooltip = new vscode.MarkdownString(`${head}\n\n${earliest === null ? 'Nothing scheduled.' : `Next: ${describeInstant(new Date(earliest), ownerZone(), now)}`}`);
    this.statusItem.backgroundColor = health.state === 'stalled' || health.state === 'readonly' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.statusItem.accessibilityInformation = { label: `Life Thread: ${words}, ${tag}${lines.length > 1 ? `; ${lines.join('; ')}` : ''}` };
  }

  private async doctorSection(): Promise<string> {
    const now = new Date();
    const pulse = await readPulse(this.storeDir).catch(() => null);
    const pulseWords = pulse ? ` (pulse file ${describeInstant(pulse, ownerZone(), now)})` : ' (no pulse file yet)';
    const health = this.healthLines(now);
    const lines =
      health.length === 1
        ? [`- Dispatcher: **${this.health(now).line}**${pulseWords}`]
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

  /** Terminals get the store, the zone and the store's `life-thread` on their PATH. */
  private async setUpTerminals(): Promise<void> {
    const env = this.context.environmentVariableCollection;
    env.description = 'Life Thread: the `life-thread` CLI and its store';
    env.replace('LIFE_THREAD_STORE', this.storeDir);
    env.replace('LIFE_THREAD_TZ', ownerZone());
    env.prepend('PATH', `${binDir(this.storeDir)}:`);
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
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
  }
}

function byNext(a: ScheduleRow, b: ScheduleRow): number {
  const x = a.nextRunAt ? Date.parse(a.nextRunAt) : Infinity;
  const y = b.nextRunAt ? Date.parse(b.nextRunAt) : Infinity;
  return x - y || a.createdAt.localeCompare(b.createdAt);
}
