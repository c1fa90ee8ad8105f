import { EXPORT_JSONL } from '../core/continuity/documents';
import { lintDecisions } from '../core/continuity/lint';
import { errorLine } from '../core/errors';
import { conversation, newSpan } from '../core/topicSpan';
import { verifyTopic } from '../core/topicVerify';
import { topicView } from '../core/topicView';
import type { StateOptions } from '../node/git';
import { readOpsChecked } from '../node/opsChecked';
import { historyPartitions, readAllDecisions, readDecisions, readDraft, readExports, readHistoryDecisions, readTranscript, TopicFileError } from '../node/topicFiles';
import type { TopicView } from '../shared/protocol';
import { ownerZone } from './scheduleFeature';

/**
 * A topic as the panel shows it, read afresh: the pair, the draft with its lint, the ops re-checked,
 * the exports verified, the history. A topic that cannot be read shows why instead.
 */
export async function topicPanelNow(topic: string, topics: string[], dir: string, git: StateOptions): Promise<TopicView> {
  try {
    const tz = ownerZone();
    const [current, draft, { ops, check }, exports, decisions, transcript, history] = await Promise.all([readDecisions(dir), readDraft(dir), readOpsChecked(dir, { ...git, tz }), readExports(dir), readAllDecisions(dir), readTranscript(dir), historyPartitions(dir)]);
    const exported = exports.find((e) => e.file === EXPORT_JSONL);
    const since = conversation(newSpan(transcript.messages, new Set((exported?.records ?? []).map((r) => r.id))));
    const records = exports.flatMap((e) => e.records);
    const previous = current?.previous !== undefined ? await readHistoryDecisions(dir, current.previous) : null;
    const historyRows = [];
    for (const n of history.sort((a, b) => b - a)) {
      const h = decisions.find((d) => d.kind === 'history' && d.decisions.partition === n);
      const e = exports.find((x) => x.file.startsWith(`history/${n}/`));
      historyRows.push({ partition: n, createdAt: h?.decisions.createdAt ?? '', frame: h?.decisions.frame ?? '', messages: e?.records.length ?? 0 });
    }
    return topicView({
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
  } catch (err) {
    const line = err instanceof TopicFileError ? `cannot read ${err.file}: ${err.reason}` : `cannot read topic ${topic}: ${errorLine(err)}`;
    return { topic, topics, partition: null, state: 'none', decisions: null, review: null, ops: null, verify: { ok: false, line, problems: [line], notFilled: [] }, history: [], newMessages: 0 };
  }
}
