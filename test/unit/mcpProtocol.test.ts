/**
 * `life-thread mcp` on raw stdio lines: every malformed line gets JSON-RPC's or MCP's code (not
 * silence, not -32603 with a validator dump), a tool's own input errors stay error results naming the
 * field, a line over the 10 MiB limit is refused with an answer and a stderr line, and after each the
 * server still answers.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { wakeRowSchema } from '../../src/core/wake/row';
import { baseEnv, CLI, REPO, runCli, tempStores } from './helpers/cliHarness';

/** Claude Code 2.1.332's handshake as `life-thread mcp` read it (`npm run test:agents -- --save-fixtures` rewrites it). */
const HANDSHAKE = path.join(REPO, 'test', 'fixtures', 'mcp', 'claude-code-handshake.jsonl');

const stores = tempStores('lt-mcpproto-');

interface Answer {
  jsonrpc: string;
  id: string | number | null;
  /** A notification the server sent (no id). */
  method?: string;
  params?: { content?: string; meta?: Record<string, string> };
  result?: { content?: { text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

/** A server on a fresh store, spoken to line by line. */
class RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  readonly answers: Answer[] = [];
  stderr = '';
  private buf = '';
  private waiters: (() => void)[] = [];

  constructor(readonly store: string) {
    this.child = spawn(process.execPath, [CLI, 'mcp', '--store', store], { cwd: store, env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8').on('data', (c: string) => {
      this.buf += c;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        this.answers.push(JSON.parse(line) as Answer);
        for (const w of this.waiters.splice(0)) w();
      }
    });
    this.child.stderr.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
  }

  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** The next answer after the `seen` answers so far. */
  async next(seen: number, ms = 10_000): Promise<Answer> {
    const end = Date.now() + ms;
    while (this.answers.length <= seen) {
      if (Date.now() > end) throw new Error(`no answer within ${ms} ms (stderr: ${this.stderr})`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
    return this.answers[seen] as Answer;
  }

  /** The first line (answer or notification) that `pick` selects, waiting for it. */
  async find(pick: (a: Answer) => boolean, ms = 10_000): Promise<Answer> {
    for (let seen = 0; ; seen++) {
      const a = await this.next(seen, ms);
      if (pick(a)) return a;
    }
  }

  /** Sends one line and returns the answer it gets. */
  async ask(line: string): Promise<Answer> {
    const seen = this.answers.length;
    this.write(line);
    return this.next(seen);
  }

  /** The server still answers: a ping with a fresh id is answered with an empty result. */
  async stillAnswers(id: number): Promise<void> {
    const a = await this.ask(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }));
    assert.equal(a.id, id);
    assert.deepEqual(a.result, {});
  }

  async end(): Promise<number | null> {
    const exited = new Promise<number | null>((res) => this.child.on('close', res));
    this.child.stdin.end();
    return exited;
  }
}

describe('life-thread mcp on raw stdio lines', () => {
  let s: RawSession;
  before(async () => {
    s = new RawSession(stores.freshStore());
    const init = await s.ask(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
    assert.ok(init.result, JSON.stringify(init));
    s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });
  after(async () => {
    assert.equal(await s.end(), 0);
  });

  const cases: [string, string, number, string | number | null, RegExp][] = [
    ['a line that is not JSON', '{"jsonrpc":"2.0","id":7,"method":', -32700, null, /not JSON/],
    ['a wrong jsonrpc version with an id', '{"jsonrpc":"1.0","id":8,"method":"ping"}', -32600, 8, /jsonrpc must be "2\.0"/],
    ['no jsonrpc at all', '{"id":9,"method":"ping"}', -32600, 9, /jsonrpc/],
    ['no method', '{"jsonrpc":"2.0","id":10}', -32600, 10, /method/],
    ['a method that is not a string', '{"jsonrpc":"2.0","id":11,"method":42}', -32600, 11, /method must be a string/],
    ['a batch array', '[{"jsonrpc":"2.0","id":12,"method":"ping"}]', -32600, null, /batch/],
    ['a bare number', '42', -32600, null, /object/],
    ['tools/call without a name', '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"arguments":{}}}', -32602, 13, /params\.name/],
    ['tools/call with a name that is not a string', '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":5}}', -32602, 14, /params\.name/],
    ['an unknown tool', '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"lifethread_nope","arguments":{}}}', -32602, 15, /unknown tool: lifethread_nope.*lifethread_remind/],
    ['resources/read without a uri', '{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{}}', -32602, 16, /params\.uri/],
    ['an unknown resource', '{"jsonrpc":"2.0","id":17,"method":"resources/read","params":{"uri":"lifethread://wakes/w-nosuchwake"}}', -32002, 17, /resource not found: lifethread:\/\/wakes\/w-nosuchwake/],
    ['a resource of another scheme', '{"jsonrpc":"2.0","id":18,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}', -32002, 18, /resource not found/],
    ['logging/setLevel with an unknown level', '{"jsonrpc":"2.0","id":19,"method":"logging/setLevel","params":{"level":"loud"}}', -32602, 19, /params\.level/],
    ['an unknown method', '{"jsonrpc":"2.0","id":20,"method":"tools/explode"}', -32601, 20, /not found/i],
  ];
  let nextPing = 100;
  for (const [label, line, code, id, message] of cases) {
    it(`${label} → ${code}${id === null ? ', id null' : ''}; the server still answers`, async () => {
      const a = await s.ask(line);
      assert.equal(a.jsonrpc, '2.0');
      assert.equal(a.id, id, JSON.stringify(a));
      assert.equal(a.error?.code, code, JSON.stringify(a));
      assert.match(a.error?.message ?? '', message);
      assert.doesNotMatch(a.error?.message ?? '', /"code":\s*"invalid_type"|ZodError|\[\s*\{/, 'a sentence, not a validator dump');
      await s.stillAnswers(nextPing++);
    });
  }

  it('an empty line and a blank line are ignored: the next answer is the next request’s', async () => {
    const seen = s.answers.length;
    s.write('');
    s.write('   ');
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 30, method: 'ping' }));
    const a = await s.next(seen);
    assert.equal(a.id, 30);
    assert.deepEqual(a.result, {});
  });

  it('a tool’s own bad input is an error result naming the field (isError), not a protocol error', async () => {
    const a = await s.ask(JSON.stringify({ jsonrpc: '2.0', id: 31, method: 'tools/call', params: { name: 'lifethread_remind', arguments: { action: 'add', text: 'x', when: 'in 1 hour', tz: 'Mars/Olympus' } } }));
    assert.equal(a.error, undefined, JSON.stringify(a));
    assert.equal(a.result?.isError, true);
    assert.match(a.result?.content?.[0]?.text ?? '', /^Invalid input — tz: /);
  });

  it('a line of 11 MiB is refused with an answer and a stderr line; the session goes on', async () => {
    const seen = s.answers.length;
    const big = JSON.stringify({ jsonrpc: '2.0', id: 40, method: 'tools/call', params: { name: 'lifethread_remind', arguments: { action: 'add', text: 'x'.repeat(11 * 1024 * 1024), when: 'in 1 hour' } } });
    await new Promise<void>((res) => s.child.stdin.write(`${big}\n`, () => res()));
    const a = await s.next(seen, 30_000);
    assert.equal(a.id, null);
    assert.equal(a.error?.code, -32600);
    assert.match(a.error?.message ?? '', /over 10485760 bytes/);
    assert.match(s.stderr, /life-thread mcp: a line over 10485760 bytes was refused/);
    await s.stillAnswers(41);
  });
});

describe('life-thread mcp and Claude Code’s initialize', () => {
  it('a client that declares no channel capability (as Claude Code does not) is pushed notifications/claude/channel with the pulse; the row is unverified until a tool answer carries the pulse', async () => {
    const s = new RawSession(stores.freshStore());
    try {
      // Claude Code's own opening lines, byte for byte as a real run sent them (test/agents/claudeCode.test.ts).
      const handshake = fs.readFileSync(HANDSHAKE, 'utf8').split('\n').filter((l) => l !== '');
      let init: Answer | undefined;
      for (const line of handshake) {
        const sent = JSON.parse(line) as { id?: string | number; method: string; params?: { capabilities?: { experimental?: unknown } } };
        if (sent.method === 'initialize') assert.equal(sent.params?.capabilities?.experimental, undefined, 'Claude Code declares no experimental capability');
        if (sent.id === undefined) {
          s.write(line);
          continue;
        }
        const a = await s.ask(line);
        assert.equal(a.id, sent.id, JSON.stringify(a));
        if (sent.method === 'initialize') init = a;
      }
      assert.ok(init?.result, `no answer to Claude Code's initialize in ${HANDSHAKE}`);
      assert.deepEqual((init.result as { capabilities?: { experimental?: unknown } }).capabilities?.experimental, { 'claude/channel': {} }, 'the server declares the channel');
      const set = await s.ask(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lifethread_sendToLifeThread', arguments: { text: 'WAKE-RAW-CHANNEL', delay_seconds: 1 } } }));
      const setText = set.result?.content?.[0]?.text ?? '';
      const row = wakeRowSchema.parse(JSON.parse(setText.slice(setText.indexOf('\n\n{') + 2)));
      const pushed = await s.find((a) => a.method === 'notifications/claude/channel');
      const pulse = `WAKE-RAW-CHANNEL\n\nlife_wake:\n  wake: ${row.id}\n  reason: timer`;
      assert.deepEqual(pushed.params, { content: pulse, meta: { wake_id: row.id, reason: 'timer' } });
      const factOf = async (): Promise<unknown[]> => {
        const r = await runCli(['wake', 'list', '--json', '--store', s.store], { cwd: s.store });
        const w = wakeRowSchema.parse((JSON.parse(r.stdout) as unknown[])[0]);
        return [w.status, w.fact?.via, w.fact?.delivered, w.fact?.unverified];
      };
      assert.deepEqual(await factOf(), ['fired', 'mcp', true, true]);
      const next = await s.ask(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'lifethread_remind', arguments: { action: 'list' } } }));
      assert.ok((next.result?.content?.[0]?.text ?? '').endsWith(`\n\n${pulse}`), JSON.stringify(next));
      assert.deepEqual(await factOf(), ['fired', 'mcp', true, undefined]);
    } finally {
      assert.equal(await s.end(), 0);
    }
  });
});
