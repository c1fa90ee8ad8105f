/** The MCP server config the palette copies and README shows (src/core/mcpConfig.ts): each client's lines name the shim and the store exactly. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { mcpClientConfigs, mcpConfigText, mcpServerCommand, shimPath } from '../../src/core/mcpConfig';

describe('MCP server config', () => {
  for (const store of ['/home/ana/.config/Code/User/globalStorage/lifethread.life-thread', "/tmp/a dir/it's \"here\"/store"]) {
    it(`names the shim and --store for every client (${store})`, () => {
      const text = mcpConfigText(store);
      const argv = ['mcp', '--store', store];
      assert.deepEqual(mcpServerCommand(store), { command: shimPath(store), args: argv });
      assert.equal(shimPath(`${store}/`), `${store}/bin/life-thread`);
      // Claude Code: the shell splits the line back into exactly the shim and its arguments.
      const claude = text.split('\n').find((l) => l.startsWith('#   claude mcp add life-thread -- '));
      assert.ok(claude);
      const words = execFileSync('bash', ['-c', `printf '%s\\0' ${claude.slice('#   claude mcp add life-thread -- '.length)}`]).toString('utf8').split('\0').slice(0, -1);
      assert.deepEqual(words, [shimPath(store), ...argv]);
      // Every client's file is in the text as it is copied alone.
      for (const c of mcpClientConfigs(store)) assert.ok(text.includes(c.text), c.kind);
      // Gemini CLI and Cursor: the mcpServers JSON without a type.
      const gemini = text.slice(text.indexOf('# Gemini CLI'));
      const json = gemini.slice(gemini.indexOf('\n{') + 1, gemini.indexOf('\n}\n') + 2);
      assert.deepEqual(JSON.parse(json), { mcpServers: { 'life-thread': { command: shimPath(store), args: argv } } });
      assert.match(text, /--dangerously-load-development-channels server:life-thread/);
      assert.ok(text.includes(`wait '<wake id>' --store `) && text.includes(`--timeout '<seconds>'`), text);
    });

    it(`VS Code (servers), Claude Code (mcpServers) and Codex (config.toml) each get their own form (${store})`, () => {
      const [vscode, claude, codex, ...rest] = mcpClientConfigs(store);
      assert.deepEqual(rest, []);
      const entry = { type: 'stdio', command: shimPath(store), args: ['mcp', '--store', store] };
      assert.deepEqual([vscode?.kind, vscode?.file], ['vscode', '.vscode/mcp.json']);
      assert.deepEqual(JSON.parse(vscode?.text ?? ''), { servers: { 'life-thread': entry } });
      assert.deepEqual([claude?.kind, claude?.file], ['claude', '.mcp.json']);
      assert.deepEqual(JSON.parse(claude?.text ?? ''), { mcpServers: { 'life-thread': entry } });
      assert.deepEqual([codex?.kind, codex?.file], ['codex', '~/.codex/config.toml']);
      // TOML basic strings use JSON's escapes for what a path holds; every tool runs without asking but the schedule tool.
      const lines = (codex?.text ?? '').split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      assert.deepEqual(lines, [
        '[mcp_servers.life-thread]',
        `command = ${JSON.stringify(shimPath(store))}`,
        `args = ["mcp", "--store", ${JSON.stringify(store)}]`,
        'tool_timeout_sec = 70',
        'default_tools_approval_mode = "approve"',
        '[mcp_servers.life-thread.tools.lifethread_schedule]',
        'approval_mode = "prompt"',
      ]);
      assert.match(codex?.text ?? '', /a store writable from the sandbox would let\n# sandboxed code schedule commands that run outside it/);
    });
  }
});
