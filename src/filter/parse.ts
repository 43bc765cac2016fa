// Parsing filter expressions with a parser generated once (lazily) by peggy
// from grammar.ts. Syntax errors are reported the way go-bexpr reports them
// ("1:4 (3): no match found, expected: \"!=\", \"==\" or [ \t\r\n]"), so a
// client sees Consul's kind of message.
import peggy from 'peggy';
import type { FilterAst } from './ast';
import { FILTER_GRAMMAR } from './grammar';

/** A filter that does not parse or does not fit the data; `message` is the text without Consul's prefix. */
export class FilterSyntaxError extends Error {
  override name = 'FilterSyntaxError';
}

let parser: peggy.Parser | undefined;

function getParser(): peggy.Parser {
  // `cache` memoizes rule results: without it, nested parentheses backtrack exponentially.
  parser ??= peggy.generate(FILTER_GRAMMAR, { cache: true });
  return parser;
}

const GO_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
};

/** Go's strconv.Unquote for the inside of a "…" literal (which cannot contain a double quote). */
export function unquoteGo(text: string, fail: (message: string) => never): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.?)/g, (whole, esc: string) => {
    if (esc.length > 1) {
      const code = esc[0] === 'x' || esc[0] === 'u' || esc[0] === 'U' ? parseInt(esc.slice(1), 16) : parseInt(esc, 8);
      if (code > 0x10ffff) fail('rule "string": invalid syntax');
      return String.fromCodePoint(code);
    }
    const mapped = GO_ESCAPES[esc];
    if (mapped === undefined) fail(`rule "string": invalid syntax in ${JSON.stringify(whole)}`);
    return mapped;
  });
}

function describe(e: peggy.parser.Expectation): string {
  switch (e.type) {
    case 'literal':
      return JSON.stringify(e.text);
    case 'class': {
      const show = (c: string) =>
        c.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/]/g, '\\]');
      const parts = e.parts.map((p) => (Array.isArray(p) ? `${show(p[0])}-${show(p[1])}` : show(p))).join('');
      return `[${e.inverted ? '^' : ''}${parts}]`;
    }
    case 'end':
      return 'EOF';
    case 'any':
      return 'any character';
    default:
      return e.description;
  }
}

function listJoin(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

interface PeggyError {
  message: string;
  location: { start: { line: number; column: number; offset: number } };
  expected: peggy.parser.Expectation[] | null;
}

function isPeggyError(err: unknown): err is PeggyError {
  return err instanceof Error && err.name === 'SyntaxError' && 'location' in err && 'expected' in err;
}

export function parseFilter(expression: string): FilterAst {
  try {
    return getParser().parse(expression, {
      unquote: (text: string, error: (m: string) => never) => unquoteGo(text, error),
    }) as FilterAst;
  } catch (err) {
    // The generated parser has its own SyntaxError class: recognise it by shape.
    if (!isPeggyError(err)) throw err;
    const { line, column, offset } = err.location.start;
    const where = `${line}:${column} (${offset})`;
    if (err.expected === null) throw new FilterSyntaxError(`${where}: ${err.message}`);
    const expected = [...new Set(err.expected.map(describe))].sort();
    throw new FilterSyntaxError(`${where}: no match found, expected: ${listJoin(expected)}`);
  }
}
