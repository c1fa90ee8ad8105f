/** TopicDecisions.md and HandoverOps.md: the documents as readable Markdown beside their JSON. */
import { messageLink } from '../anchor/links';
import type { MessageAnchor } from '../transcript';
import type { DecisionItem, HandoverOps, TopicDecisions } from './documents';

/** Backslash-escapes Markdown inline syntax and folds line breaks (for one-line texts). */
function inline(s: string): string {
  return s.replace(/[\\`*_[\]<>#|~!]/g, (c) => `\\${c}`).replace(/\s*(?:\r\n?|\n)\s*/g, ' ');
}

/** A paragraph: Markdown escaped, line breaks kept as hard breaks. */
function block(s: string): string {
  return s
    .split(/\r\n?|\n/)
    .map((l) => inline(l))
    .join('  \n');
}

function linkTarget(url: string): string {
  return url.replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/ /g, '%20');
}

/** The `intercom://message/<topic>/<msgId>#<start>-<end>` link of an anchor. */
export function anchorLink(topic: string, a: MessageAnchor): string {
  return messageLink(topic, a.msgId, a.start, a.end);
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function renderAnchor(topic: string, a: MessageAnchor, exportLink?: string): string {
  const link = `[${inline(a.msgId)} ${a.start}–${a.end}](${linkTarget(anchorLink(topic, a))})`;
  const inExport = exportLink ? ` ([in the export](${linkTarget(`${exportLink}#${encodeURIComponent(a.msgId)}`)}))` : '';
  return `${link}${inExport}: “${inline(cut(a.quote, 300))}”`;
}

function renderItems(topic: string, items: readonly DecisionItem[], exportLink: string | undefined, none: string): string {
  if (items.length === 0) return `_${none}_\n`;
  return items
    .map((it, i) => {
      const lines = [`${i + 1}. **${inline(it.text)}**`];
      lines.push(`   - Reason: ${inline(it.reason) || '_none given_'}`);
      if (it.carriedFrom !== undefined) lines.push(`   - Carried forward from partition ${it.carriedFrom}`);
      if (it.supersedes !== undefined) lines.push(`   - Supersedes: ${inline(it.supersedes)}`);
      for (const a of it.anchors) lines.push(`   - ${renderAnchor(topic, a, exportLink)}`);
      return lines.join('\n');
    })
    .join('\n')
    .concat('\n');
}

/** TopicDecisions as readable Markdown; anchors as intercom:// links with their quotes; links to the ops file and the export. */
export function renderDecisionsMarkdown(d: TopicDecisions, opts: { exportLink?: string } = {}): string {
  const { exportLink } = opts;
  const out: string[] = [];
  out.push(`# TopicDecisions — ${inline(d.topic)} · partition ${d.partition}\n`);
  const meta = [`Written ${d.createdAt}.`];
  if (d.previous !== undefined) meta.push(`Follows partition ${d.previous} (\`history/${d.previous}/\`).`);
  meta.push(`Handover ops (short-lived, read when executing): [${inline(d.opsLink)}](${linkTarget(d.opsLink)}).`);
  if (exportLink) meta.push(`Transcript: [${inline(exportLink)}](${linkTarget(exportLink)}).`);
  meta.push('Source of truth: `topic-decisions.json`.');
  out.push(`\n${meta.join(' ')}\n`);
  out.push(`\n## Frame\n\n${d.frame.trim() ? block(d.frame) : '_empty_'}\n`);
  out.push(`\n## Rejected\n\n${renderItems(d.topic, d.rejected, exportLink, 'nothing rejected')}`);
  out.push(`\n## Accepted\n\n${renderItems(d.topic, d.accepted, exportLink, 'nothing accepted')}`);
  out.push('\n## New\n\n');
  if (d.new.length === 0) out.push('_nothing new_\n');
  for (const n of d.new) {
    out.push(`- ${inline(n.text)}\n`);
    if (n.supersedes !== undefined) out.push(`  - Supersedes: ${inline(n.supersedes)}\n`);
    for (const a of n.anchors ?? []) out.push(`  - ${renderAnchor(d.topic, a, exportLink)}\n`);
  }
  out.push('\n## Next\n\n');
  if (d.next.length === 0) out.push('_empty_\n');
  d.next.forEach((n, i) => out.push(`${i + 1}. ${inline(n)}\n`));
  out.push('\n## Anchors\n\n');
  if (d.anchors.length === 0) out.push('_no other notable spans_\n');
  for (const a of d.anchors) out.push(`- ${renderAnchor(d.topic, a, exportLink)}\n`);
  return out.join('');
}

function list(items: readonly string[], none: string, code = false): string {
  if (items.length === 0) return `_${none}_\n`;
  return items.map((i) => `- ${code ? `\`${i.replace(/`/g, "'")}\`` : inline(i)}\n`).join('');
}

/** Handover ops as readable Markdown: the link back to TopicDecisions first, the expiry, the state (stale/fresh) when checked. */
export function renderOpsMarkdown(ops: HandoverOps, opts: { stale?: string[] } = {}): string {
  const out: string[] = [];
  out.push(`# Handover ops — ${inline(ops.topic)} · partition ${ops.partition}\n`);
  out.push(`\nRead the decisions first: [${inline(ops.decisionsLink)}](${linkTarget(ops.decisionsLink)}). These ops are the state of the desk, not its meaning.\n`);
  out.push(`\nWritten ${ops.createdAt}; **expires ${ops.expiresAt}** — after that, re-check before trusting anything below.\n`);
  if (opts.stale !== undefined) {
    if (opts.stale.length === 0) out.push('\nState: **fresh** when last checked.\n');
    else out.push(`\nState: **stale** —\n\n${opts.stale.map((s) => `- ${inline(s)}\n`).join('')}`);
  }
  out.push('\n## Repository\n\n');
  if (!ops.repo) out.push('_not in a git repository_\n');
  else {
    out.push(`- Root: \`${ops.repo.root.replace(/`/g, "'")}\`\n`);
    out.push(`- Branch: ${ops.repo.branch ? `\`${ops.repo.branch.replace(/`/g, "'")}\`` : '_detached HEAD_'}\n`);
    out.push(`- HEAD: ${ops.repo.head ? `\`${ops.repo.head}\`` : '_no commits_'}\n`);
    out.push(`- Dirty files (${ops.repo.dirty.length}):\n`);
    out.push(ops.repo.dirty.length === 0 ? '  _none_\n' : ops.repo.dirty.map((p) => `  - \`${p.replace(/`/g, "'")}\`\n`).join(''));
  }
  out.push(`\n## Open editors\n\n${list(ops.openEditors, 'none', true)}`);
  out.push(`\n## Running tasks\n\n${list(ops.runningTasks, 'none')}`);
  out.push(`\n## Open items\n\n${list(ops.openItems, 'none')}`);
  out.push(`\n## First moves\n\n${list(ops.firstMoves, 'none')}`);
  return out.join('');
}
