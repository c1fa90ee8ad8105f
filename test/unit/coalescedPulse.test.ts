/**
 * Wakes of one topic that fire together become one pulse that names every one of them: the lead's
 * text first, the others on `also_wake:` lines with their own text and job (src/core/wake/coalesce.ts
 * groupPulse, src/core/wake/pulse.ts renderPulse), under the cap; the receipt delivers exactly the
 * wakes the pulse names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pulseJson } from '../../src/cli/agentVerbs';
import { coalesce, groupPulse, type GroupMember, type WakeTrigger } from '../../src/core/wake/coalesce';
import { parseWakeInput } from '../../src/core/wake/contract';
import { pulseEventOfRow, pulseWakeIds, renderPulse, type PulseEvent } from '../../src/core/wake/pulse';
import { readablePulse } from '../../src/core/wake/pulseWords';
import type { WakeRow } from '../../src/core/wake/row';
import { WakeStore } from '../../src/node/wakes';
import { seededRandom } from './helpers/random';
import { tempDirs } from './helpers/tempDirs';

const dirs = tempDirs('lt-coalesced-');
const NOW = '2026-10-03T07:00:00.000Z';

function row(id: string, text: string, jobId?: string): WakeRow {
  return { id, text, when: jobId ? 'job.done' : 'scm.changed', ...(jobId ? { jobId } : {}), status: 'delivering', nextRunAt: null, createdAt: NOW };
}

/** Triggers as the window builds them (one wake each), grouped and turned into one pulse. */
function pulseOf(members: { row: WakeRow; event: PulseEvent; at: number }[], maxChars?: number): { text: string; lead: WakeRow; event: PulseEvent } {
  const triggers: WakeTrigger[] = members.map((m) => ({ reason: m.event.reason ?? m.row.when, at: m.at, threadId: 'topic-a', wakeIds: [m.row.id], ...(m.event.job ? { job: m.event.job } : {}), ...(m.event.summary !== undefined ? { summary: m.event.summary } : {}) }));
  const groups = coalesce(triggers);
  assert.equal(groups.length, 1, 'one group');
  const group = groups[0];
  assert.ok(group);
  const g = groupPulse<GroupMember & { row: WakeRow }>(group, members.map((m) => ({ id: m.row.id, row: m.row, event: m.event })));
  const lead = g.members[0]?.row;
  assert.ok(lead);
  return { text: renderPulse(lead, g.event, maxChars === undefined ? {} : { maxChars }), lead, event: g.event };
}

const failed = (id: string, exitCode = 1): PulseEvent => ({ reason: 'job.done', job: { id, status: 'failed', exitCode }, summary: `${id}: 1 failed` });
const succeeded = (id: string): PulseEvent => ({ reason: 'job.done', job: { id, status: 'succeeded', exitCode: 0 }, summary: `${id}: all passed` });

/** The ids on the `wake:` line and on the `also_wake:` lines. */
function named(pulse: string): { wake: string[]; also: string[] } {
  return { wake: pulseWakeIds(pulse), also: [...pulse.matchAll(/^ {2}also_wake: (w-[A-Za-z0-9_-]+) /gm)].map((m) => m[1] ?? '') };
}

describe('a pulse of coalesced wakes', () => {
  it('three wakes: all three ids in wake:, two also_wake lines with their texts and jobs', () => {
    const { text, lead } = pulseOf([
      { row: row('w-tests1', 'TESTS look at the failing test', 'tests'), event: failed('tests'), at: 1000 },
      { row: row('w-lint22', 'LINT fix the lint errors', 'lint'), event: failed('lint', 2), at: 1050 },
      { row: row('w-scm333', 'SCM the branch moved'), event: { reason: 'scm.changed', detail: 'HEAD a → b' }, at: 1100 },
    ]);
    // The later of two failures leads (coalesce: the later one wins a tie), so its text, job and summary go together.
    assert.equal(lead.id, 'w-lint22');
    assert.match(text, /^LINT fix the lint errors\n\nlife_wake:\n {2}wake: \[w-lint22, w-tests1, w-scm333\]\n {2}reason: job\.done\n {2}also: \[scm\.changed\]\n {2}job: \{ id: "lint", status: failed, exit_code: 2 \}\n {2}summary: "lint: 1 failed"\n/);
    assert.match(text, /\n {2}also_wake: w-tests1 "TESTS look at the failing test" \(job tests: failed, exit 1\)\n {2}also_wake: w-scm333 "SCM the branch moved"$/);
    assert.deepEqual(named(text), { wake: ['w-lint22', 'w-tests1', 'w-scm333'], also: ['w-tests1', 'w-scm333'] });
  });

  it('the wake with the worst job leads; a succeeded job rides along with its own status', () => {
    const { text, lead } = pulseOf([
      { row: row('w-first1', 'FIRST lint ended', 'lint'), event: succeeded('lint'), at: 0 },
      { row: row('w-second', 'SECOND tests ended', 'npm test'), event: failed('npm test'), at: 100 },
    ]);
    assert.equal(lead.id, 'w-second');
    assert.match(text, /^SECOND tests ended\n/);
    assert.match(text, /job: \{ id: "npm test", status: failed, exit_code: 1 \}/);
    assert.match(text, /\n {2}also_wake: w-first1 "FIRST lint ended" \(job lint: succeeded, exit 0\)$/);
    // A job id that is not one plain word is quoted; a timeout says so instead of an exit code.
    const t = pulseOf([
      { row: row('w-aa', 'A', 'x'), event: failed('x'), at: 0 },
      { row: row('w-bb', 'B', 'terminal:my shell'), event: { reason: 'job.done', job: { id: 'terminal:my shell', status: 'failed', exitCode: null, timedOut: true } }, at: 10 },
    ]).text;
    assert.match(t, /also_wake: w-aa "A" \(job x: failed, exit 1\)/);
    assert.match(t, /job: \{ id: "terminal:my shell", status: failed, exit_code: null, timed_out: true \}/);
    const u = pulseOf([
      { row: row('w-aa', 'A', 'x'), event: failed('x'), at: 10 },
      { row: row('w-bb', 'B', 'terminal:my shell'), event: { reason: 'job.done', job: { id: 'terminal:my shell', status: 'unknown', exitCode: null } }, at: 0 },
    ]).text;
    assert.match(u, /also_wake: w-bb "B" \(job "terminal:my shell": unknown\)/);
  });

  it('a long third text is cut with … and still named; the cap holds at 600 and at 300', () => {
    const long = `THIRD ${'please read the whole coverage report and compare it with last week '.repeat(40)}`;
    for (const max of [600, 300]) {
      const { text } = pulseOf(
        [
          { row: row('w-one111', 'ONE the build ended', 'build'), event: failed('build'), at: 0 },
          { row: row('w-two222', 'TWO the docs ended', 'docs'), event: succeeded('docs'), at: 10 },
          { row: row('w-three3', long, 'coverage'), event: succeeded('coverage'), at: 20 },
        ],
        max,
      );
      assert.ok(text.length <= max, `${text.length} > ${max}`);
      assert.deepEqual(named(text), { wake: ['w-one111', 'w-two222', 'w-three3'], also: ['w-two222', 'w-three3'] }, text);
      const third = /^ {2}also_wake: w-three3 "([^"]*)" \(job coverage: succeeded, exit 0\)$/m.exec(text);
      assert.ok(third, text);
      assert.ok(third[1]?.endsWith('…'), `cut marked: ${third[1]}`);
      if (max === 600) assert.ok((third[1] ?? '').startsWith('THIRD please read'), 'the cut keeps the start of the text');
    }
  });

  it('more wakes than the cap can hold even cut to …: the last are left out of wake: too, never named without their line', () => {
    const members = Array.from({ length: 12 }, (_, i) => ({ row: row(`w-job${String(i).padStart(6, '0')}`, `TEXT ${i} `.repeat(30), `job-${i}`), event: failed(`job-${i}`), at: i }));
    const { text } = pulseOf(members, 200);
    assert.ok(text.length <= 200, `${text.length}`);
    const n = named(text);
    assert.ok(n.wake.length >= 1 && n.wake.length < 12, n.wake.join(','));
    assert.deepEqual(n.wake.slice(1), n.also, 'every further wake named has its line, and only those');
  });

  it('any count, texts, jobs and cap: under the cap, the lead first, each named further wake on its line', () => {
    const rnd = seededRandom(20261205);
    for (let k = 0; k < 300; k++) {
      const count = 1 + Math.floor(rnd() * 8);
      const members = Array.from({ length: count }, (_, i) => {
        const text = 'x✓ "q" \\ é'.repeat(Math.floor(rnd() * 200)) + (rnd() < 0.1 ? '\n second line' : '') || 'w';
        const id = `w-r${k}n${i}`;
        const job = rnd() < 0.7;
        const event: PulseEvent = job ? (rnd() < 0.5 ? failed(`j ${i}`.repeat(1 + Math.floor(rnd() * 20))) : succeeded(`j${i}`)) : { reason: 'presence.online' };
        return { row: row(id, text, job ? `j${i}` : undefined), event, at: i * 10 };
      });
      const max = 200 + Math.floor(rnd() * 1000);
      const { text, lead } = pulseOf(members, max);
      assert.ok(text.length <= max, `${text.length} > ${max}`);
      const n = named(text);
      assert.equal(n.wake[0], lead.id);
      assert.deepEqual(n.wake.slice(1), n.also);
      if (max >= 600 && count <= 3) assert.equal(n.wake.length, count, text);
    }
  });

  it('the people’s reading of the pulse shows the further wakes too', () => {
    const { text } = pulseOf([
      { row: row('w-tests1', 'TESTS look', 'tests'), event: failed('tests'), at: 0 },
      { row: row('w-lint22', 'LINT fix', 'lint'), event: succeeded('lint'), at: 10 },
    ]);
    assert.match(readablePulse(text), /\nAlso woken: w-lint22: LINT fix \(job lint: succeeded, exit 0\)$/);
  });

  it('wait --json carries the same keys: wake is the list, also_wake an array of { wake, text, job }', () => {
    const members = [
      { row: row('w-tests1', 'TESTS look', 'tests'), event: failed('tests'), at: 0 },
      { row: row('w-lint22', 'LINT fix', 'lint'), event: { reason: 'job.done' as const, job: { id: 'lint', status: 'failed' as const, exitCode: null, timedOut: true } }, at: 10 },
    ];
    const { lead, event } = pulseOf(members);
    const json = pulseJson(lead, event) as { text: string; life_wake: Record<string, unknown> };
    assert.equal(json.text, 'LINT fix');
    assert.deepEqual(json.life_wake.wake, ['w-lint22', 'w-tests1']);
    assert.deepEqual(json.life_wake.job, { id: 'lint', status: 'failed', exit_code: null, timed_out: true });
    assert.deepEqual(json.life_wake.also_wake, [{ wake: 'w-tests1', text: 'TESTS look', job: { id: 'tests', status: 'failed', exit_code: 1 } }]);
    // One wake: no also_wake key, as before.
    assert.equal('also_wake' in (pulseJson(lead, pulseEventOfRow(lead)).life_wake as object), false);
  });
});

describe('the receipt of a coalesced pulse', () => {
  it('delivers exactly the wakes the pulse names', async () => {
    const store = new WakeStore({ dir: dirs.freshDir() });
    const now = new Date(NOW);
    const add = async (text: string, job: string): Promise<WakeRow> => {
      const parsed = parseWakeInput({ text, when: 'job.done', job_id: job }, { now, tz: 'UTC' });
      assert.equal(parsed.kind, 'wake');
      if (parsed.kind !== 'wake') throw new Error('unreachable');
      return store.add(parsed, { now });
    };
    const rows = [await add('A the build ended', 'build'), await add('B the tests ended', 'tests'), await add(`C ${'long words '.repeat(300)}`, 'docs')];
    const claimed = await store.claimTriggered((r) => r.status === 'pending', { jobStatus: 'failed', exitCode: 1 }, { now, holder: { pid: process.pid, window: 'win-receipt' } });
    assert.equal(claimed.length, 3);
    const members = claimed.map((c, i) => ({ row: c.row, event: pulseEventOfRow(c.row), at: i }));
    const { text } = pulseOf(members);
    const ids = pulseWakeIds(text);
    assert.deepEqual([...ids].sort(), rows.map((r) => r.id).sort());
    await store.delivered(ids, { delivered: true, via: 'life' }, now);
    const after = await store.list();
    assert.deepEqual(after.map((r) => [r.status, r.fact?.via]), rows.map(() => ['fired', 'life']));
  });
});
