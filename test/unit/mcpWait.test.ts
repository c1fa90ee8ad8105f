/**
 * `lifethread_wait` over stdio against the built server: a long poll that answers with the pulse when
 * the wake fires (a verified receipt, via mcp), "Not yet" with the wake's state at its timeout, errors
 * naming the field for every bad input (schema as strict as the check), and a wake of an ended
 * session of the same client and folder handed over marked earlier_session.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import { baseEnv, CLI, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-mcpwait-');

async function connect(store: string, cwd: string, name = 'codex-test'): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--store', store, '--tz', 'UTC'], cwd, env: baseEnv() as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
  return { text: r.content.map((x) => (x.type === 'text' ? x.text : '')).join(''), isError: r.isError === true };
}

function rowOf(text: string): WakeRow {
  return wakeRowSchema.parse(JSON.parse(text.slice(text.indexOf('\n\n{') + 2)));
}

async function wakeRows(store: string): Promise<WakeRow[]> {
  const r = await runCli(['wake', 'list', '--json', '--store', store], { cwd: stores.root() });
  assert.equal(r.code, 0, r.stderr);
  return z.array(wakeRowSchema).parse(JSON.parse(r.stdout));
}

describe('lifethread_wait', { concurrency: 2 }, () => {
  it('answers with the pulse when the wake fires, in the same call; the receipt is verified (via mcp)', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    try {
      const row = rowOf((await call(s.client, 'lifethread_sendToLifeThread', { text: 'WAKE-WAITED', delay_seconds: 2 })).text);
      const started = Date.now();
      const got = await call(s.client, 'lifethread_wait', { wake_id: row.id, timeout_seconds: 30 });
      assert.equal(got.isError, false, got.text);
      assert.equal(got.text, `WAKE-WAITED\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer`);
      assert.ok(Date.now() >= Date.parse(row.nextRunAt ?? ''), 'not before its time');
      assert.ok(Date.now() - started < 10_000, 'as it fires, not at the timeout');
      const fired = (await wakeRows(store))[0];
      assert.deepEqual([fired?.status, fired?.fact?.delivered, fired?.fact?.via, fired?.fact?.unverified], ['fired', true, 'mcp', undefined]);
      // Asked again, the fired wake's pulse comes at once; the row stays as it was.
      const again = await call(s.client, 'lifethread_wait', { wake_id: row.id });
      assert.equal(again.text, got.text);
      assert.deepEqual((await wakeRows(store))[0], fired);
    } finally {
      await s.client.close();
    }
  });

  it('on a store no window has used, the background command the wake note gives exists and prints the pulse', async () => {
    const store = stores.freshStore();
    assert.equal(existsSync(join(store, 'bin', 'life-thread')), false, 'the store starts without its CLI entry');
    const s = await connect(store, store);
    try {
      const answer = (await call(s.client, 'lifethread_sendToLifeThread', { text: 'WAKE-BY-SHIM', delay_seconds: 2 })).text;
      const line = /run `([^`]+)` as a background command/.exec(answer)?.[1];
      assert.ok(line, `the answer names no background command:\n${answer}`);
      assert.ok(line.startsWith(`${join(store, 'bin', 'life-thread')} wait `) || line.startsWith(`'${join(store, 'bin', 'life-thread')}' wait `), line);
      const r = spawnSync('bash', ['-c', line], { cwd: store, env: baseEnv(), encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, `${line}\n${r.stderr}`);
      assert.match(r.stdout, /^WAKE-BY-SHIM\n\nlife_wake:\n {2}wake: w-/);
    } finally {
      await s.client.close();
    }
  });

  it('at its timeout answers "Not yet" with the wake\'s state; the wake stays pending', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    try {
      const row = rowOf((await call(s.client, 'lifethread_sendToLifeThread', { text: 'later', delay_seconds: 3600 })).text);
      const started = Date.now();
      const got = await call(s.client, 'lifethread_wait', { wake_id: row.id, timeout_seconds: 1 });
      const took = Date.now() - started;
      assert.equal(got.isError, false);
      assert.match(got.text, new RegExp(`^Not yet: wake ${row.id} is pending: its timer is due .* UTC, in (59 min|1 h)\\. Call lifethread_wait again to keep waiting\\.$`));
      assert.ok(took >= 950 && took < 5000, `took ${took} ms`);
      assert.equal((await wakeRows(store))[0]?.status, 'pending');
    } finally {
      await s.client.close();
    }
  });

  it('bad input is an error result naming the field; the listed schema holds the same bounds', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    try {
      const { tools } = await s.client.listTools();
      const schema = tools.find((t) => t.name === 'lifethread_wait')?.inputSchema as { properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: boolean };
      assert.deepEqual([schema.properties.timeout_seconds?.type, schema.properties.timeout_seconds?.minimum, schema.properties.timeout_seconds?.maximum], ['integer', 1, 50]);
      assert.deepEqual([schema.required, schema.additionalProperties], [['wake_id'], false]);
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'wake_id'],
        [{ wake_id: 'nonsense' }, 'wake_id'],
        [{ wake_id: 'w-nosuchwake0' }, 'wake_id'],
        [{ wake_id: 'w-nosuchwake0', timeout_seconds: 51 }, 'timeout_seconds'],
        [{ wake_id: 'w-nosuchwake0', timeout_seconds: 0 }, 'timeout_seconds'],
        [{ wake_id: 'w-nosuchwake0', timeout_seconds: 1.5 }, 'timeout_seconds'],
        [{ wake_id: 'w-nosuchwake0', timeout_seconds: '5' }, 'timeout_seconds'],
        [{ wake_id: 'w-nosuchwake0', colour: 'red' }, 'colour'],
      ];
      for (const [args, field] of cases) {
        const r = await call(s.client, 'lifethread_wait', args);
        assert.equal(r.isError, true, `${JSON.stringify(args)} → ${r.text}`);
        assert.match(r.text, new RegExp(`^Invalid input — ${field}: \\S`), JSON.stringify(args));
      }
      const unknown = await call(s.client, 'lifethread_wait', { wake_id: 'w-nosuchwake0' });
      assert.equal(unknown.text, `Invalid input — wake_id: no wake w-nosuchwake0 in this store (${store})`);
    } finally {
      await s.client.close();
    }
  });

  it('a wake of a killed session comes to the next session of the same client and folder through lifethread_wait, marked earlier_session', async () => {
    const store = stores.freshStore();
    const cwd = stores.freshStore();
    const first = await connect(store, cwd);
    const row = rowOf((await call(first.client, 'lifethread_sendToLifeThread', { text: 'WAKE-NEXT-SESSION', delay_seconds: 3 })).text);
    const pid = first.transport.pid;
    assert.ok(pid !== null);
    process.kill(pid, 'SIGKILL');
    await first.client.close().catch(() => undefined);
    const next = await connect(store, cwd);
    try {
      const got = await call(next.client, 'lifethread_wait', { wake_id: row.id, timeout_seconds: 30 });
      assert.equal(got.text, `WAKE-NEXT-SESSION\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer\n  earlier_session: true`);
      const fired = (await wakeRows(store))[0];
      assert.deepEqual([fired?.status, fired?.fact?.via, fired?.fact?.earlierSession, fired?.fact?.unverified], ['fired', 'mcp', true, undefined]);
    } finally {
      await next.client.close();
    }
  });

  it('a wake set from the CLI in this folder, collected through lifethread_wait, is not marked earlier_session', async () => {
    const store = stores.freshStore();
    const cwd = stores.freshStore();
    const added = await runCli(['wake', 'add', '--text', 'WAKE-FROM-CLI', '--delay-seconds', '2', '--store', store, '--json'], { cwd });
    assert.equal(added.code, 0, added.stderr);
    const row = wakeRowSchema.parse(JSON.parse(added.stdout));
    const s = await connect(store, cwd);
    try {
      const got = await call(s.client, 'lifethread_wait', { wake_id: row.id, timeout_seconds: 30 });
      assert.equal(got.text, `WAKE-FROM-CLI\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer`);
      const fired = (await wakeRows(store))[0];
      assert.deepEqual([fired?.status, fired?.fact?.via, fired?.fact?.earlierSession, fired?.fact?.unverified], ['fired', 'mcp', undefined, undefined]);
    } finally {
      await s.client.close();
    }
  });
});
