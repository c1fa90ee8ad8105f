/**
 * A capped run log: the head and the tail of a stream of text are kept,
 * the middle is cut and the cut marked. Memory stays bounded however much is pushed, and the result
 * is at most `max` UTF-16 code units including the marker. Cuts fall on code-point boundaries.
 */

export const LOG_MAX_CHARS = 32_000;

export function cutMarker(cut: number): string {
  return `\n… [cut ${cut} characters] …\n`;
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The last `n` code units of `s`, one fewer when that would start on the low half of a pair. */
function tailOf(s: string, n: number): string {
  if (n <= 0) return '';
  if (s.length <= n) return s;
  const start = s.length - n;
  return isLow(s.charCodeAt(start)) && isHigh(s.charCodeAt(start - 1)) ? s.slice(start + 1) : s.slice(start);
}

/** The first `n` code units of `s`, one fewer when that would end on the high half of a pair. */
function headOf(s: string, n: number): string {
  if (s.length <= n) return s;
  return isHigh(s.charCodeAt(n - 1)) ? s.slice(0, n - 1) : s.slice(0, n);
}

export class LogCap {
  readonly max: number;
  private readonly headMax: number;
  private readonly tailKeep: number;
  private head = '';
  private headFull = false;
  private tail: string[] = [];
  private tailLen = 0;
  private total = 0;

  /** `headShare`: the part of the budget given to the head; the tail (where failures show) gets the rest. */
  constructor(max: number = LOG_MAX_CHARS, headShare = 0.25) {
    if (!Number.isInteger(max) || max < 64) throw new RangeError(`log cap must be an integer of at least 64, got ${max}`);
    this.max = max;
    this.headMax = Math.floor(max * headShare);
    this.tailKeep = max;
  }

  /** Characters pushed so far. */
  get length(): number {
    return this.total;
  }

  push(text: string): void {
    if (text.length === 0) return;
    this.total += text.length;
    let rest = text;
    if (!this.headFull) {
      const room = this.headMax - this.head.length;
      if (rest.length <= room) {
        this.head += rest;
        return;
      }
      let take = room;
      // Never end the head on the high half of a pair: it moves whole into the tail.
      if (take > 0 && isHigh(rest.charCodeAt(take - 1))) take--;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
      this.headFull = true;
    }
    if (rest.length >= this.tailKeep) {
      this.tail = [flat(tailOf(rest, this.tailKeep + 1))];
      this.tailLen = this.tail[0]?.length ?? 0;
      return;
    }
    this.tail.push(rest);
    this.tailLen += rest.length;
    if (this.tailLen > 2 * this.tailKeep) {
      const joined = flat(tailOf(this.tail.join(''), this.tailKeep + 1));
      this.tail = [joined];
      this.tailLen = joined.length;
    }
  }

  toString(): string {
    return this.render();
  }

  /**
   * The capped text with `transform` (e.g. redaction) applied before the cut is placed, so a
   * transform that lengthens the text still yields at most `max` characters and one marker. Head and
   * tail are transformed apart when the middle is cut (nothing joins them); the count in the marker
   * is of characters as they were pushed.
   */
  render(transform: (s: string) => string = (s) => s): string {
    const rawTail = this.tail.join('');
    if (this.total <= this.max) {
      const whole = transform(this.head + rawTail);
      if (whole.length <= this.max) return whole;
    }
    const head = headOf(transform(this.head), Math.floor(this.max / 2));
    const tail = transform(rawTail);
    const h = head.length;
    // Characters the transform added to (or took from) the tail, counted against what was kept.
    const grown = tail.length - rawTail.length;
    const cutOf = (kept: number): number => Math.max(0, this.total - this.head.length - Math.max(0, Math.min(rawTail.length, kept - grown)));
    // The marker's length depends on the number it carries; it only shrinks as the tail grows.
    let markerLen = cutMarker(this.total).length;
    for (;;) {
      const t = tailOf(tail, this.max - h - markerLen);
      const marker = cutMarker(cutOf(t.length));
      if (marker.length >= markerLen) return head + marker + t;
      markerLen = marker.length;
    }
  }
}

/** Copies a string so a short slice does not keep a large parent string alive. */
function flat(s: string): string {
  return (' ' + s).slice(1);
}

/** Caps an existing text the same way a stream is capped. */
export function capText(text: string, max: number = LOG_MAX_CHARS, headShare = 0.25): string {
  if (text.length <= max) return text;
  const cap = new LogCap(max, headShare);
  cap.push(text);
  return cap.toString();
}
