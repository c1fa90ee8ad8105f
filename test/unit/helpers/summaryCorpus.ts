/** The summary corpus (test/fixtures/summaries): real tool output with the summary, counts and locus expected of each. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

const locusSchema = z
  .object({ path: z.string().min(1), line: z.number().int().positive(), column: z.number().int().positive().optional(), recogniser: z.string().min(1) })
  .strict();

const outputSchema = z
  .object({
    file: z.string().regex(/^[\w.-]+\.log$/),
    tool: z.string().min(1),
    command: z.string().min(1),
    workspace: z.string().startsWith('/'),
    exitCode: z.number().int(),
    counts: z.record(z.string(), z.number().int().nonnegative()),
    summary: z.string(),
    locus: locusSchema.nullable(),
  })
  .strict();

const manifestSchema = z.object({ about: z.string(), outputs: z.array(outputSchema).min(30) }).strict();

export type CorpusOutput = z.infer<typeof outputSchema> & { text: string };

/** The corpus folder, found upward from the compiled test (out/test/…) so any checkout path works. */
export function corpusDir(): string {
  for (let d = __dirname; ; d = dirname(d)) {
    const candidate = join(d, 'test', 'fixtures', 'summaries');
    if (existsSync(join(candidate, 'manifest.json'))) return candidate;
    if (dirname(d) === d) throw new Error(`test/fixtures/summaries/manifest.json not found above ${__dirname}`);
  }
}

export function loadCorpus(): CorpusOutput[] {
  const dir = corpusDir();
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')));
  return manifest.outputs.map((o) => ({ ...o, text: readFileSync(join(dir, o.file), 'utf8') }));
}

const SINGULAR_TO_KEY: Record<string, string> = { error: 'errors', warning: 'warnings', test: 'tests', problem: 'problems' };

/** The counts a summary states: the first `N word` for each word (`1 error` counts as `errors`). */
export function countsInSummary(summary: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of summary.matchAll(/\b(\d+) ([A-Za-z]+)/g)) {
    const word = m[2] ?? '';
    const key = SINGULAR_TO_KEY[word] ?? word;
    if (!out.has(key)) out.set(key, Number(m[1]));
  }
  return out;
}

/** True when the summary states every count the tool printed, with the tool's numbers. */
export function hasRightCounts(summary: string, expected: Readonly<Record<string, number>>): boolean {
  const got = countsInSummary(summary);
  return Object.entries(expected).every(([k, n]) => got.get(k) === n);
}
