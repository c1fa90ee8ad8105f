/**
 * The tools' lists and logs in pages (limit, cursor; a page ends at `limit` rows or 20,000
 * characters), NUL refused by every tool alike, and schemas as strict as the checks: the same rules
 * in the MCP server's JSON Schemas, the language-model tools' schemas in package.json, and the code.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { contributes } from '../../package.json';
import { InputError, NUL_REASON } from '../../src/core/errors';
import { PAGE_MAX_CHARS } from '../../src/core/paging';
import { reminderRowSchema, type ReminderRow } from '../../src/core/schema';
import { mcpTools } from '../../src/node/mcp/catalog';
import { writeLogFile } from '../../src/node/jobLog';
import { ScheduleStore } from '../../src/node/schedule';
import { remindTool, scheduleTool, type ScheduleToolHost } from '../../src/node/tools/scheduleTools';
import { baseEnv, CLI, encodeTable, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-paging-');
const NOW = new Date('2026-10-02T10:00:00.000Z');

function reminderRows(n: number): ReminderRow[] {
  const rows: ReminderRow[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(NOW.getTime() + (i + 1) * 60_000).toISOString();
    rows.push(reminderRowSchema.parse({ id: `r-page${String(i).padStart(5, '0')}`, text: `look at build ${i} and say what failed, with the first failing test's name`, schedule: { kind: 'once', at }, tz: 'Europe/Berlin', status: 'pending', nextRunAt: at, createdAt: NOW.toISOString() }));
  }
  return rows;
}

function storeWith(rows: readonly ReminderRow[]): string {
  const dir = stores.freshStore();
  fs.writeFileSync(path.join(dir, 'reminders.json'), encodeTable(rows.map((r) => JSON.stringify(r))));
  return dir;
}

function host(dir: string): ScheduleToolHost {
  return { store: new ScheduleStore({ dir }), now: () => NOW, zone: () => ({ timeZone: 'Europe/Berlin', source: 'setting', ignored: [] }), health: () => 'Dispatcher healthy', cwd: () => ({ dir }), envPath: undefined };
}

/** The rows a list answer ends with, and its next_cursor. */
function pageOfAnswer(text: string): { ids: string[]; next?: string } {
  const json = JSON.parse(text.slice(text.lastIndexOf('\n\n[') + 2)) as { id: string }[];
  const next = /next_cursor: ([A-Za-z0-9_-]+)\)/.exec(text)?.[1];
  return { ids: json.map((r) => r.id), ...(next ? { next } : {}) };
}

async function rejectsField(p: Promise<unknown>, field: string, reason?: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof InputError && err.field === field && (reason === undefined || reason.test(err.reason)));
}

describe('tool lists in pages', () => {
  it('1,200 reminders over MCP: every page within limit rows and 20,000 characters, the pages together list each row once', async () => {
    const rows = reminderRows(1200);
    const dir = storeWith(rows);
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--store', dir, '--tz', 'Europe/Berlin'], cwd: dir, env: baseEnv() as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'pager', version: '1' });
    await client.connect(transport);
    try {
      for (const limit of [undefined, 7, 500]) {
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const r = (await client.callTool({ name: 'lifethread_remind', arguments: { action: 'list', ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) } })) as CallToolResult;
          const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
          assert.notEqual(r.isError, true, text);
          assert.ok(text.length <= PAGE_MAX_CHARS, `page ${pages} is ${text.length} characters`);
          const page = pageOfAnswer(text);
          assert.ok(page.ids.length >= 1 && page.ids.length <= (limit ?? 50), `page ${pages}: ${page.ids.length} rows`);
          if (page.next) assert.match(text, /^Reminders \d+–\d+ of 1200\./);
          seen.push(...page.ids);
          cursor = page.next;
          pages++;
        } while (cursor !== undefined && pages < 400);
        assert.deepEqual(seen, rows.map((r) => r.id), `limit ${String(limit)}: each row once, in order`);
        if (limit === 500) assert.ok(pages > 1200 / 500, 'the 20,000-character end cuts pages shorter than 500 rows');
      }
    } finally {
      await client.close();
    }
  });

  it('a row added or removed between two calls neither repeats nor hides another', async () => {
    const rows = reminderRows(30);
    const dir = storeWith(rows);
    const h = host(dir);
    const first = pageOfAnswer(await remindTool({ action: 'list', limit: 10 }, h));
    assert.equal(first.ids.length, 10);
    // The last row of the first page is removed, and a new row is added, before the second call.
    await h.store.remove(first.ids[9] ?? '');
    await h.store.addReminder({ text: 'a new one', when: 'in 3 hours', tz: 'Europe/Berlin', now: NOW });
    const second = pageOfAnswer(await remindTool({ action: 'list', limit: 10, ...(first.next ? { cursor: first.next } : {}) }, h));
    assert.deepEqual(second.ids, rows.slice(10, 20).map((r) => r.id));
  });

  it('one page needs no cursor; a small list says its count as before', async () => {
    const dir = storeWith(reminderRows(3));
    const text = await remindTool({ action: 'list' }, host(dir));
    assert.match(text, /^3 reminder\(s\)\. Dispatcher healthy\./);
    assert.doesNotMatch(text, /next_cursor/);
    assert.match(await remindTool({ action: 'list' }, host(stores.freshStore())), /^No reminders\./);
  });

  it('a bad cursor, a cursor of another list and a bad limit are refused naming the field', async () => {
    const dir = storeWith(reminderRows(60));
    const h = host(dir);
    await rejectsField(remindTool({ action: 'list', cursor: 'not a cursor!' }, h), 'cursor', /is not a cursor this tool gave/);
    await rejectsField(remindTool({ action: 'list', cursor: Buffer.from('{"k":"reminders"}').toString('base64url') }, h), 'cursor');
    await h.store.addCommand({ command: 'true', cwd: dir, envPath: undefined, when: 'in 1 hour', tz: 'UTC', now: NOW });
    const first = pageOfAnswer(await remindTool({ action: 'list', limit: 5 }, h));
    await rejectsField(scheduleTool({ action: 'list', ...(first.next ? { cursor: first.next } : {}) }, h), 'cursor', /another list \(reminders\)/);
    for (const bad of [0, 501, 2.5, '5', -1]) await rejectsField(remindTool({ action: 'list', limit: bad }, h), 'limit', /whole number from 1 to 500/);
  });

  it('schedule log pages the last run’s log: each answer within 20,000 characters, the pages together the whole log', async () => {
    const dir = stores.freshStore();
    const h = host(dir);
    const added = await h.store.addCommand({ command: 'make test', cwd: dir, envPath: undefined, when: 'in 1 hour', tz: 'UTC', now: NOW });
    const id = added.row.id;
    const lines: string[] = [];
    for (let i = 0; lines.join('\n').length < 30_500; i++) lines.push(`line ${i}: "quoted" \\ back-slashed and ünïcödé 🎉`);
    const log = lines.join('\n');
    assert.ok(log.length > 30_000 && log.length <= 32_000);
    await writeLogFile(dir, id, log);
    let whole = '';
    let cursor: string | undefined;
    let pages = 0;
    do {
      const text = await scheduleTool({ action: 'log', id, ...(cursor ? { cursor } : {}) }, h);
      assert.ok(text.length <= PAGE_MAX_CHARS, `${text.length}`);
      const json = JSON.parse(text.slice(text.lastIndexOf('\n{'))) as { id: string; log: string; nextCursor?: string };
      assert.equal(json.id, id);
      whole += json.log;
      cursor = json.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 20);
    assert.equal(whole, log);
    assert.ok(pages >= 2);
    const other = (await h.store.addCommand({ command: 'make lint', cwd: dir, envPath: undefined, when: 'in 2 hours', tz: 'UTC', now: NOW })).row.id;
    await rejectsField(scheduleTool({ action: 'log', id: other, cursor: pageCursorOf(await scheduleTool({ action: 'log', id }, h)) }, h), 'cursor', /log of c-/);
  });
});

function pageCursorOf(text: string): string {
  return /next_cursor: ([A-Za-z0-9_-]+)\)/.exec(text)?.[1] ?? 'x';
}

describe('NUL is refused by every tool alike, and nothing is stored', () => {
  const dir = stores.freshStore();
  const h = (): ScheduleToolHost => host(dir);
  const cases: [string, () => Promise<unknown>, string][] = [
    ['remind add text', () => remindTool({ action: 'add', text: 'look\0here', when: 'in 1 hour' }, h()), 'text'],
    ['remind add when', () => remindTool({ action: 'add', text: 'x', when: 'in 1\0 hour' }, h()), 'when'],
    ['schedule add_command command', () => scheduleTool({ action: 'add_command', command: 'echo a\0b', when: 'in 1 hour' }, h()), 'command'],
    ['schedule add_command tz', () => scheduleTool({ action: 'add_command', command: 'true', when: 'in 1 hour', tz: 'Europe/\0Berlin' }, h()), 'tz'],
  ];
  for (const [label, call, field] of cases) {
    it(`${label}: InputError naming ${field}, the same reason`, async () => {
      await rejectsField(call(), field, new RegExp(`^${NUL_REASON}$`));
      const store = new ScheduleStore({ dir });
      assert.equal((await store.listReminders()).rows.length, 0);
      assert.equal((await store.listCommands()).rows.length, 0);
    });
  }

  it('the store refuses it too (palette, CLI): a reminder text with NUL is not added', async () => {
    const store = new ScheduleStore({ dir: stores.freshStore() });
    await rejectsField(store.addReminder({ text: 'a\0b', when: 'in 1 hour', tz: 'UTC', now: NOW }), 'text', new RegExp(NUL_REASON));
  });
});

describe('schemas as strict as the checks', () => {
  type Props = Record<string, { type?: string; minimum?: number; maximum?: number; enum?: string[] }>;
  const mcp = new Map<string, Props>(mcpTools().map((t) => [t.name, t.inputSchema.properties as Props]));
  const lm = new Map<string, Props>(contributes.languageModelTools.map((t) => [t.name, (t.inputSchema as unknown as { properties: Props }).properties]));

  it('timeout_minutes, delay_seconds and limit are integers with the bounds the code checks, in MCP and in package.json', () => {
    const want: [string, string, number, number][] = [
      ['lifethread_schedule', 'timeout_minutes', 1, 60],
      ['lifethread_sendToLifeThread', 'delay_seconds', 1, 2_592_000],
      ['lifethread_remind', 'limit', 1, 500],
      ['lifethread_schedule', 'limit', 1, 500],
    ];
    for (const [tool, field, min, max] of want) {
      for (const [where, props] of [['MCP', mcp.get(tool)], ['package.json', lm.get(tool)]] as const) {
        const p = props?.[field];
        assert.equal(p?.type, 'integer', `${where} ${tool}.${field}`);
        assert.equal(p?.minimum, min, `${where} ${tool}.${field} minimum`);
        assert.equal(p?.maximum, max, `${where} ${tool}.${field} maximum`);
      }
    }
  });

  it('the language-model tools in package.json list the same fields as the schemas the code parses with', () => {
    for (const name of ['lifethread_remind', 'lifethread_schedule', 'lifethread_sendToLifeThread', 'lifethread_resolveAnchor']) {
      assert.deepEqual(Object.keys(lm.get(name) ?? {}).sort(), Object.keys(mcp.get(name) ?? {}).sort(), name);
    }
  });
});
