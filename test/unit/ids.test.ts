// Every id format is written once, in src/core/ids.ts: each check takes the ids src/node/ids.ts
// draws and refuses the near-misses, and no other file under src/ spells an id pattern of its own.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  COMMAND_ID,
  ID_RANDOM_CHARS,
  isCommandId,
  isEvidenceId,
  isLoggedJobId,
  isReminderMention,
  isRunJobId,
  isScheduleRowId,
  isTopicId,
  isWakeId,
  looksLikeCommandId,
  MESSAGE_ID,
  messageId,
  REMINDER_ID,
  TOPIC_ID,
  WAKE_ID,
  wakeIdOfUri,
  wakeUri,
} from '../../src/core/ids';
import { importedId } from '../../src/core/chatImport';
import { newId, newMessageId } from '../../src/node/ids';
import { REPO } from './helpers/cliHarness';

const ROUNDS = 200;
const TAIL_40 = 'a'.repeat(40);

/** The near-misses of a `<prefix>-…` store id: every one must be refused. */
function nearMisses(prefix: string): string[] {
  return [
    `${prefix}-`,
    `${prefix}-${TAIL_40}b`,
    `${prefix.toUpperCase()}-abc123`,
    `${prefix}abc123`,
    `${prefix}_abc123`,
    ` ${prefix}-abc123`,
    `${prefix}-abc123 `,
    `${prefix}-abc123\n`,
    `${prefix}-abc.123`,
    `${prefix}-abc/123`,
    `${prefix}-abc:123`,
    `${prefix}-ab\u00e9`,
    `x${prefix}-abc123`,
    '',
  ];
}

describe('store ids (src/core/ids.ts)', () => {
  const kinds = [
    { prefix: 'r', check: (id: string) => REMINDER_ID.test(id) },
    { prefix: 'c', check: (id: string) => isCommandId(id) && COMMAND_ID.test(id) },
    { prefix: 'w', check: (id: string) => isWakeId(id) && WAKE_ID.test(id) },
    { prefix: 'j', check: (id: string) => isRunJobId(id) },
  ] as const;

  for (const { prefix, check } of kinds) {
    it(`${prefix}-: accepts every id newId draws and refuses near-misses`, () => {
      for (let i = 0; i < ROUNDS; i++) {
        const id = newId(prefix);
        assert.equal(id.length, prefix.length + 1 + ID_RANDOM_CHARS, id);
        assert.ok(check(id), id);
      }
      assert.ok(check(`${prefix}-${TAIL_40}`), 'a 40-character tail');
      assert.ok(check(`${prefix}-A_b-9`), 'upper case, _ and - in the tail');
      for (const bad of nearMisses(prefix)) assert.equal(check(bad), false, JSON.stringify(bad));
    });
  }

  it('each kind refuses the other kinds', () => {
    for (const { prefix, check } of kinds) {
      for (const other of kinds) if (other.prefix !== prefix) assert.equal(check(newId(other.prefix)), false, `${prefix} took ${other.prefix}`);
    }
  });

  it('undefined is no id', () => {
    assert.equal(isCommandId(undefined), false);
    assert.equal(isWakeId(undefined), false);
    assert.equal(isRunJobId(undefined), false);
  });

  it('a schedule row is a reminder or a command row; a logged job a command row or a run job', () => {
    assert.ok(isScheduleRowId(newId('r')));
    assert.ok(isScheduleRowId(newId('c')));
    assert.equal(isScheduleRowId(newId('w')), false);
    assert.equal(isScheduleRowId(newId('j')), false);
    assert.ok(isLoggedJobId(newId('c')));
    assert.ok(isLoggedJobId(newId('j')));
    assert.equal(isLoggedJobId(newId('r')), false);
    assert.equal(isLoggedJobId(newId('w')), false);
    for (const bad of [...nearMisses('r'), ...nearMisses('c')]) assert.equal(isScheduleRowId(bad), false, JSON.stringify(bad));
    for (const bad of [...nearMisses('c'), ...nearMisses('j')]) assert.equal(isLoggedJobId(bad), false, JSON.stringify(bad));
  });

  it('looksLikeCommandId is the prefix alone, so a malformed command id can be named as one', () => {
    assert.ok(looksLikeCommandId('c-'));
    assert.ok(looksLikeCommandId(`c-${TAIL_40}b`));
    assert.equal(isCommandId(`c-${TAIL_40}b`), false);
    assert.equal(looksLikeCommandId('build'), false);
  });

  it('@life /remind show takes r- ids in either case and any length, nothing else', () => {
    assert.ok(isReminderMention(newId('r')));
    assert.ok(isReminderMention('R-abc'));
    assert.ok(isReminderMention(`r-${TAIL_40}${TAIL_40}`));
    for (const bad of ['r-', 'r-a b', 'r-a.b', newId('c'), newId('w'), 'xr-abc']) assert.equal(isReminderMention(bad), false, bad);
  });

  it('a wake resource uri round-trips and refuses others', () => {
    const id = newId('w');
    assert.equal(wakeIdOfUri(wakeUri(id)), id);
    for (const bad of [wakeUri(newId('c')), wakeUri('w-'), `${wakeUri(id)}/x`, `x${wakeUri(id)}`, `lifethread://wake/${id}`, id]) assert.equal(wakeIdOfUri(bad), undefined, bad);
  });
});

describe('topic, evidence and message ids (src/core/ids.ts)', () => {
  const names = [
    { what: 'topic', check: (s: string) => isTopicId(s) && TOPIC_ID.test(s) },
    { what: 'evidence', check: isEvidenceId },
    { what: 'message', check: (s: string) => MESSAGE_ID.test(s) },
  ];

  for (const { what, check } of names) {
    it(`${what}: letters, digits, . - _ after a letter or digit, at most 100`, () => {
      for (const ok of ['main', 'a', 'Topic-1.2_b', `x${'y'.repeat(99)}`, '0']) assert.ok(check(ok), ok);
      for (const bad of ['', '.hidden', '-a', '_a', 'a/b', 'a b', 'a\n', `x${'y'.repeat(100)}`, '../x', 'caf\u00e9']) assert.equal(check(bad), false, JSON.stringify(bad));
    });
  }

  it('a message id may carry a colon; a topic and an evidence id may not', () => {
    assert.ok(MESSAGE_ID.test('req:1'));
    assert.equal(isTopicId('req:1'), false);
    assert.equal(isEvidenceId('req:1'), false);
    assert.equal(MESSAGE_ID.test(':req'), false);
  });

  it('message ids minted and imported are m-<base36 time>-<6>, and valid message ids', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    const minted = newMessageId(at);
    assert.match(minted, new RegExp(`^m-${at.toString(36)}-[0-9a-z]{6}$`));
    assert.ok(MESSAGE_ID.test(minted), minted);
    assert.match(newMessageId(), /^m-[0-9a-z]+-[0-9a-z]{6}$/);
    const imported = importedId('request_1', 'user', at);
    assert.match(imported, new RegExp(`^m-${at.toString(36)}-[0-9a-z]{6}$`));
    assert.ok(MESSAGE_ID.test(imported), imported);
    assert.equal(messageId(-5.5, 'abcdef'), 'm-0-abcdef');
    assert.equal(messageId(35.9, 'abcdef'), 'm-z-abcdef');
  });
});

/** Id patterns spelled in source: a prefix then its character class, a regex opening on a prefix, or the topic alphabet. */
const ID_PATTERN_SPELLINGS = [/(?:^|[^A-Za-z0-9])(?:[rcwjm]|\[[rcwjm]{2,5}\])-(?:\[|\\w)/, /\/\^(?:[rcwjm]|\[[rcwjm]{2,5}\])-/, /\[A-Za-z0-9\]\[A-Za-z0-9\._/];

/** The lines of `text` that spell an id pattern, as "line: text". */
function idPatternLines(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (ID_PATTERN_SPELLINGS.some((re) => re.test(line)) ? [`${i + 1}: ${line.trim()}`] : []));
}

function tsFiles(rel: string): string[] {
  const abs = path.join(REPO, rel);
  if (!statSync(abs).isDirectory()) return rel.endsWith('.ts') ? [rel] : [];
  return readdirSync(abs).flatMap((name) => tsFiles(path.posix.join(rel, name)));
}

describe('id patterns are written once', () => {
  it('finds the spellings the checks replaced (the check can fail)', () => {
    const spelled = [
      "if (!/^c-[A-Za-z0-9_-]{1,40}$/.test(id)) throw new InputError('id', 'not a command id');",
      'const COMMAND_ID = /^[cj]-[A-Za-z0-9_-]{1,40}$/;',
      'if (!/^[rc]-[A-Za-z0-9_-]{1,40}$/.test(id)) throw x;',
      'const WAKE_URI = /^lifethread:\\/\\/wakes\\/(w-[A-Za-z0-9_-]{1,40})$/;',
      'const show = /^\\s*show\\s+(r-[\\w-]+)\\s*$/i.exec(request.prompt);',
      'if (/^c-/.test(v)) return;',
      'export const TOPIC_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;',
      "const messageId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, 'x');",
      'return /^m-[0-9a-z]+-[0-9a-z]{6}$/.test(id);',
    ];
    for (const line of spelled) assert.equal(idPatternLines(line).length, 1, line);
    for (const line of ["if (req.params.id.startsWith('w-')) return;", 'const tmp = `.${base}.${randomBase36(8)}.tmp`;', "const re = /^[A-Za-z0-9_-]+$/; // base64url"]) {
      assert.deepEqual(idPatternLines(line), [], line);
    }
  });

  it('no file under src/ but src/core/ids.ts spells an id pattern', () => {
    const files = tsFiles('src').filter((f) => f !== 'src/core/ids.ts');
    assert.ok(files.includes('src/core/wake/row.ts') && files.length > 50, `${files.length} files`);
    const found = files.flatMap((f) => idPatternLines(readFileSync(path.join(REPO, f), 'utf8')).map((l) => `${f}:${l}`));
    assert.deepEqual(found, []);
  });

  it('src/core/ids.ts holds the patterns the check looks for', () => {
    assert.ok(idPatternLines(readFileSync(path.join(REPO, 'src/core/ids.ts'), 'utf8')).length >= 8);
  });
});
