/**
 * The configs "Copy MCP Server Config" offers (src/core/mcpConfig.ts), each written exactly as given and
 * read by the real client's own listing: `claude mcp list` / `claude mcp get` for Claude Code's
 * `.mcp.json` in the project, `codex mcp list` / `codex mcp get` for Codex's `CODEX_HOME/config.toml`.
 *
 * What each listing reads (docs/test-host.md "Terminal agents"): `claude mcp list` takes no `--mcp-config`;
 * it reads `.mcp.json` of the folder it runs in (and its parents) and shows such a server as pending
 * approval, never started, until the folder is trusted and the server approved (`hasTrustDialogAccepted`
 * and `enabledMcpjsonServers` in `~/.claude.json`); then it starts the server and reports whether it
 * connected. Both claude commands exit 0 whatever they find, so the test reads their words. `codex mcp
 * list` parses the file (a wrong type or an unknown enum value is an error, exit 1) but starts nothing:
 * its status is `enabled`; Codex's connection to the server is test/agents/codex.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mcpClientConfigs, mcpServerCommand } from '../../src/core/mcpConfig';
import { agentEnv, CLAUDE, claudeEnv, CODEX, runAgent, runDirs, storeWithShim, tail } from './agentHarness';
import { AgentModelServer } from './modelServer';

function configFor(store: string, kind: 'claude' | 'codex'): { file: string; text: string } {
  const config = mcpClientConfigs(store).find((c) => c.kind === kind);
  assert.ok(config, `no ${kind} config`);
  return config;
}

describe("The copied MCP configs, as the agents' own listings read them", () => {
  const dirs = runDirs('mcp-list');
  const server = new AgentModelServer(path.join(dirs.base, 'model-requests.jsonl'));
  const stdinLog = path.join(dirs.base, 'mcp-stdin.jsonl');

  before(async () => {
    await server.start();
    await storeWithShim(dirs.store, stdinLog);
  });
  after(() => server.stop());

  it('Claude Code: `claude mcp list` finds life-thread in the project\'s .mcp.json, pending until approved, then connected with the shim and --store', async () => {
    const config = configFor(dirs.store, 'claude');
    assert.equal(config.file, '.mcp.json');
    fs.writeFileSync(path.join(dirs.work, config.file), config.text);
    const { command, args } = mcpServerCommand(dirs.store);
    const line = `life-thread: ${[command, ...args].join(' ')} - `;
    const env = claudeEnv(dirs.home, server.origin);
    const claude = (sub: string[], log: string) => runAgent(CLAUDE, ['mcp', ...sub], { cwd: dirs.work, env, ms: 60_000, log: path.join(dirs.base, log) });
    const claudeJson = path.join(dirs.home, '.claude.json');

    // An untrusted folder: the server is listed from .mcp.json but not started.
    fs.writeFileSync(claudeJson, JSON.stringify({ hasCompletedOnboarding: true, autoUpdates: false }));
    const pending = await claude(['list'], 'claude-mcp-list-pending');
    assert.equal(pending.code, 0, tail(pending));
    assert.ok(pending.stdout.includes(`${line}⏸ Pending approval`), tail(pending));
    assert.equal(fs.existsSync(stdinLog), false, 'a pending server was started');

    // Trusted and approved, as the user does once in `claude`: started and health-checked.
    fs.writeFileSync(claudeJson, JSON.stringify({ hasCompletedOnboarding: true, autoUpdates: false, projects: { [dirs.work]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: ['life-thread'] } } }));
    const list = await claude(['list'], 'claude-mcp-list');
    assert.equal(list.code, 0, tail(list));
    assert.ok(list.stdout.includes(`${line}✔ Connected`), `life-thread is not listed as connected\n${tail(list)}`);
    assert.doesNotMatch(`${list.stdout}${list.stderr}`, /diagnostics|\[Warning\]|\[Error\]/, tail(list));
    // The health check is a real MCP handshake with this server, by Claude Code.
    const sent = fs.readFileSync(stdinLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { method?: string; params?: { clientInfo?: { name?: string } } });
    assert.equal(sent.find((m) => m.method === 'initialize')?.params?.clientInfo?.name, 'claude-code', JSON.stringify(sent));

    const get = await claude(['get', 'life-thread'], 'claude-mcp-get');
    assert.equal(get.code, 0, tail(get));
    for (const want of ['Scope: Project config (shared via .mcp.json)', 'Status: ✔ Connected', 'Type: stdio', `Command: ${command}`, `Args: ${args.join(' ')}`]) {
      assert.ok(get.stdout.includes(want), `claude mcp get lacks ${JSON.stringify(want)}\n${tail(get)}`);
    }
    assert.deepEqual(server.outside, [], 'outside traffic the proxy sink refused');
  });

  it('Codex CLI: `codex mcp list` and `get` read life-thread from config.toml with its command, args, tool timeout and approval mode', async () => {
    const config = configFor(dirs.store, 'codex');
    assert.equal(config.file, '~/.codex/config.toml');
    const codexHome = path.join(dirs.home, '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    // The block alone, as a user with no other Codex settings pastes it.
    fs.writeFileSync(path.join(codexHome, 'config.toml'), config.text);
    const env = agentEnv(dirs.home, server.origin, { CODEX_HOME: codexHome });
    const codex = (sub: string[], log: string) => runAgent(CODEX, ['mcp', ...sub], { cwd: dirs.work, env, ms: 60_000, log: path.join(dirs.base, log) });
    const { command, args } = mcpServerCommand(dirs.store);

    const list = await codex(['list', '--json'], 'codex-mcp-list');
    assert.equal(list.code, 0, tail(list));
    const servers = JSON.parse(list.stdout) as { name: string; enabled: boolean; transport: { type: string; command?: string; args?: string[] }; tool_timeout_sec: number | null }[];
    assert.deepEqual(
      servers.map((s) => ({ name: s.name, enabled: s.enabled, type: s.transport.type, command: s.transport.command, args: s.transport.args, timeout: s.tool_timeout_sec })),
      [{ name: 'life-thread', enabled: true, type: 'stdio', command, args, timeout: 70 }],
      list.stdout,
    );
    // The approval mode shows only in `get`; a misspelt key would be dropped without a word.
    const get = await codex(['get', 'life-thread'], 'codex-mcp-get');
    assert.equal(get.code, 0, tail(get));
    for (const want of ['enabled: true', 'transport: stdio', `command: ${command}`, `args: ${args.join(' ')}`, 'tool_timeout_sec: 70', 'default_tools_approval_mode: approve']) {
      assert.ok(get.stdout.split('\n').some((l) => l.trim() === want), `codex mcp get lacks ${JSON.stringify(want)}\n${tail(get)}`);
    }
    assert.deepEqual(server.outside, [], 'outside traffic the proxy sink refused');
  });
});
