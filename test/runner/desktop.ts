/**
 * `npm run test:desktop`: the same host suites under desktop VS Code through @vscode/test-electron,
 * for machines that can download VS Code (CI here cannot). Phases share one user-data-dir.
 * Runner actions that need a browser page (blur/focus, screenshots) are skipped there.
 */
import { runTests } from '@vscode/test-electron';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './codeServer';
import { copyExtension, fixtureExtensions } from './install';

async function main(): Promise<void> {
  const suitesDir = join(ROOT, 'out', 'test', 'host', 'suites');
  const results = join(ROOT, 'test-results', 'desktop');
  let failed = false;
  for (const suite of readdirSync(suitesDir).sort()) {
    const stateDir = join(results, suite);
    rmSync(stateDir, { recursive: true, force: true });
    const workspace = join(stateDir, 'workspace');
    cpSync(join(ROOT, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
    for (const phase of readdirSync(join(suitesDir, suite)).filter((p) => /^\d+$/.test(p)).sort()) {
      const files = readdirSync(join(suitesDir, suite, phase)).filter((f) => f.endsWith('.test.js')).map((f) => join(suitesDir, suite, phase, f));
      const phaseFile = join(stateDir, `phase-${phase}.json`);
      mkdirSync(join(stateDir, 'acks'), { recursive: true });
      writeFileSync(phaseFile, JSON.stringify({ suite, phase, files, ackDir: join(stateDir, 'acks'), resultsDir: results, runner: 'desktop' }));
      const extensionsDir = join(stateDir, 'extensions');
      for (const ext of fixtureExtensions()) copyExtension(ext, extensionsDir);
      const code = await runTests({
        extensionDevelopmentPath: ROOT,
        extensionTestsPath: join(ROOT, 'out', 'test', 'host', 'index.js'),
        launchArgs: [workspace, '--user-data-dir', join(stateDir, 'user-data'), '--extensions-dir', extensionsDir, '--disable-workspace-trust'],
        extensionTestsEnv: { LIFE_THREAD_TEST_PHASE: phaseFile },
      }).catch((err: unknown) => {
        console.error(err);
        return 1;
      });
      if (code !== 0) failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
}

void main();
