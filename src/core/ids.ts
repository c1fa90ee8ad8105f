/**
 * Every id format Life Thread reads, each written once (docs/architecture.md, "String protocols").
 * The random ids are drawn in src/node/ids.ts; everything that checks an id checks it here, and
 * test/unit/ids.test.ts fails on an id pattern written anywhere else under src/.
 */

/** The prefix of a store id: `r-` reminder, `c-` command row, `w-` wake, `j-` a `life-thread run` job. */
export type IdPrefix = 'r' | 'c' | 'w' | 'j';

/** How many random base36 characters a new store id carries after its prefix (older rows may carry 1 to 40). */
export const ID_RANDOM_CHARS = 10;

/** A reminder row: `r-` and 1 to 40 letters, digits, `-` or `_`. */
export const REMINDER_ID = /^r-[A-Za-z0-9_-]{1,40}$/;
/** A command row, whose runs are also a wake's job: `c-` and 1 to 40 letters, digits, `-` or `_`. */
export const COMMAND_ID = /^c-[A-Za-z0-9_-]{1,40}$/;
/** A wake: `w-` and 1 to 40 letters, digits, `-` or `_`. */
export const WAKE_ID = /^w-[A-Za-z0-9_-]{1,40}$/;
/** A job of `life-thread run`: `j-` and 1 to 40 letters, digits, `-` or `_`. */
const RUN_JOB_ID = /^j-[A-Za-z0-9_-]{1,40}$/;
/** A row of either schedule table: a reminder or a command row. */
const SCHEDULE_ROW_ID = /^[rc]-[A-Za-z0-9_-]{1,40}$/;
/** A job that keeps its last log at `logs/<id>.log`: a command row or a `life-thread run` job. */
const LOGGED_JOB_ID = /^[cj]-[A-Za-z0-9_-]{1,40}$/;
/** What `@life /remind show` takes for a reminder id, either case and any length: the store then says whether it exists. */
const REMINDER_MENTION = /^r-[\w-]+$/i;

/** A topic (its folder under `.life-thread/topics/`): a letter or digit, then letters, digits, `.`, `-` or `_`, at most 100. */
export const TOPIC_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** A page on the desk as `cdp://evidence/<id>` carries it: the topic's alphabet and length. */
const EVIDENCE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** A message of a topic's transcript as `intercom://message/<topic>/<msgId>` carries it: a colon allowed too. */
export const MESSAGE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/** Random base36 characters at the end of a message id @life mints. */
export const MESSAGE_TAIL_CHARS = 6;

/** A command row's id; as a wake's job, its end is seen by whoever runs the row, so its wakes have no watching window. */
export function isCommandId(id: string | undefined): id is string {
  return id !== undefined && COMMAND_ID.test(id);
}

export function isWakeId(id: string | undefined): id is string {
  return id !== undefined && WAKE_ID.test(id);
}

/** A job of `life-thread run`: its end is seen by the running process, not by a window. */
export function isRunJobId(id: string | undefined): id is string {
  return id !== undefined && RUN_JOB_ID.test(id);
}

export function isScheduleRowId(id: string): boolean {
  return SCHEDULE_ROW_ID.test(id);
}

export function isLoggedJobId(id: string): boolean {
  return LOGGED_JOB_ID.test(id);
}

export function isReminderMention(word: string): boolean {
  return REMINDER_MENTION.test(word);
}

export function isTopicId(name: string): boolean {
  return TOPIC_ID.test(name);
}

export function isEvidenceId(id: string): boolean {
  return EVIDENCE_ID.test(id);
}

/** Starts like a command row's id (`c-`), whether or not the rest is one. */
export function looksLikeCommandId(id: string): boolean {
  return id.startsWith('c-');
}

/** A message id as @life mints it: `m-<base36 milliseconds>-<tail>` (the tail random, or derived from an imported request). */
export function messageId(atMs: number, tail: string): string {
  return `m-${Math.max(0, Math.floor(atMs)).toString(36)}-${tail}`;
}

/** Where a wake is an MCP resource: `lifethread://wakes/<id>`. */
export const WAKE_URI_PREFIX = 'lifethread://wakes/';

export function wakeUri(id: string): string {
  return `${WAKE_URI_PREFIX}${id}`;
}

/** The wake id of `lifethread://wakes/<id>`, or undefined for any other uri. */
export function wakeIdOfUri(uri: string): string | undefined {
  if (!uri.startsWith(WAKE_URI_PREFIX)) return undefined;
  const id = uri.slice(WAKE_URI_PREFIX.length);
  return isWakeId(id) ? id : undefined;
}
