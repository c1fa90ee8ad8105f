// The import-cycle check of `npm run lint` (scripts/import-cycles.mjs) on small trees of its own:
// a circle through a type-only import is found, a tree without one passes, and this repository has none.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { REPO } from './helpers/cliHarness';

const script = path.join(REPO, 'scripts', 'import-cycles.mjs');
const dirs: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lt-cycles-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function check(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', cwd: REPO });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('import cycles', () => {
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('finds a circle closed by a type-only import, naming both files', () => {
    const dir = tree({
      'a/jobs.ts': "import type { Store } from '../b/schedule';\nexport const x = (s: Store) => s;\n",
      'b/schedule.ts': "import { x } from '../a/jobs';\nexport interface Store { n: number }\nexport const y = x;\n",
      'c.ts': "import { y } from './b/schedule';\nexport const z = y;\n",
    });
    const r = check(dir);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /import cycle: .*jobs\.ts ↔ .*schedule\.ts/);
    assert.doesNotMatch(r.out, /c\.ts/);
  });

  it('finds a longer circle and one through an index file', () => {
    const dir = tree({
      'p.ts': "export { q } from './q';\nexport const p = 1;\n",
      'q.ts': "import { r } from './r';\nexport const q = r;\n",
      'r/index.ts': "import { p } from '../p';\nexport const r = p;\n",
    });
    const r = check(dir);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /p\.ts ↔ .*q\.ts ↔ .*index\.ts/);
  });

  it('passes a tree whose imports all go one way', () => {
    const dir = tree({
      'a.ts': "import type { B } from './b';\nexport const a = (b: B) => b;\n",
      'b.ts': "import { c } from './c';\nexport type B = typeof c;\n",
      'c.ts': "import * as fs from 'node:fs';\nexport const c = fs;\n",
    });
    const r = check(dir);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /import cycles: none/);
  });

  it("this repository's src/ and webview/ have none", () => {
    const r = check();
    assert.equal(r.status, 0, r.out);
  });
});
