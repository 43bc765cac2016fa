// Reading Consul-style JSON bodies field by field, with errors that name the
// full field path ("Service.Port: must be an integer"). Keys match
// case-insensitively, as Go's encoding/json does for Consul, so both what the
// Go API and what the `consul` npm client send are accepted.
import { jsonProblem, metaProblem, nameProblem } from '../catalog/limits';
import { parseDurationMs } from '../config';
import { invalid } from '../errors';

type Json = Record<string, unknown>;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A request body as JSON, or undefined when empty. Bytes that are not UTF-8,
 * strings that are not Unicode (lone surrogates, which JSON's \u escapes can
 * spell) and nesting deeper than the catalog stores are refused here, for every
 * endpoint, with the path of the offending value.
 */
export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw invalid('body', 'Request decoding failed: not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalid('body', `Request decoding failed: ${(err as Error).message}`);
  }
  const bad = jsonProblem(value);
  if (bad) throw invalid(bad.path === '' ? 'body' : bad.path.replace(/^\./, ''), bad.reason);
  return value;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Go's zero value of a JSON field: absent, null, "", false, 0, or an array or object of zero values only. */
export function isZeroValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.every(isZeroValue);
  if (typeof v === 'object') return Object.values(v as object).every(isZeroValue);
  return false;
}

/**
 * Field names the routes ask for, lower-cased once: a request leaves most
 * optional fields out, and each miss looks its name up case-insensitively.
 * The names are the routes' own constants; the cap only guards a name built
 * at run time from growing the map.
 */
const lowered = new Map<string, string>();
function lower(name: string): string {
  let l = lowered.get(name);
  if (l === undefined) {
    l = name.toLowerCase();
    if (lowered.size < 4096) lowered.set(name, l);
  }
  return l;
}

export class Body {
  /** Lower-cased key → key as sent; built only when a lookup by exact name misses. */
  private keys: Map<string, string> | undefined;

  constructor(
    readonly raw: Json,
    /** Dotted path of this object in the request ("" at the top). */
    readonly path: string,
  ) {}

  /** Wraps a parsed request body; anything but a JSON object is a 400. */
  static of(value: unknown, path = ''): Body {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalid(path || 'body', `must be a JSON object, got ${typeName(value)}`);
    }
    return new Body(value as Json, path);
  }

  field(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  has(name: string): boolean {
    const v = this.get(name);
    return v !== undefined && v !== null;
  }

  /** The raw value; null counts as absent, like Go's zero values. */
  get(name: string): unknown {
    // Exact PascalCase is what Consul clients send: the fast path.
    let v = Object.hasOwn(this.raw, name) ? this.raw[name] : undefined;
    if (v === undefined) {
      this.keys ??= new Map(Object.keys(this.raw).map((k) => [k.toLowerCase(), k]));
      const key = this.keys.get(lower(name));
      v = key === undefined ? undefined : this.raw[key];
    }
    return v === null ? undefined : v;
  }

  str(name: string, fallback = ''): string {
    const v = this.get(name);
    if (v === undefined) return fallback;
    if (typeof v !== 'string') throw invalid(this.field(name), `must be a string, got ${typeName(v)}`);
    return v;
  }

  requiredStr(name: string): string {
    const v = this.str(name);
    if (v === '') throw invalid(this.field(name), 'is required');
    return v;
  }

  /**
   * A name or ID (node, service, check, config entry, namespace, …): a string
   * that, when not empty, obeys the catalog's name rules (src/catalog/limits.ts).
   */
  name(name: string, fallback = ''): string {
    const v = this.str(name, fallback);
    if (v !== '') {
      const bad = nameProblem(v);
      if (bad) throw invalid(this.field(name), bad);
    }
    return v;
  }

  /**
   * A field the hub does not implement: accepted only absent or as its zero
   * value (Go clients send zero values for everything: "", false, 0, [], {} and
   * objects of those), else a 400 naming it.
   */
  unsupported(name: string, why: string): void {
    if (!isZeroValue(this.get(name))) throw invalid(this.field(name), `not supported by this hub (${why})`);
  }

  /**
   * Refuses every key not in `known` (matched case-insensitively, as get() does):
   * a field the hub does not read is a 400 naming it, never silently dropped.
   */
  onlyKeys(known: readonly string[], why = `it reads ${known.join(', ')}`): void {
    for (const key of Object.keys(this.raw)) {
      if (!known.some((k) => k.toLowerCase() === key.toLowerCase()))
        throw invalid(this.field(key), `not supported by this hub (${why})`);
    }
  }

  requiredName(name: string): string {
    const v = this.name(name);
    if (v === '') throw invalid(this.field(name), 'is required');
    return v;
  }

  /** A Meta map with Consul's limits (pairs, key and value lengths). */
  meta(name: string): Record<string, string> {
    const meta = this.strMap(name);
    const bad = metaProblem(meta);
    if (bad) throw invalid(`${this.field(name)}${bad.path}`, bad.reason);
    return meta;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const v = this.str(name, fallback);
    if (!(allowed as readonly string[]).includes(v)) {
      throw invalid(
        this.field(name),
        `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(v)}`,
      );
    }
    return v as T;
  }

  int(name: string, fallback = 0, range: { min?: number; max?: number } = {}): number {
    const v = this.get(name);
    if (v === undefined) return fallback;
    // JSON's -0 is an integer to JavaScript, but not a value any client means.
    if (typeof v !== 'number' || !Number.isInteger(v) || Object.is(v, -0)) {
      throw invalid(this.field(name), `must be an integer, got ${Object.is(v, -0) ? '-0' : JSON.stringify(v)}`);
    }
    if (range.min !== undefined && v < range.min) throw invalid(this.field(name), `must be >= ${range.min}, got ${v}`);
    if (range.max !== undefined && v > range.max) throw invalid(this.field(name), `must be <= ${range.max}, got ${v}`);
    return v;
  }

  bool(name: string, fallback = false): boolean {
    const v = this.get(name);
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') throw invalid(this.field(name), `must be a boolean, got ${typeName(v)}`);
    return v;
  }

  /**
   * A Go duration string ("10s", "1m30s"); returns the text as given, after
   * checking it parses. `positive`: when given, it must be more than zero (a TTL
   * or an interval of "0s" would fire at once, forever).
   */
  duration(name: string, options: { positive?: boolean } = {}): string {
    const v = this.str(name);
    if (v !== '' && parseDurationMs(v, this.field(name)) <= 0 && options.positive) {
      throw invalid(this.field(name), `must be greater than zero, got "${v}"`);
    }
    return v;
  }

  strArray(name: string): string[] {
    const v = this.get(name);
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw invalid(this.field(name), `must be an array of strings, got ${typeName(v)}`);
    v.forEach((item, i) => {
      if (typeof item !== 'string')
        throw invalid(`${this.field(name)}[${i}]`, `must be a string, got ${typeName(item)}`);
    });
    return v as string[];
  }

  strMap(name: string): Record<string, string> {
    const v = this.get(name);
    if (v === undefined) return {};
    if (typeof v !== 'object' || Array.isArray(v))
      throw invalid(this.field(name), `must be an object of strings, got ${typeName(v)}`);
    for (const [k, item] of Object.entries(v as Json)) {
      if (typeof item !== 'string')
        throw invalid(`${this.field(name)}.${k}`, `must be a string, got ${typeName(item)}`);
    }
    return { ...(v as Record<string, string>) };
  }

  obj(name: string): Body | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    return Body.of(v, this.field(name));
  }

  objArray(name: string): Body[] {
    const v = this.get(name);
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw invalid(this.field(name), `must be an array, got ${typeName(v)}`);
    return v.map((item, i) => Body.of(item, `${this.field(name)}[${i}]`));
  }

  /** An object whose values are objects (e.g. service-resolver Subsets). */
  objMap(name: string): Map<string, Body> {
    const v = this.get(name);
    const out = new Map<string, Body>();
    if (v === undefined) return out;
    if (typeof v !== 'object' || Array.isArray(v))
      throw invalid(this.field(name), `must be an object, got ${typeName(v)}`);
    for (const [k, item] of Object.entries(v as Json)) out.set(k, Body.of(item, `${this.field(name)}.${k}`));
    return out;
  }
}
