// Checks a parsed filter against the fields of the data it will run on, reads
// its values as the fields' types, and turns it into a predicate. Everything a
// filter can get wrong is found here, before any data is touched, so a bad
// filter is a 400 whether or not there is data for it to fail on (go-bexpr
// validated the same way against Consul's types, with these messages).
import { parseGoBool } from '../config';
import { type FilterAst, type MatchOp, OP_NAMES } from './ast';
import { FilterSyntaxError } from './parse';
import { type Field, type Fields, operatorsOf } from './schema';

export type Predicate = (datum: unknown) => boolean;

type Json = Record<string, unknown>;

/** Go's strconv.ParseBool, with its error text. */
function parseBool(raw: string): boolean {
  const b = parseGoBool(raw);
  if (b === undefined) throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
  return b;
}

/** Go's strconv.ParseInt(raw, 0, 64): optional sign, 0x / 0o / 0b / leading-0 octal prefixes. */
function parseInt64(raw: string): number {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/.exec(raw);
  if (!m) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
  // BigInt reads 0x / 0o / 0b itself; Go's bare leading 0 means octal too.
  const digits = m[2]!.toLowerCase();
  const value = BigInt(/^0[0-7]/.test(digits) ? `0o${digits.slice(1)}` : digits) * (m[1] === '-' ? -1n : 1n);
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n))
    throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(raw)}: value out of range`);
  return Number(value);
}

/** Go (RE2) regular expressions mostly read the same in JavaScript; leading inline flags such as (?i) become JS flags. */
function compileRegExp(raw: string): RegExp {
  const m = /^\(\?([imsU]+)\)/.exec(raw);
  const flags = m ? [...new Set(m[1]!.replace('U', ''))].join('') : '';
  try {
    return new RegExp(m ? raw.slice(m[0].length) : raw, flags);
  } catch (err) {
    throw new Error(`Failed to compile regular expression ${JSON.stringify(raw)}: ${(err as Error).message}`);
  }
}

/** What a selector names when the key is missing from a map: the operators that ask "is it there / equal" are false. */
function missing(op: MatchOp): boolean {
  return op === 'notEqual' || op === 'notIn' || op === 'isEmpty' || op === 'notMatches';
}

function resolve(root: Fields, selector: readonly string[]): Field {
  let field: Field = { kind: 'struct', fields: root };
  selector.forEach((part, i) => {
    let next: Field | undefined;
    if (field.kind === 'struct' || field.kind === 'structs')
      next = Object.hasOwn(field.fields, part) ? field.fields[part] : undefined;
    else if (field.kind === 'map') next = field.of;
    if (!next)
      throw new FilterSyntaxError(`Selector ${JSON.stringify(selector.slice(0, i + 1).join('.'))} is not valid`);
    field = next;
  });
  return field;
}

/** The leaf test for one operator on one field type, with the value already read as that type. */
function leafTest(field: Field, op: MatchOp, raw: string | undefined, name: string): (v: unknown) => boolean {
  const coerce = (fn: (r: string) => unknown) => {
    try {
      return fn(raw!);
    } catch (err) {
      throw new FilterSyntaxError(
        `Failed to coerce value ${JSON.stringify(raw)} for selector ${JSON.stringify(name)}: ${(err as Error).message}`,
      );
    }
  };
  const negate = op === 'notEqual' || op === 'notIn' || op === 'isNotEmpty' || op === 'notMatches';
  let test: (v: unknown) => boolean;
  if (op === 'isEmpty' || op === 'isNotEmpty') {
    test = (v) =>
      Array.isArray(v) ? v.length === 0 : v === undefined || v === null || Object.keys(v as Json).length === 0;
  } else if (op === 'matches' || op === 'notMatches') {
    let re: RegExp;
    try {
      re = compileRegExp(raw!);
    } catch (err) {
      throw new FilterSyntaxError((err as Error).message);
    }
    test = (v) => re.test(typeof v === 'string' ? v : '');
  } else if (field.kind === 'string') {
    const s = raw!;
    test =
      op === 'in' || op === 'notIn'
        ? (v) => typeof v === 'string' && v.includes(s)
        : (v) => (typeof v === 'string' ? v : '') === s;
  } else if (field.kind === 'int') {
    const n = coerce(parseInt64) as number;
    test = (v) => (typeof v === 'number' ? v : 0) === n;
  } else if (field.kind === 'bool') {
    const b = coerce(parseBool) as boolean;
    test = (v) => (v === true) === b;
  } else if (field.kind === 'strings') {
    const s = raw!;
    test = (v) => Array.isArray(v) && v.includes(s);
  } else {
    // map: in / not in asks for a key
    const key = raw!;
    test = (v) => typeof v === 'object' && v !== null && Object.hasOwn(v, key);
  }
  return negate ? (v) => !test(v) : test;
}

/** The predicate for one match: walks the selector through structs, maps and (any element of) lists. */
function compileMatch(root: Fields, node: Extract<FilterAst, { type: 'match' }>): Predicate {
  const { selector, op } = node;
  const name = selector.join('.');
  const field = resolve(root, selector);
  if (!operatorsOf(field).includes(op)) {
    throw new FilterSyntaxError(
      `Invalid match operator ${JSON.stringify(OP_NAMES[op])} for selector ${JSON.stringify(name)}`,
    );
  }
  const leaf = leafTest(field, op, node.value, name);

  function walk(value: unknown, at: Field, depth: number): boolean {
    if (depth === selector.length) return leaf(value);
    const part = selector[depth]!;
    switch (at.kind) {
      case 'struct':
        return walk(
          value === undefined || value === null ? undefined : (value as Json)[part],
          at.fields[part]!,
          depth + 1,
        );
      case 'structs': {
        const list = Array.isArray(value) ? value : [];
        const element: Field = { kind: 'struct', fields: at.fields };
        return list.some((item) => walk(item, element, depth));
      }
      case 'map': {
        const map = (value ?? {}) as Json;
        if (!Object.hasOwn(map, part)) return missing(op);
        return walk(map[part], at.of, depth + 1);
      }
      default:
        return false; // not reached: resolve() refuses selecting into a scalar
    }
  }
  const rootField: Field = { kind: 'struct', fields: root };
  return (datum) => walk(datum, rootField, 0);
}

export function compileAst(ast: FilterAst, root: Fields): Predicate {
  switch (ast.type) {
    case 'or': {
      const a = compileAst(ast.left, root);
      const b = compileAst(ast.right, root);
      return (d) => a(d) || b(d);
    }
    case 'and': {
      const a = compileAst(ast.left, root);
      const b = compileAst(ast.right, root);
      return (d) => a(d) && b(d);
    }
    case 'not': {
      const a = compileAst(ast.operand, root);
      return (d) => !a(d);
    }
    case 'match':
      return compileMatch(root, ast);
  }
}
