/**
 * A caller's `landing` made into a LandingRef where the wake is set: a deep link is
 * checked, and a code anchor takes its excerpt and hash from the file as it is now, so the ladder can
 * re-find the place after edits. The host passes its own file reader and symbol finder (open
 * documents, the document symbol provider); the CLI and the MCP server read the file from disk.
 */
import { promises as fsp } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { makeAnchor } from '../core/anchor/code';
import { type TextRange } from '../core/anchor/text';
import { InputError } from '../core/errors';
import { parseDeepLink, type LandingRef } from '../core/landing';
import type { LandingInput } from '../core/wake/contract';

export interface LandingContext {
  /** Relative paths are read from here (the workspace folder, or the CLI's working directory). */
  cwd: string;
  /** The `vscode` URI schemes Life Thread links may use here. */
  uriSchemes: readonly string[];
  field?: string;
  readText?: (path: string) => Promise<string>;
  /** The innermost symbol around a 0-based line, when there is a provider for the file. */
  symbolAt?: (path: string, line: number) => Promise<string | undefined>;
}

export async function landingFromInput(input: LandingInput, ctx: LandingContext): Promise<LandingRef> {
  const field = ctx.field ?? 'landing';
  if (input.kind === 'uri') {
    parseDeepLink(input.uri, ctx.uriSchemes, `${field}.uri`);
    return { kind: 'deep_link', uri: input.uri };
  }
  const path = isAbsolute(input.path) ? input.path : resolve(ctx.cwd, input.path);
  let text: string;
  try {
    text = await (ctx.readText ?? ((p: string) => fsp.readFile(p, 'utf8')))(path);
  } catch {
    throw new InputError(`${field}.path`, `${path} cannot be read`);
  }
  const lines = text.split('\n');
  if (input.endLine > lines.length) throw new InputError(`${field}.end_line`, `is past the end of ${path} (${lines.length} lines)`);
  const last = (lines[input.endLine - 1] ?? '').replace(/\r$/, '');
  const range: TextRange = { start: { line: input.startLine - 1, character: 0 }, end: { line: input.endLine - 1, character: last.length } };
  const symbol = input.symbol ?? (await ctx.symbolAt?.(path, input.startLine - 1)) ?? '';
  try {
    return { kind: 'code_anchor', anchor: makeAnchor(text, path, range, symbol) };
  } catch (err) {
    if (err instanceof InputError) throw new InputError(`${field}.${err.field === 'range' ? 'start_line' : err.field}`, err.reason);
    throw err;
  }
}
