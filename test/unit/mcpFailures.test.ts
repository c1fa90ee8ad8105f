/**
 * The failure paths that mcp.test.ts leaves out (of the MCP server, `wait` and `run`):
 * how `mcp` finds its store, `run`'s own errors before the start (exit 3, the command not run), a
 * job that outlives its timeout (exit 124, the group killed), a `run` killed before its job ended (the
 * next `wait` prints the wake as lost), a later server in the same folder taking over its killed
 * predecessor's wake, and resource subscriptions.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ownerOf } from '../../src/core/claim';
import { parseWakeInput } from '../../src/core/wake/contract';
import { pulseEventOfRow, renderPulse } from '../../src/core/wake/pulse';
import { wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import { cliHolder } from '../../src/node/liveness';
import { runTerminalJob, triggerJobWakes } from '../../src/node/terminalJob';
import { WakeStore } from '../../src/node/wakes';
import { baseEnv, CLI, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-mcpfail-');

interface Session {
  client: Client;
  transport: StdioClientTransport;
}

/** `before`: set handlers before the session starts (a server may push as soon as it is initialized). */
async function connect(args: string[], cwd: string, opts: { name?: string; channel?: boolean; env?: Record<string, string>; before?: (client: Client) => void } = {}): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, env: { ...(baseEnv() as Record<string, string>), ...opts.env }, stderr: 'pipe' });
  const client = new Client({ name: opts.name ?? 'lt-fail-client', version: '1.0.0' }, { capabilities: opts.channel ? { experimental: { 'claude/channel': {} } } : {} });
  opts.before?.(client);
  await client.connect(transport);
  return { client, transport };
}

async function call(s: Session, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await s.client.callTool({ name, arguments: args })) as CallToolResult;
  return { text: r.content.map((c) => (c.type === 'text' ? c.text : '')).join(''), isError: r.isError === true };
}

function jsonTail(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\n\n{') + 2)) as unknown;
}

async function wakeRows(store: string): Promise<WakeRow[]> {
  const r = await runCli(['wake', 'list', '--json', '--store', store], { cwd: stores.root() });
  assert.equal(r.code, 0, r.stderr);
  return z.array(wakeRowSchema).parse(JSON.parse(r.stdout));
}

function textOfResource(r: { contents: ({ text: string } | { blob: string })[] }): string {
  const c = r.contents[0];
  return c !== undefined && 'text' in c ? c.text : '';
}

async function until<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose environment carries LIFE_THREAD_JOB=<jobId> (Linux /proc). */
function jobProcesses(jobId: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`LIFE_THREAD_JOB=${jobId}`)) found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe('life-thread mcp: finding the store', { concurrency: 2 }, () => {
  it('no --store and no LIFE_THREAD_STORE: exit 2 naming the store (no default path); --json is refused', async () => {
    const cwd = stores.freshStore();
    const none = await runCli(['mcp'], { cwd });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^life-thread: store: no store directory: give --store DIR or set LIFE_THREAD_STORE/);
    assert.equal(none.stdout, '', 'nothing on the protocol stream');
    const json = await runCli(['mcp', '--json', '--store', stores.freshStore()], { cwd });
    assert.equal(json.code, 2);
    assert.equal((JSON.parse(json.stderr) as { error: { field: string } }).error.field, 'json');
  });

  it('LIFE_THREAD_STORE names the store when --store is not given', async () => {
    const store = stores.freshStore();
    const cwd = stores.freshStore();
    const s = await connect([], cwd, { env: { LIFE_THREAD_STORE: store } });
    try {
      const added = await call(s, 'lifethread_remind', { action: 'add', text: 'from the environment', when: 'in 1 hour' });
      assert.equal(added.isError, false, added.text);
      const listed = await runCli(['remind', 'list', '--json', '--store', store], { cwd });
      assert.deepEqual((JSON.parse(listed.stdout) as { text: string }[]).map((r) => r.text), ['from the environment']);
    } finally {
      await s.client.close();
    }
  });
});

describe('life-thread mcp: the end of a session', () => {
  it('a client that sends its calls and closes its stdin still gets every answer, then the server exits 0', async () => {
    const store = stores.freshStore();
    const child = spawn(process.execPath, [CLI, 'mcp', '--store', store], { cwd: store, env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const exited = new Promise<number | null>((res) => child.on('close', res));
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'half-close', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lifethread_sendToLifeThread', arguments: { text: 'later', delay_seconds: 600 } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lifethread_remind', arguments: { action: 'add', text: 'y', when: 'in 1 hour' } } },
    ];
    child.stdin.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    assert.equal(await exited, 0);
    const answers = stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result: { content?: { text: string }[] } });
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3]);
    const wake = (await wakeRows(store))[0];
    assert.ok(wake);
    assert.match(answers.find((a) => a.id === 2)?.result.content?.[0]?.text ?? '', new RegExp(`^Wake ${wake.id} set: `), 'the caller learns the id of the wake it set');
  });
});

describe('life-thread run: failures', { concurrency: 2 }, () => {
  it('a wakes table it cannot read (corrupt, newer schema): exit 3 before the command runs, with or without --wake', async () => {
    for (const table of ['garbage', '{"schemaVersion":99,"rows":[]}']) {
      for (const wake of [[], ['--wake', 'done']]) {
        const store = stores.freshStore();
        fs.writeFileSync(path.join(store, 'wakes.json'), table);
        const marker = path.join(store, 'ran');
        const r = await runCli(['run', '--json', ...wake, '--store', store, '--', 'sh', '-c', `touch '${marker}'; exit 5`], { cwd: store });
        assert.equal(r.code, 3, `${table} ${wake.join(' ')}: ${r.stderr}`);
        assert.equal((JSON.parse(r.stderr) as { error: { field: string } }).error.field, 'store');
        assert.equal(fs.existsSync(marker), false, 'the command did not run');
        assert.equal(fs.readFileSync(path.join(store, 'wakes.json'), 'utf8'), table, 'the table is left as found');
      }
    }
  });

  it('a table broken while the command ran: run still exits with the command’s code and says the wakes could not be fired', async () => {
    const store = stores.freshStore();
    const r = await runCli(['run', '--wake', 'done', '--store', store, '--', 'sh', '-c', 'echo garbage > "$LIFE_THREAD_STORE/wakes.json"; exit 5'], { cwd: store });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /^life-thread: job (j-[a-z0-9]{10}) \(wake w-[a-z0-9]{10}\)\nlife-thread: \1: the job\.done wakes could not be fired: .*wakes\.json is not valid JSON/);
  });

  it('a job that outlives its timeout: its process group is killed, run exits 124, its job.done wake says timed out', async () => {
    const store = stores.freshStore();
    const wakes = new WakeStore({ dir: store });
    const now = new Date();
    const parsed = parseWakeInput({ text: 'slow job', when: 'job.done', job_id: 'j-timeouttest' }, { now, tz: 'UTC' });
    assert.equal(parsed.kind, 'wake');
    if (parsed.kind !== 'wake') return;
    await wakes.add(parsed, { now, owner: ownerOf(cliHolder(), { kind: 'cli', cwd: store }), jobStartedAt: now });
    const pidFile = path.join(store, 'grandchild.pid');
    const started = Date.now();
    const end = await runTerminalJob({ storeDir: store, jobId: 'j-timeouttest', argv: ['sh', '-c', `echo begun; sleep 30 & echo $! > '${pidFile}'; wait`], cwd: store, env: baseEnv(), timeoutMs: 600 });
    assert.ok(Date.now() - started < 10_000, 'stopped at its timeout, not at the end of the sleep');
    assert.equal(end.exitCode, 124);
    assert.equal(end.fact.timedOut, true);
    assert.match(end.fact.error ?? '', /timed out .*the process group was killed/);
    const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
    await until(async () => (alive(grandchild) ? undefined : true), 5000, 'the sleep in the job’s group to be killed');
    assert.match(fs.readFileSync(path.join(store, 'logs', 'j-timeouttest.log'), 'utf8'), /^begun\n/);
    const fired = await triggerJobWakes(wakes, 'j-timeouttest', end, cliHolder());
    assert.equal(fired.length, 1);
    const row = (await wakeRows(store))[0];
    // run exits 124, but the wake says how the job ended: failed by our timeout, no exit code of its own.
    assert.deepEqual([row?.status, row?.heldReason, row?.fact?.exitCode, row?.fact?.jobStatus, row?.fact?.timedOut], ['held', 'unreachable', null, 'failed', true]);
    assert.ok(row);
    assert.match(renderPulse(row, pulseEventOfRow(row)), /\n {2}job: \{ id: "j-timeouttest", status: failed, exit_code: null, timed_out: true \}\n/);
  });

  it('a run killed before its job ended: the next wait prints the wake with job status lost', async () => {
    const store = stores.freshStore();
    const child = spawn(process.execPath, [CLI, 'run', '--json', '--wake', 'WAKE-LOST', '--store', store, '--', 'sleep', '20'], { cwd: store, env: baseEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const header = new Promise<{ jobId: string; wakeId: string }>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        const nl = stderr.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(stderr.slice(0, nl)) as { jobId: string; wakeId: string });
      });
    });
    const { jobId, wakeId } = await header;
    const closed = new Promise((res) => child.on('close', res));
    child.kill('SIGKILL');
    await closed;
    try {
      const w = await runCli(['wait', wakeId, '--timeout', '15', '--json', '--store', store], { cwd: store });
      assert.equal(w.code, 0, w.stderr);
      const pulse = JSON.parse(w.stdout) as { text: string; life_wake: { reason: string; job: { id: string; status: string; exit_code: number | null } } };
      assert.equal(pulse.text, 'WAKE-LOST');
      assert.deepEqual(pulse.life_wake.job, { id: jobId, status: 'lost', exit_code: null });
      const row = (await wakeRows(store))[0];
      assert.deepEqual([row?.status, row?.fact?.via, row?.fact?.delivered], ['fired', 'wait', true]);
    } finally {
      // The orphaned job outlives its killed run: end the processes that carry this job's id.
      for (const p of jobProcesses(jobId)) process.kill(p, 'SIGKILL');
    }
  });
});

describe('life-thread mcp: delivery', { concurrency: 2 }, () => {
  it('a wake of a killed session goes to the first tool answer of the next session of the same client and folder (earlier_session, never pushed); not to another folder or client', async () => {
    const store = stores.freshStore();
    const cwd = stores.freshStore();
    const elsewhere = stores.freshStore();
    const first = await connect(['--store', store], cwd);
    const row = wakeRowSchema.parse(jsonTail((await call(first, 'lifethread_sendToLifeThread', { text: 'WAKE-ADOPTED', delay_seconds: 1 })).text));
    const pid = first.transport.pid;
    assert.ok(pid !== null);
    process.kill(pid, 'SIGKILL');
    await first.client.close().catch(() => undefined);
    const channelSchema = z.object({ method: z.literal('notifications/claude/channel'), params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }) });
    const pushes: string[] = [];
    const counting = (c: Client): void => c.setNotificationHandler(channelSchema, (n) => void pushes.push(n.params.content));
    const other = await connect(['--store', store], elsewhere, { channel: true, before: counting });
    const stranger = await connect(['--store', store], cwd, { name: 'another-client', channel: true, before: counting });
    try {
      await new Promise((res) => setTimeout(res, 2500));
      for (const s of [other, stranger]) assert.ok(!(await call(s, 'lifethread_remind', { action: 'list' })).text.includes('WAKE-ADOPTED'));
      assert.equal((await wakeRows(store))[0]?.status, 'pending', 'a session in another folder, or of another client, leaves it alone');
      const refused = await call(other, 'lifethread_wait', { wake_id: row.id, timeout_seconds: 1 });
      assert.equal(refused.isError, true);
      assert.equal(refused.text, `Invalid input — wake_id: ${row.id} was set for another folder (${cwd}); this session serves ${elsewhere}`);
      const same = await connect(['--store', store], cwd, { channel: true, before: counting });
      try {
        // Its first tool answer, called the moment it connects, carries the due wake (never pushed).
        const answer = await call(same, 'lifethread_remind', { action: 'list' });
        assert.match(answer.text, new RegExp(`\\n\\nWAKE-ADOPTED\\n\\nlife_wake:\\n  wake: ${row.id}\\n  reason: timer\\n  earlier_session: true$`));
        const fired = (await wakeRows(store))[0];
        assert.deepEqual([fired?.status, fired?.fact?.delivered, fired?.fact?.via, fired?.fact?.earlierSession, fired?.fact?.unverified], ['fired', true, 'mcp', true, undefined]);
        assert.deepEqual(pushes, [], 'no session was pushed a wake it did not set');
      } finally {
        await same.client.close();
      }
    } finally {
      await other.client.close();
      await stranger.client.close();
    }
  });

  it('a client subscribed to lifethread://wakes/<id> is told it was updated and reads the pulse there (via mcp, unverified)', async () => {
    const store = stores.freshStore();
    const s = await connect(['--store', store], store, { name: 'subscriber' });
    try {
      const row = wakeRowSchema.parse(jsonTail((await call(s, 'lifethread_sendToLifeThread', { text: 'WAKE-RESOURCE', delay_seconds: 1 })).text));
      const uri = `lifethread://wakes/${row.id}`;
      const before = await s.client.readResource({ uri });
      assert.match(textOfResource(before), new RegExp(`^${row.id} is pending; its pulse is here once it fires\\.$`));
      const updated = new Promise<string>((resolve) => s.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
      await s.client.subscribeResource({ uri });
      assert.equal(await updated, uri);
      const read = await s.client.readResource({ uri });
      assert.equal(textOfResource(read), `WAKE-RESOURCE\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer`);
      const fired = (await wakeRows(store))[0];
      assert.deepEqual([fired?.status, fired?.fact?.via, fired?.fact?.delivered, fired?.fact?.unverified], ['fired', 'mcp', true, true]);
    } finally {
      await s.client.close();
    }
  });
});
