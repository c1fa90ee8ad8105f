/**
 * The owner's zone (src/core/time/ownerZone.ts, src/node/ownerFile.ts): the order a window and the CLI /
 * MCP server take it in, owner.json read and written, and the built CLI and MCP server reading times in
 * the zone a window left in owner.json — not the machine's — and naming it with its source.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Temporal } from 'temporal-polyfill';
import { InputError } from '../../src/core/errors';
import { mcpConfigText } from '../../src/core/mcpConfig';
import { decideOwnerZone, parseOwnerFile, zoneWords, type OwnerFile, type OwnerFileRead } from '../../src/core/time/ownerZone';
import { readOwnerFile, writeOwnerFile, zoneOutsideWindow } from '../../src/node/ownerFile';
import { baseEnv, CLI, runCli, tempStores } from './helpers/cliHarness';

const stores = tempStores('lt-zone-');
const AT = '2026-10-01T12:00:00.000Z';
const ok = (timeZone: string, source: OwnerFile['source']): OwnerFileRead => ({ state: 'ok', record: { timeZone, source, updatedAt: AT } });
const MISSING: OwnerFileRead = { state: 'missing' };
const CORRUPT: OwnerFileRead = { state: 'corrupt', problem: 'owner.json is not JSON' };

function ownerJson(dir: string, timeZone: string, source: OwnerFile['source']): void {
  fs.writeFileSync(path.join(dir, 'owner.json'), `${JSON.stringify({ timeZone, source, updatedAt: AT })}\n`);
}

describe('the owner\u2019s zone in a window: the setting, else the UI\u2019s report, else the extension host', () => {
  const win = (setting: string, owner: OwnerFileRead) => decideOwnerZone({ surface: 'window', setting, owner, host: 'Asia/Tokyo' });

  it('the setting wins over the UI\u2019s zone and the host\u2019s', () => {
    assert.deepEqual(win('Europe/Berlin', ok('America/Los_Angeles', 'ui')), { timeZone: 'Europe/Berlin', source: 'setting', ignored: [] });
    assert.deepEqual(win(' europe/berlin ', MISSING), { timeZone: 'Europe/Berlin', source: 'setting', ignored: [] });
  });

  it('without a setting, the zone the UI reported (kept in owner.json); else the host\u2019s', () => {
    assert.deepEqual(win('', ok('America/Los_Angeles', 'ui')), { timeZone: 'America/Los_Angeles', source: 'ui', ignored: [] });
    assert.deepEqual(win('', MISSING), { timeZone: 'Asia/Tokyo', source: 'host', ignored: [] });
  });

  it('another window\u2019s setting or host zone in owner.json does not speak for this window', () => {
    assert.equal(win('', ok('Europe/Paris', 'setting')).source, 'host');
    assert.equal(win('', ok('UTC', 'host')).timeZone, 'Asia/Tokyo');
  });

  it('a bad setting and a corrupt owner.json are passed over and named', () => {
    const z = win('Europe/Berlinn', CORRUPT);
    assert.equal(z.timeZone, 'Asia/Tokyo');
    assert.equal(z.source, 'host');
    assert.match(z.ignored[0] ?? '', /^lifeThread\.timeZone: 'Europe\/Berlinn' is not a known IANA time zone; did you mean Europe\/Berlin\?/);
    assert.equal(z.ignored[1], 'owner.json is not JSON');
    assert.match(zoneWords(z), /^zone Asia\/Tokyo, source: host \(.*; not used: lifeThread\.timeZone: .*; owner\.json is not JSON\)$/);
  });
});

describe('the owner\u2019s zone of the CLI, wait, run and mcp: --tz, LIFE_THREAD_TZ, owner.json, the system zone', () => {
  const out = (flag: string | undefined, env: string | undefined, owner: OwnerFileRead) => decideOwnerZone({ surface: 'outside', flag, env, owner, system: 'Asia/Tokyo' });

  it('takes each in order', () => {
    const ui = ok('America/Los_Angeles', 'ui');
    assert.deepEqual(out('Europe/Berlin', 'Europe/Paris', ui), { timeZone: 'Europe/Berlin', source: 'flag', ignored: [] });
    assert.deepEqual(out(undefined, 'Europe/Paris', ui), { timeZone: 'Europe/Paris', source: 'env', via: 'LIFE_THREAD_TZ', ignored: [] });
    assert.deepEqual(out(undefined, '  ', ui), { timeZone: 'America/Los_Angeles', source: 'ui', via: 'owner.json', ignored: [] });
    assert.deepEqual(out(undefined, undefined, ui), { timeZone: 'America/Los_Angeles', source: 'ui', via: 'owner.json', ignored: [] });
    assert.deepEqual(out(undefined, undefined, ok('Europe/Paris', 'setting')), { timeZone: 'Europe/Paris', source: 'setting', via: 'owner.json', ignored: [] });
    assert.deepEqual(out(undefined, undefined, MISSING), { timeZone: 'Asia/Tokyo', source: 'system', ignored: [] });
    assert.deepEqual(out(undefined, undefined, CORRUPT), { timeZone: 'Asia/Tokyo', source: 'system', ignored: ['owner.json is not JSON'] });
  });

  it('LIFE_THREAD_TZ that a window\u2019s setting put there is named as the setting', () => {
    const z = out(undefined, 'Europe/Paris', ok('Europe/Paris', 'setting'));
    assert.deepEqual(z, { timeZone: 'Europe/Paris', source: 'setting', via: 'LIFE_THREAD_TZ', ignored: [] });
    assert.equal(zoneWords(z), 'zone Europe/Paris, source: setting (lifeThread.timeZone, passed in LIFE_THREAD_TZ)');
    assert.equal(out(undefined, 'Europe/Paris', ok('Europe/Rome', 'setting')).source, 'env');
  });

  it('a bad --tz or LIFE_THREAD_TZ is the caller\u2019s error (field tz), not passed over', () => {
    assert.throws(() => out('GMT+2', undefined, MISSING), (e: unknown) => e instanceof InputError && e.field === 'tz' && /UTC offset/.test(e.reason));
    assert.throws(() => out(undefined, 'Mars/Olympus', MISSING), (e: unknown) => e instanceof InputError && e.field === 'tz' && e.reason.startsWith('LIFE_THREAD_TZ: '));
  });

  it('names the zone and its source in words', () => {
    assert.equal(zoneWords(out('UTC', undefined, MISSING)), 'zone UTC');
    assert.equal(zoneWords(out(undefined, undefined, ok('America/Los_Angeles', 'ui'))), 'zone America/Los_Angeles, source: ui (the zone the VS Code UI reported, kept in the store by a VS Code window)');
    assert.equal(zoneWords(out(undefined, undefined, MISSING)), "zone Asia/Tokyo, source: system (this machine's zone)");
  });
});

describe('owner.json', () => {
  it('parses a record; says what is wrong with anything else', () => {
    assert.deepEqual(parseOwnerFile(`\uFEFF{"timeZone":"america/los_angeles","source":"ui","updatedAt":"${AT}"}`), ok('America/Los_Angeles', 'ui'));
    assert.deepEqual(parseOwnerFile(''), { state: 'corrupt', problem: 'owner.json is not JSON' });
    assert.deepEqual(parseOwnerFile('{"timeZone":"UTC","source":"ui"'), { state: 'corrupt', problem: 'owner.json is not JSON' });
    assert.match((parseOwnerFile(`{"timeZone":"UTC","source":"browser","updatedAt":"${AT}"}`) as { problem: string }).problem, /^owner\.json: source: /);
    assert.match((parseOwnerFile(`{"timeZone":"UTC","source":"ui","updatedAt":"${AT}","extra":1}`) as { problem: string }).problem, /^owner\.json: extra: /);
    assert.match((parseOwnerFile(`{"timeZone":"Mars/Olympus","source":"ui","updatedAt":"${AT}"}`) as { problem: string }).problem, /^owner\.json: timeZone: 'Mars\/Olympus' is not a known IANA time zone/);
    assert.match((parseOwnerFile('[]') as { problem: string }).problem, /^owner\.json: file: /);
  });

  it('is written whole and read back; missing, corrupt, oversized and unreadable files are said, never thrown', async () => {
    const dir = stores.freshStore();
    assert.deepEqual(await readOwnerFile(dir), { state: 'missing' });
    const record: OwnerFile = { timeZone: 'America/Los_Angeles', source: 'ui', updatedAt: AT };
    await writeOwnerFile(dir, record);
    assert.deepEqual(await readOwnerFile(dir), { state: 'ok', record });
    assert.deepEqual(fs.readdirSync(dir), ['owner.json'], 'no temp file left beside it');
    fs.writeFileSync(path.join(dir, 'owner.json'), 'x'.repeat(5000));
    assert.deepEqual(await readOwnerFile(dir), { state: 'corrupt', problem: 'owner.json is larger than 4096 bytes' });
    const asDir = stores.freshStore();
    fs.mkdirSync(path.join(asDir, 'owner.json'));
    const read = await readOwnerFile(asDir);
    assert.equal(read.state, 'corrupt');
    assert.match((read as { problem: string }).problem, /^owner\.json cannot be read: /);
  });

  it('zoneOutsideWindow reads the file only when no --tz is given', async () => {
    const dir = stores.freshStore();
    fs.writeFileSync(path.join(dir, 'owner.json'), 'not json');
    assert.deepEqual(await zoneOutsideWindow(dir, 'UTC', undefined), { timeZone: 'UTC', source: 'flag', ignored: [] });
    assert.deepEqual((await zoneOutsideWindow(dir, undefined, undefined)).ignored, ['owner.json is not JSON']);
  });
});

describe('the CLI reads times in the zone owner.json names', () => {
  // Saturday 3 October 2026, 04:46Z: Friday evening in Los Angeles, Saturday morning in Berlin, afternoon in Tokyo.
  const NOW = '2026-10-03T04:46:00.000Z';
  const add = (dir: string, env: Record<string, string | undefined>, ...extra: string[]) =>
    runCli(['remind', 'add', '--store', dir, '--text', 'standup', '--when', 'tomorrow at 9', '--now', NOW, ...extra], { cwd: stores.root(), env: { TZ: 'Asia/Tokyo', ...env } });

  it('a UI\u2019s zone in owner.json wins over the system zone, and the answer says source: ui', async () => {
    const dir = stores.freshStore();
    ownerJson(dir, 'America/Los_Angeles', 'ui');
    const r = await add(dir, {});
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Once, Sat 3 Oct 09:00 PDT \(16:00Z\)/);
    assert.match(r.stdout, /\(zone America\/Los_Angeles, source: ui \(the zone the VS Code UI reported, kept in the store by a VS Code window\), as no --tz was given\)\n$/);
  });

  it('LIFE_THREAD_TZ from a window\u2019s setting says source: setting; --tz wins over all', async () => {
    const dir = stores.freshStore();
    ownerJson(dir, 'Europe/Berlin', 'setting');
    const viaEnv = await add(dir, { LIFE_THREAD_TZ: 'Europe/Berlin' });
    assert.match(viaEnv.stdout, /Once, Sun 4 Oct 09:00 CEST \(07:00Z\)/);
    assert.match(viaEnv.stdout, /\(zone Europe\/Berlin, source: setting \(lifeThread\.timeZone, passed in LIFE_THREAD_TZ\), as no --tz was given\)\n$/);
    const flag = await add(dir, { LIFE_THREAD_TZ: 'Europe/Berlin' }, '--tz', 'UTC');
    assert.match(flag.stdout, /Once, Sun 4 Oct 09:00 UTC, in 1 day 4 h \(zone UTC\)\n$/);
  });

  it('no owner.json: the system zone; a corrupt one is named, left byte-identical, and the add still works', async () => {
    const dir = stores.freshStore();
    const none = await add(dir, {});
    assert.match(none.stdout, /Once, Sun 4 Oct 09:00 GMT\+9 \(00:00Z\).*\(zone Asia\/Tokyo, source: system \(this machine's zone\), as no --tz was given\)\n$/);
    fs.writeFileSync(path.join(dir, 'owner.json'), '{"timeZone": "America/Los_Angeles", ');
    const corrupt = await add(dir, {});
    assert.equal(corrupt.code, 0, corrupt.stderr);
    assert.match(corrupt.stdout, /\(zone Asia\/Tokyo, source: system \(this machine's zone; not used: owner\.json is not JSON\), as no --tz was given\)\n$/);
    assert.equal(fs.readFileSync(path.join(dir, 'owner.json'), 'utf8'), '{"timeZone": "America/Los_Angeles", ');
  });
});

describe('life-thread mcp reads owner.json on every call', () => {
  it('a zone a window writes while the server runs is used by the next call, named with its source', async () => {
    const store = stores.freshStore();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--store', store], cwd: store, env: baseEnv({ TZ: 'Asia/Tokyo' }) as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'lt-zone-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const remind = async (): Promise<{ text: string; row: { tz: string; nextRunAt: string } }> => {
        const r = (await client.callTool({ name: 'lifethread_remind', arguments: { action: 'add', text: 'standup', when: 'tomorrow at 9' } })) as CallToolResult;
        const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        assert.notEqual(r.isError, true, text);
        return { text, row: JSON.parse(text.slice(text.indexOf('\n\n{') + 2)) as { tz: string; nextRunAt: string } };
      };
      const hourIn = (iso: string, tz: string) => Temporal.Instant.from(iso).toZonedDateTimeISO(tz).hour;
      const before = await remind();
      assert.equal(before.row.tz, 'Asia/Tokyo');
      assert.equal(hourIn(before.row.nextRunAt, 'Asia/Tokyo'), 9);
      assert.match(before.text, /\(zone Asia\/Tokyo, source: system \(this machine's zone\); next run /);
      ownerJson(store, 'America/Los_Angeles', 'ui');
      const after = await remind();
      assert.equal(after.row.tz, 'America/Los_Angeles');
      assert.equal(hourIn(after.row.nextRunAt, 'America/Los_Angeles'), 9);
      assert.match(after.text, /\(zone America\/Los_Angeles, source: ui \(the zone the VS Code UI reported, kept in the store by a VS Code window\); next run /);
    } finally {
      await client.close();
    }
  });

  it('the copied config carries no zone of its own', () => {
    const text = mcpConfigText('/home/ana/.config/Code/User/globalStorage/lifethread.life-thread');
    assert.doesNotMatch(text, /\bTZ\b|LIFE_THREAD_TZ|--tz/);
  });
});
