import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../node/atomicFile';
import { join } from 'node:path';
import { InputError } from '../core/errors';
import { fileLink, wakeQuerySchema, parseQuery, type LandingRef } from '../core/landing';
import { HourlyCap, describeWake, jobStatus, parseWakeInput, renderPulse, summaryFromLogTail, worseStatus, type ClaimedWake, type PulseEvent, type WakeRow, type WakeWhen } from '../core/wake';
import { randomBase36 } from '../node/ids';
import { WakeStore, readLogTail } from '../node/wakes';
import type { HostDesk } from './desk';
import type { Lander, LandResult } from './landing';
import { ownerZone, type ScheduleFeature } from './scheduleFeature';
import { setting, WINDOW_ID } from './settings';
import { Triggers, type JobEndEvent, type TriggerEvent } from './triggers';
import type { ViewModel } from './viewModel';
import type { Continuity } from './continuity';
import { readDecisions } from '../node/topicFiles';
import { resumePack } from '../core/continuity';

const PAUSED_KEY = 'lifeThread.wakesPaused';
const WINDOWS_FILE = 'windows.json';
const MAX_SLEEP_MS = 60_000;

interface Ignition {
  claimed: ClaimedWake[];
  event: PulseEvent;
  endedAt?: number;
}

export interface WakeMetric {
  id: string;
  reason: WakeWhen;
  wakeChars: number;
  timeToLocusMs?: number;
  at: string;
  delivered: 'chat' | 'notification';
}

/**
 * Life thread wake (design §3): durable wakes, their triggers, the job-finish pipeline (evidence →
 * landing → enqueue), the pulse, and ignition as a new @life turn — held while paused, over the
 * hourly cap or while @life is answering, never dropped.
 */
export class WakeFeature implements vscode.Disposable {
  readonly store: WakeStore;
  readonly triggers: Triggers;
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private readonly held: Ignition[] = [];
  private buffer: { at: number; claimed: ClaimedWake; event: PulseEvent; endedAt?: number }[] = [];
  private bufferTimer: NodeJS.Timeout | undefined;
  private warm = false;
  private busy = 0;
  private readonly cap = new HourlyCap(setting('wake.maxPerHour', 12));
  readonly metrics: WakeMetric[] = [];
  /** Pulses that could not start a turn (no model): handed to @life's next turn. */
  readonly pendingForNextTurn: string[] = [];
  private readonly _onDidIgnite = new vscode.EventEmitter<{ ids: string[]; text: string; via: 'chat' | 'notification'; landing?: LandResult }>();
  readonly onDidIgnite = this._onDidIgnite.event;
  readonly window = WINDOW_ID;
  private readonly holder = { pid: process.pid, window: this.window };

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly storeDir: string,
    private readonly model: ViewModel,
    private readonly lander: Lander,
    private readonly desk: HostDesk,
    private readonly schedule: ScheduleFeature,
    private readonly continuity: Continuity,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store = new WakeStore({ dir: storeDir });
    this.triggers = new Triggers(log);
  }

  get paused(): boolean {
    return this.context.globalState.get<boolean>(PAUSED_KEY) ?? false;
  }

  async start(): Promise<void> {
    this.schedule.paused = this.paused;
    await this.registerWindow();
    await this.settleLostJobs();
    this.triggers.start();
    this.subs.push(
      this.triggers,
      this.triggers.onDidTrigger((e) => void this.onTrigger(e).catch((err: unknown) => this.log.error(`wake trigger: ${String(err)}`))),
      this.schedule.dispatcher.onDidChange(() => this.arm()),
    );
    this.heartbeatTimer = setInterval(() => void this.registerWindow(), 30_000);
    this.lander.wakeHandler = (query) => this.openWakeLink(query);
    this.arm(0);
  }

  /** @life reports its turns, so a wake that arrives meanwhile waits for the answer to end. */
  turnStarted(): void {
    this.busy++;
  }

  turnEnded(): void {
    this.busy = Math.max(0, this.busy - 1);
    if (this.busy === 0) setTimeout(() => void this.flush(), 300);
  }

  // ── the contract ────────────────────────────────────────────────────────────────────────────

  async request(input: unknown, names?: Record<string, string>): Promise<{ text: string; rows: WakeRow[] }> {
    const now = new Date();
    const parsed = parseWakeInput(input, { now, tz: ownerZone(), fieldNames: names });
    if (parsed.kind === 'cancel') {
      const removed = await this.store.cancel(parsed.cancelToken, names?.cancel_token ?? 'cancel_token');
      this.refreshView();
      return { text: `Cancelled ${removed.length} wake(s) with that token: ${removed.map((r) => r.id).join(', ')}.`, rows: removed };
    }
    const running = parsed.when === 'job.done' && parsed.jobId !== undefined && this.triggers.running.has(parsed.jobId);
    const row = await this.store.add(parsed, { now, window: this.window, ...(running ? { jobStartedAt: now } : {}) });
    this.arm(0);
    this.refreshView();
    if (parsed.when === 'job.done' && parsed.jobId && !running && !(await this.jobCanStillRun(parsed.jobId))) {
      // A job id that names nothing that exists wakes at once as lost: never a silent drop.
      await this.fireEvent('job.done', { source: parsed.jobId.startsWith('terminal:') ? 'terminal' : parsed.jobId.startsWith('c-') ? 'command' : 'task', jobId: parsed.jobId, exitCode: undefined, endedAt: Date.now() }, true);
    }
    return { text: `Wake ${row.id} set: ${parsed.description}${parsed.cancelToken ? ` (cancel token ${parsed.cancelToken})` : ''}.${this.paused ? ' Wakes are paused: it will wait until they are resumed.' : ''}`, rows: [row] };
  }

  private async jobCanStillRun(jobId: string): Promise<boolean> {
    if (jobId.startsWith('c-')) return (await this.schedule.store.get(jobId)) !== undefined;
    if (jobId.startsWith('terminal:')) return vscode.window.terminals.some((t) => `terminal:${t.name}` === jobId);
    const tasks: vscode.Task[] = await Promise.resolve(vscode.tasks.fetchTasks()).catch(() => []);
    return tasks.some((t) => t.name === jobId) || vscode.tasks.taskExecutions.some((e) => e.task.name === jobId);
  }

  // ── triggers → claims ───────────────────────────────────────────────────────────────────────

  private async onTrigger(e: TriggerEvent): Promise<void> {
    if (e.kind === 'job.done') return this.fireEvent('job.done', e.job, false);
    const claimed = await this.store.claimKind(e.kind, { now: new Date(), holder: this.holder }, { outcome: {} });
    for (const c of claimed) this.enqueue(c, { reason: e.kind, detail: e.kind === 'scm.changed' ? `${e.what} in ${e.repo}` : e.why });
  }

  /** The job-finish pipeline: artifact → evidence surface → deep link → enqueue. */
  private async fireEvent(_when: 'job.done', job: JobEndEvent, lost: boolean): Promise<void> {
    const evidenceId = `job-${randomBase36(8)}`;
    let evidence = job.logPath;
    let tail = job.outputTail ?? '';
    let truncated = false;
    if (evidence) {
      const t = await readLogTail(evidence).catch(() => ({ text: '', truncated: false, size: 0 }));
      tail = t.text;
      truncated = t.truncated;
    } else {
      evidence = await Triggers.writeEvidence(this.storeDir, evidenceId, job);
    }
    const lines = tail.split('\n').length;
    const landing: LandingRef = { kind: 'deep_link', uri: fileLink(evidence, Math.max(1, lines - 5), lines) };
    // File evidence (a log) opens in an editor: the desk is for report pages (design §8: desk none).
    let desk: PulseEvent['desk'] = 'none';
    if (/\.html?$/i.test(evidence) && (setting('cdp.endpoint', '') || setting('cdp.chromiumPath', ''))) {
      try {
        await this.desk.desk.remember({ key: `evidence:${evidenceId}`, url: fileLink(evidence), title: `${job.jobId} output`, evidenceId });
        desk = (await this.desk.prepareEvidence({ id: evidenceId, url: `cdp://evidence/${evidenceId}` })).status;
      } catch (err) {
        this.log.warn(`desk prepare for ${job.jobId}: ${String(err)}`);
        desk = 'needs_restore';
      }
    }
    const status = jobStatus(job.exitCode, lost);
    const summary = lost ? `the job ${job.jobId} does not exist or ended while no window was watching it` : summaryFromLogTail(tail, { truncated });
    const claimed = await this.store.claimJob(job.jobId, { jobStatus: status, exitCode: job.exitCode ?? null, summary, landing, desk }, { now: new Date(), holder: this.holder });
    for (const c of claimed) this.enqueue(c, { reason: 'job.done', job: { id: job.jobId, status, exitCode: job.exitCode ?? null }, summary, landing, desk }, job.endedAt);
  }

  /** Bursts for one thread within 250 ms become one wake. */
  private enqueue(claimed: ClaimedWake, event: PulseEvent, endedAt?: number): void {
    this.buffer.push({ at: Date.now(), claimed, event, ...(endedAt !== undefined ? { endedAt } : {}) });
    if (!this.bufferTimer) this.bufferTimer = setTimeout(() => this.drainBuffer(), 250);
  }

  private drainBuffer(): void {
    this.bufferTimer = undefined;
    const groups = new Map<string, typeof this.buffer>();
    for (const b of this.buffer) {
      const key = b.claimed.row.when === 'timer' ? b.claimed.id : (b.claimed.row.threadId ?? b.claimed.id);
      groups.set(key, [...(groups.get(key) ?? []), b]);
    }
    this.buffer = [];
    for (const group of groups.values()) {
      const first = group[0];
      if (!first) continue;
      let event = first.event;
      for (const other of group.slice(1)) {
        const job = event.job && other.event.job ? { ...other.event.job, status: worseStatus(event.job.status, other.event.job.status) } : (event.job ?? other.event.job);
        event = { ...event, ...other.event, ...(job ? { job } : {}), also: [...(event.also ?? []), ...(other.event.reason ? [other.event.reason] : [])] };
      }
      this.held.push({ claimed: group.map((g) => g.claimed), event, ...(first.endedAt !== undefined ? { endedAt: first.endedAt } : {}) });
    }
    void this.flush();
  }

  // ── ignition ────────────────────────────────────────────────────────────────────────────────

  /** Starts the held wakes that may start now; the rest keep waiting (paused, cap, @life busy). */
  async flush(): Promise<void> {
    this.refreshView();
    while (this.held.length) {
      if (this.paused || this.busy > 0) return;
      this.cap.setMax(setting('wake.maxPerHour', 12));
      const room = this.cap.canIgnite(Date.now());
      if (!room.ok) {
        if (room.retryAt) setTimeout(() => void this.flush(), Math.max(1000, room.retryAt - Date.now()));
        return;
      }
      const next = this.held.shift();
      if (!next) return;
      this.cap.record(Date.now());
      await this.ignite(next).catch((err: unknown) => this.log.error(`wake ignition: ${String(err)}`));
    }
    this.refreshView();
  }

  private async ignite(ig: Ignition): Promise<void> {
    const first = ig.claimed[0];
    if (!first) return;
    const row = first.row;
    const pulse = renderPulse(row, ig.event, { maxChars: setting('wake.pulseMaxChars', 600) });
    let text = pulse;
    if (!this.warm) {
      const pack = await this.coldPack();
      if (pack) text = `${pulse}\n\n(cold start: the continuity pack follows)\n${pack}`;
    }
    this.warm = true;
    let landed: LandResult | undefined;
    const landing = ig.event.landing ?? row.landing;
    if (landing) {
      landed = await this.landTrusted(landing).catch((err: unknown) => {
        this.log.warn(`wake landing: ${String(err)}`);
        return undefined;
      });
    }
    const timeToLocusMs = ig.endedAt !== undefined && landed ? Date.now() - ig.endedAt : undefined;
    const models = await vscode.lm.selectChatModels();
    let via: 'chat' | 'notification' = 'chat';
    if (models.length === 0) {
      // VS Code refuses chat requests without a model: show it, and give it to @life's next turn.
      via = 'notification';
      this.pendingForNextTurn.push(pulse);
      this.model.pushFeed({ id: `${row.id}@${first.firedAt}`, at: first.firedAt, title: `Wake ${row.id}`, body: pulse, tone: 'info' });
      void vscode.window.showInformationMessage(`Life Thread wake: ${pulse.split('\n')[0] ?? ''}`, 'Open Landing').then((pick) => {
        if (pick && landing) void this.landTrusted(landing);
      });
    } else if (setting<string>('wake.target', 'life') === 'agent') {
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: text, isPartialQuery: false, mode: 'agent' });
    } else {
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life ${text}`, isPartialQuery: false });
    }
    const metric: WakeMetric = { id: row.id, reason: ig.event.reason ?? row.when, wakeChars: pulse.length, ...(timeToLocusMs !== undefined ? { timeToLocusMs } : {}), at: new Date().toISOString(), delivered: via };
    this.metrics.unshift(metric);
    this.metrics.splice(20);
    for (const c of ig.claimed) {
      await this.store.recordFact(c.id, c.token, { delivered: true, via, wakeChars: pulse.length, ...(timeToLocusMs !== undefined ? { timeToLocusMs } : {}) }).catch(() => false);
    }
    this._onDidIgnite.fire({ ids: ig.claimed.map((c) => c.id), text, via, ...(landed ? { landing: landed } : {}) });
    this.refreshView();
  }

  /** Landings a wake makes point at evidence Life Thread wrote itself (in the store) or at the workspace. */
  private async landTrusted(ref: LandingRef): Promise<LandResult> {
    if (ref.kind === 'deep_link' && ref.uri.startsWith('file://')) {
      const u = new URL(ref.uri);
      const m = /^#L(\d+)(?:-L(\d+))?$/.exec(u.hash);
      const path = decodeURIComponent(u.pathname);
      return this.lander.openFile(path, m ? Number(m[1]) : undefined, m?.[2] ? Number(m[2]) : undefined, path.startsWith(this.storeDir));
    }
    return this.lander.land(ref);
  }

  private async coldPack(): Promise<string | undefined> {
    try {
      const d = await readDecisions(this.continuity.dir(this.continuity.currentTopic()));
      return d && !d.frame.startsWith('TODO') ? resumePack(d) : undefined;
    } catch {
      return undefined;
    }
  }

  // ── timers ──────────────────────────────────────────────────────────────────────────────────

  private arm(delayOverride?: number): void {
    if (this.timer) clearTimeout(this.timer);
    const run = async () => {
      try {
        const claimed = await this.store.claimDueTimers(new Date(), this.holder);
        for (const c of claimed) this.enqueue(c, { reason: 'timer' });
        const next = await this.store.nextTimerAt();
        const delay = next ? Math.min(MAX_SLEEP_MS, Math.max(0, next.getTime() - Date.now())) : MAX_SLEEP_MS;
        this.timer = setTimeout(() => void run(), delay);
      } catch (err) {
        this.log.warn(`wake timers: ${String(err)}`);
        this.timer = setTimeout(() => void run(), MAX_SLEEP_MS);
      }
    };
    this.timer = setTimeout(() => void run(), delayOverride ?? 50);
  }

  // ── lost jobs ───────────────────────────────────────────────────────────────────────────────

  private async registerWindow(): Promise<void> {
    const file = join(this.storeDir, WINDOWS_FILE);
    let all: Record<string, { pid: number; at: number }> = {};
    try {
      all = JSON.parse(await readFile(file, 'utf8')) as typeof all;
    } catch {
      all = {};
    }
    all[this.window] = { pid: process.pid, at: Date.now() };
    for (const [k, v] of Object.entries(all)) if (Date.now() - v.at > 24 * 3600_000) delete all[k];
    await writeFileAtomic(file, JSON.stringify(all));
  }

  /** Jobs watched by a window that closed or reloaded before they ended wake as lost. */
  private async settleLostJobs(): Promise<void> {
    let all: Record<string, { pid: number; at: number }> = {};
    try {
      all = JSON.parse(await readFile(join(this.storeDir, WINDOWS_FILE), 'utf8')) as typeof all;
    } catch {
      all = {};
    }
    const rows = await this.store.list();
    const windows = new Set(rows.filter((r) => r.status === 'pending' && r.when === 'job.done' && r.window && r.window !== this.window && r.jobStartedAt).map((r) => r.window ?? ''));
    for (const w of windows) {
      const info = all[w];
      const alive = info !== undefined && pidAlive(info.pid) && Date.now() - info.at < 120_000;
      if (alive) continue;
      const { lost } = await this.store.markLost(w, { now: new Date(), holder: this.holder });
      for (const c of lost) {
        const summary = `the window watching ${c.row.jobId ?? 'the job'} closed or reloaded before the job ended`;
        this.enqueue(c, { reason: 'job.done', job: { id: c.row.jobId ?? '', status: 'lost' }, summary });
      }
    }
  }

  // ── surfaces ────────────────────────────────────────────────────────────────────────────────

  async setPaused(paused: boolean): Promise<void> {
    await this.context.globalState.update(PAUSED_KEY, paused);
    this.schedule.paused = paused;
    await this.schedule.refresh();
    if (!paused) await this.flush();
    this.refreshView();
  }

  get heldCount(): number {
    return this.held.length + this.buffer.length;
  }

  private refreshView(): void {
    void this.store
      .list()
      .then((rows) => {
        const now = new Date();
        const views = rows
          .filter((r) => r.status === 'pending')
          .map((r) => ({
            id: r.id,
            kind: 'wake' as const,
            title: r.text ?? JSON.stringify(r.payload ?? null),
            when: describeWake(r, now, ownerZone()),
            status: r.status,
            lastFact: this.paused ? 'paused: waits until wakes are resumed' : '',
            factTone: 'none' as const,
            hasLog: false,
          }));
        this.model.update({ wakes: views });
      })
      .catch(() => undefined);
  }

  private async openWakeLink(query: string): Promise<LandResult> {
    const q = parseQuery(query, wakeQuerySchema);
    const row = await this.store.get(q.id);
    if (!row) throw new InputError('id', `no wake ${q.id}`);
    const pulse = renderPulse(row, { ...(row.fact?.jobStatus ? { job: { id: row.jobId ?? '', status: row.fact.jobStatus, exitCode: row.fact.exitCode ?? null } } : {}), ...(row.fact?.summary ? { summary: row.fact.summary } : {}), ...(row.landing ? { landing: row.landing } : {}), ...(row.desk ? { desk: row.desk } : {}) });
    const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: pulse });
    await vscode.window.showTextDocument(doc, { preview: true });
    if (row.landing) return this.landTrusted(row.landing);
    return { kind: 'none', opened: `the pulse of wake ${row.id}` };
  }

  doctorSection(): string {
    const lines = [`- Wakes: ${this.paused ? '**paused** (Resume Wakes releases them)' : 'active'}; held now: ${this.heldCount}; cap ${setting('wake.maxPerHour', 12)} per hour`];
    if (!this.metrics.length) lines.push('- No wake has started a turn in this window yet.');
    for (const m of this.metrics.slice(0, 10)) lines.push(`- \`${m.id}\` ${m.reason} at ${m.at}: wake_chars ${m.wakeChars}${m.timeToLocusMs !== undefined ? `, time-to-report-locus ${m.timeToLocusMs} ms` : ''} (${m.delivered})`);
    return lines.join('\n');
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.bufferTimer) clearTimeout(this.bufferTimer);
    for (const s of this.subs) s.dispose();
    this._onDidIgnite.dispose();
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
