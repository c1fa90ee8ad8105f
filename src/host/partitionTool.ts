import * as vscode from 'vscode';
import { z } from 'zod';
import type { TopicDecisions } from '../core/continuity/documents';
import { InputError } from '../core/errors';
import { parseToolInput } from '../core/toolInputs';
import { isFilled } from '../core/topicVerify';
import { lintLines } from '../core/topicView';
import { readDecisions, validateTopic } from '../node/topicFiles';
import type { WaitingDraft } from './approvePartition';

const partitionInputSchema = z
  .object({
    action: z.enum(['start', 'fill', 'status']),
    topic: z.string().max(100).optional(),
    decisions: z.unknown().optional(),
  })
  .strict();

/** The Partition steps the tool runs (src/host/continuity.ts). */
interface PartitionSteps {
  currentTopic(): string;
  dir(topic: string): string;
  importOnScreen(topic: string): Promise<unknown>;
  start(topic: string): Promise<{ kind: 'started'; prompt: string } | { kind: 'nothing'; previous: number | null }>;
  fill(topic: string, raw: unknown): Promise<{ decisions: TopicDecisions; problems: string[] }>;
  draftOf(topic: string): Promise<WaitingDraft | undefined>;
}

/** `lifethread_partition`: the agent starts a partition, fills its decisions, or asks its status; only the user approves. */
export function partitionTool(c: PartitionSteps): vscode.LanguageModelTool<z.infer<typeof partitionInputSchema>> {
  return {
    prepareInvocation: (o) => ({ invocationMessage: o.input.action === 'fill' ? `Filling TopicDecisions of ${o.input.topic ?? c.currentTopic()}` : `Partition: ${o.input.action}` }),
    invoke: async (o) => {
      try {
        const input = parseToolInput(partitionInputSchema, o.input);
        const topic = input.topic ? validateTopic(input.topic) : c.currentTopic();
        if (input.action === 'start') {
          await c.importOnScreen(topic);
          const s = await c.start(topic);
          if (s.kind === 'nothing') throw new InputError('topic', `nothing new to hand over in topic ${topic} since partition ${s.previous ?? '(none)'}: no conversation since its export`);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s.prompt)]);
        }
        if (input.action === 'status') {
          const dir = c.dir(topic);
          const d = await readDecisions(dir);
          const draft = await c.draftOf(topic);
          const state = draft ? ` A draft of partition ${draft.decisions.partition} waits for the user's approval (lint: ${draft.lint.ok ? 'passes' : lintLines(draft.lint).join('; ')}).` : '';
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(d ? `Topic ${topic}, partition ${d.partition}${isFilled(d) ? ' (approved)' : ' (started, not filled)'}.${state}\n\n${JSON.stringify(d)}` : `Topic ${topic} has no partition yet.`)]);
        }
        const r = await c.fill(topic, input.decisions);
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
