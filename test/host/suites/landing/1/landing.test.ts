import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { makeAnchor } from '../../../../../src/core/anchor/code';
import { fileLink } from '../../../../../src/core/anchor/links';
import { encodeRef } from '../../../helpers';
import { messageHash, type ExportRecord } from '../../../../../src/core/transcript';
import type { LandResult } from '../../../../../src/host/landing';
import { lifeThread, waitFor } from '../../../helpers';

function root(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'the test workspace is open');
  return f.uri.fsPath;
}

function storeSnapshot(dir: string): string {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => `${n}:${statSync(join(dir, n)).mtimeMs}`)
    .join('|');
}

const METHOD = ['  describeTotal(items: number[]): string {', '    const total = items.reduce((a, b) => a + b, 0);', '    return `total ${total}`;', '  }'];

function sourceWith(padding: number): string {
  const pad = Array.from({ length: padding }, (_, i) => `  // filler line ${i}`);
  return ['export class Report {', '  constructor(readonly name: string) {}', '', ...pad, ...METHOD, '}', ''].join('\n');
}

describe('landing in the real extension host', () => {
  it('a file:// deep link opens the file and reveals the range (1-based, inclusive)', async () => {
    const api = await lifeThread();
    const file = join(root(), 'fifty.txt');
    writeFileSync(file, Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
    const r = await api.lander.land({ kind: 'deep_link', uri: fileLink(file, 10, 20) });
    assert.deepEqual(r.range, { startLine: 10, endLine: 20 });
    const ed = vscode.window.activeTextEditor;
    assert.equal(ed?.document.uri.fsPath, file);
    assert.equal(ed?.selection.start.line, 9);
    assert.equal(ed?.selection.end.line, 19);
    assert.equal(ed?.document.lineAt(ed.selection.start.line).text, 'line 10');
  });

  it('a CodeAnchor re-resolves after the symbol moved 40 lines down and says which step matched', async () => {
    const api = await lifeThread();
    const file = join(root(), 'report.ts');
    writeFileSync(file, sourceWith(0));
    const text = readFileSync(file, 'utf8');
    const startLine = text.split('\n').indexOf(METHOD[0] ?? '');
    const anchor = makeAnchor(text, file, { start: { line: startLine + 1, character: 0 }, end: { line: startLine + 2, character: (METHOD[2] ?? '').length } }, 'Report.describeTotal');
    // Wait until the TypeScript symbol provider answers for this file.
    await waitFor(async () => ((await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', vscode.Uri.file(file)))?.length ? true : undefined), 30_000, 'document symbols');
    writeFileSync(file, sourceWith(40));
    const doc = await vscode.workspace.openTextDocument(file);
    await waitFor(() => (doc.getText().includes('filler line 39') ? true : undefined), 10_000, 'the edited file in the editor');
    const r = await api.lander.land({ kind: 'code_anchor', anchor });
    assert.equal(r.kind, 'code_anchor');
    assert.ok(r.anchor);
    assert.ok(r.anchor.step === 'symbol' || r.anchor.step === 'excerpt', `step ${r.anchor.step}: ${r.anchor.reason}`);
    assert.equal(r.anchor.range.start.line, startLine + 41, 'moved 40 lines down');
    assert.deepEqual(r.anchor.original, anchor, 'the original anchor is kept beside the healed one');
    assert.equal(r.anchor.healed.range.start.line, startLine + 41);
    assert.equal(vscode.window.activeTextEditor?.selection.start.line, startLine + 41);
    const tool = await vscode.lm.invokeTool('lifethread_resolveAnchor', { input: { anchor }, toolInvocationToken: undefined });
    const answer = tool.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(answer, new RegExp(`Re-found by the "(symbol|excerpt)" step at lines ${startLine + 42}-${startLine + 43}`));
  });

  it('a link through the URI handler (vscode.open on env.uriScheme) opens the landing', async () => {
    const api = await lifeThread();
    const file = join(root(), 'fifty.txt');
    const landed = new Promise<LandResult>((resolve) => {
      const sub = api.lander.onDidLand((r) => {
        sub.dispose();
        resolve(r);
      });
    });
    const ref = encodeRef({ kind: 'deep_link', uri: fileLink(file, 30) });
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(`${vscode.env.uriScheme}://lifethread.life-thread/land?ref=${ref}`));
    const r = await landed;
    assert.deepEqual(r.range, { startLine: 30, endLine: 30 });
    assert.equal(vscode.window.activeTextEditor?.selection.start.line, 29);
  });

  it('an /anchor link shows the quoted span of a topic export in the panel', async () => {
    const api = await lifeThread();
    const dir = join(root(), '.life-thread', 'topics', 'demo');
    mkdirSync(dir, { recursive: true });
    const base = { id: 'm-1', role: 'user' as const, time: '2026-12-02T10:00:00.000Z', text: 'We rejected polling because it wakes the laptop every minute.', prevHash: '' };
    const rec: ExportRecord = { ...base, hash: messageHash(base) };
    writeFileSync(join(dir, 'export.jsonl'), `${JSON.stringify(rec)}\n`);
    const start = rec.text.indexOf('polling');
    const end = start + 'polling'.length;
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(`${vscode.env.uriScheme}://lifethread.life-thread/anchor?topic=demo&msg=m-1&start=${start}&end=${end}`));
    const focus = await waitFor(() => api.model.snapshot('panel').focus ?? undefined, 10_000, 'the span in the panel');
    assert.equal(focus.span, 'polling');
    assert.equal(focus.before, 'We rejected ');
    assert.equal(api.panel.isOpen, true);
  });

  it('a landing saved for a folder that was not open completes once that folder is open', async () => {
    const api = await lifeThread();
    const file = join(root(), 'fifty.txt');
    // What "Open <folder> and land there" saves before it opens the folder (which reloads the window).
    await api.lander.savePending({ kind: 'deep_link', uri: fileLink(file, 5, 6) }, '/srv/elsewhere/not-open-yet');
    assert.equal(await api.lander.completePending(), undefined, 'nothing happens while that folder is not open');
    await api.lander.savePending({ kind: 'deep_link', uri: fileLink(file, 5, 6) }, root());
    const r = await api.lander.completePending();
    assert.deepEqual(r?.range, { startLine: 5, endLine: 6 });
    assert.equal(await api.lander.completePending(), undefined, 'completed once');
  });

  const refusals: [string, (scheme: string, root: string) => string, RegExp][] = [
    ['a command: URI inside /land', (s) => `${s}://lifethread.life-thread/land?ref=${encodeRef({ kind: 'deep_link', uri: 'command:workbench.action.terminal.new' })}`, /scheme "command:"/],
    ['a file outside the workspace folders', (s) => `${s}://lifethread.life-thread/land?ref=${encodeRef({ kind: 'deep_link', uri: 'file:///etc/passwd#L1' })}`, /outside the open workspace folders/],
    ['garbage base64', (s) => `${s}://lifethread.life-thread/land?ref=%%%not-base64%%%`, /ref: /],
    ['base64 of something that is not a LandingRef', (s) => `${s}://lifethread.life-thread/land?ref=${Buffer.from('{"kind":"run","cmd":"rm -rf /"}').toString('base64url')}`, /ref/],
    ['an oversized query', (s) => `${s}://lifethread.life-thread/land?ref=${'A'.repeat(40_000)}`, /characters; at most/],
    ['an unknown path', (s) => `${s}://lifethread.life-thread/exec?cmd=ls`, /unknown path/],
    ['an extra parameter', (s) => `${s}://lifethread.life-thread/anchor?topic=demo&msg=m-1&start=0&end=3&then=run`, /then: is not a parameter/],
  ];
  for (const [name, make, reason] of refusals) {
    it(`refuses ${name} with a clear message and changes nothing`, async () => {
      const api = await lifeThread();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const before = storeSnapshot(api.storeDir);
      const refused = new Promise<string>((resolve) => {
        const sub = api.lander.onDidRefuse((m) => {
          sub.dispose();
          resolve(m);
        });
      });
      let landed = false;
      const sub = api.lander.onDidLand(() => (landed = true));
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(make(vscode.env.uriScheme, root())));
      const msg = await refused;
      sub.dispose();
      assert.match(msg, reason);
      assert.equal(landed, false);
      assert.equal(vscode.window.activeTextEditor, undefined, 'no editor was opened');
      assert.equal(storeSnapshot(api.storeDir), before, 'the store is untouched');
    });
  }
});
