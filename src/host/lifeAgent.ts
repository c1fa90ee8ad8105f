import * as vscode from 'vscode';
import { registeredTool, runAgentTurn, type TurnTool } from './agentTurn';
import type { LifeChat } from './chat';
import type { AfterTurn } from './afterTurn';
import type { Doctor } from './doctor';
import type { Continuity } from './continuity';
import { COMMANDS } from '../shared/commands';
import { draftSummary } from '../core/topicView';
import { setting } from './settings';
import { ownerZone } from './scheduleFeature';
import { ownerZoneRecord, zoneForAnswer } from './ownerZone';
import { zoneWords } from '../core/time/ownerZone';
import type { ScheduleStore } from '../node/schedule';
import type { WakeFeature } from './wakeFeature';
import { isOfflineModel, OFFLINE_MODEL_NAME, realModels } from './offlineModel';
import { describeInstant } from '../core/time/describe';
import { pulseEventOfRow } from '../core/wake/pulse';
import type { WakeRow } from '../core/wake/row';
import { pulseWords } from '../core/wake/pulseWords';
import { readWakeWords, WAKE_WORD_FORMS } from '../core/wake/wakeWords';
import { rowView } from '../core/rowView';
import type { ScheduleRow } from '../core/schema';
import { InputError } from '../core/errors';
import { isReminderMention } from '../core/ids';

const AGENT_PREAMBLE = [
  'You are @life, the Life Thread agent in VS Code. You help the user with their work and you can sleep on long jobs:',
  'durable reminders (lifethread_remind: the text is a prompt you will run at the due time), scheduled shell commands',
  '(lifethread_schedule), and after-turn actions (lifethread_afterTurn). Never compute timestamps yourself: pass the',
  "user's words ('in 20 minutes', 'tomorrow at 9', 'every weekday at 09:00') as `when`; the tools answer with the resolved instant.",
].join(' ');

function historyMessages(context: vscode.ChatContext): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const turn of context.history) {
    if (turn instanceof vscode.ChatRequestTurn) out.push(vscode.LanguageModelChatMessage.User(turn.prompt));
    else if (turn instanceof vscode.ChatResponseTurn) {
      const text = turn.response.map((p) => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : '')).join('');
      if (text) out.push(vscode.LanguageModelChatMessage.Assistant(text));
    }
  }
  return out;
}

function toolsFor(request: vscode.ChatRequest, only?: string[]): TurnTool[] {
  return vscode.lm.tools.filter((t) => (only ? only.includes(t.name) : true)).map((t) => registeredTool(t, request.toolInvocationToken));
}

/**
 * The model `@life` answers with: `lifeThread.model` when set and present, else the
 * request's model unless it is the offline responder, else the first other model; the offline
 * responder only when there is no other.
 */
export async function chooseModel(request: vscode.ChatRequest): Promise<vscode.LanguageModelChat> {
  const wanted = setting('model').trim();
  if (wanted) {
    const slash = wanted.indexOf('/');
    const found = await realModels(slash > 0 ? { vendor: wanted.slice(0, slash), id: wanted.slice(slash + 1) } : { id: wanted });
    if (found[0]) return found[0];
  }
  if (!isOfflineModel(request.model)) return request.model;
  return (await realModels())[0] ?? request.model;
}

/** How to connect a model, with buttons: what `@life` says when only the offline responder is there. */
export function connectModelHelp(stream: vscode.ChatResponseStream, what: string): void {
  stream.markdown(
    `${what} needs a language model, and none is connected — \`@life\` is answering with **${OFFLINE_MODEL_NAME}**, which runs the slash commands (\`/doctor\`, \`/remind list\`, \`/remind show r-…\`, \`/schedule list\`, \`/wake in 20 minutes: …\`, \`/resume\`) and shows wakes.\n\n` +
      'To talk with an agent: install GitHub Copilot, or point Life Thread at an OpenAI-compatible server (Ollama, llama.cpp, vLLM, OpenAI) with `lifeThread.openai.baseUrl` and `lifeThread.openai.model`, and set its key if it needs one.',
  );
  stream.button({ command: 'workbench.action.openSettings', arguments: ['lifeThread.openai'], title: 'Open Model Settings' });
  stream.button({ command: COMMANDS.setApiKey, title: 'Set API Key…' });
}

/** What `@life`'s commands reach. */
interface AgentDeps {
  afterTurn: AfterTurn;
  doctor: Doctor;
  store: ScheduleStore;
  continuity: Continuity;
  wakes: Pick<WakeFeature, 'received' | 'request'>;
}

/** One agent turn; `withHistory: false` leaves the chat's earlier turns out of the prompt (a Partition sends only its span). */
type RunTurn = (
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  instruction: string,
  only?: string[],
  withHistory?: boolean,
) => Promise<vscode.ChatResult>;

/** `@life`: a tool-loop agent, plus the slash commands that need no model; wake pulses arrive here. */
export function registerLifeAgent(chat: LifeChat, deps: AgentDeps): void {
  const run = agentTurn(deps);
  chat.onDefault((request, context, stream, token) => freeTurn(deps, run, request, context, stream, token));
  chat.on('remind', (request, context, stream, token) => remindCommand(deps, run, request, context, stream, token));
  chat.on('schedule', (request, context, stream, token) => scheduleCommand(deps, run, request, context, stream, token));
  chat.on('partition', (request, context, stream, token) => partitionCommand(deps, run, request, context, stream, token));
  chat.on('resume', (request, _context, stream) => resumeCommand(deps, request, stream));
  chat.on('wake', (request, context, stream, token) => wakeCommand(deps, run, request, context, stream, token));
  chat.on('doctor', (_request, _context, stream) => doctorCommand(deps, stream));
}

function agentTurn(deps: AgentDeps): RunTurn {
  return async (request, context, stream, token, instruction, only, withHistory = true) => {
    const model = await chooseModel(request);
    if (isOfflineModel(model)) {
      connectModelHelp(stream, request.command ? `\`/${request.command}\` with these words` : 'A free question');
      return { metadata: { command: request.command ?? 'agent', model: 'offline' } };
    }
    const outcome = await deps.afterTurn.lastOutcome();
    const preface = [
      AGENT_PREAMBLE,
      `The owner's time zone is ${zoneWords(ownerZoneRecord())}; now is ${new Date().toISOString()}.`,
      outcome ? `Last after-turn request: ${outcome}.` : '',
      instruction,
    ]
      .filter(Boolean)
      .join('\n');
    const messages = [vscode.LanguageModelChatMessage.User(preface), ...(withHistory ? historyMessages(context) : []), vscode.LanguageModelChatMessage.User(request.prompt)];
    await offerPartitionUnderPressure(model, messages, stream, token, deps.continuity);
    const turn = await runAgentTurn({
      model,
      messages,
      tools: toolsFor(request, only),
      token,
      onText: (chunk) => stream.markdown(chunk),
      onToolCall: (name) => stream.progress(`Running ${name}…`),
    });
    return { metadata: { command: request.command ?? 'agent', toolCalls: turn.toolCalls.map((c) => c.name), rounds: turn.rounds } };
  };
}

/** A request without a slash command: a wake's pulse, or a free question for the agent. */
async function freeTurn(deps: AgentDeps, run: RunTurn, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  // A wake's pulse: the receiver has it now (a wake is delivered only once its receiver has it).
  const woken = await deps.wakes.received(request.prompt);
  if (woken.length > 0) return answerWake(run, request, context, stream, token, woken);
  return run(request, context, stream, token, '');
}

async function answerWake(run: RunTurn, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, woken: WakeRow[]): Promise<vscode.ChatResult> {
  const model = await chooseModel(request);
  const ids = woken.map((w) => w.id);
  if (isOfflineModel(model)) {
    // No model to continue the work: show what woke the thread, plainly, then the pulse as it came.
    const w = pulseWords(request.prompt);
    const lines = [`**Woken** (${ids.join(', ')})${w?.text ? `: ${w.text}` : ''}`];
    if (w) lines.push(`**${w.headline}**`);
    if (w?.summary !== undefined) lines.push(`Summary: ${w.summary}`);
    if (w?.detail !== undefined) lines.push(`Detail: ${w.detail}`);
    if (w?.landing !== undefined) lines.push(`Landing: \`${w.landing}\``);
    stream.markdown(`${lines.join('\n\n')}\n\nNo language model is connected, so nobody continues from here; the pulse as it came:\n\n\`\`\`yaml\n${request.prompt}\n\`\`\`\n`);
    for (const w of woken) {
      const e = pulseEventOfRow(w);
      if (e.landing) stream.button({ command: COMMANDS.openLanding, arguments: [e.landing], title: woken.length > 1 ? `Open Landing of ${w.id}` : 'Open Landing' });
    }
    stream.button({ command: 'workbench.action.openSettings', arguments: ['lifeThread.openai'], title: 'Connect a Model' });
    return { metadata: { command: 'wake', wakes: ids, model: 'offline' } };
  }
  const result = await run(request, context, stream, token, 'You were woken by a Life Thread wake (the life_wake block below). Continue the line of work it names: look at the result and the landing, then say what you found and do the next step.');
  return { ...result, metadata: { ...(result.metadata as object), command: 'wake', wakes: ids } };
}

/** `/remind`: `show r-…` shows a reminder and its answer; without a model, the list; else the agent with lifethread_remind. */
async function remindCommand(deps: AgentDeps, run: RunTurn, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  const show = /^\s*show\s+(\S+)\s*$/i.exec(request.prompt);
  if (show?.[1] && isReminderMention(show[1])) {
    const row = await deps.store.get(show[1]);
    if (!row || 'command' in row) {
      stream.markdown(`There is no reminder ${show[1]} (reminders are kept 24 h after they fire).`);
    } else if (!row.fact?.answer) {
      stream.markdown(`**Reminder ${row.id}** has not been delivered yet: ${row.nextRunAt ? `it is due ${describeInstant(new Date(row.nextRunAt), ownerZone(), new Date())}` : row.status}.\n\n> ${row.text}`);
    } else {
      const how = row.fact.error ? `as written — ${row.fact.error}` : 'the agent\u2019s answer';
      stream.markdown(`**Reminder ${row.id}** (${how}; fired ${row.firedAt ? describeInstant(new Date(row.firedAt), ownerZone(), new Date()) : ''}):\n\n${row.fact.answer}`);
    }
    return { metadata: { command: 'remind', shown: show[1] } };
  }
  if (isOfflineModel(await chooseModel(request))) {
    if (/^\s*(?:list)?\s*$/i.test(request.prompt)) return listRows(stream, 'remind', (await deps.store.listReminders()).rows);
    connectModelHelp(stream, '`/remind` with these words');
    stream.button({ command: COMMANDS.addReminder, title: 'Add Reminder…' });
    return { metadata: { command: 'remind', model: 'offline' } };
  }
  return run(request, context, stream, token, 'The user is managing reminders: use lifethread_remind (add, list, remove). A reminder\u2019s text is the prompt you will run at the due time.', ['lifethread_remind']);
}

/** `/schedule`: without a model, the list; else the agent with lifethread_schedule. */
async function scheduleCommand(deps: AgentDeps, run: RunTurn, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  if (isOfflineModel(await chooseModel(request))) {
    if (/^\s*(?:list)?\s*$/i.test(request.prompt)) return listRows(stream, 'schedule', (await deps.store.listCommands()).rows);
    connectModelHelp(stream, '`/schedule` with these words');
    stream.button({ command: COMMANDS.scheduleCommand, title: 'Schedule Command…' });
    return { metadata: { command: 'schedule', model: 'offline' } };
  }
  return run(request, context, stream, token, 'The user is managing scheduled shell commands: use lifethread_schedule (add_command, list, move, run_now, remove, log).', ['lifethread_schedule', 'lifethread_remind']);
}

/** `/partition [topic]`: the export and the ops written, then the agent fills TopicDecisions; `/partition approve [topic]` offers the approval. */
async function partitionCommand(deps: AgentDeps, run: RunTurn, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  const args = request.prompt.trim();
  const approve = /^approve(?:\s+(\S+))?$/i.exec(args);
  if (approve) return approveInChat(deps.continuity, stream, approve[1]);
  const topic = args || deps.continuity.currentTopic();
  // Without a model nothing can fill the decisions: say how to connect one and write nothing.
  if (isOfflineModel(await chooseModel(request))) {
    connectModelHelp(stream, '`/partition`');
    return { metadata: { command: 'partition', topic, model: 'offline', transcript: 'skip' } };
  }
  const imported = await deps.continuity.importOnScreen(topic);
  if (imported.note) stream.progress(`The chat on screen was not imported (${imported.note}); partitioning @life's own transcript.`);
  if (imported.imported > 0) stream.progress(`Imported ${imported.imported} message(s) of ${imported.participants.map((p) => (p ? `@${p.split('.').pop() ?? p}` : 'the default agent')).join(', ')} from the chat on screen.`);
  const started = await deps.continuity.start(topic);
  if (started.kind === 'nothing') {
    stream.markdown(
      started.previous === null
        ? `Nothing to hand over in topic **${topic}** yet: there is no conversation in it. Nothing was written.`
        : `Nothing new to hand over in topic **${topic}** since partition ${started.previous}: no conversation since its export. Nothing was written.`,
    );
    return { metadata: { command: 'partition', topic, nothingNew: true, transcript: 'skip' } };
  }
  stream.progress(`Wrote the export (${started.messages} message${started.messages === 1 ? '' : 's'} since the previous partition) and the Handover ops of topic ${topic} (partition ${started.partition}); filling TopicDecisions…`);
  const req = { ...request, prompt: started.prompt } as vscode.ChatRequest;
  const result = await run(req, context, stream, token, 'You are filling TopicDecisions for a Partition. Use lifethread_partition with action "fill"; if it refuses, fix what it names and call it again.', ['lifethread_partition'], false);
  const draft = await deps.continuity.draftOf(topic);
  if (draft?.lint.ok) {
    stream.markdown(`\n\nTopicDecisions of **${topic}** (partition ${draft.decisions.partition}) wait for your approval; the new chat opens only when you approve.`);
    stream.button({ command: COMMANDS.approvePartition, arguments: [topic], title: 'Approve Partition…' });
    stream.button({ command: COMMANDS.openPanel, arguments: [topic], title: 'Review in the panel' });
  } else if (draft) {
    stream.markdown(`\n\nThe draft of TopicDecisions of **${topic}** does not pass the lint yet: ${draft.lint.problems.map((p) => p.reason).join('; ')}. It cannot be approved until it does.`);
    stream.button({ command: COMMANDS.openPanel, arguments: [topic], title: 'Review in the panel' });
  } else {
    const refusal = deps.continuity.lastRefusal(topic);
    stream.markdown(`\n\nThe agent did not fill TopicDecisions of **${topic}** (partition ${started.partition})${refusal ? `: its last fill was refused — ${refusal}` : ''}; run \`/partition ${topic}\` again, or fill them through the lifethread_partition tool.`);
    stream.button({ command: COMMANDS.partition, arguments: [topic], title: 'Try the Partition again' });
  }
  return { metadata: { ...(result.metadata as object), command: 'partition', topic, partition: started.partition, draft: draft ? (draft.lint.ok ? 'ready' : 'refused') : 'none' } };
}

/** `/resume [topic]`: the topic's resume pack. */
async function resumeCommand(deps: AgentDeps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const topic = request.prompt.trim() || deps.continuity.currentTopic();
  stream.markdown(await deps.continuity.resumeText(topic));
  return { metadata: { command: 'resume', topic } };
}

/** `/wake`: the agent with lifethread_sendToLifeThread; without a model, the words it can read itself. */
async function wakeCommand(deps: AgentDeps, run: RunTurn, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  if (isOfflineModel(await chooseModel(request))) return wakeWithoutModel(deps, request, stream);
  return run(request, context, stream, token, 'The user wants to be woken later: use lifethread_sendToLifeThread (when: timer with delay_seconds or at in words; job.done with job_id; presence.online; scm.changed). Pass their words for `at`; never compute timestamps.', ['lifethread_sendToLifeThread']);
}

/** `/wake` with explicit words: the wake is added as the tool would add it; other words get the forms and the model help. */
async function wakeWithoutModel(deps: AgentDeps, request: vscode.ChatRequest, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const input = readWakeWords(request.prompt, zoneForAnswer().timeZone, new Date());
  if (!input) {
    stream.markdown(`Without a language model \`/wake\` reads these forms:\n\n${WAKE_WORD_FORMS.map((f) => `- ${f}`).join('\n')}\n\n`);
    connectModelHelp(stream, '`/wake` with other words');
    return { metadata: { command: 'wake', model: 'offline', added: false } };
  }
  try {
    const r = await deps.wakes.request(input);
    stream.markdown(`**Wake added.** ${r.text}`);
    return { metadata: { command: 'wake', model: 'offline', added: true, wakes: r.rows.map((w) => w.id) } };
  } catch (err) {
    stream.markdown(`The wake was not added — ${err instanceof InputError ? `${err.field}: ${err.reason}` : String(err)}.`);
    return { metadata: { command: 'wake', model: 'offline', added: false } };
  }
}

/** `/doctor`: the same report as the Doctor command. */
async function doctorCommand(deps: AgentDeps, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  stream.markdown(await deps.doctor.report());
  return { metadata: { command: 'doctor' } };
}

/** `/remind` or `/schedule` without words and without a model: the rows, as the sidebar shows them. */
function listRows(stream: vscode.ChatResponseStream, command: 'remind' | 'schedule', rows: readonly ScheduleRow[]): vscode.ChatResult {
  const now = new Date();
  const what = command === 'remind' ? 'reminder' : 'scheduled command';
  if (rows.length === 0) stream.markdown(`No ${what}s.`);
  else {
    const lines = rows.map((r) => {
      const v = rowView(r, now);
      return `- **${v.title.replace(/\s+/g, ' ').slice(0, 120)}** (\`${v.id}\`) — ${v.when}${v.lastFact ? ` · ${v.lastFact}` : ''}`;
    });
    stream.markdown(`${rows.length} ${what}${rows.length === 1 ? '' : 's'}:\n\n${lines.join('\n')}`);
  }
  stream.button(command === 'remind' ? { command: COMMANDS.addReminder, title: 'Add Reminder…' } : { command: COMMANDS.scheduleCommand, title: 'Schedule Command…' });
  return { metadata: { command, model: 'offline', listed: rows.map((r) => r.id) } };
}

/** `@life /partition approve [topic]`: a participant cannot ask for confirmation itself, so it answers with the draft's summary and a button that runs the approval command (which asks). */
async function approveInChat(continuity: Continuity, stream: vscode.ChatResponseStream, topicArg: string | undefined): Promise<vscode.ChatResult> {
  const waiting = topicArg !== undefined ? [await continuity.draftOf(topicArg)].filter((d) => d !== undefined) : await continuity.drafts();
  if (waiting.length === 0) {
    stream.markdown(topicArg !== undefined ? `No partition draft of topic **${topicArg}** waits for approval. \`/partition ${topicArg}\` writes one.` : 'No partition draft waits for approval. `/partition [topic]` writes one.');
    return { metadata: { command: 'partition', approve: 'none', transcript: 'skip' } };
  }
  for (const d of waiting) {
    const s = draftSummary(d.topic, d.decisions, d.lint);
    stream.markdown(`**${s.title}**\n\n${s.detail}\n\n`);
    if (d.lint.ok) stream.button({ command: COMMANDS.approvePartition, arguments: [d.topic], title: `Approve Partition… (${d.topic})` });
    stream.button({ command: COMMANDS.openPanel, arguments: [d.topic], title: 'Review in the panel' });
  }
  return { metadata: { command: 'partition', approve: waiting.map((d) => ({ topic: d.topic, partition: d.decisions.partition, lint: d.lint.ok })) } };
}

/** The pressure signal: past a share of the model's input window, the reply offers Partition. */
async function offerPartitionUnderPressure(
  model: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  continuity: Continuity,
): Promise<void> {
  const max = model.maxInputTokens;
  if (!max) return;
  let used = 0;
  for (const m of messages) used += await model.countTokens(m, token);
  const percent = setting('continuity.pressurePercent');
  if ((used / max) * 100 < percent) return;
  stream.markdown(`_This conversation uses ${Math.round((used / max) * 100)} % of the model's input window (${used} of ${max} tokens)._\n\n`);
  stream.button({ command: COMMANDS.partition, title: 'Partition this chat', arguments: [continuity.currentTopic()] });
}
