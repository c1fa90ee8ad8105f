/**
 * `lifethread_resolveAnchor`: a CodeAnchor re-found by the ladder, or a message span of a
 * topic's export checked against its quote — input → resolution → answer text, written once for the
 * VS Code tool and the MCP server. Outside a window there is no document symbol provider: the symbol
 * step is skipped (and the answer says so), and `open` is refused (no window to open it in).
 */
import { readFile } from 'node:fs/promises';
import { prepareText } from '../../core/anchor/text';
import { resolveAnchorIn, type AnchorResolution, type CodeAnchor } from '../../core/anchor/code';
import { InputError } from '../../core/errors';
import { isInsideFolders } from '../../core/landing';
import { parseToolInput, resolveAnchorInputSchema } from '../../core/toolInputs';
import { resolveMessageAnchor } from '../../core/anchor/ladder';
import { spanOf } from '../../core/transcript';
import { readAllRecords } from '../topicFiles';

export interface AnchorToolHost {
  /** The ladder over the anchor's file (a window adds the symbol step). */
  resolve(anchor: CodeAnchor): Promise<AnchorResolution>;
  /** False where no symbol provider exists (the MCP server): the answer says the step was skipped. */
  symbolStep: boolean;
  /** Where a topic's files live. */
  topicDir(topic: string): string;
  /** Opens places for the user; absent outside a window, where `open: true` is refused. */
  open?: {
    anchor(anchor: CodeAnchor): Promise<void>;
    message(topic: string, msgId: string, start: number, end: number): Promise<void>;
  };
  /** Why `open` cannot be done here. */
  noOpen?: string;
}

/** Bad input throws InputError(field, reason). */
export async function resolveAnchorTool(input: unknown, host: AnchorToolHost): Promise<string> {
  const i = parseToolInput(resolveAnchorInputSchema, input);
  if (!i.anchor === !i.message) throw new InputError('anchor', 'give exactly one of anchor (a CodeAnchor) or message ({ topic, msgId, start, end, quote? })');
  if (i.open && !host.open) throw new InputError('open', host.noOpen ?? 'cannot open places here');
  if (i.anchor) {
    const res = await host.resolve(i.anchor);
    if (i.open) await host.open?.anchor(i.anchor);
    const lines = `${res.range.start.line + 1}-${res.range.end.line + 1}`;
    const skipped = !host.symbolStep && i.anchor.symbol !== '' ? ' The symbol step was skipped: no symbol provider outside a VS Code window.' : '';
    const text =
      res.step === 'orphaned'
        ? `The anchor is orphaned: ${res.reason}. Its old place was lines ${lines}.`
        : `Re-found by the "${res.step}" step at lines ${lines} of ${i.anchor.path}: ${res.reason}.`;
    return `${text}${skipped}\n\n${JSON.stringify({ step: res.step, range: res.range, healed: res.healed, original: res.original })}`;
  }
  const m = i.message;
  if (!m) throw new InputError('message', 'is missing');
  // Bounded partitions: the message may be in an earlier partition's export (history/).
  const records = await readAllRecords(host.topicDir(m.topic)).catch(() => []);
  if (m.quote !== undefined) {
    // With a quote, the anchor goes down the same ladder as a CodeAnchor: exact → moved in its message → orphaned.
    const record = records.find((r) => r.id === m.msgId);
    if (!record) throw new InputError('message', `no message ${m.msgId} in the exports of topic ${m.topic}`);
    const res = resolveMessageAnchor(record.text, { start: m.start, end: m.end, quote: m.quote });
    if (i.open && res.step !== 'orphaned') await host.open?.message(m.topic, m.msgId, res.start, res.end);
    const said =
      res.step === 'exact'
        ? `The quote stands at its span ${res.start}-${res.end} of message ${m.msgId} (step exact).`
        : res.step === 'excerpt'
          ? `The quote moved within message ${m.msgId}: it now stands at ${res.start}-${res.end} (step excerpt).`
          : `The anchor is orphaned: ${res.reason}. Its old span was ${m.start}-${m.end}.`;
    return `${said}\n\n${JSON.stringify({ msgId: m.msgId, step: res.step, start: res.start, end: res.end, quote: m.quote, quoteMatches: res.step === 'exact' })}`;
  }
  const span = spanOf(records, m.msgId, m.start, m.end);
  if ('error' in span) throw new InputError('message', span.error);
  if (i.open) await host.open?.message(m.topic, m.msgId, m.start, m.end);
  return `Message ${m.msgId} of topic ${m.topic}, characters ${m.start}-${m.end}: "${span.span}".\n\n${JSON.stringify({ msgId: m.msgId, start: m.start, end: m.end, text: span.span, quoteMatches: null })}`;
}

/** The ladder without the symbol step, over a file read from disk inside `roots` (the MCP server's folder). */
export async function resolveAnchorOnDisk(anchor: CodeAnchor, roots: readonly string[]): Promise<AnchorResolution> {
  if (!isInsideFolders(anchor.path, roots)) throw new InputError('anchor', `${anchor.path} is outside ${roots.join(', ')}; an anchor is resolved only inside the working folder`);
  let text: string;
  try {
    text = await readFile(anchor.path, 'utf8');
  } catch (e) {
    throw new InputError('anchor', `cannot read ${anchor.path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return resolveAnchorIn(prepareText(text), anchor);
}
