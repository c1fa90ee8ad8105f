/**
 * JSON.stringify without recursion: a row nested thousands of levels deep (found in a table by hand
 * or by a fuzzer) must be quarantined verbatim and shown, not overflow the stack. Output equals
 * JSON.stringify's for plain data (objects, arrays, strings, finite numbers, booleans, null; toJSON
 * is honoured; undefined and functions are left out of objects and become null in arrays). With an
 * indent, levels deeper than INDENT_DEPTH are written compact: indenting 100,000 levels would need
 * gigabytes of spaces.
 */
const INDENT_DEPTH = 64;

export function stringifyDeep(value: unknown, indent = 0): string {
  const pad = indent > 0 ? ' '.repeat(Math.min(10, Math.floor(indent))) : '';
  const out: string[] = [];
  type Frame = { kind: 'arr'; items: unknown[]; i: number; depth: number } | { kind: 'obj'; obj: Record<string, unknown>; keys: string[]; i: number; depth: number; wrote: boolean };
  const stack: Frame[] = [];
  const nl = (depth: number): string => (pad && depth <= INDENT_DEPTH ? `\n${pad.repeat(depth)}` : '');

  /** Writes a scalar, or opens a container (returns true); `inArray` turns unrepresentable values into null. */
  const emit = (raw: unknown, depth: number, inArray: boolean): boolean => {
    let v = raw;
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
    if (v === null) out.push('null');
    else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
    else if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    else if (Array.isArray(v)) {
      if (v.length === 0) out.push('[]');
      else {
        out.push('[');
        stack.push({ kind: 'arr', items: v, i: 0, depth: depth + 1 });
        return true;
      }
    } else if (typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).filter((k) => serializable(obj[k]));
      if (keys.length === 0) out.push('{}');
      else {
        out.push('{');
        stack.push({ kind: 'obj', obj, keys, i: 0, depth: depth + 1, wrote: false });
        return true;
      }
    } else if (inArray) out.push('null');
    return false;
  };

  if (!serializable(value)) return undefined as unknown as string;
  emit(value, 0, false);
  while (stack.length > 0) {
    const f = stack[stack.length - 1] as Frame;
    if (f.kind === 'arr') {
      if (f.i >= f.items.length) {
        stack.pop();
        out.push(`${nl(f.depth - 1)}]`);
        continue;
      }
      out.push(`${f.i > 0 ? ',' : ''}${nl(f.depth)}`);
      emit(f.items[f.i++], f.depth, true);
    } else {
      if (f.i >= f.keys.length) {
        stack.pop();
        out.push(`${nl(f.depth - 1)}}`);
        continue;
      }
      const k = f.keys[f.i++] as string;
      out.push(`${f.wrote ? ',' : ''}${nl(f.depth)}${JSON.stringify(k)}:${pad && f.depth <= INDENT_DEPTH ? ' ' : ''}`);
      f.wrote = true;
      emit(f.obj[k], f.depth, false);
    }
  }
  return out.join('');
}

function serializable(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}
