// The ids' formats and checks are src/core/ids.ts; this draws their random part.
import { randomBytes } from 'node:crypto';
import { ID_RANDOM_CHARS, MESSAGE_TAIL_CHARS, messageId, type IdPrefix } from '../core/ids';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
// 252 = 7 × 36: bytes at or above it are skipped so every character is equally likely.
const UNBIASED_LIMIT = 252;

/** Random base36 characters from the system CSPRNG. */
export function randomBase36(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b >= UNBIASED_LIMIT) continue;
      out += ALPHABET[b % 36];
      if (out.length === length) break;
    }
  }
  return out;
}

/** An id: `r-` reminder, `c-` command, `w-` wake, `j-` a `life-thread run` job, then 10 random base36 characters. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}-${randomBase36(ID_RANDOM_CHARS)}`;
}

/** A new message id of @life's transcript: `m-<base36 milliseconds>-<6 random base36>`. */
export function newMessageId(now = Date.now()): string {
  return messageId(now, randomBase36(MESSAGE_TAIL_CHARS));
}
