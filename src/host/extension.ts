// Composition root (dist/main.js, loaded by boot.ts right after activation): activate() only wires
// features together; each feature registers itself through the boot's proxies (contrib.ts).
import * as vscode from 'vscode';
import { contrib, useRegistrar, type Registrar } from './contrib';
import { mkdir } from 'node:fs/promises';
import { COMMANDS } from '../shared/commands';
import type { WebviewRequest } from '../shared/protocol';
import { ViewModel } from './viewModel';
import { registerSidebar } from './sidebar';
import { ViewTicker } from '../node/viewTicker';
import { ModelOffer } from './modelOffer';
import { bridgePanel, LifeThreadPanel } from './panel';
import { Doctor } from './doctor';
import { LifeChat } from './chat';
import { ScheduleFeature } from './scheduleFeature';
import { OwnerZoneKeeper, viewZone } from './ownerZone';
import { OWNER_FILE, zoneWords } from '../core/time/ownerZone';
import { isTopicId } from '../core/ids';
import { registerScheduleCommands } from './scheduleCommands';
import { registerScheduleTools } from './tools';
import type { Firer } from '../node/fire';
import { ReminderTurns, type DeliveredReminder } from './reminderTurn';
import { registerOpenAiProvider } from './openaiProvider';
import { AfterTurn } from './afterTurn';
import { AgentTurns } from './agentTurns';
import { registerLifeAgent } from './lifeAgent';
import { modelsSection } from './modelsDoctor';
import { Lander } from './landing';
import { registerLanding } from './landingFeature';
import { HostDesk, registerDesk } from './desk';
import type { DeskViewPanel } from './deskView';
import { Continuity } from './continuity';
import { WakeFeature } from './wakeFeature';
import { registerWakeSurfaces } from './wakeCommands';
import { registerWalkthrough } from './walkthrough';
import { CommandJobs } from './jobs';
import { ScheduleStore } from '../node/schedule';
import { commandWakeHook } from '../node/commandWakes';
import { holderFor } from '../node/liveness';
import { WakeStore } from '../node/wakes';
import { WINDOW_ID } from './settings';
import { FeedFeature } from './feedFeature';
import { registerWindowPresence } from './windowPresence';
import { registerCopyMcpConfig } from './mcpConfig';
import { TimerFeature } from './timerFeature';
import { webviewRequests } from './webviewRequests';
import { join } from 'node:path';

/** What the extension exports to other extensions and to its own host tests. */
export interface LifeThreadApi {
  readonly activatedAt: number;
  /** From the start of evaluating dist/extension.js (the boot) to the end of its activate(). */
  readonly activationMs: number;
  /** From the same start until `ready` resolved (set by the boot when it does). */
  readonly readyMs?: number;
  readonly storeDir: string;
  readonly model: ViewModel;
  readonly doctor: Doctor;
  readonly panel: LifeThreadPanel;
  readonly schedule: ScheduleFeature;
  readonly jobs: CommandJobs;
  readonly reminderTurns: ReminderTurns;
  readonly afterTurn: AfterTurn;
  readonly agentTurns: AgentTurns;
  readonly lander: Lander;
  readonly desk: HostDesk;
  readonly deskView: DeskViewPanel;
  readonly continuity: Continuity;
  readonly wakes: WakeFeature;
  readonly feed: FeedFeature;
  /** The button under an offline answer that picks a connected model in the chat. */
  readonly modelOffer: ModelOffer;
  readonly timer: TimerFeature;
  /** The owner's zone of this window and where it came from. */
  readonly zones: OwnerZoneKeeper;
  /** Resolves when the dispatcher, the terminals' environment and the wake sources are running. */
  readonly ready: Promise<void>;
  /** What the webview's requests run (the panel's Approve, an anchor's click): the same function the webview bridge calls. */
  readonly webviewRequest: (request: WebviewRequest) => Promise<void>;
}

export async function activate(context: vscode.ExtensionContext, registrar?: Registrar): Promise<LifeThreadApi> {
  useRegistrar(registrar);
  const t0 = (globalThis as { __lifeThreadMainStart?: number }).__lifeThreadMainStart ?? performance.now();
  const stages: string[] = [`load ${(performance.now() - t0).toFixed(0)}`];
  let tPrev = performance.now();
  const stage = (name: string): void => {
    const now = performance.now();
    stages.push(`${name} ${(now - tPrev).toFixed(0)}`);
    tPrev = now;
  };
  const log = vscode.window.createOutputChannel('Life Thread', { log: true });
  context.subscriptions.push(log);
  const storeDir = context.globalStorageUri.fsPath;
  // The store is local to the extension host: node's mkdir, not a round trip through the workbench.
  await mkdir(storeDir, { recursive: true });

  const zones = new OwnerZoneKeeper(storeDir, log);
  const model = new ViewModel(viewZone(zones.zone));
  context.subscriptions.push(zones, model);
  const doctor = new Doctor(context);
  doctor.addSection('Environment', () => environmentSection(context, storeDir, zones));

  stage('doctor');
  // Wakes on a command row fire as lost when it is removed, missed or its runner is gone (src/node/commandWakes.ts).
  const commandEnds = commandWakeHook(new WakeStore({ dir: storeDir }), holderFor(WINDOW_ID), (line) => log.warn(line), { ownRunsElsewhere: true });
  const store = new ScheduleStore({ dir: storeDir, commandEnds });
  const feed = new FeedFeature(storeDir, model, log);
  context.subscriptions.push(feed);
  const jobs = new CommandJobs(store, feed, log);
  const reminderTurns = new ReminderTurns(feed, log, (d) => openDelivered(d));
  context.subscriptions.push(reminderTurns);
  // The firing seam: a reminder runs as an agent turn, a command row as a job.
  const firer: Firer = { reminder: reminderTurns.deliver, command: jobs.run };
  const schedule = new ScheduleFeature(context, store, model, doctor, firer, log);
  doctor.addSection("Owner's time zone", () => zones.doctorSection(schedule.currentRows));
  context.subscriptions.push(
    schedule,
    jobs,
    zones.onDidChange(() => void schedule.zoneChanged()),
    schedule.dispatcher.onDidFire((outcome) => void jobs.settle(outcome)),
    schedule.dispatcher.onDidChangeFile((name) => {
      if (name === 'feed.json') void feed.refresh();
      if (name === OWNER_FILE) void zones.fileChanged();
    }),
  );
  stage('schedule');
  registerScheduleCommands(context, schedule);
  registerScheduleTools(context, schedule);
  const timer = new TimerFeature(context, schedule, doctor, log);
  timer.register();
  registerCopyMcpConfig(context, storeDir);

  stage('tools');
  const panel = new LifeThreadPanel(context);
  context.subscriptions.push(panel);
  // Agent mode's turns on Life Thread's own models: busy for its wakes, the end for after-turn requests, receipts of its pulses.
  const agentTurns = new AgentTurns();
  context.subscriptions.push(agentTurns);
  const provider = registerOpenAiProvider(context, agentTurns);
  doctor.addSection('Language models', () => modelsSection(provider));
  const afterTurn = new AfterTurn(storeDir, log, agentTurns);
  const settled = afterTurn.settleAtStart();
  context.subscriptions.push(afterTurn, contrib.registerTool('lifethread_afterTurn', afterTurn.tool()));

  stage('panel+models');
  const continuity = new Continuity(context, model, panel, log, { schedule: store, dir: storeDir });
  continuity.register();

  stage('continuity');
  const desk = new HostDesk(storeDir, log, model);
  const deskView = registerDesk(context, desk, log);
  const lander = new Lander(context, log, model, panel, desk, [join(storeDir, 'evidence'), join(storeDir, 'logs')]);
  context.subscriptions.push(lander);
  registerLanding(context, lander);
  doctor.addSection('Desk (CDP browser)', () => desk.doctorSection());

  stage('desk+lander');
  const wakes = new WakeFeature(context, storeDir, model, lander, desk, schedule, continuity, feed, log, agentTurns);
  context.subscriptions.push(
    wakes,
    jobs.onDidEndJob((e) =>
      wakes.triggers.commandEnded({ source: 'command', jobId: e.id, exitCode: e.exitCode ?? undefined, timedOut: e.timedOut, interrupted: e.interrupted, endedAt: e.endedAt, logPath: e.logPath, output: e.output }),
    ),
    schedule.dispatcher.onDidChangeFile((name) => name === 'wakes.json' && wakes.refreshView()),
    // A commit or a branch switch re-checks the ops the panel shows (stale → what changed).
    wakes.triggers.onDidTrigger((e) => e.kind === 'scm.changed' && void continuity.refresh()),
  );
  registerWakeSurfaces(context, wakes);
  registerWalkthrough(context, { model, lander, wakes });
  doctor.addSection('Wakes', () => wakes.doctorSection());

  stage('wakes');
  const modelOffer = new ModelOffer(context.globalState);
  const chat = new LifeChat(
    context,
    {
      begin: () => {
        afterTurn.beginTurn();
        wakes.turnStarted();
      },
      end: () => {
        afterTurn.endTurn();
        wakes.turnEnded();
      },
    },
    {
      // A wake's pulse belongs to the topic its thread names; /partition X and /resume X to X; anything else to the current topic.
      topic: (request) => wakes.topicOfPulse(request.prompt) ?? topicOfTurn(request) ?? continuity.currentTopic(),
      record: (t, messages) => continuity.record(t, messages),
      mint: () => Continuity.mint(),
    },
    modelOffer,
  );
  registerLifeAgent(chat, { afterTurn, doctor, store, continuity, wakes });

  stage('agent');
  const handle = webviewRequests({ schedule, model, feed, zones, continuity, lander, wakes });
  // Relative words ("in 5 min", "3 min ago") in the status bar, the sidebar and the feed age: one
  // ticker re-reads them every 30 s while they are shown, and at once when the sidebar comes back.
  const ticker = new ViewTicker(() => {
    void schedule.refresh();
    void feed.refresh();
    wakes.refreshView();
  });
  context.subscriptions.push({ dispose: () => ticker.stop() });
  registerSidebar(context, model, handle, log, (visible) => ticker.setVisible('sidebar', visible));
  context.subscriptions.push(
    bridgePanel(panel, model, handle, log),
    contrib.registerCommand(COMMANDS.openPanel, async (topic?: unknown) => {
      if (typeof topic === 'string') await continuity.showInPanel(topic);
      else panel.show();
    }),
  );

  stage('views');
  // Registration is done; the first pass, the terminals' environment and the wake sources start after
  // activate() returns, so the host is not held up. `ready` resolves when they run.
  const ready = Promise.all([settled, zones.start(), schedule.start().then(() => timer.refresh()), wakes.start(), feed.start(), registerWindowPresence(context, storeDir, log)]).then(() => undefined);
  ready.catch((err: unknown) => log.error(`start: ${String(err)}`));
  // The status bar is shown for the window's whole life.
  void ready.then(() => ticker.setVisible('statusBar', true));

  const activationMs = performance.now() - t0;
  stage('start');
  log.info(`main module loaded and wired in ${activationMs.toFixed(1)} ms (ms per stage: ${stages.join(', ')}); store ${storeDir}`);
  return { activatedAt: Date.now(), activationMs, storeDir, model, doctor, panel, schedule, jobs, reminderTurns, afterTurn, agentTurns, lander, desk, deskView, continuity, wakes, feed, modelOffer, timer, zones, ready, webviewRequest: handle };
}

/** The doctor's first section: versions, platform, store and the owner's zone. */
function environmentSection(context: vscode.ExtensionContext, storeDir: string, zones: OwnerZoneKeeper): string {
  return [
    `- Life Thread ${String(context.extension.packageJSON.version)} on VS Code ${vscode.version} (${vscode.env.appName}, ${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ''})`,
    `- Platform: ${process.platform} (${process.arch}), Node ${process.versions.node} — supported (README "Platforms")`,
    `- Store: \`${storeDir}\``,
    `- Owner's ${zoneWords(zones.zone)} (see "Owner's time zone" below)`,
  ].join('\n');
}

/** "Open in Chat" for a delivered reminder: a new @life chat shows it; without a model, a read-only document. */
async function openDelivered(d: DeliveredReminder): Promise<void> {
  const models = await vscode.lm.selectChatModels();
  if (models.length > 0) {
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /remind show ${d.id}`, isPartialQuery: false });
    return;
  }
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: `# Reminder ${d.id}\n\n${d.text}\n` });
  await vscode.window.showTextDocument(doc);
}

/** `/partition X`, `/partition approve X` and `/resume X` belong to topic X, whatever the current topic is. */
function topicOfTurn(request: vscode.ChatRequest): string | undefined {
  if (request.command !== 'partition' && request.command !== 'resume') return undefined;
  const words = request.prompt.trim().split(/\s+/);
  const name = request.command === 'partition' && words[0]?.toLowerCase() === 'approve' ? words[1] : words[0];
  return name !== undefined && isTopicId(name) ? name : undefined;
}

export function deactivate(): void {
  // Everything is owned by context.subscriptions.
}
