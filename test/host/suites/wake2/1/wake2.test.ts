/**
 * Wake, parts 2 and 3 in the real extension host: a task's own output in its pulse and evidence (the
 * landing on the summary line), a terminal bound by instance through a rename, a failed job landing
 * on the failing line as a CodeAnchor re-found after edits, an explicit landing, a command row's end,
 * presence.online (back after away, and a model available again), threads as topics (own transcript,
 * own cold-start pack), the context-pressure offer, and intercom:// landings.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { stubDecisions } from '../../../../../src/core/continuity/stub';
import { writeDecisions } from '../../../../../src/node/topicFiles';
import { lifeThread, runnerAction, waitFor } from '../../../helpers';
import { type ScriptedModel, useScriptedModel, type ChatBody } from '../../../scriptedModel';

function textOf(result: vscode.LanguageModelToolResult): string {
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

async function wake(input: object): Promise<{ id: string }> {
  const answer = textOf(await vscode.lm.invokeTool('lifethread_sendToLifeThread', { input, toolInvocationToken: undefined }));
  return JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string };
}

const pulses = (server: ScriptedModel, marker: string): string[] =>
  server.requests.flatMap((b: ChatBody) => b.messages.filter((m) => m.role === 'user' && (m.content ?? '').includes(marker) && (m.content ?? '').includes('life_wake:')).map((m) => m.content ?? ''));

async function pulseOf(server: ScriptedModel, marker: string, ms = 30_000): Promise<string> {
  return waitFor(() => pulses(server, marker)[0], ms, `the pulse ${marker} at @life`);
}

async function runTask(name: string): Promise<void> {
  const task = (await vscode.tasks.fetchTasks()).find((t) => t.name === name);
  assert.ok(task, `the fixture task ${name} exists`);
  await vscode.tasks.executeTask(task);
}

/** Writes a file and waits until VS Code's document of it holds the new text (file events are not instant). */
async function writeAndSee(path: string, text: string): Promise<void> {
  writeFileSync(path, text);
  await waitFor(() => {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === path);
    return doc === undefined || doc.getText() === text ? true : undefined;
  }, 10_000, `the editor saw the new ${path}`);
}

const root = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';

describe('wake, parts 2 and 3, in the real extension host', () => {
  const server = useScriptedModel(() => ({ text: 'woken' }));

  before(async () => {
    // This suite sends more than the default 12 pulses in an hour; the cap itself is tested in wakeheld.
    await vscode.workspace.getConfiguration('lifeThread').update('wake.maxPerHour', 100, vscode.ConfigurationTarget.Global);
  });

  it('a task’s own output: the pulse names 3 passed and 1 failed, exit 1; the evidence opens on the summary line', async () => {
    const api = await lifeThread();
    const w = await wake({ text: 'WAKE-TESTS the tests ended', when: 'job.done', job_id: 'tests' });
    await runTask('tests');
    const pulse = await pulseOf(server, 'WAKE-TESTS');
    assert.match(pulse, /job: \{ id: "tests", status: failed, exit_code: 1 \}/);
    assert.match(pulse, /summary: "node:test: 3 passed, 1 failed"/);
    assert.match(pulse, new RegExp(`landing: \\{ kind: deep_link, path: "\\.life-thread/evidence/${w.id}\\.log#L(\\d+)" \\}`), pulse);
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath.includes('/evidence/') ? vscode.window.activeTextEditor : undefined), 10_000, 'the evidence in an editor');
    const selected = editor.document.lineAt(editor.selection.start.line).text;
    assert.equal(selected, '# fail 1', 'the summary line is selected, not the header');
    const text = editor.document.getText();
    assert.ok(!text.includes('\u001b'), 'control codes are stripped');
    assert.match(text, /✔ adds\n✖ subtracts/);
    const row = await waitFor(async () => ((await api.wakes.store.get(w.id))?.status === 'fired' ? api.wakes.store.get(w.id) : undefined), 10_000, 'fired');
    assert.equal(row?.fact?.summary, 'node:test: 3 passed, 1 failed');
  });

  it('a terminal wake binds to the terminal, not its name: a command that renames it still wakes, with its summary and exit 4', async () => {
    const terminal = vscode.window.createTerminal({ hideFromUser: true });
    const integration = await waitFor(() => terminal.shellIntegration, 15_000, 'shell integration');
    const name = terminal.name;
    await wake({ text: 'WAKE-RENAMED the command ended', when: 'job.done', job_id: `terminal:${name}` });
    integration.executeCommand("printf '\\033]0;npm\\007'; sleep 1; echo 'Tests: 1 failed, 12 passed, 13 total'; (exit 4)");
    const pulse = await pulseOf(server, 'WAKE-RENAMED');
    assert.match(pulse, /status: failed, exit_code: 4 \}/);
    assert.match(pulse, /summary: "jest: 12 passed, 1 failed"/);
    terminal.dispose();
  });

  it('a terminal wake binds to the instance: after a real rename, another terminal opened with the old name does not take it; the renamed one does', async () => {
    const bound = vscode.window.createTerminal({ name: 'tbind' });
    const boundIntegration = await waitFor(() => bound.shellIntegration, 15_000, 'shell integration (bound)');
    const w = await wake({ text: 'WAKE-INSTANCE the bound terminal ended', when: 'job.done', job_id: 'terminal:tbind' });
    bound.show(false);
    await waitFor(() => (vscode.window.activeTerminal === bound ? true : undefined), 10_000, 'the bound terminal active');
    await vscode.commands.executeCommand('workbench.action.terminal.renameWithArg', { name: 'tbind-renamed' });
    await waitFor(() => (bound.name === 'tbind-renamed' ? true : undefined), 10_000, 'the rename');
    const api = await lifeThread();
    const evidenceDir = join(root(), '.life-thread', 'evidence');
    const evidence = (): string[] => (existsSync(evidenceDir) ? readdirSync(evidenceDir) : []);
    const before = evidence().length;
    const impostor = vscode.window.createTerminal({ name: 'tbind', hideFromUser: true });
    const impostorIntegration = await waitFor(() => impostor.shellIntegration, 15_000, 'shell integration (impostor)');
    impostorIntegration.executeCommand("echo 'IMPOSTOR ran'; (exit 5)");
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(evidence().length, before, 'a command no wake waits on writes no evidence');
    assert.equal((await api.wakes.store.get(w.id))?.status, 'pending', 'a terminal that only shares the old name does not fire the wake');
    boundIntegration.executeCommand("echo '# pass 2'; echo '# fail 0'; (exit 4)");
    const pulse = await pulseOf(server, 'WAKE-INSTANCE');
    assert.match(pulse, /job: \{ id: "terminal:tbind[^"]*", status: failed, exit_code: 4 \}/);
    assert.doesNotMatch(pulse, /exit_code: 5/);
    impostor.dispose();
    bound.dispose();
  });

  it('a failed job whose stack names src/calc.ts lands there as a CodeAnchor (step exact); edits made before the landing are followed (step symbol)', async () => {
    const api = await lifeThread();
    const calc = join(root(), 'src', 'calc.ts');
    const original = readFileSync(calc, 'utf8');
    await wake({ text: 'WAKE-LOCUS-1 the stack failed', when: 'job.done', job_id: 'stack-fail' });
    await runTask('stack-fail');
    const pulse = await pulseOf(server, 'WAKE-LOCUS-1');
    assert.match(pulse, /landing: \{ kind: code_anchor, path: "src\/calc\.ts", symbol: "Calc\.subtract", lines: "L12-L12", step: exact \}/, pulse);
    const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath === calc ? vscode.window.activeTextEditor : undefined), 10_000, 'calc.ts revealed');
    assert.equal(editor.selection.start.line, 11);

    // Now with 30 lines inserted above before the landing runs (the wake waits while paused).
    await vscode.commands.executeCommand('lifeThread.pauseWakes');
    try {
      const w = await wake({ text: 'WAKE-LOCUS-2 the stack failed again', when: 'job.done', job_id: 'stack-fail' });
      await runTask('stack-fail');
      await waitFor(async () => ((await api.wakes.store.get(w.id))?.status === 'held' ? true : undefined), 15_000, 'held while paused');
      writeFileSync(calc, `${'// a new line\n'.repeat(30)}${original}`);
      await waitFor(() => (vscode.workspace.textDocuments.find((d) => d.uri.fsPath === calc)?.getText().startsWith('// a new line') ? true : undefined), 10_000, 'the editor saw the edit');
    } finally {
      await vscode.commands.executeCommand('lifeThread.resumeWakes');
    }
    const moved = await pulseOf(server, 'WAKE-LOCUS-2');
    assert.match(moved, /lines: "L42-L42", step: (symbol|excerpt) \}/);
    await writeAndSee(calc, original);
  });

  it('an explicit landing: a code anchor whose symbol moved lands on the new place', async () => {
    const calc = join(root(), 'src', 'calc.ts');
    const original = readFileSync(calc, 'utf8');
    await vscode.commands.executeCommand('lifeThread.pauseWakes');
    try {
      await wake({ text: 'WAKE-ANCHOR look at add', delay_seconds: 1, landing: { path: 'src/calc.ts', symbol: 'Calc.add', start_line: 6, end_line: 7 } });
      await new Promise((r) => setTimeout(r, 2500));
      writeFileSync(calc, original.replace('  private total = 0;\n', '  private total = 0;\n\n  reset(): void {\n    this.total = 0;\n  }\n'));
      await waitFor(() => (vscode.workspace.textDocuments.find((d) => d.uri.fsPath === calc)?.getText().includes('reset()') ? true : undefined), 10_000, 'the editor saw the edit');
      // The symbol provider answers for the new text (the language server has caught up).
      await waitFor(async () => {
        const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', vscode.Uri.file(calc));
        return symbols?.some((c) => c.children.some((m) => m.name === 'reset')) ? true : undefined;
      }, 15_000, 'symbols of the new text');
    } finally {
      await vscode.commands.executeCommand('lifeThread.resumeWakes');
    }
    const pulse = await pulseOf(server, 'WAKE-ANCHOR');
    assert.match(pulse, /symbol: "Calc\.add", lines: "L10-L11", step: (exact|symbol|excerpt) \}/);
    assert.doesNotMatch(pulse, /step: orphaned/);
    await writeAndSee(calc, original);
  });

  it('an explicit landing whose code is gone: the wake is still delivered, the pulse says step: orphaned', async () => {
    const api = await lifeThread();
    const calc = join(root(), 'src', 'calc.ts');
    const original = readFileSync(calc, 'utf8');
    await vscode.commands.executeCommand('lifeThread.pauseWakes');
    let id = '';
    try {
      id = (await wake({ text: 'WAKE-ORPHAN look at add', delay_seconds: 1, landing: { path: 'src/calc.ts', symbol: 'Calc.add', start_line: 6, end_line: 7 } })).id;
      await waitFor(async () => ((await api.wakes.store.get(id))?.status === 'held' ? true : undefined), 15_000, 'held while paused');
      await writeAndSee(calc, 'export class Calc {}\n');
    } finally {
      await vscode.commands.executeCommand('lifeThread.resumeWakes');
    }
    const pulse = await pulseOf(server, 'WAKE-ORPHAN');
    assert.match(pulse, /kind: code_anchor, path: "[^"]*calc\.ts", symbol: "Calc\.add", lines: "L\d+-L\d+", step: orphaned \}/);
    await waitFor(async () => ((await api.wakes.store.get(id))?.fact?.delivered ? true : undefined), 10_000, 'delivered though orphaned');
    await writeAndSee(calc, original);
  });

  it('a scheduled command row that exits 2 wakes its job.done wake with the summary', async () => {
    const answer = textOf(await vscode.lm.invokeTool('lifethread_schedule', { input: { action: 'add_command', command: "echo '# pass 5'; echo '# fail 2'; exit 2", when: 'in 3 seconds' }, toolInvocationToken: undefined }));
    const row = JSON.parse(answer.slice(answer.indexOf('\n{') + 1)) as { id: string };
    await wake({ text: 'WAKE-ROW the command ended', when: 'job.done', job_id: row.id });
    const pulse = await pulseOf(server, 'WAKE-ROW', 40_000);
    assert.match(pulse, new RegExp(`job: \\{ id: "${row.id}", status: failed, exit_code: 2 \\}`));
    assert.match(pulse, /summary: "node:test: 5 passed, 2 failed"/);
  });

  it('presence.online: back after being away longer than awayMinutes fires once; a model available again fires too', async () => {
    await vscode.workspace.getConfiguration('lifeThread').update('wake.awayMinutes', 0.05, vscode.ConfigurationTarget.Global);
    const api = await lifeThread();
    const back = await wake({ text: 'WAKE-BACK welcome back', when: 'presence.online' });
    await runnerAction({ action: 'blur' });
    await new Promise((r) => setTimeout(r, 4000));
    await runnerAction({ action: 'focus' });
    // Back at the window, the wake fires; if VS Code counts the user active its pulse waits behind
    // "Wake ready — Send" (suite wakefocus), so the user leaves again before the pulse is looked for.
    await waitFor(async () => ((await api.wakes.store.get(back.id))?.status === 'pending' ? undefined : true), 20_000, 'WAKE-BACK triggered by the return');
    await runnerAction({ action: 'blur' });
    await pulseOf(server, 'WAKE-BACK', 20_000);
    await runnerAction({ action: 'blur' });
    await new Promise((r) => setTimeout(r, 4000));
    await runnerAction({ action: 'focus' });
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(pulses(server, 'WAKE-BACK').length, 1, 'fired once');

    await server.disconnect();
    await wake({ text: 'WAKE-MODEL a model is back', when: 'presence.online' });
    await new Promise((r) => setTimeout(r, 1500));
    await server.connect();
    await pulseOf(server, 'WAKE-MODEL', 30_000);
  });

  it('threads are topics: each pulse goes to its topic’s transcript; the first wake of a topic brings its TopicDecisions', async () => {
    const api = await lifeThread();
    const dirA = api.continuity.dir('topic-a');
    const d = stubDecisions('topic-a', 1, undefined, new Date());
    await writeDecisions(dirA, { ...d, frame: 'FRAME-OF-A: shipping the calculator', next: ['fix subtract'] });
    await wake({ text: 'WAKE-THREAD-A for a', delay_seconds: 1, thread_id: 'topic-a' });
    const a = await pulseOf(server, 'WAKE-THREAD-A');
    assert.match(a, /cold start: the continuity pack of topic topic-a follows/);
    assert.match(a, /FRAME-OF-A: shipping the calculator/);
    await wake({ text: 'WAKE-THREAD-B for b', delay_seconds: 1, thread_id: 'topic-b' });
    const b = await pulseOf(server, 'WAKE-THREAD-B');
    assert.doesNotMatch(b, /FRAME-OF-A/);
    await wake({ text: 'WAKE-THREAD-A2 again', delay_seconds: 1, thread_id: 'topic-a' });
    assert.doesNotMatch(await pulseOf(server, 'WAKE-THREAD-A2'), /cold start/, 'only the first wake of a topic in a window is cold');
    const transcript = (topic: string): string => {
      const f = join(api.continuity.dir(topic), 'transcript.jsonl');
      return existsSync(f) ? readFileSync(f, 'utf8') : '';
    };
    await waitFor(() => (transcript('topic-a').includes('WAKE-THREAD-A2') ? true : undefined), 10_000, 'topic-a’s transcript');
    assert.match(transcript('topic-a'), /WAKE-THREAD-A /);
    assert.doesNotMatch(transcript('topic-a'), /WAKE-THREAD-B/);
    assert.match(transcript('topic-b'), /WAKE-THREAD-B/);
  });

  it('the pressure offer appears past pressurePercent of the model’s input window', async () => {
    const api = await lifeThread();
    const cfg = vscode.workspace.getConfiguration('lifeThread');
    await cfg.update('openai.maxInputTokens', 400, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(async () => ((await vscode.lm.selectChatModels({ vendor: 'lifethread', id: server.modelId }))[0]?.maxInputTokens === 400 ? true : undefined), 10_000, 'the smaller window');
      const long = 'PRESSURE '.repeat(200);
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@life ${long}`, isPartialQuery: false, blockOnResponse: true, modelSelector: { vendor: 'lifethread', id: server.modelId } });
      const f = join(api.continuity.dir(api.continuity.currentTopic()), 'transcript.jsonl');
      await waitFor(() => (readFileSync(f, 'utf8').includes("of the model's input window") ? true : undefined), 10_000, 'the offer in the answer');
    } finally {
      await cfg.update('openai.maxInputTokens', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('an intercom:// landing shows the quoted span of a message in the panel', async () => {
    const api = await lifeThread();
    const topic = api.continuity.currentTopic();
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@life /doctor', isPartialQuery: false, blockOnResponse: true });
    const dir = api.continuity.dir(topic);
    const { writeExport } = await import('../../../../../src/node/topicFiles');
    const built = await writeExport(dir, topic);
    const msg = built.records.find((r) => r.role === 'user');
    assert.ok(msg, 'a message in the export');
    const end = Math.min(7, msg.text.length);
    await api.lander.land({ kind: 'deep_link', uri: `intercom://message/${topic}/${msg.id}#0-${end}` });
    const focus = api.model.snapshot('panel').focus;
    assert.equal(focus?.span, msg.text.slice(0, end));
  });

  it('two wakes on one task end: one pulse names both with both texts and jobs, and its receipt delivers both', async () => {
    const api = await lifeThread();
    const a = await wake({ text: 'WAKE-PAIR-A read the failures', when: 'job.done', job_id: 'tests' });
    const b = await wake({ text: 'WAKE-PAIR-B then fix them', when: 'job.done', job_id: 'tests' });
    await runTask('tests');
    const pulse = await pulseOf(server, 'WAKE-PAIR-');
    const ids = /\n {2}wake: \[(w-[^,\]]+), (w-[^\]]+)\]\n/.exec(pulse);
    assert.ok(ids, pulse);
    assert.deepEqual([ids[1], ids[2]].sort(), [a.id, b.id].sort());
    const [leadText, otherText] = ids[1] === a.id ? ['WAKE-PAIR-A read the failures', 'WAKE-PAIR-B then fix them'] : ['WAKE-PAIR-B then fix them', 'WAKE-PAIR-A read the failures'];
    assert.ok(pulse.startsWith(leadText), pulse);
    assert.match(pulse, /job: \{ id: "tests", status: failed, exit_code: 1 \}/);
    assert.ok(pulse.includes(`\n  also_wake: ${ids[2]} "${otherText}" (job tests: failed, exit 1)`), pulse);
    assert.equal(new Set(pulses(server, 'WAKE-PAIR-')).size, 1, 'one pulse, not two');
    const rows = await waitFor(async () => {
      const both = await Promise.all([api.wakes.store.get(a.id), api.wakes.store.get(b.id)]);
      return both.every((r) => r?.status === 'fired') ? both : undefined;
    }, 10_000, 'both wakes fired');
    assert.deepEqual(rows.map((r) => [r?.fact?.delivered, r?.fact?.via]), [[true, 'life'], [true, 'life']]);
    assert.equal(rows[0]?.firedAt, rows[1]?.firedAt, 'one receipt delivered both');
  });
});
