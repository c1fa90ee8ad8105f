import { randomBytes } from 'node:crypto';

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
export function newId(prefix: 'r' | 'c' | 'w' | 'j'): string {
  return `${prefix}-${randomBase36(10)}`;
}
