/** `life-thread wake add | list | cancel`: the wakes a terminal sets and sees (fired by a window, `wait` or `mcp`: ./agentVerbs.ts). */
import { InputError } from '../core/errors';
import { CLI_WAKE_FIELDS, DELAY_MAX_SECONDS, parseWakeInput } from '../core/wake/contract';
import { describeWake, type WakeRow } from '../core/wake/row';
import { ownerOf } from '../core/claim';
import { cliHolder } from '../node/liveness';
import { landingFromInput } from '../node/landingInput';
import { valueOf } from './args';
import { emitJson, nestedGuard, noPositionals, zone, type Context } from './context';
import { wakeStore } from './commands';

/** Life Thread's own links from a terminal: desktop VS Code's scheme and code-server's. */
const CLI_URI_SCHEMES = ['vscode', 'vscode-insiders', 'code-oss'];

function delaySeconds(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const t = raw.trim();
  if (!/^\d{1,9}$/.test(t)) throw new InputError('delay-seconds', `must be a whole number of seconds from 1 to ${DELAY_MAX_SECONDS} (30 days), got '${raw}'`);
  return Number(t);
}

export async function wakeAdd(ctx: Context): Promise<void> {
  noPositionals(ctx);
  nestedGuard(ctx);
  const now = ctx.clock();
  const input = {
    text: valueOf(ctx.args, 'text'),
    delay_seconds: delaySeconds(valueOf(ctx.args, 'delay-seconds')),
    at: valueOf(ctx.args, 'at'),
    when: valueOf(ctx.args, 'on'),
    job_id: valueOf(ctx.args, 'job-id'),
    thread_id: valueOf(ctx.args, 'thread'),
    cancel_token: valueOf(ctx.args, 'cancel-token'),
    landing: valueOf(ctx.args, 'landing'),
  };
  const parsed = parseWakeInput(input, { now, tz: ctx.tz, fieldNames: CLI_WAKE_FIELDS });
  // A call with only a cancel token cancels in the tool; on the CLI that is 'wake cancel K'.
  if (parsed.kind === 'cancel') throw new InputError('text', `is missing: give --text T; to cancel, use 'life-thread wake cancel ${parsed.cancelToken}'`);
  const landing = parsed.landing ? await landingFromInput(parsed.landing, { cwd: ctx.cwd, uriSchemes: CLI_URI_SCHEMES, field: 'landing' }) : undefined;
  const row = await wakeStore(ctx).add(parsed, { now, owner: ownerOf(cliHolder(), { kind: 'cli', cwd: ctx.cwd }), sender: { kind: 'cli' }, ...(landing ? { landing } : {}) });
  if (ctx.json) return emitJson(ctx, row);
  const thread = row.threadId === undefined ? '' : ` in thread ${row.threadId}`;
  const token = row.cancelToken === undefined ? '' : `; cancel with 'life-thread wake cancel ${row.cancelToken}'`;
  ctx.out(`Added ${row.id}: wakes${thread} ${parsed.description}${token}. It wakes @life in VS Code, or prints with 'life-thread wait ${row.id}' (${zone(ctx)})\n`);
}

function wakeLine(row: WakeRow, tz: string, now: Date): string {
  const what = row.text !== undefined ? `"${clipLine(row.text, 80)}"` : `payload ${clipLine(JSON.stringify(row.payload), 80)}`;
  const extra = [row.threadId === undefined ? '' : `thread ${row.threadId}`, row.cancelToken === undefined ? '' : `cancel token ${row.cancelToken}`].filter((s) => s !== '').join(', ');
  const f = row.fact;
  const fact = f === undefined ? '' : `\n    last: ${[f.jobStatus ? `job ${f.jobStatus}${f.exitCode !== undefined && f.exitCode !== null ? ` (exit ${f.exitCode})` : ''}${f.timedOut === true ? ' (timed out)' : ''}` : '', f.delivered === true ? `delivered${f.via ? ` via ${f.via}` : ''}` : f.delivered === false ? 'not delivered' : '', f.summary ?? '', f.error ?? ''].filter((s) => s !== '').join(', ')}`;
  return `${row.id}  ${row.status}${row.heldReason ? ` (${row.heldReason})` : ''}  ${row.when}  ${describeWake(row, now, tz)}\n    ${what}${extra === '' ? '' : `\n    ${extra}`}${fact}`;
}

function clipLine(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

export async function wakeList(ctx: Context): Promise<void> {
  noPositionals(ctx);
  const snap = await wakeStore(ctx).read();
  if (ctx.json) return emitJson(ctx, snap.rows);
  const now = ctx.clock();
  const n = snap.rows.length;
  const lines = [`${n === 0 ? 'No' : n} wake${n === 1 ? '' : 's'} (times in ${zone(ctx)}; fired by the VS Code extension or life-thread wait)`];
  for (const row of snap.rows) lines.push(wakeLine(row, ctx.tz, now));
  const q = snap.quarantined.length;
  if (q > 0) lines.push(`${q} row${q === 1 ? '' : 's'} of wakes.json failed validation and will be quarantined; see life-thread doctor`);
  ctx.out(`${lines.join('\n')}\n`);
}

export async function wakeCancel(ctx: Context): Promise<void> {
  const [token, extra] = ctx.rest;
  if (token === undefined || token.trim() === '') throw new InputError('cancel-token', "is missing: give the wake's cancel token, e.g. life-thread wake cancel build-watch");
  if (extra !== undefined) throw new InputError('command', `unexpected argument '${extra}' after the cancel token`);
  const removed = await wakeStore(ctx).cancel(token, 'cancel-token');
  if (ctx.json) return emitJson(ctx, removed);
  ctx.out(`Cancelled ${removed.length} wake${removed.length === 1 ? '' : 's'} holding '${token.trim()}': ${removed.map((r) => r.id).join(', ')}\n`);
}
