/**
 * The demo's failing `npm test` (demo/test/run.js: a stack into src/calc.js, "3 passed, 1 failed", an
 * HTML report in reports/) through the job-finish pipeline in the real extension host: run as a VS Code
 * task, the wake lands on the failing line of src/calc.js as a CodeAnchor and keeps the evidence — the
 * pulse's `evidence:` line, and an "Open evidence" CodeLens on the landed line that opens it on the
 * summary line — while the report is remembered on the desk. The same command through
 * `life-thread run --wake … -- npm test` in a terminal lands the same way, its log as the evidence.
 * The pulse names workspace paths (demo/src/calc.js, .life-thread/evidence/<wake id>.log), and the
 * evidence lives in the workspace's continuity folder, which git never sees.
 * When the workspace's evidence folder cannot be written, the evidence goes to the store and the pulse
 * names it by its absolute path, whole. Evidence past 7 days (its file times set back) is pruned when new
 * evidence is written.
 * Default desk settings (nothing at 127.0.0.1:9222, no chromiumPath): `desk: none`.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as vscode from 'vscode';
import { EXTENSION_ID } from '../../../../../src/shared/commands';
import { DEMO_ENV, runDemoTestsWithWake } from '../../../demoRun';
import { lifeThread, waitFor } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
/** The demo, copied into the test workspace as a folder of its own. */
const demo = (): string => join(root(), 'demo');

/** Resolves with the pulse (and what its landing opened) when the wake `id` is delivered. */
async function delivered(id: string, ms = 60_000): Promise<string> {
  const api = await lifeThread();
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wake ${id} was not delivered within ${ms} ms`)), ms);
    const sub = api.wakes.onDidDeliver((e) => {
      if (!e.ids.includes(id)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e.text);
    });
  });
}

async function wakeOn(jobId: string, text: string): Promise<{ id: string; pulse: Promise<string> }> {
  const answer = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input: { text, when: 'job.done', job_id: jobId }, toolInvocationToken: undefined }));
  const { id } = JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string };
  return { id, pulse: delivered(id) };
}

/** The demo's `npm test` as a shell task in the demo folder, its terminal not revealed. */
function demoTask(name: string): vscode.Task {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder);
  const t = new vscode.Task({ type: 'shell', demoTests: name }, folder, name, 'jobfinish-test', new vscode.ShellExecution('npm test', { cwd: demo(), env: DEMO_ENV }), []);
  t.presentationOptions = { reveal: vscode.TaskRevealKind.Never };
  return t;
}

const escape = (s: string): string => s.replace(/[/.\\^$*+?()[\]{}|]/g, '\\$&');

/** What the pulse says the code landing and its evidence are: paths relative to the workspace folder (demo/src/calc.js), never absolute. */
function codeLandingOf(pulse: string): { evidence: string } {
  assert.match(pulse, new RegExp(`landing: \\{ kind: code_anchor, path: "${escape('demo/src/calc.js')}", symbol: "Calculator\\.average", lines: "L19-L19", step: exact \\}\\n {2}evidence: "`), pulse);
  assert.doesNotMatch(pulse, new RegExp(escape(root())), 'no absolute path into the workspace');
  const evidence = /\n {2}evidence: "([^"]+)"/.exec(pulse)?.[1];
  assert.ok(evidence, pulse);
  return { evidence };
}

/** The window's evidence folder: the continuity folder of the workspace's first folder. */
const evidenceDir = (): string => join(root(), '.life-thread', 'evidence');

const git = (...args: string[]): string => execFileSync('git', args, { cwd: root(), encoding: 'utf8' }).trim();

/** Nothing the evidence folder holds shows in `git status` of a repository whose own .gitignore does not name .life-thread. */
function assertNothingToCommit(): void {
  const status = git('status', '--porcelain', '--untracked-files=all');
  assert.doesNotMatch(status, /\.life-thread\/evidence/, status);
}

/** The landed line's "Open evidence" lens is run: the evidence opens in an editor (on the summary line when its link names one). */
async function openEvidenceFromLens(expectedPath: string, expectedLine?: number): Promise<void> {
  const calc = vscode.Uri.file(join(demo(), 'src', 'calc.js'));
  const lenses = await waitFor(async () => {
    const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', calc, 10);
    const mine = all.filter((l) => l.command?.title === 'Open evidence');
    return mine.length > 0 ? mine : undefined;
  }, 10_000, 'the Open evidence lens on calc.js');
  assert.equal(lenses.length, 1);
  const lens = lenses[0];
  assert.ok(lens?.command);
  assert.equal(lens.range.start.line, 18, 'the lens is on the landed line');
  await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));
  const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath === expectedPath ? vscode.window.activeTextEditor : undefined), 10_000, `the evidence ${expectedPath} in front`);
  if (expectedLine === undefined) {
    assert.match(editor.document.getText(), /\n3 passed, 1 failed \(\d+\.\d s\)\n/, 'the job\u2019s output');
    return;
  }
  assert.equal(editor.selection.start.line + 1, expectedLine, 'the evidence opens on the line its link names');
  assert.match(editor.document.lineAt(editor.selection.start.line).text, /^3 passed, 1 failed \(\d+\.\d s\)$/, 'the summary line');
}

describe('the demo\u2019s failing tests through the job-finish pipeline', function () {
  this.timeout(180_000);
  useScriptedModel(() => ({ text: 'woken' }));

  before(async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    rmSync(demo(), { recursive: true, force: true });
    cpSync(join(ext.extensionPath, 'demo'), demo(), { recursive: true });
    // The workspace as a repository whose own .gitignore says nothing of .life-thread.
    if (!existsSync(join(root(), '.git'))) {
      git('init', '-q');
      writeFileSync(join(root(), '.gitignore'), 'node_modules/\n');
      git('add', '-A');
      git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'the workspace');
    }
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', undefined, vscode.ConfigurationTarget.Global);
  });

  it('as a task: the wake lands on src/calc.js:19 (Calculator.average), the pulse keeps the evidence, the lens opens it on the summary line, and the report is on the desk', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Evidence left by earlier jobs, its age set back by its file times: what is past 7 days goes when this job's is written.
    mkdirSync(evidenceDir(), { recursive: true });
    const aged = (name: string, days: number): string => {
      const p = join(evidenceDir(), name);
      writeFileSync(p, 'an earlier job\n');
      const t = new Date(Date.now() - days * 86_400_000);
      utimesSync(p, t, t);
      return p;
    };
    const old = aged('w-olderthan7.log', 7.1);
    const recent = aged('w-sixdaysold.log', 6);
    const w = await wakeOn('demo tests', 'DEMO-TASK the demo tests ended');
    await vscode.tasks.executeTask(demoTask('demo tests'));
    const pulse = await w.pulse;
    assert.match(pulse, /job: \{ id: "demo tests", status: failed, exit_code: 1 \}/, pulse);
    assert.match(pulse, /summary: "3 passed, 1 failed \(\d+\.\d s\)"/, pulse);
    const { evidence } = codeLandingOf(pulse);
    const m = /^\.life-thread\/evidence\/(w-[A-Za-z0-9_-]+)\.log#L(\d+)$/.exec(evidence);
    assert.ok(m, `the evidence is the job's output on its summary line, in the workspace: ${evidence}`);
    assert.equal(m[1], w.id, 'named after the wake');
    const file = join(evidenceDir(), `${w.id}.log`);
    assert.ok(existsSync(file), `${file} is written`);
    assert.ok(!existsSync(join(api.storeDir, 'evidence', `${w.id}.log`)), 'not in the store');
    assert.match(readFileSync(join(evidenceDir(), '.gitignore'), 'utf8'), /^\*$/m);
    assert.equal(existsSync(old), false, 'evidence past 7 days is pruned');
    assert.ok(existsSync(recent), 'evidence of 6 days is kept');
    rmSync(recent);
    assertNothingToCommit();
    // The landing put the failing line in front.
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(join('demo', 'src', 'calc.js')) ? vscode.window.activeTextEditor : undefined), 10_000, 'calc.js in front');
    assert.equal(editor.selection.start.line, 18);
    // The desk remembers the HTML report the output named (no desk browser: `desk: none`).
    assert.match(pulse, /\n {2}desk: none\b/, pulse);
    const report = pathToFileURL(join(demo(), 'reports', 'tests.html')).href;
    assert.ok((await api.desk.desk.pages()).some((p) => p.url === report), 'the report is remembered on the desk');
    await openEvidenceFromLens(file, Number(m[2]));
  });

  it('a workspace evidence folder that cannot be written: the evidence goes to the store, and the pulse names it by its absolute path', async () => {
    const api = await lifeThread();
    const store = join(api.storeDir, 'evidence');
    /** The demo task under a wake; its pulse's evidence is the store's file, absolute, on the summary line. */
    const inStore = async (name: string, before: (id: string) => void): Promise<void> => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const w = await wakeOn(name, `DEMO-STORE ${name} ended`);
      before(w.id);
      await vscode.tasks.executeTask(demoTask(name));
      const pulse = await w.pulse;
      const { evidence } = codeLandingOf(pulse);
      const file = join(store, `${w.id}.log`);
      const m = new RegExp(`^${escape(file)}#L(\\d+)$`).exec(evidence);
      assert.ok(m, `the evidence is the store's ${file}, absolute and whole: ${evidence}`);
      assert.match(readFileSync(file, 'utf8').split('\n')[Number(m[1]) - 1] ?? '', /^3 passed, 1 failed \(\d+\.\d s\)$/, 'on the summary line');
      const there = join(evidenceDir(), `${w.id}.log`);
      assert.ok(!existsSync(there) || !statSync(there).isFile(), 'nothing written in the workspace');
      await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(join('demo', 'src', 'calc.js')) ? true : undefined), 10_000, 'calc.js in front');
    };
    // The folder is there but the file cannot be written in it (what a read-only folder does; the host
    // runs as root, whom a mode does not stop, so a folder stands where the file would go).
    const blocked: string[] = [];
    await inStore('demo tests blocked file', (id) => {
      const at = join(evidenceDir(), `${id}.log`);
      mkdirSync(at, { recursive: true });
      blocked.push(at);
    });
    for (const b of blocked) rmSync(b, { recursive: true, force: true });
    // The folder cannot be made: read-only continuity folder for a user a mode stops, else a file where the folder would be.
    const aside = `${evidenceDir()}.aside`;
    renameSync(evidenceDir(), aside);
    const continuity = join(root(), '.life-thread');
    const asRoot = process.getuid?.() === 0;
    try {
      if (asRoot) writeFileSync(evidenceDir(), 'a file where the evidence folder would be');
      else chmodSync(continuity, 0o555);
      await inStore('demo tests no folder', () => undefined);
    } finally {
      if (!asRoot) chmodSync(continuity, 0o755);
      rmSync(evidenceDir(), { recursive: true, force: true });
      renameSync(aside, evidenceDir());
    }
  });

  it('through life-thread run in a terminal: the same landing on src/calc.js:19 with the job\u2019s log as its evidence, and the same report on the desk', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const { jobId, wakeId, pulse } = await runDemoTestsWithWake(demo(), 'jobfinish-run', 'DEMO-RUN the demo tests ended');
    assert.match(pulse, /summary: "3 passed, 1 failed \(\d+\.\d s\)"/, pulse);
    const { evidence } = codeLandingOf(pulse);
    assert.equal(evidence, `.life-thread/evidence/${wakeId}.log`, 'the evidence is the run\u2019s log, copied into the workspace');
    const copy = join(evidenceDir(), `${wakeId}.log`);
    assert.equal(readFileSync(copy, 'utf8'), readFileSync(join(api.storeDir, 'logs', `${jobId}.log`), 'utf8'));
    assertNothingToCommit();
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(join('demo', 'src', 'calc.js')) ? vscode.window.activeTextEditor : undefined), 10_000, 'calc.js in front');
    assert.equal(editor.selection.start.line, 18);
    assert.match(pulse, /\n {2}desk: none\b/, pulse);
    const report = pathToFileURL(join(demo(), 'reports', 'tests.html')).href;
    const page = (await api.desk.desk.pages()).find((p) => p.url === report);
    assert.ok(page, 'the report is remembered on the desk');
    assert.equal(page.evidenceId, `${wakeId}-report`, 'under this wake\u2019s evidence id (the task\u2019s run is its alias)');
    await openEvidenceFromLens(copy);
  });
});
