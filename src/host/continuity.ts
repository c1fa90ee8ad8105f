import * as vscode from 'vscode';
import { readFile, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { carryForward, diffDecisions, lintDecisions, parseDecisions, resumePack, DECISIONS_FILE, type TopicDecisions } from '../core/continuity';
import { InputError } from '../core/errors';
import { parseToolInput } from '../core/toolInputs';
import { randomBase36 } from '../node/ids';
import { checkOps, gitState } from '../node/git';
import { appendMessage, listTopics, readDecisions, readExport, readHistoryDecisions, readOps, readTranscript, topicDir, validateTopic, writeDecisions, writeStub } from '../node/topicFiles';
import type { PartitionView } from '../shared/protocol';
import { COMMANDS } from '../shared/commands';
import type { LifeThreadPanel } from './panel';
import { setting } from './settings';
import type { ViewModel } from './viewModel';

const TOPIC_KEY = 'lifeThread.currentTopic';
const DRAFT_FILE = 'topic-decisions.draft.json';

const partitionInputSchema = z
  .object({
    action: z.enum(['start', 'fill', 'status']),
    topic: z.string().max(100).optional(),
    decisions: z.unknown().optional(),
  })
  .strict();

/** The message ids @life mints for a request and its response (ChatResult.metadata.lifeThread). */
export interface MintedIds {
  topic: string;
  requestId: string;
  responseId: string;
}

/**
 * The continuity pair (design §6): @life's durable transcript with minted message ids, Partition
 * (stub by the harness, decisions by the agent, approval by the user), and Resume.
 */
export class Continuity {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly model: ViewModel,
    private readonly panel: LifeThreadPanel,
    private readonly log: vscode.LogOutputChannel,
  ) {}

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

  /** Keeps one message of @life's conversation, durably (the stable chat API has no message ids). */
  async record(topic: string, id: string, role: 'user' | 'assistant', text: string): Promise<void> {
    if (!this.root) return;
    await appendMessage(this.dir(topic), { id, role, time: new Date().toISOString(), text }).catch((err: unknown) => this.log.warn(`transcript: ${String(err)}`));
  }

  /** The harness part of Partition: export, ops from git and VS Code, the decisions stub. */
  async start(topic: string): Promise<{ partition: number; prompt: string }> {
    const dir = this.dir(topic);
    const root = this.root ?? '';
    const repo = await gitState(root).catch(() => null);
    const openEditors = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input instanceof vscode.TabInputText ? vscode.workspace.asRelativePath(t.input.uri) : t.label));
    const runningTasks = vscode.tasks.taskExecutions.map((e) => e.task.name);
    const stub = await writeStub(dir, topic, { now: new Date(), ttlHours: setting('continuity.opsTtlHours', 12), repo, openEditors, runningTasks });
    await rm(join(dir, DRAFT_FILE), { force: true });
    const lines = stub.export.records.map((r) => `[${r.id}] ${r.role}: ${r.text.length > 1500 ? `${r.text.slice(0, 1500)}…` : r.text}`);
    const carried = stub.decisions.rejected.filter((r) => r.carriedFrom !== undefined);
    const prompt = [
      `Partition of topic "${topic}" (partition ${stub.partition}). The harness wrote the export and the Handover ops; fill TopicDecisions now by calling lifethread_partition with action "fill", topic "${topic}" and decisions { frame, rejected: [{text, reason, anchors}], accepted: [{text, reason, anchors}], new: [{text}], next: [..], anchors: [] }.`,
      'Every Accepted and Rejected item needs a reason and at least one message anchor { msgId, start, end, quote } where quote is the exact text at [start, end) of that message (UTF-16 offsets, end-exclusive). Frame and Next must not be empty. No secrets.',
      carried.length ? `Rejected items carried from the previous partition (keep them unless superseded): ${carried.map((c) => `"${c.text}" (${c.reason})`).join('; ')}` : '',
      '',
      'The transcript (message id, role, text):',
      ...lines,
    ]
      .filter((l) => l !== '')
      .join('\n');
    return { partition: stub.partition, prompt };
  }

  /** The agent's decisions: carried-forward items kept, linted against the export; a draft until the user approves. */
  async fill(topic: string, raw: unknown): Promise<{ decisions: TopicDecisions; problems: string[] }> {
    const dir = this.dir(topic);
    const stub = await readDecisions(dir);
    if (!stub) throw new InputError('topic', `no partition was started for topic ${topic}; call action "start" first`);
    const candidate = { ...stub, ...(typeof raw === 'object' && raw !== null ? raw : {}), schemaVersion: 1, topic, partition: stub.partition, createdAt: new Date().toISOString(), opsLink: stub.opsLink, ...(stub.previous !== undefined ? { previous: stub.previous } : {}) };
    const parsed = parseDecisions(candidate);
    if (!parsed.ok) throw new InputError(`decisions.${parsed.field}`, parsed.reason);
    const previous = stub.previous !== undefined ? await readHistoryDecisions(dir, stub.previous) : null;
    const decisions = previous ? carryForward(previous, parsed.value) : parsed.value;
    const exp = await readExport(dir);
    const lint = lintDecisions(decisions, exp?.records ?? []);
    const problems = lint.problems.map((p) => `${p.slot}${p.index !== undefined ? `[${p.index}]` : ''}: ${p.reason}`);
    await writeFile(join(dir, DRAFT_FILE), `${JSON.stringify(decisions, null, 2)}\n`);
    await this.showReview(topic, decisions, problems, previous);
    return { decisions, problems };
  }

  async showReview(topic: string, d: TopicDecisions, problems: string[], previous: TopicDecisions | null): Promise<void> {
    const diff = diffDecisions(previous ?? undefined, d);
    const anchors = (items: { anchors?: { msgId: string; start: number; end: number; quote: string }[] }) => (items.anchors ?? []).map((a) => ({ topic, msgId: a.msgId, start: a.start, end: a.end, quote: a.quote }));
    const view: PartitionView = {
      topic,
      partition: d.partition,
      frame: d.frame,
      rejected: d.rejected.map((i) => ({ text: i.text, reason: i.reason, carried: i.carriedFrom !== undefined, anchors: anchors(i) })),
      accepted: d.accepted.map((i) => ({ text: i.text, reason: i.reason, carried: false, anchors: anchors(i) })),
      new: d.new.map((i) => i.text),
      next: d.next,
      diff: [
        ...diff.accepted.added.map((i) => `+ accepted: ${i.text}`),
        ...diff.rejected.added.map((i) => `+ rejected: ${i.text}`),
        ...diff.accepted.removed.map((i) => `− accepted: ${i.text}`),
        ...diff.rejected.removed.map((i) => `− rejected: ${i.text}`),
      ],
      problems,
    };
    this.model.update({ partition: view });
    this.panel.show();
  }

  /** The user's approval: the draft becomes TopicDecisions, and only then a new chat opens with /resume. */
  async approve(topic: string): Promise<TopicDecisions> {
    const dir = this.dir(topic);
    let draft: TopicDecisions;
    try {
      const p = parseDecisions(JSON.parse(await readFile(join(dir, DRAFT_FILE), 'utf8')));
      if (!p.ok) throw new InputError(`decisions.${p.field}`, p.reason);
      draft = p.value;
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError('topic', `there is no filled draft to approve for topic ${topic}`);
    }
    const exp = await readExport(dir);
    const lint = lintDecisions(draft, exp?.records ?? []);
    if (!lint.ok) throw new InputError('decisions', `cannot approve: ${lint.problems.map((p) => `${p.slot}${p.index !== undefined ? `[${p.index}]` : ''}: ${p.reason}`).join('; ')}`);
    await writeDecisions(dir, draft);
    await rm(join(dir, DRAFT_FILE), { force: true });
    this.model.update({ partition: null });
    await this.setTopic(topic);
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /resume ${topic}`, isPartialQuery: false });
    return draft;
  }

  /** Edit before approving: the draft opens as JSON; saving it and approving again takes the edit. */
  async edit(topic: string): Promise<void> {
    await vscode.window.showTextDocument(vscode.Uri.file(join(this.dir(topic), DRAFT_FILE)));
  }

  /** `/resume <topic>`: TopicDecisions first ("A then B"), then ops by link with a fresh/stale line. */
  async resumeText(topic: string): Promise<string> {
    const dir = this.dir(topic);
    const d = await readDecisions(dir);
    if (!d) throw new InputError('topic', `topic ${topic} has no TopicDecisions yet (run /partition first)`);
    const ops = await readOps(dir);
    const staleness = ops ? await checkOps(ops).catch(() => undefined) : undefined;
    await this.setTopic(topic);
    return `${resumePack(d, ops ?? undefined, staleness)}\n\n[TopicDecisions](${vscode.Uri.file(join(dir, DECISIONS_FILE)).toString()})`;
  }

  async topics(): Promise<string[]> {
    const root = this.root;
    return root ? (await listTopics(root, this.folder)).map((t) => t.topic) : [];
  }

  async transcriptLength(topic: string): Promise<number> {
    if (!this.root) return 0;
    return (await readTranscript(this.dir(topic))).messages.length;
  }

  tool(): vscode.LanguageModelTool<z.infer<typeof partitionInputSchema>> {
    return {
      prepareInvocation: (o) => ({ invocationMessage: o.input.action === 'fill' ? `Filling TopicDecisions of ${o.input.topic ?? this.currentTopic()}` : `Partition: ${o.input.action}` }),
      invoke: async (o) => {
        try {
          const input = parseToolInput(partitionInputSchema, o.input);
          const topic = input.topic ? validateTopic(input.topic) : this.currentTopic();
          if (input.action === 'start') {
            const s = await this.start(topic);
            return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s.prompt)]);
          }
          if (input.action === 'status') {
            const d = await readDecisions(this.dir(topic));
            return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(d ? `Topic ${topic}, partition ${d.partition}.\n\n${JSON.stringify(d)}` : `Topic ${topic} has no partition yet.`)]);
          }
          const r = await this.fill(topic, input.decisions);
          if (r.problems.length) throw new InputError('decisions', `refused by the lint — fix and call again: ${r.problems.join('; ')}`);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`TopicDecisions of ${topic} (partition ${r.decisions.partition}) pass the lint and wait for the user's approval in the Life Thread panel. Nothing opens until they approve.`)]);
        } catch (err) {
          throw new Error(err instanceof InputError ? `Invalid input — ${err.field}: ${err.reason}` : err instanceof Error ? err.message : String(err));
        }
      },
    };
  }

  register(): void {
    this.context.subscriptions.push(
      vscode.lm.registerTool('lifethread_partition', this.tool()),
      vscode.commands.registerCommand(COMMANDS.partition, async (topicArg?: string) => {
        const topics = await this.topics();
        const topic =
          topicArg ??
          (await vscode.window.showInputBox({
            title: 'Partition Chat: topic',
            prompt: `A new sibling chat for the same line of work. Known topics: ${topics.join(', ') || 'none yet'}`,
            value: this.currentTopic(),
            validateInput: (v) => (/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(v) ? undefined : 'Letters, digits, dot, dash or underscore.'),
          }));
        if (!topic) return;
        await this.setTopic(topic);
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life /partition ${topic}`, isPartialQuery: false });
      }),
    );
  }
}
