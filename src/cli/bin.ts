/**
 * The `life-thread` executable (dist/cli.js): runs the CLI on this process's argv, streams and exit
 * code. It holds only the entry (./entry.ts); a verb's code is loaded from the bundle that holds it.
 */
import * as path from 'node:path';
import { startCli, type Bundle, type VerbModule } from './entry';

const BUNDLES: Record<Bundle, string> = { add: 'cli-add.js', main: 'cli-main.js' };

// A reader that went away (`| head`) is not an error of ours.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});
void startCli(
  process.argv.slice(2),
  process.env,
  process.cwd(),
  {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
  },
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (bundle) => require(path.join(__dirname, BUNDLES[bundle])) as VerbModule,
).then((code) => {
  // exitCode, not exit(): a large JSON answer on a pipe must drain first.
  process.exitCode = code;
});
