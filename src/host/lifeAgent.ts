import * as vscode from 'vscode';
import { registeredTool, runAgentTurn, type TurnTool } from './agentTurn';
import type { LifeChat } from './chat';
import type { AfterTurn } from './afterTurn';
import type { Doctor } from './doctor';
import type { ReminderTurns } from './reminderTurn';
import type { Continuity } from './continuity';
import { COMMANDS } from '../shared/commands';
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
  const run = async (request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, instruction: string, only?: string[]) => {
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
    const messages = [vscode.LanguageModelChatMessage.User(preface), ...historyMessages(context), vscode.LanguageModelChatMessage.User(request.prompt)];
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
    const topic = request.prompt.trim() || deps.continuity.currentTopic();
    const started = await deps.continuity.start(topic);
    stream.progress(`Wrote the export and Handover ops of topic ${topic} (partition ${started.partition}); filling TopicDecisions…`);
    const req = { ...request, prompt: started.prompt } as vscode.ChatRequest;
    const result = await run(req, context, stream, token, 'You are filling TopicDecisions for a Partition. Use lifethread_partition with action "fill"; if it refuses, fix what it names and call it again.', ['lifethread_partition']);
    stream.markdown(`\n\nTopicDecisions of **${topic}** wait for your approval in the Life Thread panel; the new chat opens only when you approve.`);
    stream.button({ command: COMMANDS.openPanel, title: 'Review in the panel' });
    return { metadata: { ...(result.metadata as object), command: 'partition', topic, partition: started.partition } };
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
