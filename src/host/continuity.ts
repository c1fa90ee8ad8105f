import * as vscode from 'vscode';
import { contrib } from './contrib';
import { readFile, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { z } from 'zod';
import { carryForward, lintDecisions, makeOps, parseDecisions, resumePack, DECISIONS_FILE, EXPORT_JSONL, type LintResult, type OpsInput, type TopicDecisions } from '../core/continuity';
import { importChatExport } from '../core/chatImport';
import { InputError } from '../core/errors';
import { opsFacts } from '../core/opsFacts';
import { summarize } from '../core/summary';
import { parseToolInput } from '../core/toolInputs';
import { conversation, fillPrompt, newSpan } from '../core/topicSpan';
import { verifyTopic, isFilled } from '../core/topicVerify';
import { draftSummary, lintLines, topicView } from '../core/topicView';
import { randomBase36 } from '../node/ids';
import { checkOps, gitState, type StateOptions } from '../node/git';
import { readLog } from '../node/jobs';
import type { ScheduleStore } from '../node/schedule';
import {
  appendMessages,
  DRAFT_JSON,
  historyPartitions,
  listTopics,
  pendingSpan,
  readAllDecisions,
  readDecisions,
  readDraft,
  readExports,
  readHistoryDecisions,
  readOps,
  readTranscript,
  removeDraft,
  topicDir,
  TopicFileError,
  validateTopic,
  writeDecisions,
  writeDraft,
  writeOps,
  writeStub,
} from '../node/topicFiles';
import { WakeStore } from '../node/wakes';
import { CHAT_PARTICIPANT_ID, COMMANDS } from '../shared/commands';
import type { TopicView } from '../shared/protocol';
import type { LifeThreadPanel } from './panel';
import { configuredZone, setting } from './settings';
import { ownerZone } from './scheduleFeature';
import type { ViewModel } from './viewModel';

const TOPIC_KEY = 'lifeThread.currentTopic';
/** How long the chat export may take before the import gives up (it writes one small file). */
const CHAT_EXPORT_TIMEOUT_MS = 5_000;

const partitionInputSchema = z
  .object({
    action: z.enum(['start', 'fill', 'status']),
    topic: z.string().max(100).optional(),
    decisions: z.unknown().optional(),
  })
  .strict();

/** A draft waiting for approval, with its lint against the topic's exports. */
export interface WaitingDraft {
  topic: string;
  decisions: TopicDecisions;
  lint: LintResult;
}

/** What an approval attempt came to (the command's return value). */
export type ApprovalOutcome = { approved: true; topic: string; partition: number } | { approved: false; reason: string; topic?: string };

/** The approval dialog, a seam: host tests cannot show a modal (the test workbench refuses it), the browser test clicks it. */
export interface ApprovalDialogs {
  confirm(summary: { title: string; detail: string }): Promise<'approve' | 'panel' | undefined>;
}

export type StartOutcome = { kind: 'started'; partition: number; prompt: string; messages: number } | { kind: 'nothing'; partition: number; previous: number | null };

const modalDialogs: ApprovalDialogs = {
  async confirm(summary) {
    const pick = await vscode.window.showInformationMessage(summary.title, { modal: true, detail: summary.detail }, 'Approve', 'Open in Panel');
    return pick === 'Approve' ? 'approve' : pick === 'Open in Panel' ? 'panel' : undefined;
  },
};

/** The few parts of the built-in git extension's API read here. */
interface GitApi {
  readonly repositories: readonly { readonly rootUri: vscode.Uri }[];
}

function message(err: unknown): string {
  return err instanceof InputError ? `${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err);
}

/**
 * The continuity pair (design §6): @life's durable transcript with minted message ids, Partition
 * (stub by the harness, decisions by the agent, approval by the user — one `approve` for the panel,
 * the palette and the chat), Resume, and the topic as the panel shows it.
 */
export class Continuity implements vscode.Disposable {
  private readonly _onDidOpenChat = new vscode.EventEmitter<{ topic: string; query: string }>();
  /** The new chat opened for a topic (after an approval). */
  readonly onDidOpenChat = this._onDidOpenChat.event;
  dialogs: ApprovalDialogs = modalDialogs;
  private readonly wakes: WakeStore;
  private refreshing: Promise<void> = Promise.resolve();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly model: ViewModel,
    private readonly panel: LifeThreadPanel,
    private readonly log: vscode.LogOutputChannel,
    private readonly store: { schedule: ScheduleStore; dir: string },
  ) {
    this.wakes = new WakeStore({ dir: store.dir });
  }

  get root(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  get folder(): string {
    return setting('continuity.folder', '.life-thread');
  }

  currentTopic(): string {
    return this.context.workspaceState.get<string>(TOPIC_KEY) ?? 'main';
  }

  async setTopic(topic: string): Promise<void> {
    await this.context.workspaceState.update(TOPIC_KEY, validateTopic(topic));
  }

  dir(topic: string): string {
    const root = this.root;
    if (!root) throw new InputError('topic', 'needs an open workspace folder: topics live in the workspace');
    return topicDir(root, validateTopic(topic), this.folder);
  }

  static mint(): string {
    return `m-${Date.now().toString(36)}-${randomBase36(6)}`;
  }

  /** Keeps a turn of @life's conversation durably (the stable chat API has no message ids): request and answer in one write. */
  async record(topic: string, messages: { id: string; role: 'user' | 'assistant'; time: string; text: string }[]): Promise<void> {
    if (!this.root) return;
    await appendMessages(this.dir(topic), messages).catch((err: unknown) => this.log.warn(`transcript: ${String(err)}`));
  }

  // ── ops from facts ─────────────────────────────────────────────────────────────────────────

  /** Git options: the continuity folder left out of the dirty set; a repository above the workspace only when VS Code opens it too. */
  private gitOptions(): StateOptions {
    const root = this.root;
    const ignore = [this.folder];
    if (!root) return { ignore };
    return {
      ignore,
      acceptRoot: (repoRoot) => {
        if (repoRoot === root || repoRoot.startsWith(`${root}${sep}`)) return true;
        if (vscode.workspace.getConfiguration('git').get<string>('openRepositoryInParentFolders') === 'always') return true;
        const git = vscode.extensions.getExtension<{ getAPI(v: 1): GitApi }>('vscode.git');
        return git?.isActive === true && git.exports.getAPI(1).repositories.some((r) => r.rootUri.fsPath === repoRoot);
      },
    };
  }

  /** Handover ops' inputs as of now: git, open editors, tasks, and the open items and first moves from the store's rows. */
  async opsInputNow(topic: string, next: readonly string[]): Promise<Omit<OpsInput, 'topic' | 'partition'>> {
    const root = this.root ?? '';
    const repo = root ? await gitState(root, this.gitOptions()).catch(() => null) : null;
    const openEditors = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input instanceof vscode.TabInputText ? vscode.workspace.asRelativePath(t.input.uri) : t.label));
    const tasks = vscode.tasks.taskExecutions.map((e) => e.task.name);
    const unreadable = (what: string) => (err: unknown) => {
      this.log.warn(`ops: ${what} unreadable: ${String(err)}`);
      return [];
    };
    const [reminders, commands, wakes] = await Promise.all([
      this.store.schedule.listReminders().then((t) => t.rows, unreadable('reminders')),
      this.store.schedule.listCommands().then((t) => t.rows, unreadable('commands')),
      this.wakes.list().catch(unreadable('wakes')),
    ]);
    const summaries: Record<string, string> = {};
    for (const c of commands) {
      if (c.fact && c.fact.exitCode !== 0 && !c.claim) {
        const log = await readLog(this.store.dir, c.id).catch(() => null);
        if (log) summaries[c.id] = summarize(log);
      }
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const now = new Date();
    const facts = opsFacts({ topic, folders, reminders, commands, wakes, tasks, summaries, next, dirty: repo?.dirty ?? [], now, tz: configuredZone() });
    return { now, ttlHours: setting('continuity.opsTtlHours', 12), repo, openEditors, runningTasks: tasks, openItems: facts.openItems, firstMoves: facts.firstMoves };
  }

  // ── partition ──────────────────────────────────────────────────────────────────────────────

  /**
   * The conversation on screen, when it was held with another participant: VS Code's chat export
   * (`workbench.action.chat.export` with a target file writes the last focused chat session) is read,
   * its requests other than @life's get ids minted from the export's request ids, and the ones the
   * transcript does not hold yet are appended.
   */
  async importOnScreen(topic: string): Promise<{ imported: number; participants: string[]; note?: string }> {
    const dir = this.dir(topic);
    const file = join(this.context.globalStorageUri.fsPath, `chat-export-${randomBase36(8)}.json`);
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), CHAT_EXPORT_TIMEOUT_MS)));
      const done = await Promise.race([vscode.commands.executeCommand('workbench.action.chat.export', vscode.Uri.file(file)).then(() => 'done' as const), timeout]);
      clearTimeout(timer);
      if (done === 'timeout') return { imported: 0, participants: [], note: 'the chat export did not answer' };
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        return { imported: 0, participants: [], note: 'no chat was on screen to export' };
      }
      const chat = importChatExport(JSON.parse(text) as unknown, { ownParticipant: CHAT_PARTICIPANT_ID, now: new Date() });
      const known = new Set((await readTranscript(dir)).messages.map((m) => m.id));
      const fresh = chat.messages.filter((m) => !known.has(m.id));
      // Only /partition and /resume turns on screen are nothing to hand over: write nothing then.
      if (conversation(fresh).length === 0) return { imported: 0, participants: chat.participants };
      await appendMessages(dir, fresh);
      if (fresh.length) this.log.info(`partition: imported ${fresh.length} message(s) of ${chat.participants.map((p) => p || 'the default agent').join(', ')} from the chat on screen into topic ${topic}`);
      return { imported: fresh.length, participants: chat.participants };
    } catch (err) {
      this.log.warn(`partition: the chat on screen could not be imported: ${String(err)}`);
      return { imported: 0, participants: [], note: `the chat on screen could not be imported (${message(err)})` };
    } finally {
      await rm(file, { force: true }).catch(() => undefined);
    }
  }

  /**
   * The harness part of Partition: with something new since the previous partition, the export of
   * that span, the ops from facts and the decisions stub, and the prompt (previous decisions + span).
   * With nothing new it writes nothing.
   */
  async start(topic: string): Promise<StartOutcome> {
    const dir = this.dir(topic);
    const span = await pendingSpan(dir);
    if (span.conversation === 0) return { kind: 'nothing', partition: span.partition, previous: span.previousPartition };
    const stub = await writeStub(dir, topic, { ...(await this.opsInputNow(topic, [])), messages: span.messages });
    await this.setTopic(topic);
    const prompt = fillPrompt({ topic, partition: stub.partition, records: stub.export.records, ...(stub.previous ? { previous: stub.previous } : {}), carried: stub.decisions.rejected.filter((r) => r.carriedFrom !== undefined) });
    await this.refresh();
    return { kind: 'started', partition: stub.partition, prompt, messages: span.messages.length };
  }

  /** The agent's decisions: carried-forward items kept, linted against the topic's exports; a draft until the user approves. */
  async fill(topic: string, raw: unknown): Promise<{ decisions: TopicDecisions; problems: string[] }> {
    const dir = this.dir(topic);
    const stub = await readDecisions(dir);
    if (!stub) throw new InputError('topic', `no partition was started for topic ${topic}; call action "start" first`);
    if (isFilled(stub)) throw new InputError('topic', `partition ${stub.partition} of topic ${topic} is already approved; start a new partition first`);
    const candidate = { ...stub, ...(typeof raw === 'object' && raw !== null ? raw : {}), schemaVersion: 1, topic, partition: stub.partition, createdAt: new Date().toISOString(), opsLink: stub.opsLink, ...(stub.previous !== undefined ? { previous: stub.previous } : {}) };
    const parsed = parseDecisions(candidate);
    if (!parsed.ok) throw new InputError(`decisions.${parsed.field}`, parsed.reason);
    const previous = stub.previous !== undefined ? await readHistoryDecisions(dir, stub.previous) : null;
    const decisions = previous ? carryForward(previous, parsed.value) : parsed.value;
    const lint = lintDecisions(decisions, await this.allRecords(dir));
    await writeDraft(dir, decisions);
    await this.setTopic(topic);
    await this.refresh();
    this.panel.show();
    return { decisions, problems: lintLines(lint) };
  }

  private async allRecords(dir: string) {
    const seen = new Set<string>();
    const out = [];
    for (const e of await readExports(dir))
      for (const r of e.records) {
        if (seen.has(r.id)) continue;
        seen.add(r.id);
        out.push(r);
      }
    return out;
  }

  /** The draft of a topic waiting for approval, with its lint; undefined when there is none. */
  async draftOf(topic: string): Promise<WaitingDraft | undefined> {
    const dir = this.dir(topic);
    const decisions = await readDraft(dir);
    if (!decisions) return undefined;
    return { topic, decisions, lint: lintDecisions(decisions, await this.allRecords(dir)) };
  }

  /** Every topic's draft waiting for approval. */
  async drafts(): Promise<WaitingDraft[]> {
    const out: WaitingDraft[] = [];
    for (const t of await this.topics()) {
      const d = await this.draftOf(t).catch((err: unknown) => (this.log.warn(`draft of ${t}: ${String(err)}`), undefined));
      if (d) out.push(d);
    }
    return out;
  }

  /**
   * The user's approval — the one function behind the panel's button, the palette command and the
   * chat's button: the lint must pass; the draft becomes TopicDecisions; the ops are re-checked and
   * re-written; then a new chat opens with /resume. Refused (nothing written) when there is no draft
   * or the lint fails.
   */
  async approve(topic: string): Promise<TopicDecisions> {
    const dir = this.dir(topic);
    let draft: TopicDecisions | null;
    try {
      draft = await readDraft(dir);
    } catch (err) {
      throw new InputError('decisions', err instanceof TopicFileError ? `the draft cannot be read: ${err.reason}` : String(err));
    }
    if (!draft) throw new InputError('topic', `no partition draft of topic ${topic} waits for approval (the agent fills it during @life /partition ${topic})`);
    const lint = lintDecisions(draft, await this.allRecords(dir));
    if (!lint.ok) throw new InputError('decisions', `cannot approve partition ${draft.partition} of topic ${topic}: ${lintLines(lint).join('; ')}`);
    await writeDecisions(dir, draft);
    await removeDraft(dir);
    await writeOps(dir, makeOps({ ...(await this.opsInputNow(topic, draft.next)), topic, partition: draft.partition }), { stale: [] });
    // A span shown from before may now sit in history/: let the next click show it afresh.
    this.model.update({ focus: null });
    await this.setTopic(topic);
    await this.refresh();
    await this.openTopicChat(topic);
    return draft;
  }

  /**
   * A new chat for the topic, starting from its TopicDecisions. The stable API can only start a new
   * session in the chat view; the previous one stays in the chat history (README "Continuity").
   */
  private async openTopicChat(topic: string): Promise<void> {
    const query = `@life /resume ${topic}`;
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query, isPartialQuery: false });
    this._onDidOpenChat.fire({ topic, query });
  }

  /** `Life Thread: Approve Partition…`: pick the draft, show its summary in a modal, approve through `approve`. */
  async approveCommand(topicArg?: unknown): Promise<ApprovalOutcome> {
    if (topicArg !== undefined && typeof topicArg !== 'string') throw new InputError('topic', 'must be a topic name');
    const topic = topicArg === undefined ? undefined : validateTopic(topicArg);
    const waiting = topic !== undefined ? [await this.draftOf(topic)].filter((d): d is WaitingDraft => d !== undefined) : await this.drafts();
    if (waiting.length === 0) {
      const reason = topic !== undefined ? `No partition draft of topic ${topic} waits for approval.` : 'No partition draft waits for approval.';
      void vscode.window.showInformationMessage(`Life Thread: ${reason} @life /partition writes one.`);
      return { approved: false, reason, ...(topic !== undefined ? { topic } : {}) };
    }
    let pick = waiting[0];
    if (waiting.length > 1) {
      const chosen = await vscode.window.showQuickPick(
        waiting.map((w) => ({ label: `${w.topic} · partition ${w.decisions.partition}`, description: draftSummary(w.topic, w.decisions, w.lint).detail.split('\n')[0], draft: w })),
        { title: 'Approve Partition: which draft?', placeHolder: 'Drafts of TopicDecisions waiting for your approval' },
      );
      if (!chosen) return { approved: false, reason: 'cancelled' };
      pick = chosen.draft;
    }
    if (!pick) return { approved: false, reason: 'cancelled' };
    const summary = draftSummary(pick.topic, pick.decisions, pick.lint);
    if (!pick.lint.ok) {
      const reason = `Partition ${pick.decisions.partition} of topic ${pick.topic} cannot be approved: ${lintLines(pick.lint).join('; ')}`;
      void vscode.window.showErrorMessage(`Life Thread: ${reason}`, 'Open in Panel').then((choice) => choice && this.showInPanel(pick.topic));
      return { approved: false, reason, topic: pick.topic };
    }
    const choice = await this.dialogs.confirm(summary);
    if (choice === 'panel') {
      await this.showInPanel(pick.topic);
      return { approved: false, reason: 'opened in the panel', topic: pick.topic };
    }
    if (choice !== 'approve') return { approved: false, reason: 'cancelled', topic: pick.topic };
    const d = await this.approve(pick.topic);
    return { approved: true, topic: pick.topic, partition: d.partition };
  }

  async showInPanel(topic: string): Promise<void> {
    await this.setTopic(topic);
    await this.refresh();
    this.panel.show();
  }

  /** Edit before approving: the draft opens as JSON; saving it and approving again takes the edit. */
  async edit(topic: string): Promise<void> {
    await vscode.window.showTextDocument(vscode.Uri.file(join(this.dir(topic), DRAFT_JSON)));
  }

  /** `/resume <topic>`: TopicDecisions first ("A then B"), then ops by link with a fresh/stale line. */
  async resumeText(topic: string): Promise<string> {
    const dir = this.dir(topic);
    const d = await readDecisions(dir);
    if (!d || !isFilled(d)) {
      const previous = d?.previous !== undefined ? await readHistoryDecisions(dir, d.previous) : null;
      if (!previous) throw new InputError('topic', `topic ${topic} has no approved TopicDecisions yet (run /partition, then approve)`);
      return `${resumePack(previous, undefined, undefined, { tz: ownerZone(), now: new Date() })}\n\n(Partition ${d?.partition ?? ''} is started but not approved yet.)`;
    }
    const ops = await readOps(dir);
    const tz = ownerZone();
    const staleness = ops ? await checkOps(ops, { ...this.gitOptions(), tz }).catch(() => undefined) : undefined;
    // Reading a topic verifies it: a resumed chat is told when its decisions' evidence does not hold.
    const check = verifyTopic({ exports: await readExports(dir), decisions: await readAllDecisions(dir) });
    await this.setTopic(topic);
    const warning = check.ok ? '' : `\n\n**Warning: ${check.line}.** Do not rely on the anchors until the export is restored or re-partitioned.`;
    return `${resumePack(d, ops ?? undefined, staleness, { tz, now: new Date() })}${warning}\n\n[TopicDecisions](${vscode.Uri.file(join(dir, DECISIONS_FILE)).toString()})`;
  }

  async topics(): Promise<string[]> {
    const root = this.root;
    return root ? (await listTopics(root, this.folder)).map((t) => t.topic) : [];
  }

  async transcriptLength(topic: string): Promise<number> {
    if (!this.root) return 0;
    return (await readTranscript(this.dir(topic))).messages.length;
  }

  // ── the panel ──────────────────────────────────────────────────────────────────────────────

  /** Re-reads the current topic for the panel: the pair, the draft, the ops re-checked, the exports verified, the history. */
  refresh(): Promise<void> {
    const next = this.refreshing.then(() => this.build()).catch((err: unknown) => this.log.warn(`topic view: ${String(err)}`));
    this.refreshing = next;
    return next;
  }

  private async build(): Promise<void> {
    if (!this.root) {
      this.model.update({ topic: null });
      return;
    }
    const topic = this.currentTopic();
    const dir = this.dir(topic);
    const topics = [...new Set([...(await this.topics()), topic])].sort();
    try {
      const [current, draft, ops, exports, decisions, transcript, history] = await Promise.all([readDecisions(dir), readDraft(dir), readOps(dir), readExports(dir), readAllDecisions(dir), readTranscript(dir), historyPartitions(dir)]);
      const exported = exports.find((e) => e.file === EXPORT_JSONL);
      const since = conversation(newSpan(transcript.messages, new Set((exported?.records ?? []).map((r) => r.id))));
      const records = exports.flatMap((e) => e.records);
      const previous = current?.previous !== undefined ? await readHistoryDecisions(dir, current.previous) : null;
      const tz = ownerZone();
      const check = ops ? { staleness: await checkOps(ops, { ...this.gitOptions(), tz }), at: new Date() } : undefined;
      const historyRows = [];
      for (const n of history.sort((a, b) => b - a)) {
        const h = decisions.find((d) => d.kind === 'history' && d.decisions.partition === n);
        const e = exports.find((x) => x.file.startsWith(`history/${n}/`));
        historyRows.push({ partition: n, createdAt: h?.decisions.createdAt ?? '', frame: h?.decisions.frame ?? '', messages: e?.records.length ?? 0 });
      }
      const view: TopicView = topicView({
        topic,
        topics,
        current,
        draft: draft ? { decisions: draft, lint: lintDecisions(draft, records) } : null,
        previous,
        ops,
        ...(check ? { check } : {}),
        verification: verifyTopic({ exports, decisions }),
        history: historyRows,
        newMessages: since.length,
        time: { tz, now: new Date() },
      });
      this.model.update({ topic: view });
    } catch (err) {
      const line = err instanceof TopicFileError ? `cannot read ${err.file}: ${err.reason}` : `cannot read topic ${topic}: ${message(err)}`;
      this.model.update({
        topic: { topic, topics, partition: null, state: 'none', decisions: null, review: null, ops: null, verify: { ok: false, line, problems: [line], notFilled: [] }, history: [], newMessages: 0 },
      });
    }
  }

  // ── surfaces ───────────────────────────────────────────────────────────────────────────────

  tool(): vscode.LanguageModelTool<z.infer<typeof partitionInputSchema>> {
    return {
      prepareInvocation: (o) => ({ invocationMessage: o.input.action === 'fill' ? `Filling TopicDecisions of ${o.input.topic ?? this.currentTopic()}` : `Partition: ${o.input.action}` }),
      invoke: async (o) => {
        try {
          const input = parseToolInput(partitionInputSchema, o.input);
          const topic = input.topic ? validateTopic(input.topic) : this.currentTopic();
          if (input.action === 'start') {
            await this.importOnScreen(topic);
            const s = await this.start(topic);
            if (s.kind === 'nothing') throw new InputError('topic', `nothing new to hand over in topic ${topic} since partition ${s.previous ?? '(none)'}: no conversation since its export`);
            return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s.prompt)]);
          }
          if (input.action === 'status') {
            const dir = this.dir(topic);
            const d = await readDecisions(dir);
            const draft = await this.draftOf(topic);
            const state = draft ? ` A draft of partition ${draft.decisions.partition} waits for the user's approval (lint: ${draft.lint.ok ? 'passes' : lintLines(draft.lint).join('; ')}).` : '';
            return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(d ? `Topic ${topic}, partition ${d.partition}${isFilled(d) ? ' (approved)' : ' (started, not filled)'}.${state}\n\n${JSON.stringify(d)}` : `Topic ${topic} has no partition yet.`)]);
          }
          const r = await this.fill(topic, input.decisions);
          if (r.problems.length) throw new InputError('decisions', `refused by the lint — fix and call again: ${r.problems.join('; ')}`);
          return new vscode.LanguageModelToolResult([
            new vscode.LanguageModelTextPart(`TopicDecisions of ${topic} (partition ${r.decisions.partition}) pass the lint and wait for the user's approval (the panel's Approve, Life Thread: Approve Partition…, or @life /partition approve). You cannot approve them; nothing opens until the user does.`),
          ]);
        } catch (err) {
          throw new Error(err instanceof InputError ? `Invalid input — ${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err));
        }
      },
    };
  }

  register(): void {
    this.context.subscriptions.push(
      this,
      contrib.registerTool('lifethread_partition', this.tool()),
      contrib.registerCommand(COMMANDS.partition, async (topicArg?: string) => {
        const topics = await this.topics();
        const topic =
          topicArg ??
          (await vscode.window.showInputBox({
            title: 'Partition Chat: topic',
            prompt: `A new sibling chat for the same line of work. Known topics: ${topics.join(', ') || 'none yet'}`,
            value: this.currentTopic(),
            validateInput: (v) => (/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(v) ? undefined : 'Letters, digits, dot, dash or underscore.'),
            ignoreFocusOut: true,
          }));
        if (!topic) return;
        await this.setTopic(topic);
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /partition ${topic}`, isPartialQuery: false });
      }),
      contrib.registerCommand(COMMANDS.approvePartition, async (topicArg?: unknown) => {
        try {
          return await this.approveCommand(topicArg);
        } catch (err) {
          void vscode.window.showErrorMessage(`Life Thread: ${message(err)}`);
          return { approved: false, reason: message(err) } satisfies ApprovalOutcome;
        }
      }),
      this.panel.onDidReveal(() => void this.refresh()),
    );
  }

  dispose(): void {
    this._onDidOpenChat.dispose();
  }
}
