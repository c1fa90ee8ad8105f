/**
 * Terminal output as plain text: colours, OSC strings (titles, hyperlinks, VS Code's shell-integration
 * marks) and other control codes removed, newlines and tabs kept. Lines that a carriage return,
 * backspace, cursor move or erase code rewrote keep the state a terminal would show last, so a
 * progress bar or a runner's "RUNS …" status line leaves what the user saw, not every frame of it.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CSI_8BIT = 0x9b;
const OSC_8BIT = 0x9d;
const ST_8BIT = 0x9c;
/** A cursor move past a line's end pads at most this far (a hostile `CSI 99999999 G` pads no more). */
const MAX_PAD = 1000;
/** Cursor-up reaches at most this many rows back: a terminal's screen, not the whole scrollback. */
const MAX_ROWS_UP = 200;

/** One row being written: cells (code points) overwritten at the cursor. */
class Row {
  private cells: string[] = [];
  /** Text appended at the end, split into cells only when the cursor moves back. */
  private tail = '';
  /** undefined: at the end of the row. */
  private cursor: number | undefined;
  /** Cells before this hold text; blanks after it only padded an erase or a cursor move. */
  private written = 0;

  write(s: string): void {
    if (this.cursor === undefined) {
      this.tail += s;
      return;
    }
    for (const ch of s) {
      if (this.cursor < this.cells.length) this.cells[this.cursor] = ch;
      else this.cells.push(ch);
      this.cursor++;
    }
    this.written = Math.max(this.written, this.cursor);
    if (this.cursor >= this.cells.length) this.cursor = undefined;
  }

  column(): number {
    this.fold();
    return this.cursor ?? this.cells.length;
  }

  /** To 0-based column `col`; past the end pads with blanks, as a later write would show. */
  moveTo(col: number): void {
    this.fold();
    const c = Math.max(0, col);
    if (c < this.cells.length) this.cursor = c;
    else {
      while (this.cells.length < Math.min(c, MAX_PAD)) this.cells.push(' ');
      this.cursor = undefined;
    }
  }

  /** CSI K: 0 = cursor to end, 1 = start to cursor, 2 = the whole row (the cursor stays). */
  erase(mode: number): void {
    const p = this.column();
    if (mode === 0) {
      this.cells.length = Math.min(this.cells.length, p);
      this.written = Math.min(this.written, p);
      this.cursor = undefined;
    } else if (mode === 1) {
      for (let i = 0; i <= p && i < this.cells.length; i++) this.cells[i] = ' ';
    } else if (mode === 2) {
      this.cells = new Array<string>(Math.min(p, MAX_PAD)).fill(' ');
      this.written = 0;
      this.cursor = undefined;
    }
  }

  text(): string {
    if (this.tail !== '') return this.cells.join('') + this.tail;
    return this.cells.length === this.written ? this.cells.join('') : this.cells.slice(0, this.written).join('');
  }

  private fold(): void {
    if (this.tail === '') return;
    for (const ch of this.tail) this.cells.push(ch);
    this.tail = '';
    this.written = this.cells.length;
  }
}

/**
 * The rows written so far: the last screenful (the rows cursor-up can reach) kept as rows being
 * written, the ones above it already plain text, so moving between rows costs nothing.
 */
class Screen {
  private readonly done: string[] = [];
  private readonly live: Row[] = [new Row()];
  private row = 0;

  private get current(): Row {
    let r = this.live[this.row];
    if (!r) {
      r = new Row();
      this.live[this.row] = r;
    }
    return r;
  }

  write(s: string): void {
    this.current.write(s);
  }

  newline(): void {
    this.moveRows(1, 0, true);
  }

  carriageReturn(): void {
    this.current.moveTo(0);
  }

  /** Cursor up (negative) or down by `n` rows within the rows that exist; a newline (`grow`) may add one. */
  moveRows(n: number, col?: number, grow = false): void {
    const column = col ?? this.current.column();
    let target = Math.max(0, this.row + n);
    if (target >= this.live.length) {
      if (grow) this.addRow();
      target = this.live.length - 1;
    }
    this.row = target;
    this.current.moveTo(column);
  }

  moveColumns(n: number): void {
    this.current.moveTo(this.current.column() + n);
  }

  moveToColumn(col: number): void {
    this.current.moveTo(col);
  }

  eraseInLine(mode: number): void {
    this.current.erase(mode);
  }

  /** CSI J 0: from the cursor to the end of the screen. Clearing the whole screen keeps the log. */
  eraseBelow(): void {
    this.current.erase(0);
    this.live.length = this.row + 1;
  }

  text(): string {
    return [...this.done, ...this.live.map((r) => r.text())].join('\n');
  }

  /** A new last row; the oldest live row becomes plain text once the screenful is full. */
  private addRow(): void {
    this.live.push(new Row());
    if (this.live.length > MAX_ROWS_UP + 1) {
      const oldest = this.live.shift();
      if (oldest) this.done.push(oldest.text());
    }
  }
}

/** The index after an escape sequence that starts at `i` (at ESC or an 8-bit introducer). */
function applyEscape(s: string, i: number, screen: Screen): number {
  const c = s.charCodeAt(i);
  let j: number;
  if (c === CSI_8BIT) j = i + 1;
  else if (c === OSC_8BIT) return skipString(s, i + 1);
  else {
    const next = s.charCodeAt(i + 1);
    if (Number.isNaN(next)) return i + 1;
    if (next === 0x5b /* [ */) j = i + 2;
    else if (next === 0x5d /* ] */ || next === 0x50 /* P */ || next === 0x58 /* X */ || next === 0x5e /* ^ */ || next === 0x5f /* _ */) return skipString(s, i + 2);
    else {
      // nF: intermediates 0x20–0x2f then one final byte (e.g. ESC ( B); Fp/Fe/Fs: one byte (ESC 7).
      j = i + 1;
      while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
      const f = s.charCodeAt(j);
      return f >= 0x30 && f <= 0x7e ? j + 1 : j;
    }
  }
  // CSI: parameter bytes 0x30–0x3f, intermediates 0x20–0x2f, one final byte 0x40–0x7e.
  const paramsStart = j;
  while (j < s.length && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x3f) j++;
  const params = s.slice(paramsStart, j);
  while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
  const f = s.charCodeAt(j);
  if (!(f >= 0x40 && f <= 0x7e)) return j; // malformed: drop the introducer, keep what follows
  applyCsi(s[j] ?? '', params, screen);
  return j + 1;
}

function applyCsi(final: string, params: string, screen: Screen): void {
  if (/[^\d;]/.test(params)) return; // private modes (`?25l`) and the like change no text
  const first = params === '' ? undefined : Number(params.split(';')[0]);
  const n = Math.max(1, first ?? 1);
  switch (final) {
    case 'K':
      return screen.eraseInLine(first ?? 0);
    case 'J':
      if ((first ?? 0) === 0) screen.eraseBelow();
      return;
    case 'G':
      return screen.moveToColumn(n - 1);
    case 'C':
      return screen.moveColumns(n);
    case 'D':
      return screen.moveColumns(-n);
    case 'A':
      return screen.moveRows(-n);
    case 'B':
      return screen.moveRows(n);
    case 'E':
      return screen.moveRows(n, 0);
    case 'F':
      return screen.moveRows(-n, 0);
  }
}

/** After an OSC/DCS/SOS/PM/APC introducer: up to BEL or ST; a line end also ends a broken one. */
function skipString(s: string, j: number): number {
  for (let k = j; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === BEL || c === ST_8BIT) return k + 1;
    if (c === ESC) return s.charCodeAt(k + 1) === 0x5c /* \ */ ? k + 2 : k;
    if (c === 0x0a || c === 0x0d) return k;
  }
  return s.length;
}

function isControl(c: number): boolean {
  return (c < 0x20 && c !== 0x09) || c === 0x7f || (c >= 0x80 && c <= 0x9f);
}

/** Plain text of terminal output; `\r\n` and lone `\n` end lines, tabs stay. */
export function stripControl(s: string): string {
  const screen = new Screen();
  let runStart = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (!isControl(c)) {
      i++;
      continue;
    }
    if (i > runStart) screen.write(s.slice(runStart, i));
    if (c === 0x0a) {
      screen.newline();
      i++;
    } else if (c === 0x0d) {
      // `\r\n` is a line end, not a rewrite.
      if (s.charCodeAt(i + 1) !== 0x0a) screen.carriageReturn();
      i++;
    } else if (c === 0x08) {
      screen.moveColumns(-1);
      i++;
    } else if (c === ESC || c === CSI_8BIT || c === OSC_8BIT) {
      i = applyEscape(s, i, screen);
    } else i++;
    runStart = i;
  }
  if (s.length > runStart) screen.write(s.slice(runStart));
  return screen.text();
}
