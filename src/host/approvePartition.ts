import * as vscode from 'vscode';
import type { TopicDecisions } from '../core/continuity/documents';
import type { LintResult } from '../core/continuity/lint';
import { InputError } from '../core/errors';
import { draftSummary, lintLines } from '../core/topicView';
import { validateTopic } from '../node/topicFiles';

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

export const modalDialogs: ApprovalDialogs = {
  async confirm(summary) {
    const pick = await vscode.window.showInformationMessage(summary.title, { modal: true, detail: summary.detail }, 'Approve', 'Open in Panel');
    return pick === 'Approve' ? 'approve' : pick === 'Open in Panel' ? 'panel' : undefined;
  },
};

/** What the command asks of the continuity feature (src/host/continuity.ts). */
interface PartitionDrafts {
  readonly dialogs: ApprovalDialogs;
  draftOf(topic: string): Promise<WaitingDraft | undefined>;
  drafts(): Promise<WaitingDraft[]>;
  approve(topic: string): Promise<TopicDecisions>;
  showInPanel(topic: string): Promise<void>;
}

/** `Life Thread: Approve Partition…`: pick the draft, show its summary in a modal, approve through `approve`. */
export async function approveCommand(c: PartitionDrafts, topicArg?: unknown): Promise<ApprovalOutcome> {
  if (topicArg !== undefined && typeof topicArg !== 'string') throw new InputError('topic', 'must be a topic name');
  const topic = topicArg === undefined ? undefined : validateTopic(topicArg);
  const waiting = topic !== undefined ? [await c.draftOf(topic)].filter((d): d is WaitingDraft => d !== undefined) : await c.drafts();
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
    void vscode.window.showErrorMessage(`Life Thread: ${reason}`, 'Open in Panel').then((choice) => choice && c.showInPanel(pick.topic));
    return { approved: false, reason, topic: pick.topic };
  }
  const choice = await c.dialogs.confirm(summary);
  if (choice === 'panel') {
    await c.showInPanel(pick.topic);
    return { approved: false, reason: 'opened in the panel', topic: pick.topic };
  }
  if (choice !== 'approve') return { approved: false, reason: 'cancelled', topic: pick.topic };
  const d = await c.approve(pick.topic);
  return { approved: true, topic: pick.topic, partition: d.partition };
}
