/**
 * VS Code's own reading of the `.vscode/mcp.json` "Copy MCP Server Config" offers (src/core/mcpConfig.ts):
 * the file written into the workspace's first folder exactly as given, VS Code's MCP registry finds the
 * server, starts it when asked (`workbench.mcp.startServer` for every known server, trusted as the
 * "Start" CodeLens in that file does) and the server's tools reach the tools list every extension sees
 * (`vscode.lm.tools`, as `mcp_<server>_<tool>`). The fixture workspace has no other MCP configuration.
 * Runs after fallback.test.ts: its MCP session is gone before VS Code's starts.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { mcpClientConfigs } from '../../../../../src/core/mcpConfig';
import { MCP_TOOL_NAMES } from '../../../../../src/node/mcp/catalog';
import { lifeThread, waitFor } from '../../../helpers';

/** What `life-thread mcp` lists in tools/list. */
const SERVER_TOOLS: readonly string[] = MCP_TOOL_NAMES;

describe("VS Code's MCP reads the copied .vscode/mcp.json", function () {
  this.timeout(120_000);
  let file = '';

  // Without the file VS Code drops the server and stops it.
  after(() => {
    if (file) rmSync(file, { force: true });
  });

  it('finds life-thread in the first folder\'s .vscode/mcp.json, starts the shim with --store, and its tools reach vscode.lm.tools', async () => {
    const api = await lifeThread();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'the test workspace is open');
    const config = mcpClientConfigs(api.storeDir).find((c) => c.kind === 'vscode');
    assert.ok(config);
    assert.equal(config.file, '.vscode/mcp.json');
    const mcpTools = () => vscode.lm.tools.filter((t) => t.name.startsWith('mcp_') && SERVER_TOOLS.some((s) => t.name.endsWith(`_${s}`)));
    assert.deepEqual(mcpTools().map((t) => t.name), [], 'no MCP tools of Life Thread before the file is written');

    file = join(folder.uri.fsPath, config.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, config.text);
    // The registry reads the file when it changes; until then the start command finds nothing to start.
    const tools = await waitFor(
      async () => {
        await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { autoTrustChanges: true, waitForLiveTools: true });
        const found = mcpTools();
        return found.length === SERVER_TOOLS.length ? found : undefined;
      },
      60_000,
      `VS Code to start life-thread from ${file} and list its tools`,
      1000,
    );
    assert.deepEqual(tools.map((t) => SERVER_TOOLS.find((s) => t.name.endsWith(`_${s}`))).sort(), [...SERVER_TOOLS].sort(), tools.map((t) => t.name).join(', '));
    // Life Thread's own LM tools are not these: they have no mcp_ prefix.
    assert.ok(vscode.lm.tools.some((t) => t.name === 'lifethread_sendToLifeThread'), 'the extension\'s own tool is there too');
    assert.match(tools[0]?.description ?? '', /\S/, 'the tool came with the description the server gave');
  });
});
