import * as vscode from 'vscode';
import { registeredTool, runAgentTurn, type TurnTool } from './agentTurn';
import type { LifeChat } from './chat';
import type { AfterTurn } from './afterTurn';
import type { Doctor } from './doctor';
import type { ReminderTurns } from './reminderTurn';
import type { Continuity } from './continuity';
import { COMMANDS } from '../shared/commands';
import { draftSummary } from '../core/topicView';
import { setting } from './settings';
import { ownerZone } from './scheduleFeature';

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

/** `@life`: a tool-loop agent on `request.model`, plus the slash commands that need no model of their own. */
export function registerLifeAgent(chat: LifeChat, deps: { afterTurn: AfterTurn; doctor: Doctor; reminders: ReminderTurns; continuity: Continuity; pendingPulses: () => string[] }): void {
  /** One agent turn; `withHistory: false` leaves the chat's earlier turns out of the prompt (a Partition sends only its span). */
  const run = async (request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, instruction: string, only?: string[], withHistory = true) => {
    const outcome = await deps.afterTurn.lastOutcome();
    const pulses = deps.pendingPulses();
    const preface = [
      AGENT_PREAMBLE,
      `The owner's time zone is ${ownerZone()}; now is ${new Date().toISOString()}.`,
      outcome ? `Last after-turn request: ${outcome}.` : '',
      pulses.length ? `Wakes that arrived while no turn could start (handle them first):\n${pulses.join('\n\n')}` : '',
      instruction,
    ]
      .filter(Boolean)
      .join('\n');
    const messages = [vscode.LanguageModelChatMessage.User(preface), ...(withHistory ? historyMessages(context) : []), vscode.LanguageModelChatMessage.User(request.prompt)];
    await offerPartitionUnderPressure(request, messages, stream, token, deps.continuity);
    const turn = await runAgentTurn({
      model: request.model,
      messages,
      tools: toolsFor(request, only),
      token,
      onText: (chunk) => stream.markdown(chunk),
      onToolCall: (name) => stream.progress(`Running ${name}…`),
    });
    return { metadata: { command: request.command ?? 'agent', toolCalls: turn.toolCalls.map((c) => c.name), rounds: turn.rounds } };
  };

  chat.onDefault((request, context, stream, token) => run(request, context, stream, token, ''));
  chat.on('remind', async (request, context, stream, token) => {
    const show = /^\s*show\s+(r-[\w-]+)\s*$/i.exec(request.prompt);
    if (show?.[1]) {
      const d = deps.reminders.delivered.get(show[1]);
      stream.markdown(d ? `**Reminder ${d.id}** (${d.viaTurn ? 'the agent\u2019s answer' : 'as written'}, fired ${d.firedAt}):\n\n${d.text}` : `No delivered reminder ${show[1]} in this window.`);
      return { metadata: { command: 'remind', shown: show[1] } };
    }
    return run(request, context, stream, token, 'The user is managing reminders: use lifethread_remind (add, list, remove). A reminder\u2019s text is the prompt you will run at the due time.', ['lifethread_remind']);
  });
  chat.on('schedule', (request, context, stream, token) =>
    run(request, context, stream, token, 'The user is managing scheduled shell commands: use lifethread_schedule (add_command, list, move, run_now, remove, log).', ['lifethread_schedule', 'lifethread_remind']),
  );
  chat.on('partition', async (request, context, stream, token) => {
    const args = request.prompt.trim();
    const approve = /^approve(?:\s+(\S+))?$/i.exec(args);
    if (approve) return approveInChat(deps.continuity, stream, approve[1]);
    const topic = args || deps.continuity.currentTopic();
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
      stream.markdown(`\n\nThe agent did not fill TopicDecisions of **${topic}** (partition ${started.partition}); run \`/partition ${topic}\` again, or fill them through the lifethread_partition tool.`);
    }
    return { metadata: { ...(result.metadata as object), command: 'partition', topic, partition: started.partition, draft: draft ? (draft.lint.ok ? 'ready' : 'refused') : 'none' } };
  });
  chat.on('resume', async (request, _context, stream) => {
    const topic = request.prompt.trim() || deps.continuity.currentTopic();
    stream.markdown(await deps.continuity.resumeText(topic));
    return { metadata: { command: 'resume', topic } };
  });
  chat.on('wake', (request, context, stream, token) =>
    run(request, context, stream, token, 'The user wants to be woken later: use lifethread_sendToLifeThread (when: timer with delay_seconds or at in words; job.done with job_id; presence.online; scm.changed). Pass their words for `at`; never compute timestamps.', ['lifethread_sendToLifeThread']),
  );
  chat.on('doctor', async (_request, _context, stream) => {
    stream.markdown(await deps.doctor.report());
    return { metadata: { command: 'doctor' } };
  });
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
  request: vscode.ChatRequest,
  messages: vscode.LanguageModelChatMessage[],
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  continuity: Continuity,
): Promise<void> {
  const max = request.model.maxInputTokens;
  if (!max) return;
  let used = 0;
  for (const m of messages) used += await request.model.countTokens(m, token);
  const percent = setting('continuity.pressurePercent', 70);
  if ((used / max) * 100 < percent) return;
  stream.markdown(`_This conversation uses ${Math.round((used / max) * 100)} % of the model's input window (${used} of ${max} tokens)._\n\n`);
  stream.button({ command: COMMANDS.partition, title: 'Partition this chat', arguments: [continuity.currentTopic()] });
}
