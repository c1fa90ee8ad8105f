/**
 * `lifethread_remind` and `lifethread_schedule` (inputs as package.json declares them): input →
 * store operation → answer text, written once. The VS Code language-model tools and the MCP server
 * (`life-thread mcp`) both call these, so they take the same inputs and give the same answers: prose
 * that states the resolved instant and the dispatcher's health, then the row as JSON.
 */
import { InputError } from '../../core/errors';
import { rowSentence } from '../../core/rowView';
import type { Owner, ScheduleRow } from '../../core/schema';
import { pageOf, PAGE_MAX_CHARS, textPage, type PageRequest } from '../../core/paging';
import { parseToolInput, remindInputSchema, required, scheduleInputSchema } from '../../core/toolInputs';
import { validateZone } from '../../core/time/zone';
import { zoneWords, type OwnerZone } from '../../core/time/ownerZone';
import { readAsShown, type ShownRead } from '../../core/time/shownTimes';
import { describeInstant } from '../../core/time/describe';
import { readLog } from '../jobLog';
import type { ScheduleStore } from '../schedule';

/** What a tool call needs from where it runs: a window (its dispatcher) or the MCP server (the pulse file). */
export interface ScheduleToolHost {
  store: ScheduleStore;
  now(): Date;
  /** The owner's zone and its source, used when the call gives no `tz`. */
  zone(): OwnerZone;
  /** The dispatcher's health in one line ("Dispatcher healthy · last pass 3 s ago"). */
  health(): Promise<string> | string;
  /** Recorded on the rows this call adds. */
  owner?: Owner;
  /** The PATH of the process the call runs in, recorded on command rows (the OS timer runs them with it). */
  envPath: string | undefined;
  /** The working directory of command rows, or why there is none. */
  cwd(): { dir: string } | { missing: string };
  /** Before a read: let a pass in flight finish, so the answer shows its facts. */
  settle?(): Promise<void>;
  /** After a change: run a pass now and refresh what shows the rows. */
  changed?(): Promise<void>;
}

function rowJson(row: ScheduleRow | ScheduleRow[]): string {
  return JSON.stringify(row, null, 2);
}

/**
 * A list answer, one page of it: the count and the health, a line per row, where to go on, then the
 * page's rows as JSON. The page ends at `limit` rows or before the answer passes PAGE_MAX_CHARS.
 */
function listAnswer<R extends ScheduleRow>(rows: readonly R[], req: PageRequest, kind: 'reminders' | 'commands', noun: string, health: string, now: Date): string {
  const render = (page: readonly R[], start: number, nextCursor: string | undefined): string => {
    const range = rows.length === 0 ? `No ${noun}s.` : page.length === rows.length ? `${rows.length} ${noun}(s).` : `${noun[0]?.toUpperCase()}${noun.slice(1)}s ${start + 1}–${start + page.length} of ${rows.length}.`;
    const lines = page.map((r) => `- ${rowSentence(r, now)}`);
    const more = nextCursor === undefined ? [] : ['', `More: call again with cursor "${nextCursor}" for the next page (next_cursor: ${nextCursor}).`];
    return [`${range} ${health}.`, ...lines, ...more, '', rowJson([...page])].join('\n');
  };
  const page = pageOf(rows, req, kind, (candidate, more) => render(candidate, 0, more ? 'x'.repeat(120) : undefined).length <= PAGE_MAX_CHARS);
  return render(page.items, page.start, page.nextCursor);
}

/** A page of a run log: the text, where to go on, then `{ id, log }` as JSON, within PAGE_MAX_CHARS. */
function logAnswer(id: string, whole: string, req: { cursor?: string | undefined }): string {
  const render = (max: number): { text: string; fits: boolean } => {
    const page = textPage(whole, id, req, max);
    const where = page.nextCursor === undefined && page.start === 0 ? '' : ` characters ${page.start + 1}–${page.start + page.text.length} of ${whole.length}`;
    const more = page.nextCursor === undefined ? [] : ['', `More: call again with cursor "${page.nextCursor}" for the rest (next_cursor: ${page.nextCursor}).`];
    const text = [`Log of ${id} (last run)${where}:`, '', page.text, ...more, '', JSON.stringify({ id, log: page.text, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) })].join('\n');
    return { text, fits: text.length <= PAGE_MAX_CHARS };
  };
  // The page's text stands twice (as text and inside the JSON, where escapes lengthen it): shrink until the answer fits.
  let max = Math.floor(PAGE_MAX_CHARS / 2) - 300;
  let out = render(max);
  while (!out.fits && max > 100) {
    max = Math.floor(max * 0.8);
    out = render(max);
  }
  return out.text;
}

function wordsOf(i: { when?: string | undefined; cron?: string | undefined }): string {
  return i.when ?? `cron ${i.cron ?? ''}`;
}

/** The call's own `tz`, else the owner's zone; the answer names it (and its source). */
function zoneOf(input: { tz?: string }, host: ScheduleToolHost): OwnerZone {
  return input.tz ? { timeZone: validateZone(input.tz, 'tz'), source: 'flag', ignored: [] } : host.zone();
}

/** A call whose confirmation showed an instant: the instant its confirmation read the words at. */
export interface ShownCall {
  shownAt?: Date | undefined;
}

/** The confirmed instant passed before the call was allowed: nothing is stored, and the answer says what the words mean now. */
function passedAnswer(read: Extract<ShownRead, { kind: 'passed' }>, words: string, zone: OwnerZone, now: Date): string {
  const was = describeInstant(read.shown.nextRunAt, zone.timeZone, now);
  const fresh = 'reason' in read.fresh ? `cannot be read now: ${read.fresh.reason}` : `now means ${read.fresh.description}`;
  return [
    `Nothing was stored: the time the confirmation showed, ${was}, passed before the call was allowed.`,
    `Read now, \u201c${words}\u201d ${fresh} (${zoneWords(zone)}).`,
    'Call again with the words you mean, so the user confirms the new time.',
    '',
    JSON.stringify({ stored: false, shown: read.shown.nextRunAt.toISOString(), ...('reason' in read.fresh ? {} : { now: read.fresh.nextRunAt.toISOString() }) }),
  ].join('\n');
}

/** `lifethread_remind` { action: add | list | remove }. Bad input throws InputError(field, reason). */
export async function remindTool(input: unknown, host: ScheduleToolHost, call: ShownCall = {}): Promise<string> {
  const i = parseToolInput(remindInputSchema, input);
  const now = host.now();
  await host.settle?.();
  if (i.action === 'list') {
    const snap = await host.store.listReminders();
    return listAnswer(snap.rows, i, 'reminders', 'reminder', await host.health(), now);
  }
  if (i.action === 'remove') {
    const id = required(i.id, 'id', 'to remove a reminder');
    if (!id.startsWith('r-')) throw new InputError('id', `'${id}' is not a reminder id (r-…); use lifethread_schedule for c-… rows`);
    const removed = await host.store.remove(id);
    await host.changed?.();
    return [`Removed reminder ${id}. ${await host.health()}.`, '', rowJson(removed)].join('\n');
  }
  const text = required(i.text, 'text', 'to add a reminder: the prompt the agent runs at the due time');
  if (!i.when && !i.cron) throw new InputError('when', "is required (or cron): words like 'in 20 minutes', 'tomorrow at 9', 'every weekday at 09:00', or ISO");
  const zone = zoneOf(i, host);
  const read = call.shownAt === undefined ? undefined : readAsShown({ when: i.when, cron: i.cron, tz: zone.timeZone, kind: 'reminder' }, call.shownAt, now);
  if (read?.kind === 'passed') return passedAnswer(read, wordsOf(i), zone, now);
  const added = await host.store.addReminder({ text, when: i.when, cron: i.cron, tz: zone.timeZone, now: read?.readAt ?? now, ...(host.owner ? { owner: host.owner } : {}) });
  await host.changed?.();
  return [`Reminder ${added.row.id} added: ${added.description} (${zoneWords(zone)}; next run ${added.row.nextRunAt ?? '—'} UTC). ${await host.health()}.`, '', rowJson(added.row)].join('\n');
}

/** `lifethread_schedule` { action: add_command | list | remove | move | run_now | log }. */
export async function scheduleTool(input: unknown, host: ScheduleToolHost, call: ShownCall = {}): Promise<string> {
  const i = parseToolInput(scheduleInputSchema, input);
  const now = host.now();
  await host.settle?.();
  const timeoutMinutes = i.timeout_minutes;
  const store = host.store;
  switch (i.action) {
    case 'list': {
      const snap = await store.listCommands();
      return listAnswer(snap.rows, i, 'commands', 'scheduled command', await host.health(), now);
    }
    case 'add_command': {
      const command = required(i.command, 'command', 'to add a command row');
      const cwd = host.cwd();
      if ('missing' in cwd) throw new InputError('command', cwd.missing);
      if (!i.when && !i.cron) throw new InputError('when', "is required (or cron): e.g. 'in 10 minutes', 'every 30m', 'every day at 02:00'");
      const zone = zoneOf(i, host);
      const read = call.shownAt === undefined ? undefined : readAsShown({ when: i.when, cron: i.cron, tz: zone.timeZone, kind: 'command' }, call.shownAt, now);
      if (read?.kind === 'passed') return passedAnswer(read, wordsOf(i), zone, now);
      const added = await store.addCommand({ command, cwd: cwd.dir, envPath: host.envPath, when: i.when, cron: i.cron, tz: zone.timeZone, now: read?.readAt ?? now, timeoutMinutes, ...(host.owner ? { owner: host.owner } : {}) });
      await host.changed?.();
      return [
        `Command ${added.row.id} scheduled: ${added.description} (${zoneWords(zone)}; next run ${added.row.nextRunAt ?? '—'} UTC; timeout ${added.row.timeoutMinutes} min). ${await host.health()}.`,
        '',
        rowJson(added.row),
      ].join('\n');
    }
    case 'remove': {
      const removed = await store.remove(required(i.id, 'id', 'to remove a row'));
      await host.changed?.();
      return [`Removed ${removed.id}. ${await host.health()}.`, '', rowJson(removed)].join('\n');
    }
    case 'move': {
      const id = required(i.id, 'id', 'to move a row');
      if (!i.when && !i.cron) throw new InputError('when', 'is required (or cron) to move a row');
      const zone = zoneOf(i, host);
      const read = call.shownAt === undefined ? undefined : readAsShown({ when: i.when, cron: i.cron, tz: zone.timeZone, kind: id.startsWith('c-') ? 'command' : 'reminder' }, call.shownAt, now);
      if (read?.kind === 'passed') return passedAnswer(read, wordsOf(i), zone, now);
      const moved = await store.move(id, { when: i.when, cron: i.cron, tz: zone.timeZone, now: read?.readAt ?? now, timeoutMinutes }, { timeoutMinutes: 'timeout_minutes' });
      await host.changed?.();
      const running = moved.running ? '. It is running now: the change applies after this run, and the run keeps its first fact' : '';
      return [`Moved ${id}: ${moved.description} (${zoneWords(zone)}; next run ${moved.row.nextRunAt ?? '—'} UTC)${running}. ${await host.health()}.`, '', rowJson(moved.row)].join('\n');
    }
    case 'run_now': {
      const id = required(i.id, 'id', 'to run a row now');
      const r = await store.runNow(id, now);
      await host.changed?.();
      const when = r.running ? 'is running now; it runs again after this run ends (the current run keeps its first fact)' : `runs on the next pass (${now.toISOString()})`;
      return [`${id} ${when}. ${await host.health()}.`, '', rowJson(r.row)].join('\n');
    }
    case 'log': {
      const id = required(i.id, 'id', 'to read a log');
      const row = await store.get(id);
      if (!row) throw new InputError('id', `no row with id ${id}`);
      const whole = (await readLog(store.dir, id)) ?? '(no run log yet)';
      return logAnswer(id, whole, i);
    }
  }
}
