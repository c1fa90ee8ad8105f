/**
 * Who set a wake: every route records its sender on the row (`life`, `agent`, `mcp` with its client,
 * `cli`), a row without one reads as `life`, and `lifeThread.wake.target` picks the receiver from it.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Owner } from '../../src/core/schema';
import { newWakeRow, wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import { receiverOf, senderOf, type WakeTarget } from '../../src/core/wake/sender';
import { parseWakeInput } from '../../src/core/wake/contract';
import { LIFE_CALL_KEY, markLifeCall, senderOfToolCall, takeLifeCall } from '../../src/node/tools/lifeCalls';
import { sendToLifeThread, type WakeToolHost } from '../../src/node/tools/wakeTool';
import { ScheduleStore } from '../../src/node/schedule';
import { WakeStore } from '../../src/node/wakes';
import { baseEnv, CLI, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-sender-');
const NOW = new Date('2026-10-03T07:00:00.000Z');

function rowOf(extra: Record<string, unknown>): unknown {
  const parsed = parseWakeInput({ text: 'x', delay_seconds: 60 }, { now: NOW, tz: 'UTC' });
  assert.equal(parsed.kind, 'wake');
  return { ...newWakeRow(parsed as Extract<typeof parsed, { kind: 'wake' }>, { id: 'w-sender1', now: NOW }), ...extra };
}

function toolHost(dir: string, owner: Owner, sender?: WakeToolHost['sender']): WakeToolHost {
  return {
    store: new WakeStore({ dir }),
    commands: new ScheduleStore({ dir }),
    now: () => NOW,
    zone: () => ({ timeZone: 'UTC', source: 'host', ignored: [] }),
    owner,
    ...(sender ? { sender } : {}),
    landing: () => Promise.reject(new Error('no landing in these tests')),
  };
}

async function cliRows(store: string): Promise<WakeRow[]> {
  const r = await runCli(['wake', 'list', '--json', '--store', store], { cwd: stores.root() });
  assert.equal(r.code, 0, r.stderr);
  return z.array(wakeRowSchema).parse(JSON.parse(r.stdout));
}

describe('the wake row records its sender', () => {
  it('a row without sender reads as life; a sender of another kind, or with an unknown key, is refused naming sender', () => {
    const plain = wakeRowSchema.parse(rowOf({}));
    assert.equal(plain.sender, undefined);
    assert.deepEqual(senderOf(plain), { kind: 'life' });
    assert.deepEqual(wakeRowSchema.parse(rowOf({ sender: { kind: 'mcp', client: 'claude-code' } })).sender, { kind: 'mcp', client: 'claude-code' });
    for (const bad of [{ kind: 'copilot' }, { kind: 'agent', model: 'x' }, { kind: 'mcp', client: '' }, 'agent']) {
      const r = wakeRowSchema.safeParse(rowOf({ sender: bad }));
      assert.equal(r.success, false, JSON.stringify(bad));
      assert.ok(r.error.issues.some((i) => i.path[0] === 'sender'), `${JSON.stringify(bad)}: ${r.error.message}`);
    }
  });

  it('the tool route: the sender the window names (life, agent); else what the owner implies (mcp with its client, cli, life)', async () => {
    const dir = stores.freshStore();
    const window: Owner = { kind: 'window', folders: ['file:///w'], pid: process.pid };
    const cases: [Owner, WakeToolHost['sender'], unknown][] = [
      [window, { kind: 'life' }, { kind: 'life' }],
      [window, { kind: 'agent' }, { kind: 'agent' }],
      [window, undefined, { kind: 'life' }],
      [{ kind: 'mcp', client: 'codex', pid: process.pid }, undefined, { kind: 'mcp', client: 'codex' }],
      [{ kind: 'cli', pid: process.pid }, undefined, { kind: 'cli' }],
    ];
    for (const [owner, sender, want] of cases) {
      const r = await sendToLifeThread({ text: `from ${owner.kind}`, delay_seconds: 600 }, toolHost(dir, owner, sender));
      assert.deepEqual(r.rows[0]?.sender, want, `${owner.kind} ${JSON.stringify(sender)}`);
      const stored = (await new WakeStore({ dir }).list()).find((w) => w.id === r.rows[0]?.id);
      assert.deepEqual(stored?.sender, want, 'on disk as answered');
    }
  });

  it('@life marks its own calls with a one-time key; a call without it, with a key it did not give out, or a second time is the agent\u2019s', () => {
    const marked = markLifeCall({ text: 'x', delay_seconds: 5 });
    const key = marked.input[LIFE_CALL_KEY];
    assert.equal(typeof key, 'string');
    // What travels through lm.invokeTool is JSON: the key survives it.
    const sent = JSON.parse(JSON.stringify(marked.input)) as unknown;
    const copy = JSON.parse(JSON.stringify(marked.input)) as unknown;
    assert.deepEqual(takeLifeCall(sent), { input: { text: 'x', delay_seconds: 5 }, life: true });
    assert.deepEqual(takeLifeCall(copy), { input: { text: 'x', delay_seconds: 5 }, life: false }, 'a key counts once');
    assert.deepEqual(takeLifeCall({ text: 'x' }), { input: { text: 'x' }, life: false });
    assert.deepEqual(takeLifeCall({ text: 'x', [LIFE_CALL_KEY]: 'life-guessed' }), { input: { text: 'x' }, life: false });
    const late = markLifeCall({ text: 'y' });
    late.done();
    assert.equal(takeLifeCall(late.input).life, false, 'a key is released when its call ends');
    assert.deepEqual(takeLifeCall('not an object'), { input: 'not an object', life: false });
  });

  it('the language-model tool route: @life’s marked call is life, another chat request’s call is agent, a call outside any chat request is life', () => {
    const own = markLifeCall({ text: 'x' });
    assert.deepEqual(senderOfToolCall(JSON.parse(JSON.stringify(own.input)), true), { input: { text: 'x' }, sender: { kind: 'life' } });
    assert.deepEqual(senderOfToolCall({ text: 'x' }, true), { input: { text: 'x' }, sender: { kind: 'agent' } });
    assert.deepEqual(senderOfToolCall({ text: 'x', [LIFE_CALL_KEY]: 'life-forged' }, true), { input: { text: 'x' }, sender: { kind: 'agent' } });
    assert.deepEqual(senderOfToolCall({ text: 'x' }, false), { input: { text: 'x' }, sender: { kind: 'life' } });
  });

  it('the CLI route: wake add and run --wake record cli', async () => {
    const store = stores.freshStore();
    const add = await runCli(['wake', 'add', '--text', 'CLI-WAKE', '--delay-seconds', '600', '--json', '--store', store], { cwd: stores.root() });
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(wakeRowSchema.parse(JSON.parse(add.stdout)).sender, { kind: 'cli' });
    const run = await runCli(['run', '--json', '--store', store, '--wake', 'RUN-WAKE', '--', 'sh', '-c', 'exit 0'], { cwd: store });
    assert.equal(run.code, 0, run.stderr);
    const rows = await cliRows(store);
    assert.deepEqual(rows.find((r) => r.text === 'RUN-WAKE')?.sender, { kind: 'cli' });
    assert.deepEqual(rows.find((r) => r.text === 'CLI-WAKE')?.sender, { kind: 'cli' });
  });

  it('the MCP route: a wake set over MCP records mcp and the client\u2019s name', async () => {
    const store = stores.freshStore();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--store', store], cwd: store, env: baseEnv() as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'sender-test-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'lifethread_sendToLifeThread', arguments: { text: 'MCP-WAKE', delay_seconds: 600 } })) as CallToolResult;
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
    } finally {
      await client.close();
    }
    const row = (await cliRows(store)).find((w) => w.text === 'MCP-WAKE');
    assert.deepEqual(row?.sender, { kind: 'mcp', client: 'sender-test-client' });
    assert.equal(path.isAbsolute(store), true);
  });
});

describe('lifeThread.wake.target picks the receiver from the sender', () => {
  it('auto: back to Agent mode for an agent\u2019s wake, @life for every other sender; life and agent override', () => {
    const table: [WakeRow['sender'], WakeTarget, 'life' | 'agent'][] = [
      [{ kind: 'agent' }, 'auto', 'agent'],
      [{ kind: 'life' }, 'auto', 'life'],
      [undefined, 'auto', 'life'],
      [{ kind: 'mcp', client: 'c' }, 'auto', 'life'],
      [{ kind: 'cli' }, 'auto', 'life'],
      [{ kind: 'agent' }, 'life', 'life'],
      [{ kind: 'life' }, 'agent', 'agent'],
    ];
    for (const [sender, target, want] of table) assert.equal(receiverOf(sender ? { sender } : {}, target), want, `${JSON.stringify(sender)} ${target}`);
  });
});
