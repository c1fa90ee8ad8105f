import * as vscode from 'vscode';
import { firstDiskFolder, firstDiskFolderPath } from './diskFolders';
import { contrib } from './contrib';
import { join } from 'node:path';
import { parseDecisions, DECISIONS_FILE, type TopicDecisions } from '../core/continuity/documents';
import { carryForward } from '../core/continuity/carry';
import { completeInheritedQuotes, inheritedAnchors, refusalWords } from '../core/continuity/inherited';
import { lintDecisions } from '../core/continuity/lint';
import { makeOps, type OpsInput } from '../core/continuity/ops';
import { resumePack } from '../core/continuity/resume';
import { readOpsChecked, type CheckedOps } from '../node/opsChecked';
import { errorLine, InputError } from '../core/errors';
import { fillPrompt } from '../core/topicSpan';
import { verifyTopic, isFilled } from '../core/topicVerify';
import { lintLines } from '../core/topicView';
import { newMessageId, randomBase36 } from '../node/ids';
import { isTopicId } from '../core/ids';
import type { StateOptions } from '../node/git';
import type { ScheduleStore } from '../node/schedule';
import {
  appendMessages,
  DRAFT_JSON,
  listTopics,
  pendingSpan,
  readAllDecisions,
  readDecisions,
  readDraft,
  readExports,
  readHistoryDecisions,
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
import { COMMANDS } from '../shared/commands';
import { approveCommand, modalDialogs, type ApprovalDialogs, type ApprovalOutcome, type WaitingDraft } from './approvePartition';
import { importChatOnScreen } from './chatOnScreen';
import { gitOptions, opsInputNow } from './opsNow';
import type { LifeThreadPanel } from './panel';
import { partitionTool } from './partitionTool';
import { setting } from './settings';
import { ownerZone } from './scheduleFeature';
import { topicPanelNow } from './topicPanel';
import type { ViewModel } from './viewModel';

const TOPIC_KEY = 'lifeThread.currentTopic';

export type StartOutcome = { kind: 'started'; partition: number; prompt: string; messages: number } | { kind: 'nothing'; partition: number; previous: number | null };

/**
 * The continuity pair (src/core/continuity/): @life's durable transcript with minted message ids, Partition
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
    return firstDiskFolderPath();
  }

  get folder(): string {
    return setting('continuity.folder');
  }

  currentTopic(): string {
    return this.context.workspaceState.get<string>(TOPIC_KEY) ?? 'main';
  }

  async setTopic(topic: string): Promise<void> {
    await this.context.workspaceState.update(TOPIC_KEY, validateTopic(topic));
  }

  dir(topic: string): string {
    const root = firstDiskFolder();
    if (!('path' in root)) throw new InputError('topic', `needs ${root.missing}: topics live in the workspace`);
    return topicDir(root.path, validateTopic(topic), this.folder);
  }

  static mint(): string {
    return newMessageId();
  }

  /** Keeps a turn of @life's conversation durably (the stable chat API has no message ids): request and answer in one write. */
  async record(topic: string, messages: { id: string; role: 'user' | 'assistant'; time: string; text: string }[]): Promise<void> {
    if (!this.root) return;
    await appendMessages(this.dir(topic), messages).catch((err: unknown) => this.log.warn(`transcript: ${String(err)}`));
  }

  // ── ops from facts ─────────────────────────────────────────────────────────────────────────

  /** Git options: the continuity folder left out of the dirty set (src/host/opsNow.ts). */
  private gitOptions(): StateOptions {
    return gitOptions(this.root, this.folder);
  }

  /** Handover ops' inputs as of now, from facts (src/host/opsNow.ts). */
  async opsInputNow(topic: string, next: readonly string[]): Promise<Omit<OpsInput, 'topic' | 'partition'>> {
    return opsInputNow({ root: this.root, folder: this.folder, schedule: this.store.schedule, storeDir: this.store.dir, wakes: this.wakes, log: this.log }, topic, next);
  }

  // ── partition ──────────────────────────────────────────────────────────────────────────────

  /** The conversation on screen, when it was held with another participant, appended to the topic's transcript (src/host/chatOnScreen.ts). */
  async importOnScreen(topic: string): Promise<{ imported: number; participants: string[]; note?: string }> {
    const dir = this.dir(topic);
    return importChatOnScreen(topic, dir, join(this.context.globalStorageUri.fsPath, `chat-export-${randomBase36(8)}.json`), this.log);
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

  /** Why the last fill of a topic was refused, in words for the user (cleared by a fill the schema takes). */
  private readonly refusals = new Map<string, string>();

  lastRefusal(topic: string): string | undefined {
    return this.refusals.get(topic);
  }

  /** The agent's decisions: carried-forward items kept, linted against the topic's exports; a draft until the user approves. */
  async fill(topic: string, raw: unknown): Promise<{ decisions: TopicDecisions; problems: string[] }> {
    const dir = this.dir(topic);
    const stub = await readDecisions(dir);
    if (!stub) throw new InputError('topic', `no partition was started for topic ${topic}; call action "start" first`);
    if (isFilled(stub)) throw new InputError('topic', `partition ${stub.partition} of topic ${topic} is already approved; start a new partition first`);
    const previous = stub.previous !== undefined ? await readHistoryDecisions(dir, stub.previous) : null;
    // Anchors of the previous decisions may be cited by reference (src/core/continuity/inherited.ts).
    const given = completeInheritedQuotes(raw, inheritedAnchors(previous, stub.rejected.filter((r) => r.carriedFrom !== undefined)));
    const candidate = { ...stub, ...(typeof given === 'object' && given !== null ? given : {}), schemaVersion: 1, topic, partition: stub.partition, createdAt: new Date().toISOString(), opsLink: stub.opsLink, ...(stub.previous !== undefined ? { previous: stub.previous } : {}) };
    const parsed = parseDecisions(candidate);
    if (!parsed.ok) {
      const words = refusalWords(parsed.field, parsed.reason, candidate, await this.allRecords(dir));
      this.refusals.set(topic, words);
      throw new InputError('decisions', words);
    }
    this.refusals.delete(topic);
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

  async showInPanel(topic: string): Promise<void> {
    await this.setTopic(topic);
    await this.refresh();
    this.panel.show();
  }

  /** Edit before approving: the draft opens as JSON; saving it and approving again takes the edit. */
  async edit(topic: string): Promise<void> {
    await vscode.window.showTextDocument(vscode.Uri.file(join(this.dir(topic), DRAFT_JSON)));
  }

  /** The topic's ops file re-checked: what the panel shows and every continuity text says of it (src/node/opsChecked.ts). */
  opsChecked(topic: string): Promise<CheckedOps> {
    return readOpsChecked(this.dir(topic), { ...this.gitOptions(), tz: ownerZone() });
  }

  /** `/resume <topic>`: TopicDecisions first ("A then B"), then ops by link with a fresh/stale line. */
  async resumeText(topic: string): Promise<string> {
    const dir = this.dir(topic);
    const d = await readDecisions(dir);
    if (!d || !isFilled(d)) {
      const previous = d?.previous !== undefined ? await readHistoryDecisions(dir, d.previous) : null;
      if (!previous) throw new InputError('topic', `topic ${topic} has no approved TopicDecisions yet (run /partition, then approve)`);
      const held = await this.opsChecked(topic);
      return `${resumePack(previous, held.ops ?? undefined, held.check?.staleness, { tz: ownerZone(), now: new Date() })}\n\n(Partition ${d?.partition ?? ''} is started but not approved yet.)`;
    }
    const tz = ownerZone();
    const { ops, check: opsCheck } = await this.opsChecked(topic);
    // Reading a topic verifies it: a resumed chat is told when its decisions' evidence does not hold.
    const check = verifyTopic({ exports: await readExports(dir), decisions: await readAllDecisions(dir) });
    await this.setTopic(topic);
    const warning = check.ok ? '' : `\n\n**Warning: ${check.line}.** Do not rely on the anchors until the export is restored or re-partitioned.`;
    return `${resumePack(d, ops ?? undefined, opsCheck?.staleness, { tz, now: new Date() })}${warning}\n\n[TopicDecisions](${vscode.Uri.file(join(dir, DECISIONS_FILE)).toString()})`;
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
    this.model.update({ topic: await topicPanelNow(topic, topics, dir, this.gitOptions()) });
  }

  // ── surfaces ───────────────────────────────────────────────────────────────────────────────

  register(): void {
    this.context.subscriptions.push(
      this,
      contrib.registerTool('lifethread_partition', partitionTool(this)),
      contrib.registerCommand(COMMANDS.partition, async (topicArg?: string) => {
        const topics = await this.topics();
        const topic =
          topicArg ??
          (await vscode.window.showInputBox({
            title: 'Partition Chat: topic',
            prompt: `A new sibling chat for the same line of work. Known topics: ${topics.join(', ') || 'none yet'}`,
            value: this.currentTopic(),
            validateInput: (v) => (isTopicId(v) ? undefined : 'Letters, digits, dot, dash or underscore.'),
            ignoreFocusOut: true,
          }));
        if (!topic) return;
        await this.setTopic(topic);
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /partition ${topic}`, isPartialQuery: false });
      }),
      contrib.registerCommand(COMMANDS.approvePartition, async (topicArg?: unknown) => {
        try {
          return await approveCommand(this, topicArg);
        } catch (err) {
          void vscode.window.showErrorMessage(`Life Thread: ${errorLine(err)}`);
          return { approved: false, reason: errorLine(err) } satisfies ApprovalOutcome;
        }
      }),
      this.panel.onDidReveal(() => void this.refresh()),
    );
  }

  dispose(): void {
    this._onDidOpenChat.dispose();
  }
}
