import * as vscode from 'vscode';
import { InputError } from '../core/errors';
import { decideOwnerZone, OWNER_FILE, zoneWords, type OwnerFile, type OwnerFileRead, type OwnerZone } from '../core/time/ownerZone';
import { systemZone, validateZone } from '../core/time/zone';
import type { ScheduleRow } from '../core/schema';
import { readOwnerFile, writeOwnerFile } from '../node/ownerFile';
import { SIDEBAR_VIEW_ID } from '../shared/commands';
import { setting } from './settings';

/** This window's keeper, once activation made it; the module-level readers below ask it. */
let keeper: OwnerZoneKeeper | undefined;
function useKeeper(k: OwnerZoneKeeper | undefined): void {
  keeper = k;
}

function decide(owner: OwnerFileRead): OwnerZone {
  return decideOwnerZone({ surface: 'window', setting: setting('timeZone'), owner, host: systemZone() });
}

/** The owner's zone in this window, with its source (src/core/time/ownerZone.ts decides it). */
export function ownerZoneRecord(): OwnerZone {
  return keeper?.zone ?? decide({ state: 'missing' });
}

/** The owner's zone in this window: where times in words are read and shown. */
export function ownerZone(): string {
  return ownerZoneRecord().timeZone;
}

/**
 * The owner's zone for an answer that reads or shows times in it (a palette box, a tool, `/wake`): in a
 * remote window that still uses the extension host's zone, the first such answer also says so.
 */
export function zoneForAnswer(): OwnerZone {
  keeper?.sayHostZoneOnce();
  return ownerZoneRecord();
}

/** The zone as the views show it ("Times in X (source)"); a window decides only setting, ui or host. */
export function viewZone(z: OwnerZone): { tz: string; tzSource: 'setting' | 'ui' | 'host' } {
  return { tz: z.timeZone, tzSource: z.source === 'setting' || z.source === 'ui' ? z.source : 'host' };
}

const OPEN_SIDEBAR = 'Open Life Thread Sidebar';
const OPEN_SETTING = 'Set lifeThread.timeZone';

/**
 * Keeps the owner's zone of this window (README "Time"): the setting, else the zone a Life Thread view of
 * the UI reported, else the extension host's. UI reports and the setting are written to the store's
 * owner.json, so the CLI, `wait`, `run` and the MCP server read times in the same zone; another
 * window's report is read from there. A change of zone is said once per window.
 */
export class OwnerZoneKeeper implements vscode.Disposable {
  private file: OwnerFileRead = { state: 'missing' };
  private current: OwnerZone;
  /** The last zone a view of this window reported (kept while the setting rules, for when it is cleared). */
  private reported: string | undefined;
  private started = false;
  private hostZoneSaid = false;
  /** Problems with the setting or owner.json already said in this window. */
  private readonly problemsSaid = new Set<string>();
  private writeError: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly saidList: string[] = [];
  private readonly _onDidChange = new vscode.EventEmitter<OwnerZone>();
  /** The zone or its source changed (views, terminals' LIFE_THREAD_TZ). */
  readonly onDidChange = this._onDidChange.event;

  constructor(
    private readonly storeDir: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.current = decide(this.file);
    useKeeper(this);
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('lifeThread.timeZone')) void this.settingChanged();
      }),
    );
  }

  get zone(): OwnerZone {
    return this.current;
  }

  /** Reads owner.json and writes the setting into it when it is set. */
  start(): Promise<void> {
    return this.serial(async () => {
      this.file = await readOwnerFile(this.storeDir);
      const reported = this.reported ? { timeZone: this.reported, source: 'ui' as const, updatedAt: new Date().toISOString() } : undefined;
      await this.write(this.settingRecord() ?? reported);
      this.started = true;
      this.recompute();
    });
  }

  /** A Life Thread webview reported the UI's zone (`Intl…timeZone`); without a setting it becomes the owner's. */
  uiReported(raw: string): Promise<void> {
    let tz: string;
    try {
      tz = validateZone(raw, 'timeZone');
    } catch (e) {
      this.log.warn(`a Life Thread view reported the zone '${raw.slice(0, 64)}', which is not usable: ${e instanceof InputError ? e.reason : String(e)}`);
      return Promise.resolve();
    }
    return this.serial(async () => {
      this.reported = tz;
      if (this.current.source !== 'setting') await this.write({ timeZone: tz, source: 'ui', updatedAt: new Date().toISOString() });
      this.recompute();
    });
  }

  /** `lifeThread.timeZone` changed: the setting is written, or — cleared — this window's UI zone (else the host's) replaces it. */
  settingChanged(): Promise<void> {
    return this.serial(async () => {
      const now = new Date().toISOString();
      const wasSetting = this.current.source === 'setting';
      const next = this.settingRecord() ?? (wasSetting ? (this.reported ? { timeZone: this.reported, source: 'ui' as const, updatedAt: now } : { timeZone: systemZone(), source: 'host' as const, updatedAt: now }) : undefined);
      await this.write(next);
      this.recompute();
    });
  }

  /** owner.json changed on disk (another window's UI, or its setting). */
  fileChanged(): Promise<void> {
    return this.serial(async () => {
      this.file = await readOwnerFile(this.storeDir);
      this.recompute();
    });
  }

  /** In a remote window that still reads times in the extension host's zone, say so once, with the ways out. */
  sayHostZoneOnce(): void {
    if (this.hostZoneSaid || this.current.source !== 'host' || !vscode.env.remoteName) return;
    this.hostZoneSaid = true;
    const message = `Life Thread: times are read in ${this.current.timeZone}, the zone of the machine the extension host runs on (remote "${vscode.env.remoteName}"): no Life Thread view has reported your UI's zone yet. Open the Life Thread sidebar (it reports your zone) or set lifeThread.timeZone.`;
    void this.say('warning', message, OPEN_SIDEBAR, OPEN_SETTING).then((pick) => {
      if (pick === OPEN_SIDEBAR) void vscode.commands.executeCommand(`${SIDEBAR_VIEW_ID}.focus`);
      if (pick === OPEN_SETTING) void vscode.commands.executeCommand('workbench.action.openSettings', 'lifeThread.timeZone');
    });
  }

  /** Doctor: the zone, where it came from, what owner.json holds, and the rows that keep another zone. */
  doctorSection(rows: readonly ScheduleRow[]): string {
    const z = this.current;
    const file = this.file.state === 'ok' ? `\`${JSON.stringify(this.file.record)}\`` : this.file.state === 'missing' ? 'not written yet' : `**cannot be used** — ${this.file.problem} (left as it is until a Life Thread view reports your zone, which replaces it)`;
    const lines = [
      `- Owner's ${zoneWords(z)}`,
      `- \`${OWNER_FILE}\` in the store: ${file}${this.writeError ? `; the last write failed: ${this.writeError}` : ''}`,
      `- This window's UI reported: ${this.reported ?? 'nothing yet (the sidebar and the panel report it when they show)'}; the extension host's zone: ${systemZone()}${vscode.env.remoteName ? ` (remote ${vscode.env.remoteName})` : ''}`,
      `- Terminals get \`LIFE_THREAD_TZ\`: ${z.source === 'setting' ? `yes, ${z.timeZone} (from the setting)` : 'no (only a zone set in lifeThread.timeZone is passed; the CLI reads owner.json)'}`,
    ];
    const other = rows.filter((r) => r.status === 'pending' && r.tz !== z.timeZone);
    lines.push('', `**Rows in another zone than the owner's** (their times stay in their own zone; move a row to read it in ${z.timeZone})`, '');
    if (other.length === 0) lines.push('- none');
    for (const r of other.slice(0, 20)) lines.push(`- \`${r.id}\` in ${r.tz} — ${('command' in r ? r.command : r.text).replace(/\s+/g, ' ').slice(0, 120)}`);
    if (other.length > 20) lines.push(`- … and ${other.length - 20} more`);
    return lines.join('\n');
  }

  private settingRecord(): OwnerFile | undefined {
    const z = decide({ state: 'missing' });
    return z.source === 'setting' ? { timeZone: z.timeZone, source: 'setting', updatedAt: new Date().toISOString() } : undefined;
  }

  /** Writes the record when it says something else than the file; a corrupt file is replaced, and that is said. */
  private async write(record: OwnerFile | undefined): Promise<void> {
    if (!record) return;
    const old = this.file;
    if (old.state === 'ok' && old.record.timeZone === record.timeZone && old.record.source === record.source) return;
    try {
      await writeOwnerFile(this.storeDir, record);
      this.writeError = undefined;
      if (old.state === 'corrupt') {
        const message = `Life Thread: ${OWNER_FILE} in the store could not be used (${old.problem}); it was replaced with the owner's zone ${record.timeZone} (source: ${record.source}).`;
        void this.say('warning', message);
      }
    } catch (err) {
      this.writeError = err instanceof Error ? err.message : String(err);
      this.log.error(`${OWNER_FILE}: ${this.writeError}`);
    }
    // This window goes on with the zone it decided even when the store cannot take it.
    this.file = { state: 'ok', record };
  }

  private recompute(): void {
    const before = this.current;
    const next = decide(this.file);
    this.current = next;
    for (const problem of next.ignored.filter((p) => !this.problemsSaid.has(p))) {
      this.problemsSaid.add(problem);
      const left = problem.startsWith(OWNER_FILE) ? ` The file is left as it is until a Life Thread view reports your zone, which replaces it.` : '';
      const message = `Life Thread: ${problem} — not used; times are read in ${next.timeZone} (source: ${next.source}).${left}`;
      void this.say('warning', message);
    }
    if (before.timeZone === next.timeZone && before.source === next.source && before.ignored.join() === next.ignored.join()) return;
    this._onDidChange.fire(next);
    if (!this.started || before.timeZone === next.timeZone) return;
    const message = `Life Thread: times are now read in ${zoneWords(next)}; until now ${before.timeZone} (${before.source}). Rows keep their own zones (Doctor lists those in another zone).`;
    void this.say('info', message);
  }

  /** Shows a message and keeps it for `said` (the last 20). */
  private say(kind: 'info' | 'warning', message: string, ...buttons: string[]): Thenable<string | undefined> {
    this.saidList.push(message);
    if (this.saidList.length > 20) this.saidList.shift();
    if (kind === 'info') this.log.info(message);
    else this.log.warn(message);
    return kind === 'info' ? vscode.window.showInformationMessage(message, ...buttons) : vscode.window.showWarningMessage(message, ...buttons);
  }

  /** What this keeper told the user in this window, oldest first (Doctor's count, host tests). */
  get said(): readonly string[] {
    return this.saidList;
  }

  private serial(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work, work);
    this.queue = run.catch((err: unknown) => this.log.error(`owner's zone: ${String(err)}`));
    return this.queue;
  }

  dispose(): void {
    if (keeper === this) useKeeper(undefined);
    for (const d of this.subscriptions) d.dispose();
    this._onDidChange.dispose();
  }
}
