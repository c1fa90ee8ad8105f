import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, EXTENSION_ID, PANEL_VIEW_TYPE, SIDEBAR_VIEW_ID } from '../../../../../src/shared/commands';
import { lifeThread, waitFor } from '../../../helpers';

describe('foundation: the extension in a real VS Code host', () => {
  it('runs inside a real VS Code 1.139 extension host', () => {
    assert.match(vscode.version, /^1\.139\./, `vscode.version is ${vscode.version}`);
    assert.equal(typeof vscode.window.createWebviewPanel, 'function');
  });

  it('is installed and active (activated by onStartupFinished without any user action)', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} not found`);
    const api = await lifeThread();
    assert.equal(ext.isActive, true);
    assert.ok(api.activationMs >= 0);
    assert.ok(api.storeDir.length > 0);
  });

  it('registers every command it contributes', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    const contributed = (ext?.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const id of contributed) assert.ok(registered.has(id), `command ${id} is contributed but not registered`);
    assert.ok(contributed.includes(COMMANDS.doctor));
  });

  it('Doctor opens a read-only Markdown report naming the store', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand(COMMANDS.doctor);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'no editor opened');
    assert.equal(editor.document.languageId, 'markdown');
    assert.notEqual(editor.document.uri.scheme, 'file', 'the report must not be a writable file');
    assert.match(editor.document.getText(), /# Life Thread Doctor/);
    assert.ok(editor.document.getText().includes(api.storeDir));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('resolves the sidebar webview view', async () => {
    await vscode.commands.executeCommand(`${SIDEBAR_VIEW_ID}.focus`);
    const api = await lifeThread();
    assert.equal(api.model.snapshot('sidebar').surface, 'sidebar');
  });

  it('opens the panel once and reveals the same one again', async () => {
    const api = await lifeThread();
    await vscode.commands.executeCommand(COMMANDS.openPanel);
    assert.equal(api.panel.isOpen, true);
    await vscode.commands.executeCommand(COMMANDS.openPanel);
    const panelTabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(PANEL_VIEW_TYPE));
    await waitFor(() => (panelTabs().length > 0 ? true : undefined), 5000, 'the panel tab');
    assert.equal(panelTabs().length, 1, 'the panel is a singleton');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
