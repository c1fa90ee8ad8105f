// docs/architecture.md names files and folders of this repository: each must exist, so the page
// cannot drift from the code without a failing test. README must link the page.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { REPO } from './helpers/cliHarness';

const TOP = ['src', 'test', 'docs', 'scripts', 'webview', 'media', 'demo', '.ci'];

/** The repository paths a markdown text names in backticks or as link targets. */
function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`|\]\(([^)\s#]+)\)/g)) {
    const p = m[1] ?? m[2] ?? '';
    if (TOP.some((t) => p === t || p.startsWith(`${t}/`)) || /^[\w.-]+\.(md|json|mjs)$/.test(p) && existsSync(path.join(REPO, p))) out.add(p);
  }
  return [...out];
}

describe('docs/architecture.md', () => {
  const doc = readFileSync(path.join(REPO, 'docs', 'architecture.md'), 'utf8');

  it('names at least the files of both flows', () => {
    const paths = namedPaths(doc);
    assert.ok(paths.length >= 60, `only ${paths.length} paths named`);
    for (const p of ['src/core/wake/pulse.ts', 'src/node/dispatchLoop.ts', 'src/node/fire.ts']) assert.ok(paths.includes(p), p);
  });

  it('names only paths that exist', () => {
    const missing = namedPaths(doc).filter((p) => !existsSync(path.join(REPO, p)));
    assert.deepEqual(missing, []);
  });

  it('finds a path that does not exist (the check can fail)', () => {
    const missing = namedPaths('see `src/node/nowhere.ts` and [x](docs/none.md)').filter((p) => !existsSync(path.join(REPO, p)));
    assert.deepEqual(missing, ['src/node/nowhere.ts', 'docs/none.md']);
  });

  it('is linked from README', () => {
    assert.match(readFileSync(path.join(REPO, 'README.md'), 'utf8'), /\]\(docs\/architecture\.md\)/);
  });
});
