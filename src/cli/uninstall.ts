/**
 * dist/uninstall.js, run by VS Code (package.json `vscode:uninstall`) once Life Thread was removed and
 * VS Code restarted, from `<extensions dir>/<extension>/dist/`: removes that Life Thread's OS timers.
 */
import * as path from 'node:path';
import { realSystem } from '../node/service/system';
import { removeTimersOf } from './uninstallHook';

void removeTimersOf(path.dirname(path.dirname(__dirname)), realSystem(), (line) => process.stdout.write(`${line}\n`)).catch((e: unknown) => {
  process.stderr.write(`life-thread uninstall: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
