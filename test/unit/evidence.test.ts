/**
 * Evidence of a job a wake waits on: plain text with secrets
 * redacted, the summary line found for the landing even when redaction changes the line count, and
 * retention of 7 days and 50 MB in all, oldest first.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readOutput } from '../../src/core/wake/pulse';
import { pruneEvidence, writeEvidence } from '../../src/node/evidence';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-evidence-');
const job = { source: 'task', jobId: 'tests', exitCode: 1, endedAt: Date.parse('2026-10-03T07:00:00Z'), commandLine: 'npm test' };

describe('evidence files', () => {
  it('plain text: colours and progress redraws gone, secrets redacted, the landing on the summary line', async () => {
    const store = dirs.freshDir();
    const raw = [
      '\u001b[32m✔ adds\u001b[39m',
      'Downloading 10%\rDownloading 100%',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEpAIBAAKCAQEA1',
      'MIIEpAIBAAKCAQEA2',
      '-----END RSA PRIVATE KEY-----',
      'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      '\u001b[31m# pass 3\u001b[39m',
      '# fail 1',
      'done',
    ].join('\n');
    const out = readOutput(raw, { truncated: false });
    assert.equal(out.summary, 'node:test: 3 passed, 1 failed');
    const ev = await writeEvidence(store, 'job-a', job, out.text, out.summaryLine);
    const text = fs.readFileSync(ev.path, 'utf8');
    assert.ok(!text.includes('\u001b'), 'no control codes');
    assert.doesNotMatch(text, /ghp_abcdefghijklmnopqrstuvwxyz|MIIEpAIBAAKCAQEA/);
    assert.match(text, /Downloading 100%/);
    assert.doesNotMatch(text, /Downloading 10%/);
    assert.match(text, /^# task tests\n# command: npm test\n# exit code: 1\n/);
    const lines = text.split('\n');
    assert.ok(ev.focusLine !== undefined);
    assert.equal(lines[(ev.focusLine ?? 0) - 1], '# fail 1', 'the landing line is the summary line (node:test states it on its fail line), after redaction joined the key lines');
    assert.ok(!text.includes('\uE000'), 'the focus mark never reaches the file');
  });

  it('a secret on the command line or in the summary line is redacted in the header and in the pulse summary', async () => {
    const raw = ['building', 'login failed: token=ghp_abcdefghijklmnopqrstuvwxyz0123456789'].join('\n');
    const out = readOutput(raw, { truncated: false });
    assert.equal(out.summary, 'login failed: token=[REDACTED]', 'the summary goes to the model and into wakes.json');
    assert.doesNotMatch(out.text, /ghp_abcdefghijklmnopqrstuvwxyz/);
    const commandLine = "curl -s -u bob:hunter2secret https://api.example.com --token=ghp_abcdefghijklmnopqrstuvwxyz0123456789 \\\n  -H 'Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123'";
    const ev = await writeEvidence(dirs.freshDir(), 'job-s', { ...job, source: 'terminal', jobId: 'terminal:bash', commandLine }, out.text, out.summaryLine);
    const text = fs.readFileSync(ev.path, 'utf8');
    assert.doesNotMatch(text, /ghp_abcdefghijklmnopqrstuvwxyz|sk-proj-abcdefghij|hunter2secret/);
    assert.match(text, /^# terminal terminal:bash\n# command: curl -s -u bob:\[REDACTED\]@?|^# terminal terminal:bash\n# command: curl /);
    assert.match(text, /--token=\[REDACTED\]/);
    const lines = text.split('\n');
    assert.equal(lines[4], '', 'the command line stays one header line');
    assert.equal(lines[(ev.focusLine ?? 0) - 1], 'login failed: token=[REDACTED]');
  });

  it('empty output says so; no summary line means no focus', async () => {
    const ev = await writeEvidence(dirs.freshDir(), 'job-b', { ...job, exitCode: undefined }, '', undefined);
    assert.match(fs.readFileSync(ev.path, 'utf8'), /exit code: unknown\n# ended: 2026-10-03T07:00:00\.000Z\n\n\(the job printed nothing that could be read\)\n$/);
    assert.equal(ev.focusLine, undefined);
  });

  it('retention: older than 7 days goes, then the oldest until 50 MB', async () => {
    const dir = path.join(dirs.freshDir(), 'evidence');
    fs.mkdirSync(dir, { recursive: true });
    const now = Date.parse('2026-10-10T00:00:00Z');
    const file = (name: string, mb: number, ageDays: number): string => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, Buffer.alloc(mb * 1024 * 1024, 'x'));
      const t = new Date(now - ageDays * 86_400_000);
      fs.utimesSync(p, t, t);
      return p;
    };
    const old = file('old.log', 1, 8);
    const a = file('a.log', 20, 3);
    const b = file('b.log', 20, 2);
    const c = file('c.log', 20, 1);
    const removed = await pruneEvidence(dir, now);
    assert.deepEqual(removed.sort(), [old, a].sort());
    assert.deepEqual(fs.readdirSync(dir).sort(), ['b.log', 'c.log']);
    assert.ok(fs.existsSync(b) && fs.existsSync(c));
  });
});
