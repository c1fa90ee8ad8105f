/**
 * The window of the desk bench (test/runner/host.ts workspaceFileOf): the demo workspace `npm start`
 * opens (test/runner/demoWorkspace.ts), built in the suite's state folder, so its `tests` task is the
 * one the window's tasks list offers.
 */
import { join, resolve } from 'node:path';
import { makeDemoWorkspace } from '../../../../runner/demoWorkspace';

/** The repository's demo/, from this file's place in out/test/bench/host/suites/desk/ (each compiled test is a bundle of its own). */
const DEMO = resolve(__dirname, '..', '..', '..', '..', '..', '..', 'demo');

export async function folders(_fixture: string, stateDir: string): Promise<{ path: string; name?: string }[]> {
  return [{ path: await makeDemoWorkspace(join(stateDir, 'demo'), { from: DEMO }), name: 'demo' }];
}
