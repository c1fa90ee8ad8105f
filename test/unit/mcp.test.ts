/**
 * `life-thread mcp`, `wait` and `run` end to end: the
 * built CLI in child processes, driven by the MCP SDK's own client over stdio. Tools and their schemas,
 * rows owned by the MCP client, errors naming the field, wakes that come back into the session that
 * set them (channel, log message, a later tool answer) or to `life-thread wait`, and wakes whose server
 * was killed before their time fired once by the next `wait`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { makeAnchor } from '../../src/core/anchor/code';
import { cliLine } from '../../src/core/mcpConfig';
import { remindInputSchema, resolveAnchorInputSchema, scheduleInputSchema, waitInputSchema } from '../../src/core/toolInputs';
import { wakeInputSchema } from '../../src/core/wake/contract';
import { reminderRowSchema } from '../../src/core/schema';
import { wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import { baseEnv, CLI, REPO, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-mcp-');

interface Session {
  client: Client;
  transport: StdioClientTransport;
  close(): Promise<void>;
}

async function connect(store: string, cwd: string, opts: { name?: string; channel?: boolean } = {}): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--store', store, '--tz', 'Europe/Berlin'], cwd, env: baseEnv() as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: opts.name ?? 'lt-test-client', version: '1.0.0' }, { capabilities: opts.channel ? { experimental: { 'claude/channel': {} } } : {} });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

function textOf(r: unknown): string {
  const res = r as CallToolResult;
  return res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The JSON a tool answer ends with (the row, or the rows). */
function jsonTail(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\n\n{') + 2)) as unknown;
}

async function call(s: Session, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await s.client.callTool({ name, arguments: args })) as CallToolResult;
  return { text: textOf(r), isError: r.isError === true };
}

async function wakeRows(store: string): Promise<WakeRow[]> {
  const r = await runCli(['wake', 'list', '--json', '--store', store], { cwd: stores.root() });
  assert.equal(r.code, 0, r.stderr);
  return z.array(wakeRowSchema).parse(JSON.parse(r.stdout));
}

/** `life-thread wait` in the background: resolves with its output, and when its stdout first had text. */
function waitFor(store: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; printedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'wait', ...args, '--store', store], { cwd: stores.root(), env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let printedAt = 0;
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      if (printedAt === 0) printedAt = Date.now();
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, printedAt }));
  });
}

function schemaOf(schema: z.ZodType): unknown {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return { ...rest, type: 'object' };
}

describe('life-thread mcp', { concurrency: 2 }, () => {
  it('lists the five tools with the schemas generated from the tools’ zod schemas and their descriptions', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    try {
      const { tools } = await s.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['lifethread_remind', 'lifethread_schedule', 'lifethread_sendToLifeThread', 'lifethread_resolveAnchor', 'lifethread_wait']);
      const byName = new Map(tools.map((t) => [t.name, t]));
      assert.deepEqual(byName.get('lifethread_remind')?.inputSchema, schemaOf(remindInputSchema));
      assert.deepEqual(byName.get('lifethread_schedule')?.inputSchema, schemaOf(scheduleInputSchema));
      assert.deepEqual(byName.get('lifethread_sendToLifeThread')?.inputSchema, schemaOf(wakeInputSchema));
      assert.deepEqual(byName.get('lifethread_resolveAnchor')?.inputSchema, schemaOf(resolveAnchorInputSchema));
      assert.deepEqual(byName.get('lifethread_wait')?.inputSchema, schemaOf(waitInputSchema));
      const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { contributes: { languageModelTools: { name: string; modelDescription: string }[] } };
      for (const t of tools.filter((x) => x.name !== 'lifethread_wait')) {
        const lm = pkg.contributes.languageModelTools.find((x) => x.name === t.name);
        assert.ok(lm && t.description?.startsWith(lm.modelDescription), `${t.name} describes itself as the language-model tool does`);
      }
      assert.match(s.client.getInstructions() ?? '', /<store>\/bin\/life-thread wait <wake id> --store <store> --timeout <s>/);
      assert.match(s.client.getInstructions() ?? '', /call lifethread_wait \{ wake_id, timeout_seconds ≤ 50 \}/);
    } finally {
      await s.close();
    }
  });

  it('remind add in words: the row is in the store, owned by the MCP client and its directory; list, remove and bad input name the field', async () => {
    const store = stores.freshStore();
    const cwd = stores.freshStore();
    const s = await connect(store, cwd, { name: 'claude-code-test' });
    try {
      const added = await call(s, 'lifethread_remind', { action: 'add', text: 'check the nightly build', when: 'tomorrow at 9' });
      assert.equal(added.isError, false, added.text);
      assert.match(added.text, /^Reminder r-[a-z0-9]{10} added: Once, .* 09:00 CES?T \(0[78]:00Z\), in .* \(zone Europe\/Berlin; next run .* UTC\)\. No dispatcher has run on this store yet/);
      const row = reminderRowSchema.parse(jsonTail(added.text));
      const listed = await runCli(['remind', 'list', '--json', '--store', store], { cwd });
      assert.equal(listed.code, 0, listed.stderr);
      const rows = z.array(reminderRowSchema).parse(JSON.parse(listed.stdout));
      assert.deepEqual(rows, [row]);
      assert.equal(row.text, 'check the nightly build');
      assert.equal(row.tz, 'Europe/Berlin');
      assert.deepEqual({ kind: row.owner?.kind, client: row.owner?.client, cwd: row.owner?.cwd, folders: row.owner?.folders }, { kind: 'mcp', client: 'claude-code-test', cwd, folders: undefined });

      const listedByTool = await call(s, 'lifethread_remind', { action: 'list' });
      assert.match(listedByTool.text, new RegExp(`^1 reminder\\(s\\)\\. .*\\n- Reminder ${row.id} — `));

      const badZone = await call(s, 'lifethread_remind', { action: 'add', text: 'x', when: 'in 5 minutes', tz: 'Europe/Berlinn' });
      assert.equal(badZone.isError, true);
      assert.match(badZone.text, /^Invalid input — tz: 'Europe\/Berlinn' is not a known IANA time zone/);
      const cases: [string, Record<string, unknown>, string][] = [
        ['lifethread_remind', { action: 'add', text: 'x', when: '30m' }, 'when'],
        ['lifethread_remind', { action: 'add', when: 'in 5 minutes' }, 'text'],
        ['lifethread_remind', { action: 'snooze' }, 'action'],
        ['lifethread_remind', { action: 'list', colour: 'red' }, 'colour'],
        ['lifethread_schedule', { action: 'add_command', command: 'true', when: 'in 5 minutes', timeout_minutes: '5' }, 'timeout_minutes'],
        ['lifethread_schedule', { action: 'move', id: 'c-nosuchrow', when: 'in 5 minutes' }, 'id'],
        ['lifethread_sendToLifeThread', { text: 'x', delay_seconds: -5 }, 'delay_seconds'],
        ['lifethread_sendToLifeThread', { text: 'x', when: 'job.done' }, 'job_id'],
        ['lifethread_sendToLifeThread', { text: 'x', payload: { a: 1 }, delay_seconds: 5 }, 'text'],
      ];
      for (const [name, args, field] of cases) {
        const r = await call(s, name, args);
        assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} → ${r.text}`);
        assert.match(r.text, new RegExp(`^Invalid input — ${field}: \\S`), `${name} ${JSON.stringify(args)}`);
      }
      // Nothing the bad calls sent was written.
      const after = await runCli(['remind', 'list', '--json', '--store', store], { cwd });
      assert.deepEqual(JSON.parse(after.stdout), [row]);
      assert.deepEqual(await wakeRows(store), []);

      const cmd = await call(s, 'lifethread_schedule', { action: 'add_command', command: 'echo hi', when: 'in 1 hour', timeout_minutes: 3 });
      assert.equal(cmd.isError, false, cmd.text);
      const c = jsonTail(cmd.text) as { cwd: string; timeoutMinutes: number; owner: { kind: string }; envPath?: string };
      assert.deepEqual([c.cwd, c.timeoutMinutes, c.owner.kind], [cwd, 3, 'mcp'], 'a command runs in the server’s working directory');
      assert.equal(c.envPath, baseEnv().PATH, 'and records the server’s PATH, which the OS timer runs it with');

      const removed = await call(s, 'lifethread_remind', { action: 'remove', id: row.id });
      assert.match(removed.text, new RegExp(`^Removed reminder ${row.id}\\.`));
    } finally {
      await s.close();
    }
  });

  it('resolveAnchor outside a window: the ladder without the symbol step (said so), open refused', async () => {
    const store = stores.freshStore();
    const cwd = stores.freshStore();
    const file = path.join(cwd, 'a.ts');
    const before = 'export class A {\n  run(): number {\n    return 1;\n  }\n}\n';
    fs.writeFileSync(file, before);
    const anchor = makeAnchor(before, file, { start: { line: 2, character: 4 }, end: { line: 2, character: 13 } }, 'A.run');
    fs.writeFileSync(file, `// moved\n\n${before}`);
    const s = await connect(store, cwd);
    try {
      const r = await call(s, 'lifethread_resolveAnchor', { anchor });
      assert.equal(r.isError, false, r.text);
      assert.match(r.text, /^Re-found by the "excerpt" step at lines 5-5 of .*a\.ts: .*\. The symbol step was skipped: no symbol provider outside a VS Code window\./);
      const open = await call(s, 'lifethread_resolveAnchor', { anchor, open: true });
      assert.equal(open.isError, true);
      assert.match(open.text, /^Invalid input — open: cannot open places outside a VS Code window/);
      const outside = await call(s, 'lifethread_resolveAnchor', { anchor: { ...anchor, path: path.join(store, 'x.ts') } });
      assert.match(outside.text, /^Invalid input — anchor: .* is outside /);
      // A wake's landing on lines of a file in the folder becomes a CodeAnchor; one outside it is refused.
      const landed = await call(s, 'lifethread_sendToLifeThread', { text: 'look here', delay_seconds: 3600, landing: { path: 'a.ts', start_line: 5, end_line: 5 } });
      assert.equal(landed.isError, false, landed.text);
      const w = wakeRowSchema.parse(jsonTail(landed.text));
      assert.equal(w.landing?.kind, 'code_anchor');
      assert.deepEqual(w.landing?.kind === 'code_anchor' ? [w.landing.anchor.path, w.landing.anchor.excerpt, w.landing.anchor.range.start.line] : [], [file, '    return 1;', 4]);
      const far = await call(s, 'lifethread_sendToLifeThread', { text: 'x', delay_seconds: 3600, landing: { path: path.join(store, 'x.ts'), start_line: 1, end_line: 1 } });
      assert.match(far.text, /^Invalid input — landing\.path: /);
    } finally {
      await s.close();
    }
  });

  it('sendToLifeThread {delay_seconds: 2} → life-thread wait prints the pulse when it is due; the wake is delivered once, via wait', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    try {
      const r = await call(s, 'lifethread_sendToLifeThread', { text: 'WAKE-2S look at the build', delay_seconds: 2 });
      assert.equal(r.isError, false, r.text);
      const row = wakeRowSchema.parse(jsonTail(r.text));
      // By the store's CLI entry and with its store: the agent's terminal may have neither on its PATH or in its environment.
      const timeout = Math.ceil((Date.parse(row.nextRunAt ?? '') - Date.now()) / 1000) + 300;
      const named = new RegExp(`Claude Code: run \`(.*?)\` as a background command`).exec(r.text)?.[1] ?? '';
      assert.ok([timeout, timeout + 1].some((t) => named === cliLine(store, ['wait', row.id, '--store', store, '--timeout', String(t)])), r.text);
      assert.match(r.text, new RegExp(`/bin/life-thread'? wait ${row.id} --store `));
      assert.ok(r.text.includes(`Codex and clients without background commands: call lifethread_wait {"wake_id":"${row.id}","timeout_seconds":50} in this turn`), r.text);
      assert.deepEqual({ kind: row.owner?.kind, client: row.owner?.client, cwd: row.owner?.cwd }, { kind: 'mcp', client: 'lt-test-client', cwd: store });
      const waited = await waitFor(store, [row.id]);
      assert.equal(waited.code, 0, waited.stderr);
      assert.ok(waited.printedAt >= Date.parse(row.nextRunAt ?? ''), 'not before its time');
      assert.equal(waited.stdout, `WAKE-2S look at the build\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer\n`);
      const fired = (await wakeRows(store)).find((w) => w.id === row.id);
      assert.equal(fired?.status, 'fired');
      // A process cannot tell whether a model read what it printed.
      assert.deepEqual([fired?.fact?.delivered, fired?.fact?.via, fired?.fact?.unverified], [true, 'wait', true]);
      // A second wait on a fired wake prints the same pulse at once, as JSON here; the row stays as it was.
      const again = await waitFor(store, [row.id, '--json']);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), { text: 'WAKE-2S look at the build', life_wake: { wake: row.id, reason: 'timer', job: null, summary: null, landing: null, desk: null } });
      assert.deepEqual((await wakeRows(store)).find((w) => w.id === row.id), fired);
    } finally {
      await s.close();
    }
  });

  it('a wake whose MCP server was killed before its time is fired by the next wait, once', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    const r = await call(s, 'lifethread_sendToLifeThread', { text: 'WAKE-ORPHAN', delay_seconds: 2 });
    const row = wakeRowSchema.parse(jsonTail(r.text));
    const pid = s.transport.pid;
    assert.ok(pid !== null);
    process.kill(pid, 'SIGKILL');
    await s.close().catch(() => undefined);
    // Three waiters race for it: one claims and delivers, all print the pulse, the row fires once.
    const waits = await Promise.all([waitFor(store, [row.id]), waitFor(store, [row.id]), waitFor(store, [row.id])]);
    for (const w of waits) {
      assert.equal(w.code, 0, w.stderr);
      assert.match(w.stdout, new RegExp(`^WAKE-ORPHAN\\n\\nlife_wake:\\n  wake: ${row.id}\\n`));
    }
    const rows = await wakeRows(store);
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]?.status, rows[0]?.fact?.via, rows[0]?.fact?.delivered, rows[0]?.fact?.unverified, rows[0]?.fact?.attempts], ['fired', 'wait', true, true, undefined]);
  });

  it('wait: an unknown id exits 2, a cancelled wake exits 2, --timeout exits 4', async () => {
    const store = stores.freshStore();
    const unknown = await waitFor(store, ['w-nosuchwake0', '--json']);
    assert.equal(unknown.code, 2);
    assert.deepEqual(JSON.parse(unknown.stderr), { error: { field: 'id', reason: `no wake w-nosuchwake0 in ${store}` } });
    assert.equal((await waitFor(store, ['nonsense'])).code, 2);
    const add = await runCli(['wake', 'add', '--text', 'later', '--delay-seconds', '3600', '--cancel-token', 'k', '--json', '--store', store], { cwd: store });
    const id = (JSON.parse(add.stdout) as { id: string }).id;
    const timedOut = await waitFor(store, [id, '--timeout', '0.3', '--json']);
    assert.equal(timedOut.code, 4);
    assert.equal((JSON.parse(timedOut.stderr) as { error: { field: string } }).error.field, 'timeout');
    assert.equal((await waitFor(store, [id, '--timeout', 'soon'])).code, 2);
    const pending = waitFor(store, [id]);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal((await runCli(['wake', 'cancel', 'k', '--store', store], { cwd: store })).code, 0);
    const cancelled = await pending;
    assert.equal(cancelled.code, 2);
    assert.match(cancelled.stderr, /was cancelled; it will not fire/);
  });

  it('a client that takes channel pushes gets the pulse in its session (via mcp, unverified until a tool answer carries it); one that set a log level gets a log message', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store, { channel: true });
    const logs = await connect(store, store, { name: 'logger' });
    try {
      const channelSchema = z.object({ method: z.literal('notifications/claude/channel'), params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }) });
      const pushed = new Promise<z.infer<typeof channelSchema>['params']>((resolve) => s.client.setNotificationHandler(channelSchema, (n) => resolve(n.params)));
      const r = await call(s, 'lifethread_sendToLifeThread', { text: 'WAKE-CHANNEL', delay_seconds: 1 });
      const row = wakeRowSchema.parse(jsonTail(r.text));
      const got = await pushed;
      assert.equal(got.content, `WAKE-CHANNEL\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer`);
      assert.deepEqual(got.meta, { wake_id: row.id, reason: 'timer' });

      await logs.client.setLoggingLevel('info');
      const logged = new Promise<unknown>((resolve) => logs.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(n.params.data)));
      const l = wakeRowSchema.parse(jsonTail((await call(logs, 'lifethread_sendToLifeThread', { text: 'WAKE-LOG', delay_seconds: 1 })).text));
      assert.match(String(await logged), new RegExp(`^WAKE-LOG\\n\\nlife_wake:\\n  wake: ${l.id}\\n`));

      // A push may stop at the client: both are unverified.
      const rows = await wakeRows(store);
      const facts = Object.fromEntries(rows.map((w) => [w.id, [w.status, w.fact?.via, w.fact?.delivered, w.fact?.unverified]]));
      assert.deepEqual(facts, { [row.id]: ['fired', 'mcp', true, true], [l.id]: ['fired', 'mcp', true, true] });
      // The next tool answer in the channel session carries the whole pulse, which verifies it; the other session's row stays as it was.
      const next = await call(s, 'lifethread_remind', { action: 'list' });
      assert.ok(next.text.endsWith(`\n\n${got.content}`), next.text);
      const after = Object.fromEntries((await wakeRows(store)).map((w) => [w.id, [w.status, w.fact?.via, w.fact?.unverified]]));
      assert.deepEqual(after, { [row.id]: ['fired', 'mcp', undefined], [l.id]: ['fired', 'mcp', true] });
      const again = await call(s, 'lifethread_remind', { action: 'list' });
      assert.ok(!again.text.includes('WAKE-CHANNEL'), 'carried once');
    } finally {
      await s.close();
      await logs.close();
    }
  });

  it('a claim of the session’s wake whose holder died is taken over and pushed again marked redelivered', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store, { channel: true });
    try {
      const channelSchema = z.object({ method: z.literal('notifications/claude/channel'), params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }) });
      const pushed = new Promise<z.infer<typeof channelSchema>['params']>((resolve) => s.client.setNotificationHandler(channelSchema, (n) => resolve(n.params)));
      const row = wakeRowSchema.parse(jsonTail((await call(s, 'lifethread_sendToLifeThread', { text: 'WAKE-AGAIN', delay_seconds: 3600 })).text));
      // Another process claimed it (as if due) and died before it recorded the delivery.
      const { WakeStore } = await import('../../src/node/wakes');
      const { selfIdentity } = await import('../../src/node/lock');
      const me = selfIdentity();
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const claimed = await new WakeStore({ dir: store }).claimDue({ now: new Date(Date.now() + 7200_000), holder: { pid: gone, window: 'mcp', host: me.host, ...(me.boot ? { boot: me.boot } : {}) } }, { eligible: (r) => r.id === row.id });
      assert.equal(claimed.claimed.length, 1);
      const got = await pushed;
      assert.equal(got.meta.redelivered, 'true');
      assert.match(got.content, /\n {2}redelivered: true$/);
      const after = (await wakeRows(store)).find((w) => w.id === row.id);
      assert.deepEqual([after?.status, after?.fact?.via, after?.fact?.redelivered], ['fired', 'mcp', true]);
    } finally {
      await s.close();
    }
  });

  it('a session that asked for no push has its wake pushed as a channel event after a second left to a waiter; its next tool answer carries it and verifies it', async () => {
    const store = stores.freshStore();
    const s = await connect(store, store);
    try {
      const channelSchema = z.object({ method: z.literal('notifications/claude/channel'), params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }) });
      let pushedAt = 0;
      const pushed = new Promise<string>((resolve) =>
        s.client.setNotificationHandler(channelSchema, (n) => {
          pushedAt = Date.now();
          resolve(n.params.content);
        }),
      );
      const row = wakeRowSchema.parse(jsonTail((await call(s, 'lifethread_sendToLifeThread', { text: 'WAKE-CARRIED', delay_seconds: 1 })).text));
      const content = await pushed;
      assert.ok(pushedAt >= Date.parse(row.nextRunAt ?? '') + 1000, 'a `life-thread wait` had the first second');
      assert.equal(content, `WAKE-CARRIED\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer`);
      const pushedRow = (await wakeRows(store))[0];
      assert.deepEqual([pushedRow?.status, pushedRow?.fact?.via, pushedRow?.fact?.unverified], ['fired', 'mcp', true]);
      const next = await call(s, 'lifethread_remind', { action: 'list' });
      assert.match(next.text, new RegExp(`\\n\\nWakes that fired \\(a pushed one may have reached you already; this answer carries each in full\\):\\n\\nWAKE-CARRIED\\n\\nlife_wake:\\n  wake: ${row.id}\\n  reason: timer$`));
      const fired = (await wakeRows(store))[0];
      assert.deepEqual([fired?.status, fired?.fact?.via, fired?.fact?.delivered, fired?.fact?.unverified], ['fired', 'mcp', true, undefined]);
    } finally {
      await s.close();
    }
  });

  it('the MCP SDK is not in the CLI bundle: only `mcp` loads it', () => {
    const cli = fs.readFileSync(CLI, 'utf8');
    assert.ok(!cli.includes('modelcontextprotocol'), 'dist/cli.js does not bundle the SDK');
    assert.ok(fs.readFileSync(path.join(path.dirname(CLI), 'mcp.js'), 'utf8').includes('notifications/claude/channel'));
  });
});

describe('life-thread run', { concurrency: 2 }, () => {
  it('run --wake … -- sh -c …: the waiting wait prints the pulse with exit code 1 and the summary; run exits 1 and keeps the log', async () => {
    const store = stores.freshStore();
    const child = spawn(process.execPath, [CLI, 'run', '--json', '--store', store, '--wake', 'WAKE-RUN the tests ended', '--', 'sh', '-c', 'echo "# pass 3"; echo "# fail 1"; exit 1'], {
      cwd: store,
      env: baseEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const header = new Promise<{ jobId: string; wakeId: string }>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        const nl = stderr.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(stderr.slice(0, nl)) as { jobId: string; wakeId: string });
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const { jobId, wakeId } = await header;
    assert.match(jobId, /^j-[a-z0-9]{10}$/);
    assert.match(wakeId, /^w-[a-z0-9]{10}$/);
    const waited = waitFor(store, [wakeId]);
    assert.equal(await exited, 1, stderr);
    assert.equal(stdout, '# pass 3\n# fail 1\n', 'the command’s output streams through');
    const w = await waited;
    assert.equal(w.code, 0, w.stderr);
    const log = path.join(store, 'logs', `${jobId}.log`);
    assert.match(
      w.stdout,
      new RegExp(
        `^WAKE-RUN the tests ended\\n\\nlife_wake:\\n  wake: ${wakeId}\\n  reason: job\\.done\\n  job: \\{ id: "${jobId}", status: failed, exit_code: 1 \\}\\n  summary: "[^"]*3 passed, 1 failed[^"]*"\\n  landing: \\{ kind: deep_link, uri: "file://${log.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" \\}\\n  desk: none\\n$`,
      ),
    );
    assert.match(fs.readFileSync(log, 'utf8'), /^# pass 3\n# fail 1\n\[life-thread\] exit code 1 after /);
    const row = (await wakeRows(store))[0];
    assert.deepEqual([row?.status, row?.fact?.via, row?.fact?.exitCode, row?.fact?.jobStatus], ['fired', 'wait', 1, 'failed']);
  });

  it('exit codes: the command’s own, 128+n for a signal; usage errors exit 2 before anything runs', async () => {
    const store = stores.freshStore();
    const ok = await runCli(['run', '--store', store, '--', 'sh', '-c', 'echo "it\'s fine"; exit 0'], { cwd: store });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, "it's fine\n");
    assert.match(ok.stderr, /^life-thread: job j-[a-z0-9]{10}\n$/);
    const three = await runCli(['run', '--store', store, '--', 'sh', '-c', 'exit 3'], { cwd: store });
    assert.equal(three.code, 3);
    const killed = await runCli(['run', '--store', store, '--', 'sh', '-c', 'kill -TERM $$'], { cwd: store });
    assert.equal(killed.code, 143);
    const noDash = await runCli(['run', '--json', '--store', store, 'true'], { cwd: store });
    assert.equal(noDash.code, 2);
    assert.equal((JSON.parse(noDash.stderr) as { error: { field: string } }).error.field, 'command');
    const nested = await runCli(['run', '--json', '--wake', 'x', '--store', store, '--', 'true'], { cwd: store, env: { LIFE_THREAD_JOB: 'c-parent' } });
    assert.equal(nested.code, 2);
    assert.equal((JSON.parse(nested.stderr) as { error: { field: string } }).error.field, 'nested');
    const badTimeout = await runCli(['run', '--json', '--timeout-minutes', '0', '--store', store, '--', 'true'], { cwd: store });
    assert.equal((JSON.parse(badTimeout.stderr) as { error: { field: string } }).error.field, 'timeout-minutes');
    assert.deepEqual(await wakeRows(store), [], 'no wake was left by the refused runs');
  });
});
