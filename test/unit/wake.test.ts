/**
 * The life-thread wake: the SendToLifeThread contract and its errors (each names
 * its field), the wake row, the pulse's shape and its hard cap (huge text, huge summary, a
 * 100 MB log read from its tail; a property test over random inputs), summaries of real runner
 * output taken from a log tail, coalescing, the durable hourly cap, job status, and every lifecycle
 * transition over the WakeStore on a temporary directory (pending → delivering → fired, held and
 * released, a holder that died, a watcher window that died → lost, cancel, missed, cleaning, exactly
 * once across concurrent stores).
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/core/errors';
import type { LandingRef } from '../../src/core/landing';
import { CLI_WAKE_FIELDS, LOG_TAIL_BYTES, parseWakeInput, PAYLOAD_MAX_BYTES, wakeInputSchema, type DeskState, type JobStatus, type NewWake, type WakeInputResult, type WakeWhen } from '../../src/core/wake/contract';
import { coalesce, type WakeTrigger } from '../../src/core/wake/coalesce';
import { jobStatus } from '../../src/core/wake/jobStatus';
import { pulseEventOfRow, pulseWakeIds, renderPulse, summaryFromLogTail, type PulseEvent } from '../../src/core/wake/pulse';
import { capRoom, claimDueTimers, newWakeRow, UNREACHABLE_FALLBACK_MS, unreachableTooLong, wakeRowSchema, type WakeRow } from '../../src/core/wake/row';
import type { Owner } from '../../src/core/schema';
import { readLogTail, WakeStore } from '../../src/node/wakes';
import { holderFor, processLiveness } from '../../src/node/liveness';
import { mayDeliver } from '../../src/core/wake/row';
import { spawn } from 'node:child_process';
import { seededRandom } from './helpers/random';

const NOW = new Date('2026-10-03T07:00:00.000Z'); // a Saturday; 09:00 CEST
const TZ = 'Europe/Berlin';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const holder = { pid: process.pid, window: 'win-a' };

function parse(input: Record<string, unknown>, fieldNames?: Parameters<typeof parseWakeInput>[1]['fieldNames']): WakeInputResult {
  return parseWakeInput(input, { now: NOW, tz: TZ, ...(fieldNames ? { fieldNames } : {}) });
}

function wake(input: Record<string, unknown>): NewWake {
  const r = parse(input);
  assert.equal(r.kind, 'wake');
  if (r.kind !== 'wake') throw new Error('unreachable');
  return r;
}

/** Asserts the call throws InputError naming `field`; returns the reason. */
function failsOn(fn: () => unknown, field: string): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    assert.equal(e.field, field, `field of "${e.message}"`);
    assert.ok(e.reason.length > 0);
    return e.reason;
  }
  assert.fail(`expected InputError on ${field}`);
}

// ---------------------------------------------------------------------------------------------

describe('parseWakeInput: the SendToLifeThread contract', () => {
  it('a call with only cancel_token cancels (null and blank fields count as absent)', () => {
    assert.deepEqual(parse({ cancel_token: 'build-watch' }), { kind: 'cancel', cancelToken: 'build-watch' });
    assert.deepEqual(parse({ cancel_token: ' k1 ', text: null, delay_seconds: null, payload: undefined, at: '  ' }), { kind: 'cancel', cancelToken: 'k1' });
  });

  it('timer by delay_seconds: the default when, the instant computed by the code', () => {
    const w = wake({ text: 'check the build', delay_seconds: 300 });
    assert.equal(w.when, 'timer');
    assert.equal(w.nextRunAt?.toISOString(), '2026-10-03T07:05:00.000Z');
    assert.equal(w.text, 'check the build');
    assert.equal(w.tz, TZ);
    assert.match(w.description, /^at Sat 3 Oct 09:05 CEST \(07:05Z\), in 5 min$/);
    assert.equal(wake({ text: 'x', delay_seconds: 1 }).nextRunAt?.getTime(), NOW.getTime() + 1000);
    assert.equal(wake({ text: 'x', delay_seconds: 30 * 24 * 3600 }).nextRunAt?.getTime(), NOW.getTime() + 30 * DAY);
    assert.equal(wake({ text: 'x', when: 'timer', delay_seconds: 60 }).when, 'timer');
  });

  it("timer by at: words or ISO in the owner's zone, once only", () => {
    assert.equal(wake({ text: 'x', at: 'tomorrow at 9' }).nextRunAt?.toISOString(), '2026-10-04T07:00:00.000Z');
    assert.equal(wake({ text: 'x', at: 'in 20 minutes' }).nextRunAt?.toISOString(), '2026-10-03T07:20:00.000Z');
    assert.equal(wake({ text: 'x', at: '2026-10-05 18:30' }).nextRunAt?.toISOString(), '2026-10-05T16:30:00.000Z');
    assert.equal(wake({ text: 'x', at: '2026-10-05T18:30:00Z' }).nextRunAt?.toISOString(), '2026-10-05T18:30:00.000Z');
    const ny = parseWakeInput({ text: 'x', at: 'tomorrow at 9' }, { now: NOW, tz: 'America/New_York' });
    assert.equal(ny.kind === 'wake' ? ny.nextRunAt?.toISOString() : '', '2026-10-04T13:00:00.000Z');
  });

  it('timer rules: exactly one of delay_seconds and at, in range, not recurring, not past', () => {
    failsOn(() => parse({ text: 'x' }), 'delay_seconds');
    failsOn(() => parse({ text: 'x', when: 'timer' }), 'delay_seconds');
    failsOn(() => parse({ text: 'x', delay_seconds: 5, at: 'in 5 minutes' }), 'delay_seconds');
    for (const bad of [0, -1, 1.5, 30 * 24 * 3600 + 1, Number.MAX_SAFE_INTEGER]) failsOn(() => parse({ text: 'x', delay_seconds: bad }), 'delay_seconds');
    failsOn(() => parse({ text: 'x', delay_seconds: '60' }), 'delay_seconds');
    assert.match(failsOn(() => parse({ text: 'x', at: 'every 30m' }), 'at'), /recurs/);
    assert.match(failsOn(() => parse({ text: 'x', at: 'every weekday at 09:00' }), 'at'), /recurs/);
    assert.match(failsOn(() => parse({ text: 'x', at: 'daily at 9' }), 'at'), /recurs/);
    assert.match(failsOn(() => parse({ text: 'x', at: '2026-10-02 09:00' }), 'at'), /past/);
    assert.match(failsOn(() => parse({ text: 'x', at: '30m' }), 'at'), /ambiguous/);
    assert.match(failsOn(() => parse({ text: 'x', at: 'in 31 days' }), 'at'), /30 days/);
    failsOn(() => parse({ text: 'x', at: 'blurb o clock' }), 'at');
    failsOn(() => parse({ text: 'x', at: 42 }), 'at');
  });

  it('text and payload: one of them, never both; payload is any JSON value up to 8 KB', () => {
    assert.match(failsOn(() => parse({ text: 'x', payload: { a: 1 }, delay_seconds: 5 }), 'text'), /not both/);
    assert.match(failsOn(() => parse({ delay_seconds: 5 }), 'text'), /missing/);
    failsOn(() => parse({ text: '   ', delay_seconds: 5 }), 'text');
    failsOn(() => parse({ text: 'x'.repeat(4001), delay_seconds: 5 }), 'text');
    failsOn(() => parse({ text: 5, delay_seconds: 5 }), 'text');
    assert.match(failsOn(() => parse({ cancel_token: 'k', delay_seconds: 5 }), 'text'), /cancel_token/);
    for (const payload of [{ step: 3, files: ['a.ts'] }, [1, 'two', null], 'plain', 7, false, '']) {
      assert.deepEqual(wake({ payload, delay_seconds: 5 }).payload, payload);
    }
    assert.match(failsOn(() => parse({ payload: { big: 'x'.repeat(PAYLOAD_MAX_BYTES) }, delay_seconds: 5 }), 'payload'), /bytes/);
    assert.equal(wake({ payload: 'é'.repeat(4000), delay_seconds: 5 }).payload, 'é'.repeat(4000)); // 8002 bytes as JSON: fits
    failsOn(() => parse({ payload: 'é'.repeat(4100), delay_seconds: 5 }), 'payload');
    assert.match(failsOn(() => parse({ payload: JSON.parse('{"__proto__":{"x":1}}') as unknown, delay_seconds: 5 }), 'payload'), /forbidden/);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    assert.match(failsOn(() => parse({ payload: deep, delay_seconds: 5 }), 'payload'), /deeper/);
    failsOn(() => parse({ payload: { f: () => 1 }, delay_seconds: 5 }), 'payload');
    failsOn(() => parse({ payload: { n: Infinity }, delay_seconds: 5 }), 'payload');
    failsOn(() => parse({ payload: new Date(), delay_seconds: 5 }), 'payload');
  });

  it('event wakes: job.done needs job_id; delay/at only for timers; job_id only for job.done', () => {
    const j = wake({ text: 'tests done', when: 'job.done', job_id: 'npm test', thread_id: 'topic-7', cancel_token: 'k' });
    assert.deepEqual({ when: j.when, jobId: j.jobId, threadId: j.threadId, cancelToken: j.cancelToken, nextRunAt: j.nextRunAt }, {
      when: 'job.done',
      jobId: 'npm test',
      threadId: 'topic-7',
      cancelToken: 'k',
      nextRunAt: null,
    });
    assert.equal(j.description, 'when the task "npm test" ends');
    assert.match(wake({ text: 'x', when: 'job.done', job_id: 'terminal:bash' }).description, /next command in terminal "bash"/);
    assert.match(wake({ text: 'x', when: 'job.done', job_id: 'c-abc123' }).description, /command row c-abc123/);
    assert.equal(wake({ text: 'x', when: 'presence.online' }).nextRunAt, null);
    assert.equal(wake({ text: 'x', when: 'scm.changed' }).when, 'scm.changed');
    assert.match(failsOn(() => parse({ text: 'x', when: 'job.done' }), 'job_id'), /missing/);
    failsOn(() => parse({ text: 'x', when: 'job.done', job_id: 'terminal:' }), 'job_id');
    failsOn(() => parse({ text: 'x', when: 'job.done', job_id: 'c-bad id!' }), 'job_id');
    failsOn(() => parse({ text: 'x', when: 'job.done', job_id: 'a'.repeat(201) }), 'job_id');
    failsOn(() => parse({ text: 'x', when: 'job.done', job_id: 'a\nb' }), 'job_id');
    failsOn(() => parse({ text: 'x', when: 'job.done', job_id: 'b', delay_seconds: 5 }), 'delay_seconds');
    failsOn(() => parse({ text: 'x', when: 'presence.online', at: 'in 5 minutes' }), 'at');
    failsOn(() => parse({ text: 'x', delay_seconds: 5, job_id: 'npm test' }), 'job_id');
    failsOn(() => parse({ text: 'x', when: 'scm.changed', job_id: 'npm test' }), 'job_id');
    assert.match(failsOn(() => parse({ text: 'x', when: 'job.finished' }), 'when'), /timer, job\.done, presence\.online, scm\.changed/);
  });

  it('other fields: unknown keys, thread_id, cancel_token, zone', () => {
    assert.match(failsOn(() => parse({ text: 'x', delay_seconds: 5, delay: 5 }), 'delay'), /not a field/);
    failsOn(() => parse({ text: 'x', delay_seconds: 5, thread_id: 'a\u2028b' }), 'thread_id');
    failsOn(() => parse({ text: 'x', delay_seconds: 5, thread_id: 't'.repeat(201) }), 'thread_id');
    failsOn(() => parse({ text: 'x', delay_seconds: 5, cancel_token: 'k'.repeat(101) }), 'cancel_token');
    failsOn(() => parse({ cancel_token: 'a\tb' }), 'cancel_token');
    failsOn(() => parseWakeInput({ text: 'x', delay_seconds: 5 }, { now: NOW, tz: 'Mars/Base' }), 'tz');
    failsOn(() => parseWakeInput('wake me', { now: NOW, tz: TZ }), 'text');
  });

  it('errors use the caller’s field names (the CLI spells them as its flags)', () => {
    const cli = (input: Record<string, unknown>, field: string) => failsOn(() => parse(input, CLI_WAKE_FIELDS), field);
    cli({ text: 'x' }, 'delay-seconds');
    cli({ text: 'x', delay_seconds: 0 }, 'delay-seconds');
    cli({ text: 'x', at: 'every 5m' }, 'at');
    cli({ text: 'x', when: 'later' }, 'on');
    cli({ text: 'x', when: 'job.done' }, 'job-id');
    cli({ text: 'x', delay_seconds: 5, thread_id: 'a\nb' }, 'thread');
    cli({ text: 'x', delay_seconds: 5, cancel_token: 'k'.repeat(200) }, 'cancel-token');
    cli({ delay_seconds: 5 }, 'text');
    assert.match(cli({ text: 'x', delay_seconds: 5, at: 'in 1 hour' }, 'delay-seconds'), /--?delay-seconds|delay-seconds or at/);
  });

  it('the zod input schema is the LM tool’s shape (strict, snake_case)', () => {
    assert.equal(wakeInputSchema.safeParse({ text: 'x', delay_seconds: 5, when: 'timer', job_id: 'a', thread_id: 'b', cancel_token: 'c', at: 'y', payload: 1 }).success, true);
    assert.equal(wakeInputSchema.safeParse({ text: 'x', delaySeconds: 5 }).success, false);
  });
});

// ---------------------------------------------------------------------------------------------

describe('wake row schema', () => {
  const base = { id: 'w-abc123', text: 'x', when: 'timer', status: 'pending', nextRunAt: '2026-10-03T07:05:00.000Z', createdAt: NOW.toISOString() };

  it('is strict camelCase with the row fields', () => {
    assert.equal(wakeRowSchema.safeParse(base).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, job_id: 'a' }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, id: 'r-abc' }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, payload: { a: 1 } }).success, false, 'text and payload exclude each other');
    assert.equal(wakeRowSchema.safeParse({ ...base, text: undefined, payload: { a: 1 } }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, nextRunAt: null }).success, false, 'a pending timer needs nextRunAt');
    assert.equal(wakeRowSchema.safeParse({ ...base, when: 'job.done', nextRunAt: null }).success, false, 'job.done needs jobId');
    assert.equal(wakeRowSchema.safeParse({ ...base, when: 'job.done', jobId: 'npm test', nextRunAt: null, window: 'w1', jobStartedAt: NOW.toISOString() }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, fact: { delivered: true, wakeChars: 212, timeToLocusMs: 900, jobStatus: 'failed', exitCode: 1, summary: 's', lateMs: 3 } }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, fact: { bogus: 1 } }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, desk: 'prepared', landing: { kind: 'deep_link', uri: 'cdp://evidence/w-abc123' } }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, desk: 'asleep' }).success, false);
    // The lifecycle's invariants: held ⇔ heldReason, delivering ⇔ claim.
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'held', heldReason: 'paused' }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'held' }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, heldReason: 'cap' }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'held', heldReason: 'asleep' }).success, false);
    const claim = { token: 'tok-12345678', pid: 1, window: 'w', heartbeatAt: NOW.toISOString(), scheduledFor: NOW.toISOString() };
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'delivering', claim }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'delivering' }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, claim }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'fired', fact: { delivered: false, via: 'notification', reason: 'no chat' } }).success, true);
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'fired', fact: { via: 'pigeon' } }).success, false);
    assert.equal(wakeRowSchema.safeParse({ ...base, status: 'cancelled', cancelledAt: NOW.toISOString() }).success, true);
  });

  it('newWakeRow records its owner; a job already running is marked started', () => {
    const owner: Owner = { kind: 'window', folders: ['file:///w'], window: 'win-a', pid: 42 };
    const task = newWakeRow(wake({ text: 'x', when: 'job.done', job_id: 'build' }), { id: 'w-1', now: NOW, owner });
    assert.deepEqual(task.owner, owner);
    assert.equal(task.jobStartedAt, undefined);
    const started = newWakeRow(wake({ text: 'x', when: 'job.done', job_id: 'build' }), { id: 'w-2', now: NOW, owner, jobStartedAt: NOW });
    assert.equal(started.jobStartedAt, NOW.toISOString());
    assert.equal(newWakeRow(wake({ text: 'x', delay_seconds: 5 }), { id: 'w-4', now: NOW, owner, jobStartedAt: NOW }).jobStartedAt, undefined);
    for (const r of [task, started]) assert.equal(wakeRowSchema.safeParse(r).success, true);
  });
});

// ---------------------------------------------------------------------------------------------

/** js-yaml when the tree has it (a dependency of the packaging tools), to read the block as YAML. */
function yamlLoader(): ((s: string) => unknown) | undefined {
  try {
    const mod = createRequire(__filename)('js-yaml') as { load?: (s: string) => unknown };
    return typeof mod.load === 'function' ? mod.load : undefined;
  } catch {
    return undefined;
  }
}

function blockOf(pulse: string): string {
  const i = pulse.indexOf('life_wake:\n');
  assert.ok(i >= 0, `no life_wake block in:\n${pulse}`);
  return pulse.slice(i);
}

describe('renderPulse: the pulse shape', () => {
  const landing: LandingRef = { kind: 'deep_link', uri: 'cdp://evidence/w-abc123' };

  it('job.done: text first, then the block exactly', () => {
    const pulse = renderPulse(
      { text: 'Tests finished: read the report and fix what failed.', when: 'job.done', jobId: 'npm test' },
      { job: { status: 'failed', exitCode: 1 }, summary: '12 passed, 1 failed', landing, desk: 'prepared' },
    );
    assert.equal(
      pulse,
      [
        'Tests finished: read the report and fix what failed.',
        '',
        'life_wake:',
        '  reason: job.done',
        '  job: { id: "npm test", status: failed, exit_code: 1 }',
        '  summary: "12 passed, 1 failed"',
        '  landing: { kind: deep_link, uri: "cdp://evidence/w-abc123" }',
        '  desk: prepared',
      ].join('\n'),
    );
    const load = yamlLoader();
    if (load) {
      assert.deepEqual(load(blockOf(pulse)), {
        life_wake: { reason: 'job.done', job: { id: 'npm test', status: 'failed', exit_code: 1 }, summary: '12 passed, 1 failed', landing: { kind: 'deep_link', uri: 'cdp://evidence/w-abc123' }, desk: 'prepared' },
      });
    }
  });

  it('omits lines that do not apply; timer has no job; unknown exit code is null', () => {
    assert.equal(renderPulse({ text: 'stand-up in 5', when: 'timer' }), 'stand-up in 5\n\nlife_wake:\n  reason: timer');
    assert.equal(renderPulse({ text: 'back', when: 'presence.online' }, { desk: 'ok' }), 'back\n\nlife_wake:\n  reason: presence.online\n  desk: ok');
    assert.equal(
      renderPulse({ text: 'x', when: 'job.done', jobId: 'terminal:bash' }, { job: { status: jobStatus(undefined) }, desk: 'none', landing: { kind: 'none' } }),
      'x\n\nlife_wake:\n  reason: job.done\n  job: { id: "terminal:bash", status: unknown, exit_code: null }\n  landing: { kind: none }\n  desk: none',
    );
    // A job.done wake whose event carries no job still names the job it waited for.
    assert.match(renderPulse({ text: 'x', when: 'job.done', jobId: 'build' }), /job: \{ id: "build", status: unknown, exit_code: null \}/);
    assert.match(renderPulse({ text: 'x', when: 'scm.changed' }, { detail: 'HEAD 1234abcd → 5678ef01' }), /\n {2}detail: "HEAD 1234abcd → 5678ef01"$/);
    assert.equal(renderPulse({ when: 'timer' }), 'life_wake:\n  reason: timer');
  });

  it('a payload is shown as compact JSON first', () => {
    assert.equal(renderPulse({ payload: { step: 3, files: ['a.ts', 'b.ts'] }, when: 'timer' }), '{"step":3,"files":["a.ts","b.ts"]}\n\nlife_wake:\n  reason: timer');
  });

  it('a code anchor landing names path, symbol and 1-based lines, never the excerpt', () => {
    const pulse = renderPulse(
      { text: 'x', when: 'job.done', jobId: 'tsc' },
      {
        job: { status: 'failed', exitCode: 2 },
        landing: { kind: 'code_anchor', anchor: { path: '/w/src/a.ts', symbol: 'Store.read', range: { start: { line: 9, character: 0 }, end: { line: 19, character: 1 } }, excerpt: 'SECRET EXCERPT', excerptHash: 'a'.repeat(64) } },
      },
    );
    assert.match(pulse, /\n {2}landing: \{ kind: code_anchor, path: "\/w\/src\/a\.ts", symbol: "Store\.read", lines: "L10-L20" \}$/);
    const stepped = renderPulse({ when: 'timer' }, { landing: { kind: 'code_anchor', anchor: { path: '/w/a.ts', symbol: '', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, excerpt: 'x', excerptHash: 'a'.repeat(64) } }, landingStep: 'symbol' });
    assert.match(stepped, /landing: \{ kind: code_anchor, path: "\/w\/a\.ts", lines: "L1-L1", step: symbol \}/);
    assert.doesNotMatch(pulse, /SECRET/);
  });

  it('a code landing keeps the job\u2019s evidence: an evidence: line after the landing, a file link as its path and summary line, a desk page as its link', () => {
    const anchor = { path: '/w/src/calc.js', symbol: 'Calculator.average', range: { start: { line: 18, character: 0 }, end: { line: 18, character: 50 } }, excerpt: 'x', excerptHash: 'a'.repeat(64) };
    const wake = { text: 'look at the tests', when: 'job.done' as const, jobId: 'tests' };
    const pulse = renderPulse(wake, {
      job: { status: 'failed', exitCode: 1 },
      summary: '3 passed, 1 failed (6.1 s)',
      landing: { kind: 'code_anchor', anchor, evidence: 'file:///store/evidence/job-a%20b.log#L16' },
      landingStep: 'exact',
      desk: 'none',
    });
    const lines = blockOf(pulse).split('\n');
    const at = lines.findIndex((l) => l.startsWith('  landing: '));
    assert.equal(lines[at], '  landing: { kind: code_anchor, path: "/w/src/calc.js", symbol: "Calculator.average", lines: "L19-L19", step: exact }');
    assert.equal(lines[at + 1], '  evidence: "/store/evidence/job-a b.log#L16"');
    assert.equal(lines[at + 2], '  desk: none');
    const onDesk = renderPulse(wake, { landing: { kind: 'code_anchor', anchor, evidence: 'cdp://evidence/job-x-report' }, desk: 'prepared' });
    assert.match(onDesk, /\n {2}evidence: "cdp:\/\/evidence\/job-x-report"\n {2}desk: prepared$/);
    // Without evidence there is no such line; a deep-link landing is its own evidence and has none either.
    assert.doesNotMatch(renderPulse(wake, { landing: { kind: 'code_anchor', anchor } }), /evidence:/);
    assert.doesNotMatch(renderPulse(wake, { landing: { kind: 'deep_link', uri: 'file:///store/evidence/job-a.log#L16' } }), /\n {2}evidence:/);
    // An evidence path the cap cannot hold whole is cut, within the cap, and the line stays.
    const long = renderPulse(wake, { summary: 's'.repeat(100), landing: { kind: 'code_anchor', anchor, evidence: `file:///${'e'.repeat(900)}.log#L16` } }, { maxChars: 300 });
    assert.ok(long.length <= 300, `${long.length}`);
    assert.match(long, /\n {2}evidence: "\/e+…"/);
  });

  it('a row read with its schema keeps its code landing’s evidence, and the pulse names it', () => {
    const row = wakeRowSchema.parse({
      id: 'w-ev1',
      text: 'look',
      when: 'job.done',
      jobId: 'tests',
      status: 'fired',
      nextRunAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      firedAt: '2026-01-01T00:01:00.000Z',
      landing: { kind: 'code_anchor', anchor: { path: '/w/a.ts', symbol: '', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, excerpt: 'x', excerptHash: 'a'.repeat(64) }, evidence: 'file:///s/logs/j-1.log#L4' },
    });
    assert.match(renderPulse(row, pulseEventOfRow(row)), /\n {2}evidence: "\/s\/logs\/j-1\.log#L4"$/);
  });

  it('quotes and escapes: a summary with quotes and newlines stays one line and reads back', () => {
    const summary = 'expected "a"\nbut got \'b\'\r\n\tat x: {y, z} # not a comment\u2028end';
    const pulse = renderPulse({ text: 'x', when: 'job.done', jobId: 'id with "quotes", {braces}: and #' }, { job: { status: 'failed', exitCode: 1 }, summary, landing: { kind: 'deep_link', uri: 'file:///w/a b.ts#L3' } });
    const lines = blockOf(pulse).split('\n');
    assert.equal(lines.length, 5);
    const s = lines.find((l) => l.startsWith('  summary: ')) ?? '';
    assert.equal(JSON.parse(s.slice('  summary: '.length)), 'expected "a" but got \'b\' at x: {y, z} # not a comment end');
    assert.doesNotMatch(pulse, /[\u2028\u2029\u0085]/);
    const load = yamlLoader();
    if (load) {
      const doc = load(blockOf(pulse)) as { life_wake: { job: { id: string }; summary: string; landing: { uri: string } } };
      assert.equal(doc.life_wake.job.id, 'id with "quotes", {braces}: and #');
      assert.equal(doc.life_wake.landing.uri, 'file:///w/a b.ts#L3');
      assert.equal(doc.life_wake.summary, 'expected "a" but got \'b\' at x: {y, z} # not a comment end');
    }
  });

  it('pulseEventOfRow renders a claimed row', () => {
    const row: WakeRow = {
      id: 'w-r1',
      text: 'done',
      when: 'job.done',
      jobId: 'npm test',
      status: 'fired',
      nextRunAt: null,
      createdAt: NOW.toISOString(),
      fact: { jobStatus: 'succeeded', exitCode: 0, summary: 'mocha: 4 passing' },
      landing,
      desk: 'ok',
    };
    assert.equal(
      renderPulse(row, pulseEventOfRow(row)),
      'done\n\nlife_wake:\n  wake: w-r1\n  reason: job.done\n  job: { id: "npm test", status: succeeded, exit_code: 0 }\n  summary: "mocha: 4 passing"\n  landing: { kind: deep_link, uri: "cdp://evidence/w-abc123" }\n  desk: ok',
    );
  });

  it('the wake ids travel with the pulse and read back (one, or a coalesced list); other text has none', () => {
    const one = renderPulse({ text: 'x', when: 'timer' }, { wakeIds: ['w-abc'] });
    assert.deepEqual(pulseWakeIds(one), ['w-abc']);
    const many = renderPulse({ text: 'x', when: 'job.done', jobId: 'b' }, { wakeIds: ['w-a1', 'w-b2', 'w-c3'] });
    assert.match(many, /\n {2}wake: \[w-a1, w-b2, w-c3\]\n/);
    assert.deepEqual(pulseWakeIds(many), ['w-a1', 'w-b2', 'w-c3']);
    assert.deepEqual(pulseWakeIds('hello, please look at life_wake: later'), []);
    assert.deepEqual(pulseWakeIds('a wake: w-abc outside any block'), []);
    // Ids that are not wake ids are never taken from a pulse, even a hand-made one.
    assert.deepEqual(pulseWakeIds('life_wake:\n  wake: [w-ok, ../../etc, r-x]'), ['w-ok']);
  });
});

describe('renderPulse: the hard cap', () => {
  it('huge text + huge summary + long ids: at most 600, block kept, cuts marked', () => {
    const text = 'Investigate the failure. '.repeat(5000);
    const summary = 'FAILED test_x.py::test_b - assert 1 == 2 '.repeat(1000);
    const pulse = renderPulse(
      { text, when: 'job.done', jobId: 'j'.repeat(200) },
      { job: { status: 'failed', exitCode: 1 }, summary, landing: { kind: 'deep_link', uri: `file:///${'d/'.repeat(4000)}x.log#L1` }, desk: 'needs_restore' },
    );
    assert.ok(pulse.length <= 600, `${pulse.length}`);
    assert.match(pulse, /^Investigate the failure\./);
    const block = blockOf(pulse);
    assert.deepEqual(
      block.split('\n').map((l) => l.split(':')[0]),
      ['life_wake', '  reason', '  job', '  summary', '  landing', '  desk'],
    );
    assert.ok(pulse.slice(0, pulse.indexOf('\n\nlife_wake:')).endsWith('…'), 'text cut marked');
    assert.match(block, /summary: "FAILED test_x\.py[^"]*…"/);
    assert.match(block, /desk: needs_restore$/);
    // With a short text, the summary keeps its 160 characters.
    const short = renderPulse({ text: 'look', when: 'job.done', jobId: 'pytest' }, { job: { status: 'failed', exitCode: 1 }, summary });
    const kept = JSON.parse((short.split('\n').find((l) => l.startsWith('  summary: ')) ?? '').slice(11)) as string;
    assert.ok(kept.length >= 155 && kept.length <= 160 && kept.endsWith('…'), `${kept.length}: ${kept}`);
  });

  it('a path is never cut: a long store path of the evidence, the code path and a deep link stay whole, the words are cut instead', () => {
    const store = `/home/dev/.vscode-server/data/User/globalStorage/life-thread.life-thread/${'nested-folder/'.repeat(6)}evidence/w-abc123def4.log`;
    const code = `/home/dev/my projects/${'deep/'.repeat(8)}src/calc.js`;
    const anchor = { path: code, symbol: 'S'.repeat(80), range: { start: { line: 18, character: 0 }, end: { line: 18, character: 5 } }, excerpt: 'x', excerptHash: 'a'.repeat(64) };
    const wake = { text: 'Read the failures and fix them. '.repeat(30), when: 'job.done' as const, jobId: 'j'.repeat(120) };
    const event: PulseEvent = { wakeIds: ['w-abc123def4'], job: { status: 'failed', exitCode: 1 }, summary: 'FAILED test_x.py::test_b - assert 1 == 2 '.repeat(10), landing: { kind: 'code_anchor', anchor, evidence: `file://${store}#L16` }, landingStep: 'exact', desk: 'none' };
    for (const maxChars of [600, 520]) {
      const pulse = renderPulse(wake, event, { maxChars });
      assert.ok(pulse.length <= maxChars, `${maxChars}: ${pulse.length}`);
      assert.ok(pulse.includes(`\n  evidence: "${store}#L16"\n`), `${maxChars}: evidence whole in\n${pulse}`);
      assert.ok(pulse.includes(`path: "${code}"`), `${maxChars}: code path whole in\n${pulse}`);
      assert.match(pulse, /\n {2}summary: "[^"]*…"\n/);
    }
    const link = `/home/dev/.vscode-server/data/User/globalStorage/life-thread.life-thread/${'nested-folder/'.repeat(12)}evidence/w-abc123def4.log`;
    const deep = renderPulse(wake, { ...event, landing: { kind: 'deep_link', uri: `file://${link}#L3` } }, { maxChars: 600 });
    assert.ok(deep.length <= 600, `${deep.length}`);
    assert.ok(deep.includes(`uri: "file://${link}#L3" }`), deep);
    // Relative to the workspace it is a path and stays whole too.
    const rel = renderPulse(wake, { ...event, landing: { kind: 'deep_link', uri: `file:///w/${'d'.repeat(300)}/x.log#L3` } }, { maxChars: 600, folders: [{ name: 'w', path: '/w' }] });
    assert.ok(rel.length <= 600 && rel.includes(`path: "${'d'.repeat(300)}/x.log#L3" }`), rel);
  });

  it('honours any maxChars, down to a bare ellipsis', () => {
    const w = { text: 'x'.repeat(1000), when: 'job.done' as const, jobId: 'build' };
    const e: PulseEvent = { job: { status: 'failed', exitCode: 1 }, summary: 's'.repeat(500), desk: 'ok' };
    for (const max of [1, 2, 10, 50, 100, 200, 250, 600, 1000, 4000]) assert.ok(renderPulse(w, e, { maxChars: max }).length <= max, `max ${max}`);
    assert.equal(renderPulse(w, e, { maxChars: Number.NaN }).length <= 600, true);
    assert.equal(renderPulse(w, e, { maxChars: 4000 }).length, 1000 + 2 + blockOf(renderPulse(w, e, { maxChars: 4000 })).length);
  });

  it('property: ≤ maxChars, well-formed UTF-16 and the block’s keys kept, over random inputs', () => {
    const rnd = seededRandom(0x5eed);
    const alphabet = ['a', 'Z', ' ', '\n', '"', '\\', '{', '}', ':', '#', ',', 'é', '€', '😀', '\u2028', '\t', '\u0001', '…'];
    const str = (n: number): string => {
      let s = '';
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)] ?? 'a';
      return s;
    };
    const len = (): number => (rnd() < 0.3 ? Math.floor(rnd() * 20) : rnd() < 0.7 ? Math.floor(rnd() * 700) : Math.floor(rnd() * 12_000));
    const reasons: WakeWhen[] = ['timer', 'job.done', 'presence.online', 'scm.changed'];
    const statuses: JobStatus[] = ['succeeded', 'failed', 'unknown', 'lost'];
    const desks: DeskState[] = ['ok', 'prepared', 'needs_restore', 'none'];
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] ?? (xs[0] as T);
    for (let i = 0; i < 1500; i++) {
      const when = pick(reasons);
      const usePayload = rnd() < 0.2;
      const w = usePayload ? { when, payload: { s: str(len()), n: [1, 2, 3] } } : { when, text: str(len()), jobId: str(1 + Math.floor(rnd() * 200)) };
      const landings: (LandingRef | undefined)[] = [
        undefined,
        { kind: 'none' },
        { kind: 'deep_link', uri: `file:///${str(len())}` },
        { kind: 'code_anchor', anchor: { path: `/${str(len())}`, symbol: rnd() < 0.3 ? '' : str(len()), range: { start: { line: 99_998, character: 0 }, end: { line: 99_999, character: 0 } }, excerpt: 'e', excerptHash: 'b'.repeat(64) } },
      ];
      const e: PulseEvent = {
        ...(rnd() < 0.7 ? { job: { status: pick(statuses), exitCode: rnd() < 0.5 ? null : Math.floor(rnd() * 300) - 150 } } : {}),
        ...(rnd() < 0.7 ? { summary: str(len()) } : {}),
        ...(rnd() < 0.3 ? { detail: str(len()) } : {}),
        ...(rnd() < 0.3 ? { also: [pick(reasons)] } : {}),
        ...((): { landing?: LandingRef } => {
          const l = pick(landings);
          return l ? { landing: l } : {};
        })(),
        ...(rnd() < 0.8 ? { desk: pick(desks) } : {}),
      };
      const maxChars = rnd() < 0.5 ? undefined : 200 + Math.floor(rnd() * 3800);
      const max = maxChars ?? 600;
      const pulse = renderPulse(w, e, maxChars === undefined ? {} : { maxChars });
      assert.ok(pulse.length <= max, `case ${i}: ${pulse.length} > ${max}`);
      assert.ok(wellFormed(pulse), `case ${i}: split surrogate`);
      if (max >= 300) {
        const keys = blockOf(pulse)
          .split('\n')
          .map((l) => l.split(':')[0]);
        const expected = ['life_wake', '  reason'];
        if (e.also && e.also.some((r) => r !== when)) expected.push('  also');
        if (e.job || (when === 'job.done' && 'jobId' in w)) expected.push('  job');
        if (e.summary !== undefined) expected.push('  summary');
        if (e.detail !== undefined) expected.push('  detail');
        if (e.landing) expected.push('  landing');
        if (e.desk) expected.push('  desk');
        assert.deepEqual(keys, expected, `case ${i}`);
      }
    }
  });
});

/** No lone surrogate (String.prototype.isWellFormed is ES2024, past this project's lib). */
function wellFormed(s: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}


// ---------------------------------------------------------------------------------------------

/** Noise before the summary, as a long run prints it: many lines that recognisers must not take. */
function noise(chars: number): string {
  const line = '    ✔ store › reads a row and writes it back (3ms)\n';
  return line.repeat(Math.ceil(chars / line.length));
}

/** The tail the job-finish pipeline reads: the last LOG_TAIL_BYTES characters of the log. */
function tailOf(log: string): string {
  return log.length <= LOG_TAIL_BYTES ? log : log.slice(log.length - LOG_TAIL_BYTES);
}

describe('summaryFromLogTail: recognisers on real runner output, from the log tail', () => {
  const logs: [string, string, string][] = [
    ['mocha', '\n\n  12 passing (340ms)\n  1 failing\n  2 pending\n\n  1) store\n       writes:\n     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n      at Context.<anonymous> (test/store.test.js:20:12)\n', 'mocha: 12 passed, 1 failed, 2 pending'],
    ['node:test TAP', 'ok 2 - fireCommandRow\n  ---\n  ...\n1..2\n# tests 20\n# suites 2\n# pass 19\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 14085.85\n', 'node:test: 19 passed, 1 failed'],
    ['node:test spec', '✖ writes (3ms)\nℹ tests 5\nℹ suites 1\nℹ pass 4\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 140.8\n\n✖ failing tests:\n', 'node:test: 4 passed, 1 failed'],
    ['jest', ' FAIL  src/a.test.ts\n  ● a › works\n\nTest Suites: 1 failed, 3 passed, 4 total\nTests:       1 failed, 12 passed, 13 total\nSnapshots:   0 total\nTime:        2.345 s\nRan all test suites.\n', 'jest: 12 passed, 1 failed; 1 suite failed'],
    ['vitest', ' ❯ src/a.test.ts (3 tests | 1 failed) 5ms\n\n Test Files  1 failed | 3 passed (4)\n      Tests  1 failed | 12 passed (13)\n   Start at  10:00:00\n   Duration  1.23s (transform 20ms, setup 0ms)\n', 'vitest: 12 passed, 1 failed; 1 file failed'],
    ['pytest', '=========================== short test summary info ============================\nFAILED test_x.py::test_b - assert 1 == 2\n========================= 1 failed, 12 passed in 0.30s =========================\n', 'pytest: 12 passed, 1 failed'],
    ['go test', '--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL\nFAIL\texample.com/m/parse\t0.004s\nok  \texample.com/m/store\t0.012s\nok  \texample.com/m/time\t(cached)\nFAIL\n', 'go test: 1 failed; packages: 2 ok, 1 FAIL (example.com/m/parse)'],
    ['cargo', 'running 3 tests\ntest tests::b ... FAILED\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `--lib`\n', 'cargo test: 2 passed, 1 failed'],
    ['tsc', "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\nFound 3 errors in 2 files.\n\nErrors  Files\n     2  src/a.ts:3\n     1  src/b.ts:9\n", 'tsc: 3 errors in 2 files'],
    ['eslint', "/home/u/p/src/a.ts\n  3:7  error  'x' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 3 problems (2 errors, 1 warning)\n  1 error and 0 warnings potentially fixable with the `--fix` option.\n\n", 'eslint: 3 problems (2 errors, 1 warning)'],
  ];

  for (const [name, end, expected] of logs) {
    it(`${name}: short log and after 1 MB of output`, () => {
      assert.equal(summaryFromLogTail(end), expected);
      assert.equal(summaryFromLogTail(tailOf(noise(1_000_000) + end)), expected);
    });
  }

  it('a tail that starts mid-line drops that partial line', () => {
    // The log's real last words are "build ok"; the cut fragment "5 passing (3ms)" is not a summary.
    const tail = '5 passing (3ms)\nbuild ok\n';
    assert.equal(summaryFromLogTail(tail, { truncated: true }), 'build ok');
    assert.equal(summaryFromLogTail(tail, { truncated: false }), 'mocha: 5 passed, 0 failed');
    // A whole log passed by mistake is cut to its tail first.
    assert.equal(summaryFromLogTail(`  99 passing (1s)\n${noise(200_000)}done in 3s\n`), 'done in 3s');
    assert.equal(summaryFromLogTail(''), '');
    assert.ok(summaryFromLogTail('z'.repeat(1000)).length <= 160);
  });
});

// ---------------------------------------------------------------------------------------------

describe('coalesce', () => {
  const link = (id: string): LandingRef => ({ kind: 'deep_link', uri: `cdp://evidence/${id}` });

  it('groups a thread’s events within 250 ms: worst job status, its summary, latest landing', () => {
    const events: WakeTrigger[] = [
      { reason: 'job.done', at: 1000, threadId: 't', wakeIds: ['w-1'], job: { id: 'lint', status: 'succeeded', exitCode: 0 }, summary: 'eslint: 0 problems', landing: link('a'), desk: 'ok' },
      { reason: 'job.done', at: 1100, threadId: 't', wakeIds: ['w-2'], job: { id: 'test', status: 'failed', exitCode: 1 }, summary: 'mocha: 3 passing, 1 failing', landing: link('b') },
      { reason: 'scm.changed', at: 1200, threadId: 't', wakeIds: ['w-3', 'w-2'], detail: 'HEAD a → b', landing: link('c'), desk: 'prepared' },
    ];
    const [g, ...rest] = coalesce(events);
    assert.equal(rest.length, 0);
    assert.ok(g);
    assert.equal(g.reason, 'job.done');
    assert.deepEqual(g.also, ['scm.changed']);
    assert.deepEqual(g.job, { id: 'test', status: 'failed', exitCode: 1 });
    assert.equal(g.summary, 'mocha: 3 passing, 1 failing');
    assert.deepEqual(g.landing, link('c'));
    assert.equal(g.desk, 'prepared');
    assert.equal(g.detail, 'HEAD a → b');
    assert.deepEqual(g.wakeIds, ['w-1', 'w-2', 'w-3']);
    assert.equal(g.count, 3);
    assert.equal(g.jobs.length, 2);
    assert.deepEqual([g.at, g.lastAt], [1000, 1200]);
    const pulse = renderPulse({ text: 'wake', when: 'job.done', jobId: 'test' }, g);
    assert.match(pulse, /reason: job\.done\n {2}also: \[scm\.changed\]\n {2}job: \{ id: "test", status: failed, exit_code: 1 \}/);
  });

  it('ranks failed > lost > unknown > succeeded; later wins a tie', () => {
    const ev = (at: number, status: JobStatus, id: string): WakeTrigger => ({ reason: 'job.done', at, job: { id, status, exitCode: null }, summary: id });
    const worst = (...statuses: JobStatus[]): JobStatus | undefined => coalesce(statuses.map((s, i) => ev(i * 10, s, s)))[0]?.job?.status;
    assert.equal(worst('succeeded', 'unknown'), 'unknown');
    assert.equal(worst('unknown', 'lost'), 'lost');
    assert.equal(worst('failed', 'lost'), 'failed');
    assert.equal(worst('lost', 'failed', 'unknown', 'succeeded'), 'failed');
    assert.equal(coalesce([ev(0, 'unknown', 'a'), ev(10, 'lost', 'b'), ev(20, 'succeeded', 'c')])[0]?.job?.id, 'b');
    assert.equal(coalesce([ev(0, 'lost', 'a'), ev(10, 'lost', 'b')])[0]?.summary, 'b');
  });

  it('splits beyond the window, per thread, and never merges timers; input order does not matter', () => {
    const out = coalesce([
      { reason: 'presence.online', at: 2000, threadId: 'u' },
      { reason: 'job.done', at: 0, threadId: 't', job: { id: 'a', status: 'succeeded', exitCode: 0 } },
      { reason: 'job.done', at: 251, threadId: 't', job: { id: 'b', status: 'failed', exitCode: 2 } },
      { reason: 'scm.changed', at: 250, threadId: 'u' },
      { reason: 'scm.changed', at: 100, threadId: 'u' },
      { reason: 'timer', at: 110, threadId: 'u' },
      { reason: 'timer', at: 120, threadId: 'u' },
    ]);
    assert.deepEqual(
      out.map((g) => [g.threadId, g.reason, g.at, g.count]),
      [
        ['t', 'job.done', 0, 1],
        ['u', 'scm.changed', 100, 2],
        ['u', 'timer', 110, 1],
        ['u', 'timer', 120, 1],
        ['t', 'job.done', 251, 1],
        ['u', 'presence.online', 2000, 1],
      ],
    );
    assert.equal(coalesce([{ reason: 'job.done', at: 0 }, { reason: 'job.done', at: 500 }], 1000).length, 1);
    assert.deepEqual(coalesce([]), []);
  });
});

describe('hourly cap and job status', () => {
  const at = (ms: number): string => new Date(ms).toISOString();
  const fired = (id: string, t: number, via: 'life' | 'agent' | 'notification' = 'life'): WakeRow => ({ id, text: 'x', when: 'timer', status: 'fired', nextRunAt: null, createdAt: at(t), firedAt: at(t), fact: { delivered: via !== 'notification', via } });

  it('capRoom: pulses started in the last hour (on disk, so across windows and reloads); retryAt when the oldest leaves', () => {
    const now = 10 * HOUR;
    const eleven = Array.from({ length: 11 }, (_, i) => fired(`w-f${i}`, now - 50 * MIN + i * MIN));
    assert.deepEqual(capRoom(eleven, new Date(now), 12), { room: 1, retryAt: null });
    const twelve = [...eleven, fired('w-last', now - 1000)];
    assert.deepEqual(capRoom(twelve, new Date(now), 12), { room: 0, retryAt: now - 50 * MIN + HOUR });
    // Older than an hour, or sent to a notification (not a chat turn), does not count.
    assert.equal(capRoom([...twelve.slice(1), fired('w-old', now - 2 * HOUR), fired('w-n', now - MIN, 'notification')], new Date(now), 12).room, 1);
    // A delivery in flight counts now.
    const claim = { token: 'tok-12345678', pid: 1, window: 'w', heartbeatAt: at(now), scheduledFor: at(now) };
    const inFlight: WakeRow = { id: 'w-now', text: 'x', when: 'timer', status: 'delivering', claim, nextRunAt: null, createdAt: at(now) };
    assert.deepEqual(capRoom([fired('w-1', now - 10 * MIN), inFlight], new Date(now), 2), { room: 0, retryAt: now - 10 * MIN + HOUR });
    assert.equal(capRoom([], new Date(now), 0).room, 1, 'a cap below 1 is read as 1');
  });

  it('jobStatus: 0 succeeded, non-zero failed, none unknown, lost wins', () => {
    assert.equal(jobStatus(0), 'succeeded');
    for (const c of [1, 2, 127, 137, -1]) assert.equal(jobStatus(c), 'failed');
    for (const c of [undefined, null, Number.NaN]) assert.equal(jobStatus(c), 'unknown');
    assert.equal(jobStatus(0, true), 'lost');
    assert.equal(jobStatus(undefined, true), 'lost');
  });
});

// ---------------------------------------------------------------------------------------------

describe('WakeStore: the lifecycle (temporary directory)', () => {
  let root = '';
  let seq = 0;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'lt-wakes-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  const fresh = (): string => join(root, `s${++seq}`);
  let tokenSeq = 0;
  const newToken = (): string => `tok-${String(++tokenSeq).padStart(8, '0')}`;
  const me = { ...holderFor('win-a') };
  const other = { ...holderFor('win-b') };
  const FOLDER_A = 'file:///work/a';
  const ownerA = (extra: Partial<Owner> = {}): Owner => ({ kind: 'window', folders: [FOLDER_A], window: me.window, pid: me.pid, host: me.host, ...extra });
  const all = (): boolean => true;
  const at = (ms: number): Date => new Date(NOW.getTime() + ms);

  /** A pid that belonged to a process of this host that has exited. */
  const deadPid = async (): Promise<number> => {
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => child.once('exit', r));
    return child.pid as number;
  };

  it('add, list, cancel by token and by id: cancelled rows are kept and say so; unknown, fired or already cancelled refused', async () => {
    const store = new WakeStore({ dir: fresh() });
    const a = await store.add(wake({ text: 'a', delay_seconds: 60, cancel_token: 'k1' }), { now: NOW, owner: ownerA() });
    const b = await store.add(wake({ text: 'b', when: 'job.done', job_id: 'build', cancel_token: 'k1' }), { now: NOW, owner: ownerA() });
    const c = await store.add(wake({ payload: { step: 2 }, when: 'presence.online', thread_id: 't9' }), { now: NOW });
    assert.match(a.id, /^w-[a-z0-9]{10}$/);
    assert.deepEqual((await store.list()).map((r) => r.id), [a.id, b.id, c.id]);
    const cancelled = await store.cancel('k1', 'cancel_token', at(MIN));
    assert.deepEqual(cancelled.map((r) => [r.id, r.status, r.cancelledAt]), [a.id, b.id].map((id) => [id, 'cancelled', at(MIN).toISOString()]));
    assert.deepEqual((await store.list()).map((r) => r.status), ['cancelled', 'cancelled', 'pending']);
    await assert.rejects(store.cancel('k1'), (e: unknown) => e instanceof InputError && e.field === 'cancel_token' && /no longer waiting/.test(e.reason));
    await assert.rejects(store.cancel('nope', 'cancel-token'), (e: unknown) => e instanceof InputError && e.field === 'cancel-token' && /no wake holds/.test(e.reason));
    await assert.rejects(store.cancel('  '), (e: unknown) => e instanceof InputError && /missing/.test(e.reason));
    const byId = await store.cancelById(c.id);
    assert.equal(byId.status, 'cancelled');
    await assert.rejects(store.cancelById(c.id), (e: unknown) => e instanceof InputError && e.field === 'id' && /only a waiting wake/.test(e.reason));
    await assert.rejects(store.cancelById('w-unknown1'), (e: unknown) => e instanceof InputError && /no wake with id/.test(e.reason));
    for (const r of await store.list()) assert.equal(wakeRowSchema.safeParse(r).success, true);
  });

  it('due timers are claimed exactly once across 3 concurrent stores; a claim is a delivering row with its holder', async () => {
    const dir = fresh();
    const seed = new WakeStore({ dir });
    for (let i = 0; i < 30; i++) await seed.add(wake({ text: `t${i}`, delay_seconds: 1 + (i % 5) }), { now: NOW });
    const stores = [0, 1, 2].map(() => new WakeStore({ dir }));
    const results = await Promise.all(stores.map((s, i) => s.claimDue({ now: at(10_000), holder: { ...me, window: `win-${i}` }, newToken }, { eligible: all })));
    const ids = results.flatMap((r) => r.claimed.map((c) => c.id));
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30, 'no wake claimed twice');
    for (const r of await seed.list()) {
      assert.equal(r.status, 'delivering');
      assert.equal(r.claim?.pid, process.pid);
      assert.ok(r.triggeredAt);
    }
    const again = await Promise.all(stores.map((s) => s.claimDue({ now: at(20_000), holder: me, newToken }, { eligible: all })));
    assert.deepEqual(again.flatMap((r) => r.claimed), []);
  });

  it('an idle pass (nothing due, no orphans, no own claims) neither writes the table nor takes its lock', async () => {
    const dir = fresh();
    const store = new WakeStore({ dir });
    await store.add(wake({ text: 'next week', delay_seconds: 7 * 24 * 3600 }), { now: NOW });
    await store.add(wake({ text: 'when tests end', when: 'job.done', job_id: 'tests' }), { now: NOW });
    const { readdirSync, statSync } = await import('node:fs');
    const state = (): string =>
      JSON.stringify(
        readdirSync(dir, { recursive: true })
          .map(String)
          .sort()
          .map((f) => [f, statSync(join(dir, f)).mtimeMs]),
      );
    const before = state();
    for (let i = 1; i <= 3; i++) {
      const due = await store.claimDue({ now: at(i * MIN), holder: me, newToken }, { eligible: all });
      assert.deepEqual(due.claimed, []);
      const orphans = await store.takeOverOrphans({ now: at(i * MIN), holder: me, newToken }, { eligible: all, alive: processLiveness });
      assert.deepEqual([orphans.claimed, orphans.lost], [[], []]);
      await store.heartbeat(new Set(['no-such-token']), at(i * MIN));
    }
    assert.equal(state(), before, 'no file under the store was written, created or removed');
    // A pass with work still takes the lock and writes.
    const later = await store.claimDue({ now: at(8 * 24 * 3600_000), holder: me, newToken }, { eligible: all });
    assert.equal(later.claimed.length, 1);
    assert.notEqual(state(), before);
  });

  it('trigger → delivering with the outcome → received → fired via life; a second receipt changes nothing', async () => {
    const store = new WakeStore({ dir: fresh() });
    const w = await store.add(wake({ text: 'tests done', when: 'job.done', job_id: 'tests' }), { now: NOW, owner: ownerA() });
    const other1 = await store.add(wake({ text: 'other', when: 'job.done', job_id: 'lint' }), { now: NOW, owner: ownerA() });
    const landing: LandingRef = { kind: 'deep_link', uri: 'file:///s/evidence/job-1.log#L9-L9' };
    const claimed = await store.claimTriggered((r) => r.jobId === 'tests', { jobStatus: 'failed', exitCode: 1, summary: '3 passed, 1 failed', landing, desk: 'none' }, { now: at(MIN), holder: me, newToken });
    assert.deepEqual(claimed.map((c) => c.id), [w.id]);
    const row = (await store.get(w.id)) as WakeRow;
    assert.equal(row.status, 'delivering');
    assert.deepEqual([row.fact?.jobStatus, row.fact?.exitCode, row.fact?.summary, row.landing, row.desk], ['failed', 1, '3 passed, 1 failed', landing, 'none']);
    assert.equal((await store.get(other1.id))?.status, 'pending', 'another job’s wake is untouched');
    assert.deepEqual(await store.delivered([w.id], { delivered: true, via: 'life' }, at(2 * MIN)), [w.id]);
    const done = (await store.get(w.id)) as WakeRow;
    assert.deepEqual([done.status, done.fact?.delivered, done.fact?.via, done.firedAt, done.claim], ['fired', true, 'life', at(2 * MIN).toISOString(), undefined]);
    assert.deepEqual(await store.delivered([w.id], { delivered: false, via: 'notification' }), [], 'a fired wake is not delivered again');
    assert.equal((await store.get(w.id))?.fact?.via, 'life');
    await store.annotate([w.id], { wakeChars: 300, timeToLocusMs: 420 });
    assert.deepEqual([(await store.get(w.id))?.fact?.wakeChars, (await store.get(w.id))?.fact?.timeToLocusMs], [300, 420]);
    // A pending wake never counts as received.
    assert.deepEqual(await store.delivered([other1.id], { delivered: true, via: 'life' }), []);
  });

  it('held: a claim waits on disk with its reason, only its own token can hold it, and it goes out again (also a late receipt counts)', async () => {
    const store = new WakeStore({ dir: fresh() });
    const w = await store.add(wake({ text: 'x', delay_seconds: 1 }), { now: NOW, owner: ownerA() });
    const [c] = (await store.claimDue({ now: at(5000), holder: me, newToken }, { eligible: all })).claimed;
    assert.ok(c);
    assert.deepEqual(await store.hold([{ id: c.id, token: 'tok-not-mine' }], 'paused'), []);
    assert.deepEqual(await store.hold([c], 'paused', at(6000)), [w.id]);
    const held = (await store.get(w.id)) as WakeRow;
    assert.deepEqual([held.status, held.heldReason, held.heldAt, held.claim], ['held', 'paused', at(6000).toISOString(), undefined]);
    assert.equal(held.triggeredAt, at(1000).toISOString(), 'the trigger time stays the timer’s due time');
    assert.deepEqual(await store.claimHeld({ now: at(7000), holder: me, newToken }, { eligible: (r) => r.heldReason === 'cap' }), []);
    const again = await store.claimHeld({ now: at(7000), holder: me, newToken }, { eligible: all, max: 1 });
    assert.deepEqual(again.map((x) => x.id), [w.id]);
    assert.equal((await store.get(w.id))?.status, 'delivering');
    await store.hold(again, 'unreachable', at(8000));
    assert.deepEqual(await store.delivered([w.id], { delivered: true, via: 'life' }), [w.id], 'a receipt that came after the sender gave up still counts');
  });

  it('unreachable: the first time is kept, attempts counted, the notification fallback is due after 2 minutes', async () => {
    const store = new WakeStore({ dir: fresh() });
    const w = await store.add(wake({ text: 'x', delay_seconds: 1 }), { now: NOW });
    for (const t of [10_000, 40_000, 70_000]) {
      const [c] = (await store.claimDue({ now: at(t), holder: me, newToken }, { eligible: all })).claimed.concat(await store.claimHeld({ now: at(t), holder: me, newToken }, { eligible: all }));
      assert.ok(c, `claimed at ${t}`);
      await store.hold([c], 'unreachable', at(t));
    }
    const row = (await store.get(w.id)) as WakeRow;
    assert.equal(row.unreachableSince, at(10_000).toISOString());
    assert.equal(row.fact?.attempts, 3);
    assert.equal(unreachableTooLong(row, at(10_000 + UNREACHABLE_FALLBACK_MS - 1)), false);
    assert.equal(unreachableTooLong(row, at(10_000 + UNREACHABLE_FALLBACK_MS)), true);
  });

  it('a delivering wake whose holder died is taken over by a window that may deliver it; a live holder is left alone', async () => {
    const store = new WakeStore({ dir: fresh() });
    const w = await store.add(wake({ text: 'x', delay_seconds: 1 }), { now: NOW, owner: ownerA() });
    const ghost = { ...me, pid: await deadPid(), window: 'win-gone' };
    await store.claimDue({ now: at(2000), holder: ghost, newToken }, { eligible: all });
    // A window of another workspace does not touch it; the live holder itself is not judged dead.
    const elsewhere = await store.takeOverOrphans({ now: at(3000), holder: other, newToken }, { eligible: (r) => mayDeliver(r, ['file:///work/b']), alive: processLiveness });
    assert.deepEqual(elsewhere.claimed, []);
    const taken = await store.takeOverOrphans({ now: at(3000), holder: me, newToken }, { eligible: (r) => mayDeliver(r, [FOLDER_A]), alive: processLiveness });
    assert.deepEqual(taken.resumed, [w.id]);
    const row = (await store.get(w.id)) as WakeRow;
    assert.deepEqual([row.status, row.claim?.window, row.claim?.pid], ['delivering', 'win-a', process.pid]);
    // Now held by a live process (this one, with its token live): nobody takes it.
    const own = new Set([taken.claimed[0]?.token ?? '']);
    const again = await store.takeOverOrphans({ now: at(4000), holder: other, newToken }, { eligible: all, alive: processLiveness });
    assert.deepEqual(again.claimed, []);
    const mine = await store.takeOverOrphans({ now: at(4000), holder: me, newToken }, { eligible: all, alive: processLiveness, ownLiveTokens: own });
    assert.deepEqual(mine.claimed, []);
    // The same window restarted (its tokens are not live any more): its old claim is taken over too.
    const restarted = await store.takeOverOrphans({ now: at(5000), holder: me, newToken }, { eligible: all, alive: processLiveness, ownLiveTokens: new Set() });
    assert.deepEqual(restarted.resumed, [w.id]);
  });

  it('lost: a job.done wake whose watching window is gone fires as lost, whether the job had started or not; live watchers, command rows and CLI wakes are not lost', async () => {
    const store = new WakeStore({ dir: fresh() });
    const gonePid = await deadPid();
    const goneOwner = ownerA({ window: 'win-gone', pid: gonePid });
    const started = await store.add(wake({ text: 'running', when: 'job.done', job_id: 'tests' }), { now: NOW, owner: goneOwner, jobStartedAt: NOW });
    const waiting = await store.add(wake({ text: 'not yet', when: 'job.done', job_id: 'tests' }), { now: NOW, owner: goneOwner });
    const alive = await store.add(wake({ text: 'watched', when: 'job.done', job_id: 'tests' }), { now: NOW, owner: ownerA({ window: 'win-b', pid: process.pid }) });
    const row = await store.add(wake({ text: 'row', when: 'job.done', job_id: 'c-abc' }), { now: NOW, owner: goneOwner });
    const cli = await store.add(wake({ text: 'cli', when: 'job.done', job_id: 'tests' }), { now: NOW, owner: { kind: 'cli', cwd: '/w', pid: gonePid, host: me.host } });
    const r = await store.takeOverOrphans({ now: at(MIN), holder: me, newToken }, { eligible: all, alive: processLiveness });
    assert.deepEqual(r.lost.sort(), [started.id, waiting.id].sort());
    for (const id of [started.id, waiting.id]) {
      const x = (await store.get(id)) as WakeRow;
      assert.deepEqual([x.status, x.fact?.jobStatus, x.fact?.exitCode], ['delivering', 'lost', null]);
      assert.match(x.fact?.summary ?? '', /closed or reloaded before the job ended/);
    }
    for (const id of [alive.id, row.id, cli.id]) assert.equal((await store.get(id))?.status, 'pending', id);
  });

  it('ownership: a timer of a workspace is claimed only by a window of that workspace; one without folders by anyone', async () => {
    const store = new WakeStore({ dir: fresh() });
    const owned = await store.add(wake({ text: 'owned', delay_seconds: 1 }), { now: NOW, owner: ownerA() });
    const free = await store.add(wake({ text: 'free', delay_seconds: 1 }), { now: NOW, owner: { kind: 'cli', cwd: '/tmp' } });
    const b = await store.claimDue({ now: at(5000), holder: other, newToken }, { eligible: (r) => mayDeliver(r, ['file:///work/b']) });
    assert.deepEqual(b.claimed.map((c) => c.id), [free.id]);
    const cli = await store.claimDue({ now: at(5000), holder: me, newToken }, { eligible: (r) => mayDeliver(r, undefined) });
    assert.deepEqual(cli.claimed, []);
    const a = await store.claimDue({ now: at(5000), holder: me, newToken }, { eligible: (r) => mayDeliver(r, [`${FOLDER_A}/`]) });
    assert.deepEqual(a.claimed.map((c) => c.id), [owned.id], 'a trailing slash names the same folder');
  });

  it('late timers past the limit are missed; settled rows are cleaned after a day; heartbeats refresh own claims only', async () => {
    const store = new WakeStore({ dir: fresh() });
    const late = await store.add(wake({ text: 'late', delay_seconds: 1 }), { now: NOW });
    const fine = await store.add(wake({ text: 'fine', delay_seconds: 1 }), { now: NOW });
    await store.cancelById(fine.id, 'id', at(0));
    const r = await store.claimDue({ now: at(13 * HOUR), holder: me, newToken }, { eligible: all, maxLatenessMs: 12 * HOUR });
    assert.deepEqual([r.claimed, r.missed], [[], [late.id]]);
    assert.equal((await store.get(late.id))?.status, 'missed');
    const later = await store.add(wake({ text: 'hb', delay_seconds: 1 }), { now: at(13 * HOUR) });
    const [c] = (await store.claimDue({ now: at(13 * HOUR + 2000), holder: me, newToken }, { eligible: all })).claimed;
    assert.ok(c);
    await store.heartbeat(new Set([c.token]), at(13 * HOUR + 30_000));
    assert.equal((await store.get(later.id))?.claim?.heartbeatAt, at(13 * HOUR + 30_000).toISOString());
    await store.claimDue({ now: at(38 * HOUR), holder: me, newToken }, { eligible: all });
    assert.deepEqual((await store.list()).map((x) => x.id), [later.id], 'missed and cancelled rows are gone after a day; the one in flight stays');
  });

  it('claimDueTimers is pure and takes the earliest first', () => {
    const rows = [30, 10, 20].map((s, i) => newWakeRow(wake({ text: `t${i}`, delay_seconds: s }), { id: `w-p${i}`, now: NOW }));
    const r = claimDueTimers(rows, { now: new Date(NOW.getTime() + 60_000), holder, newToken }, { eligible: all });
    assert.deepEqual(r.claimed.map((c) => c.id), ['w-p1', 'w-p2', 'w-p0']);
    assert.equal(rows[0]?.status, 'pending', 'input untouched');
  });

  it('readLogTail: a short file is read whole; a tail starting inside a UTF-8 sequence skips the partial character', async () => {
    const small = join(root, 'small.log');
    const fd2 = openSync(small, 'w');
    writeSync(fd2, 'é'.repeat(10));
    closeSync(fd2);
    assert.deepEqual(await readLogTail(small), { text: 'é'.repeat(10), truncated: false, size: 20 });
    assert.deepEqual(await readLogTail(small, 5), { text: 'éé', truncated: true, size: 20 });
  });
});
