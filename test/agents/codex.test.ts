/**
 * Codex CLI for real (`codex exec`, pinned by scripts/test-agents.mjs, on the project's Node 24) against
 * the scripted model server's Responses API, with `life-thread mcp` added by README's own config.toml
 * block (src/core/mcpConfig.ts). The scripted model sets a 5 s wake through MCP, then calls
 * `lifethread_wait` in the same turn; the pulse must come back in that call's answer, and the model
 * request after it must hold the pulse. The wake row must say what happened: a tool answer, verified.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mcpClientConfigs } from '../../src/core/mcpConfig';
import { agentEnv, CODEX, runAgent, runDirs, storeWithShim, tail, wakeRows } from './agentHarness';
import { AgentModelServer, textOf, type Json, type Recorded, type Turn } from './modelServer';

const WAKE_TEXT = 'WAKE-CODEX-AGENT: read the job log';

interface Item {
  type?: string;
  name?: string;
  call_id?: string;
  arguments?: string;
  output?: Json;
}

function inputOf(r: Recorded): Item[] {
  const input = (r.body as { input?: Json } | null)?.input;
  return Array.isArray(input) ? (input as Item[]) : [];
}
/** The tools a request offers, each with the namespace it sits in (Codex puts an MCP server's tools in one). */
function toolsOf(r: Recorded): { name: string; namespace?: string }[] {
  const out: { name: string; namespace?: string }[] = [];
  const tools = (r.body as { tools?: Json } | null)?.tools;
  for (const t of Array.isArray(tools) ? tools : []) {
    if (!t || typeof t !== 'object' || Array.isArray(t) || typeof t.name !== 'string') continue;
    if (t.type === 'namespace' && Array.isArray(t.tools)) {
      for (const inner of t.tools) if (inner && typeof inner === 'object' && !Array.isArray(inner) && typeof inner.name === 'string') out.push({ name: inner.name, namespace: t.name });
    } else out.push({ name: t.name });
  }
  return out;
}
function callsOf(r: Recorded): Item[] {
  return inputOf(r).filter((i) => i.type === 'function_call');
}
function outputOf(r: Recorded, call: Item | undefined): string | undefined {
  const out = inputOf(r).find((i) => i.type === 'function_call_output' && i.call_id === call?.call_id);
  return out === undefined ? undefined : textOf(out.output ?? '');
}

describe('Codex CLI woken through lifethread_wait within its turn', () => {
  const dirs = runDirs('codex');
  const server = new AgentModelServer(path.join(dirs.base, 'model-requests.jsonl'));

  before(async () => {
    await server.start();
    await storeWithShim(dirs.store, path.join(dirs.base, 'mcp-stdin.jsonl'));
  });
  after(() => server.stop());

  it('sets a 5 s wake through MCP and receives the pulse from lifethread_wait in the same turn; the row is via mcp, verified', async () => {
    let waitCalls = 0;
    server.script = (r): Turn | undefined => {
      const tools = toolsOf(r);
      const setTool = tools.find((t) => t.name === 'lifethread_sendToLifeThread');
      const waitTool = tools.find((t) => t.name === 'lifethread_wait');
      if (setTool === undefined || waitTool === undefined) return undefined;
      const calls = callsOf(r);
      const set = calls.find((c) => c.name === setTool.name);
      if (!set) return { tool: setTool.name, namespace: setTool.namespace, input: { text: WAKE_TEXT, delay_seconds: 5 } };
      const answer = outputOf(r, set) ?? '';
      const id = /Wake (w-[a-z0-9]+) set/.exec(answer)?.[1];
      if (id === undefined) return { text: `The set-wake answer names no wake: ${answer}` };
      const waits = calls.filter((c) => c.name === waitTool.name);
      const last = outputOf(r, waits.at(-1));
      if (waits.length === 0 || (last !== undefined && /^Not yet/.test(last) && waits.length < 3)) {
        waitCalls++;
        return { tool: waitTool.name, namespace: waitTool.namespace, input: { wake_id: id, timeout_seconds: 50 } };
      }
      return { text: 'Woken: reading the job log now.' };
    };
    const codexHome = path.join(dirs.home, '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    const block = mcpClientConfigs(dirs.store).find((c) => c.kind === 'codex');
    assert.ok(block);
    // The provider and the switches first (top-level keys must come before any table), then README's block verbatim.
    const config = [
      'model = "scripted-model"',
      'model_provider = "scripted"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.scripted]',
      'name = "Scripted model server"',
      `base_url = "${server.origin}/v1"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
      // Plugins and apps sync from github.com and chatgpt.com when Codex starts.
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'apps = false',
      '',
      block.text,
    ].join('\n');
    fs.writeFileSync(path.join(codexHome, 'config.toml'), config);
    const env = agentEnv(dirs.home, server.origin, { CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'scripted' });
    const args = ['exec', '--strict-config', '--json', '--color', 'never', '-C', dirs.work, 'Wake me in 5 seconds to read the job log.'];
    const run = await runAgent(CODEX, args, { cwd: dirs.work, env, ms: 120_000, log: path.join(dirs.base, 'codex') });
    assert.equal(run.code, 0, tail(run));

    // With the switches above the agent reaches nothing outside 127.0.0.1 through its proxy (docs/test-host.md).
    assert.deepEqual(server.outside, [], 'outside traffic the proxy sink refused');
    const rows = await wakeRows(dirs.store);
    assert.equal(rows.length, 1, `${JSON.stringify(rows)}\n${tail(run)}`);
    const row = rows[0];
    assert.ok(row);
    assert.equal(row.text, WAKE_TEXT);
    assert.equal(row.status, 'fired', JSON.stringify(row));
    assert.ok(waitCalls >= 1, 'the model never called lifethread_wait');
    // The model request after the last lifethread_wait call holds the pulse in that call's answer.
    const after = server.requests.filter((r) => r.answered === 'text Woken: reading the job log now.');
    assert.equal(after.length, 1, `the turn did not end on the pulse\n${tail(run)}`);
    const final = after[0] as Recorded;
    const pulse = outputOf(final, callsOf(final).filter((c) => c.name === 'lifethread_wait').at(-1)) ?? '';
    assert.match(pulse, new RegExp(`life_wake:\\n\\s+wake: ${row.id}\\n`), `lifethread_wait's answer holds no pulse: ${pulse}`);
    assert.ok(pulse.includes(WAKE_TEXT));
    assert.deepEqual([row.fact?.via, row.fact?.delivered, row.fact?.unverified], ['mcp', true, undefined], JSON.stringify(row.fact));
  });
});
