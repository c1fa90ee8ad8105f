/**
 * MCP fallback in the real extension host: a wake set through `life-thread mcp` (started as a terminal
 * agent would, in the workspace's folder) belongs to that MCP session; when the session is gone before
 * the wake's time, the wake falls back to @life in this window of the same folder, and its fact says so.
 * Also: Copy MCP Server Config gives the lines with this store and its shim.
 */
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpConfigText, mcpServerCommand, shimPath } from '../../../../../src/core/mcpConfig';
import { wakeRowSchema } from '../../../../../src/core/wake/row';
import { lifeThread, waitFor } from '../../../helpers';
import { useScriptedModel } from '../../../scriptedModel';

describe('MCP wakes in the real extension host', () => {
  const server = useScriptedModel(() => ({ text: 'woken from the MCP fallback' }));

  it('a wake set through MCP for this folder, whose session is gone, falls back to @life in this window and says so', async () => {
    const api = await lifeThread();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test workspace is open');
    // Started as the copied config starts it: the shim in the store, `mcp --store <store>`.
    const { command, args } = mcpServerCommand(api.storeDir);
    const transport = new StdioClientTransport({ command, args, cwd: folder.uri.fsPath, env: process.env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'host-test-agent', version: '1.0.0' });
    await client.connect(transport);
    const res = (await client.callTool({ name: 'lifethread_sendToLifeThread', arguments: { text: 'WAKE-MCP-FALLBACK the agent left', delay_seconds: 4 } })) as CallToolResult;
    const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    assert.notEqual(res.isError, true, text);
    const row = wakeRowSchema.parse(JSON.parse(text.slice(text.indexOf('\n\n{') + 2)));
    assert.deepEqual(
      { kind: row.owner?.kind, client: row.owner?.client, cwd: row.owner?.cwd, folders: row.owner?.folders },
      { kind: 'mcp', client: 'host-test-agent', cwd: folder.uri.fsPath, folders: [folder.uri.toString()] },
      'the wake belongs to the MCP session and to the folder of this window',
    );
    // The agent's session ends before the wake's time: its server goes with it.
    await client.close();
    const body = await waitFor(
      () => server.requests.find((b) => b.messages.some((m) => m.role === 'user' && (m.content ?? '').includes('WAKE-MCP-FALLBACK') && (m.content ?? '').includes('life_wake:'))),
      60_000,
      'the pulse at @life',
    );
    assert.ok(body);
    const fired = await waitFor(async () => {
      const r = await api.wakes.store.get(row.id);
      return r?.status === 'fired' ? r : undefined;
    }, 20_000, 'the wake fired');
    assert.equal(fired.fact?.delivered, true);
    assert.equal(fired.fact?.via, 'life');
    assert.match(fired.fact?.reason ?? '', /^set through MCP \(host-test-agent, pid \d+, in .*\); that session could not take it .*, so it went to @life in a VS Code window$/);
  });

  it('Copy MCP Server Config gives the lines for every client with this store and its shim', async () => {
    const api = await lifeThread();
    const text = await vscode.commands.executeCommand<string>('lifeThread.copyMcpConfig', 'all');
    const shim = join(api.storeDir, 'bin', 'life-thread');
    assert.equal(text, mcpConfigText(api.storeDir), 'the command copies the config src/core/mcpConfig.ts writes');
    assert.equal(await vscode.env.clipboard.readText(), text);
    // VS Code's form alone: the servers entry of .vscode/mcp.json.
    const vs = await vscode.commands.executeCommand<string>('lifeThread.copyMcpConfig', 'vscode');
    assert.deepEqual(JSON.parse(vs), { servers: { 'life-thread': { type: 'stdio', command: shim, args: ['mcp', '--store', api.storeDir] } } });
    assert.equal(shimPath(api.storeDir), shim, 'the shim it names is the one the extension writes for its terminals');
    assert.ok(existsSync(shim), `${shim} exists`);
    const gemini = text.slice(text.indexOf('# Gemini CLI'));
    const json = JSON.parse(gemini.slice(gemini.indexOf('\n{') + 1, gemini.indexOf('\n}\n') + 2)) as unknown;
    assert.deepEqual(json, { mcpServers: { 'life-thread': { command: shim, args: ['mcp', '--store', api.storeDir] } } });
  });
});
