/** Temp directories for one test file: a root made before its tests and removed after them. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before } from 'node:test';

export interface TempDirs {
  root(): string;
  /** A new, empty directory under the root. */
  freshDir(): string;
  /** A new path under the root that does not exist yet. */
  freshPath(name: string): string;
}

export function tempDirs(prefix: string): TempDirs {
  let root = '';
  let seq = 0;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    freshDir: () => {
      const d = path.join(root, `t${++seq}`);
      fs.mkdirSync(d);
      return d;
    },
    freshPath: (name) => path.join(root, `${name}-${++seq}`),
  };
}
