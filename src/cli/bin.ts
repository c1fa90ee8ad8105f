/** The `life-thread` executable (dist/cli.js): runs `main` on this process's argv, streams and exit code. */
import { main } from './main';

// A reader that went away (`| head`) is not an error of ours.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});
void main(process.argv.slice(2), process.env, process.cwd(), {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
}).then((code) => {
  // exitCode, not exit(): a large JSON answer on a pipe must drain first.
  process.exitCode = code;
});
