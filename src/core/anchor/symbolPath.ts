/**
 * The "Class.member" name a CodeAnchor records for a line: the innermost *named* declaration
 * around it, from the document symbol provider's tree. Language servers also list a body's locals and
 * anonymous functions (TypeScript: `total`, `values.reduce() callback`); a path through those names no
 * declaration a reader would look for, and it breaks as soon as the body changes.
 */

/** The parts of a `vscode.DocumentSymbol` this module reads. */
export interface SymbolNode {
  readonly name: string;
  /** `vscode.SymbolKind`'s number. */
  readonly kind: number;
  readonly range: { readonly start: { readonly line: number }; readonly end: { readonly line: number } };
  readonly children?: readonly SymbolNode[];
}

/** Kinds whose children are declarations (members), not a body's locals: File, Module, Namespace, Package, Class, Enum, Interface, Object, Struct. */
const CONTAINER_KINDS = new Set([0, 1, 2, 3, 4, 9, 10, 18, 22]);
/** An identifier, not a description such as "values.reduce() callback" or "<function>". */
const IDENTIFIER = /^[#$_\p{ID_Start}][$\u200c\u200d\p{ID_Continue}]*$/u;

/** The path of the innermost named declaration whose range holds `line` (0-based), or undefined when none does. */
export function symbolPathAt(symbols: readonly SymbolNode[], line: number): string | undefined {
  return walk(symbols, line, '');
}

function walk(list: readonly SymbolNode[], line: number, prefix: string): string | undefined {
  for (const s of list) {
    if (s.range.start.line > line || s.range.end.line < line) continue;
    if (!IDENTIFIER.test(s.name)) return undefined;
    const name = prefix ? `${prefix}.${s.name}` : s.name;
    if (!CONTAINER_KINDS.has(s.kind)) return name;
    return walk(s.children ?? [], line, name) ?? name;
  }
  return undefined;
}
