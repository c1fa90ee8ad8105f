/** The MCP server config the palette copies and README shows (src/core/mcpConfig.ts): each client's lines name the shim and the store exactly. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { mcpConfigText, mcpServerCommand, shimPath } from '../../src/core/mcpConfig';

describe('MCP server config', () => {
  for (const store of ['/home/ana/.config/Code/User/globalStorage/lifethread.life-thread', "/tmp/a dir/it's \"here\"/store"]) {
    it(`names the shim and --store for every client (${store})`, () => {
      const text = mcpConfigText(store);
      const argv = ['mcp', '--store', store];
      assert.deepEqual(mcpServerCommand(store), { command: shimPath(store), args: argv });
      assert.equal(shimPath(`${store}/`), `${store}/bin/life-thread`);
      // Claude Code: the shell splits the line back into exactly the shim and its arguments.
      const claude = text.split('\n').find((l) => l.startsWith('claude mcp add life-thread -- '));
      assert.ok(claude);
      const words = execFileSync('bash', ['-c', `printf '%s\\0' ${claude.slice('claude mcp add life-thread -- '.length)}`]).toString('utf8').split('\0').slice(0, -1);
      assert.deepEqual(words, [shimPath(store), ...argv]);
      // Codex CLI: TOML basic strings.
      assert.ok(text.includes(`[mcp_servers.life-thread]\ncommand = ${JSON.stringify(shimPath(store))}\nargs = ["mcp", "--store", ${JSON.stringify(store)}]\n`));
      // Gemini CLI and Cursor: the mcpServers JSON.
      const json = text.slice(text.indexOf('\n{') + 1, text.indexOf('\n}\n') + 2);
      assert.deepEqual(JSON.parse(json), { mcpServers: { 'life-thread': { command: shimPath(store), args: argv } } });
      assert.match(text, /--dangerously-load-development-channels server:life-thread/);
    });
  }
});
