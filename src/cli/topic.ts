/**
 * `life-thread topic verify <topic dir>`: the chain of every export of the topic and the
 * anchors of its latest filled TopicDecisions (draft or approved). Needs no store. Exit 0, or 3 for a
 * broken chain or an anchor that does not stand, naming the first message; placeholders of an
 * unfilled stub are reported as "not filled yet" and do not fail.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { EXPORT_JSONL, DECISIONS_JSON } from '../core/continuity/documents';
import { InputError } from '../core/errors';
import { ExitError } from './exits';
import { verifyTopic, type TopicVerification } from '../core/topicVerify';
import { readAllDecisions, readExports, TopicFileError } from '../node/topicFiles';

/** A topic that does not hold: exit 3 with the first broken message. */
export class TopicBroken extends ExitError {
  constructor(field: string, reason: string) {
    super(field, reason, 3);
    this.name = 'TopicBroken';
  }
}

export interface TopicContext {
  rest: string[];
  json: boolean;
  cwd: string;
  out: (text: string) => void;
}

function report(dir: string, v: TopicVerification): string {
  const lines = [`topic ${dir}`];
  for (const c of v.chains) lines.push(`  ${c.file}: ${c.messages} message${c.messages === 1 ? '' : 's'}, ${c.ok ? 'chain intact' : `chain broken ${c.firstBroken !== undefined ? `at ${c.firstBroken}` : 'at its end'}: ${c.problems[0] ?? ''}`}`);
  if (v.chains.length === 0) lines.push('  no export yet');
  if (v.checked) lines.push(`  ${v.checked.file} (partition ${v.checked.partition}, ${v.checked.kind}): ${v.checked.anchors} anchor${v.checked.anchors === 1 ? '' : 's'} checked, ${v.broken.length} broken`);
  for (const b of v.broken) lines.push(`    ${b.where}: ${b.reason}`);
  for (const n of v.notFilled) lines.push(`  not filled yet: ${n}`);
  lines.push(v.ok ? `ok — ${v.line}` : `BROKEN — ${v.firstProblem ?? v.line}`);
  return `${lines.join('\n')}\n`;
}

export async function topicVerify(ctx: TopicContext): Promise<void> {
  const [arg, extra] = ctx.rest;
  if (arg === undefined || arg.trim() === '') throw new InputError('dir', 'is missing: give the topic folder, e.g. .life-thread/topics/main');
  if (extra !== undefined) throw new InputError('command', `unexpected argument '${extra}' after the folder`);
  const dir = path.resolve(ctx.cwd, arg);
  const st = await fsp.stat(dir).catch(() => null);
  if (!st?.isDirectory()) throw new InputError('dir', `${dir} is not a folder`);
  let v: TopicVerification;
  try {
    const exports = await readExports(dir);
    const decisions = await readAllDecisions(dir);
    if (exports.length === 0 && decisions.length === 0) throw new InputError('dir', `${dir} holds no ${EXPORT_JSONL} and no ${DECISIONS_JSON}: is it a topic folder (<workspace>/.life-thread/topics/<topic>)?`);
    v = verifyTopic({ exports, decisions });
  } catch (e) {
    if (e instanceof TopicFileError) throw new TopicBroken('file', e.message);
    throw e;
  }
  ctx.out(ctx.json ? `${JSON.stringify({ dir, ok: v.ok, firstProblem: v.firstProblem ?? null, chains: v.chains, checked: v.checked ?? null, broken: v.broken, notFilled: v.notFilled }, null, 2)}\n` : report(dir, v));
  if (!v.ok) {
    const chain = v.chains.find((c) => !c.ok);
    throw new TopicBroken(chain ? 'export' : 'anchor', v.firstProblem ?? v.line);
  }
}
