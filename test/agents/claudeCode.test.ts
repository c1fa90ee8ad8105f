/**
 * Claude Code for real (`claude -p`, pinned by scripts/test-agents.mjs) against the scripted model server,
 * with `life-thread mcp` added by README's own `.mcp.json` (src/core/mcpConfig.ts). The scripted model
 * sets a 5 s wake through MCP, runs the `wait` command the tool answer names as a background command and
 * ends its turn; when that command exits, Claude Code asks the model again, the model reads the
 * command's output, and the request after that read must hold the pulse. The wake row must say what
 * happened: fired through `wait`, unverified. Claude Code's own opening lines (its `server/discover` probe,
 * `initialize`, `notifications/initialized`) are the fixture test/fixtures/mcp/claude-code-handshake.jsonl,
 * which test/unit/mcpProtocol.test.ts speaks.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mcpClientConfigs } from '../../src/core/mcpConfig';
import { CLAUDE, claudeEnv, REPO, runAgent, runDirs, storeWithShim, tail, wakeRows } from './agentHarness';
import { AgentModelServer, textOf, type Json, type Recorded, type Turn } from './modelServer';

const SET = 'mcp__life-thread__lifethread_sendToLifeThread';
const WAKE_TEXT = 'WAKE-CLAUDE-AGENT: read the job log';
/** Written when LIFE_THREAD_SAVE_FIXTURES is set (scripts/test-agents.mjs --save-fixtures). */
const HANDSHAKE_FIXTURE = path.join(REPO, 'test', 'fixtures', 'mcp', 'claude-code-handshake.jsonl');

interface Block {
  type: string;
  name?: string;
  id?: string;
  tool_use_id?: string;
  input?: Json;
  content?: Json;
  text?: string;
}
interface Message {
  role: string;
  content: string | Block[];
}

function messagesOf(r: Recorded): Message[] {
  return ((r.body as { messages?: Message[] } | null)?.messages ?? []) as Message[];
}
function blocks(m: Message | undefined): Block[] {
  return typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : (m?.content ?? []);
}
function toolsOf(r: Recorded): string[] {
  return (((r.body as { tools?: { name?: string }[] } | null)?.tools ?? []) as { name?: string }[]).map((t) => t.name ?? '');
}
/** The tool calls the assistant made so far in this conversation, in order. */
function calls(r: Recorded): Block[] {
  return messagesOf(r).filter((m) => m.role === 'assistant').flatMap((m) => blocks(m).filter((b) => b.type === 'tool_use'));
}
/** The text of the result of a tool call. */
function resultOf(r: Recorded, call: Block | undefined): string | undefined {
  if (!call) return undefined;
  for (const m of messagesOf(r)) for (const b of blocks(m)) if (b.type === 'tool_result' && b.tool_use_id === call.id) return textOf(b.content ?? '');
  return undefined;
}
/** Everything after the last assistant message: what came to the model since it last spoke. */
function sinceLastTurn(r: Recorded): string {
  const ms = messagesOf(r);
  let i = ms.length - 1;
  while (i >= 0 && ms[i]?.role !== 'assistant') i--;
  return ms.slice(i + 1).map((m) => textOf(m.content as Json)).join('\n');
}

describe('Claude Code woken by the background command its answer named', () => {
  const dirs = runDirs('claude-code');
  const server = new AgentModelServer(path.join(dirs.base, 'model-requests.jsonl'));
  const stdinLog = path.join(dirs.base, 'mcp-stdin.jsonl');
  let waitCommand = '';
  let backgroundId = '';
  let readCall: Block | undefined;

  before(async () => {
    await server.start();
    await storeWithShim(dirs.store, stdinLog);
  });
  after(() => server.stop());

  it('sets a 5 s wake through MCP, is woken by its background `wait`, reads the pulse; the row is via wait, unverified', async () => {
    server.script = (r): Turn | undefined => {
      // The main conversation; Claude Code's side requests (titles, summaries) offer no Bash.
      if (!toolsOf(r).includes('Bash')) return undefined;
      const done = calls(r);
      const set = done.find((c) => c.name === SET);
      if (!set) {
        if (toolsOf(r).includes(SET)) return { tool: SET, input: { text: WAKE_TEXT, delay_seconds: 5 } };
        // MCP tools are deferred: the model loads the schema through ToolSearch first.
        if (!done.some((c) => c.name === 'ToolSearch')) return { tool: 'ToolSearch', input: { query: `select:${SET}` } };
        return undefined;
      }
      const bash = done.find((c) => c.name === 'Bash');
      if (!bash) {
        const answer = resultOf(r, set) ?? '';
        waitCommand = /run `([^`]+)` as a background command/.exec(answer)?.[1] ?? '';
        if (!waitCommand) return { text: `The tool answer names no background command: ${answer}` };
        return { tool: 'Bash', input: { command: waitCommand, description: 'Wait for the Life Thread wake', run_in_background: true } };
      }
      const started = resultOf(r, bash);
      if (started === undefined) return undefined;
      backgroundId ||= /ID: (\S+?)\.?(\s|$)/.exec(started)?.[1] ?? '';
      const since = sinceLastTurn(r);
      // The turn that started the command: the model ends it and waits.
      if (since.includes(started) && !readCall) return { text: 'Waiting in the background for the wake.' };
      if (!readCall) {
        // Claude Code re-invokes the model with a task notification naming the command's output file.
        const file = new RegExp(`<task-id>${backgroundId}</task-id>[\\s\\S]*?<output-file>([^<]+)</output-file>`).exec(since)?.[1];
        if (file === undefined) return undefined;
        readCall = { type: 'tool_use', name: 'Read', input: { file_path: file } };
        return { tool: 'Read', input: { file_path: file } };
      }
      return { text: 'Woken: reading the job log now.' };
    };
    const mcpJson = mcpClientConfigs(dirs.store).find((c) => c.kind === 'claude');
    assert.ok(mcpJson);
    const mcpFile = path.join(dirs.work, mcpJson.file);
    fs.writeFileSync(mcpFile, mcpJson.text);
    fs.writeFileSync(path.join(dirs.home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, bypassPermissionsModeAccepted: true, autoUpdates: false, projects: { [dirs.work]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }));
    const env = claudeEnv(dirs.home, server.origin);
    const args = ['-p', 'Wake me in 5 seconds to read the job log.', '--mcp-config', mcpFile, '--strict-mcp-config', '--allowedTools', SET, 'Bash', 'Read', '--output-format', 'stream-json', '--verbose', '--no-session-persistence'];
    const run = await runAgent(CLAUDE, args, { cwd: dirs.work, env, ms: 90_000, log: path.join(dirs.base, 'claude') });
    assert.equal(run.code, 0, tail(run));
    assert.ok(waitCommand, `the set-wake answer named no background command\n${tail(run)}`);

    // With the switches above the agent reaches nothing outside 127.0.0.1 through its proxy (docs/test-host.md).
    assert.deepEqual(server.outside, [], 'outside traffic the proxy sink refused');
    const rows = await wakeRows(dirs.store);
    assert.equal(rows.length, 1, JSON.stringify(rows));
    const row = rows[0];
    assert.ok(row);
    assert.equal(row.text, WAKE_TEXT);
    assert.equal(row.status, 'fired', JSON.stringify(row));
    // The pulse reached the model after the scripted read of the background command's output.
    const read = server.requests.find((r) => calls(r).some((c) => c.name === 'Read'));
    assert.ok(read && readCall, `the model never read the background command's output\n${tail(run)}`);
    const pulse = resultOf(read, calls(read).find((c) => c.name === 'Read')) ?? '';
    // Read numbers the lines (`cat -n`).
    assert.match(pulse, new RegExp(`life_wake:\\n(\\d+\\t)?\\s+wake: ${row.id}\\n`), `the read's answer holds no pulse: ${pulse}`);
    assert.ok(pulse.includes(WAKE_TEXT));
    assert.deepEqual([row.fact?.via, row.fact?.delivered, row.fact?.unverified], ['wait', true, true], JSON.stringify(row.fact));

    // Claude Code's own handshake, as the MCP server read it (up to `notifications/initialized`), for the protocol-level test.
    const lines = fs.readFileSync(stdinLog, 'utf8').split('\n');
    const end = lines.findIndex((l) => l.includes('"notifications/initialized"'));
    assert.ok(end > 0, `no initialized notification in what Claude Code sent:\n${lines.slice(0, 5).join('\n')}`);
    const handshake = lines.slice(0, end + 1);
    const init = handshake.map((l) => JSON.parse(l) as { method?: string; params?: { clientInfo?: { name?: string } } }).find((m) => m.method === 'initialize');
    assert.equal(init?.params?.clientInfo?.name, 'claude-code', handshake.join('\n'));
    if (process.env.LIFE_THREAD_SAVE_FIXTURES) {
      fs.mkdirSync(path.dirname(HANDSHAKE_FIXTURE), { recursive: true });
      fs.writeFileSync(HANDSHAKE_FIXTURE, `${handshake.join('\n')}\n`);
    }
  });
});
