// Reading Consul-style JSON bodies field by field, with errors that name the
// full field path ("Service.Port: must be an integer"). Keys match
// case-insensitively, as Go's encoding/json does for Consul, so both what the
// Go API and what the `consul` npm client send are accepted.
import { parseDurationMs } from '../config';
import { invalid } from '../errors';

type Json = Record<string, unknown>;

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
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
    let v = Object.prototype.hasOwnProperty.call(this.raw, name) ? this.raw[name] : undefined;
    if (v === undefined) {
      this.keys ??= new Map(Object.keys(this.raw).map((k) => [k.toLowerCase(), k]));
      const key = this.keys.get(name.toLowerCase());
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

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const v = this.str(name, fallback);
    if (!(allowed as readonly string[]).includes(v)) {
      throw invalid(this.field(name), `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(v)}`);
    }
    return v as T;
  }

  int(name: string, fallback = 0, range: { min?: number; max?: number } = {}): number {
    const v = this.get(name);
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(this.field(name), `must be an integer, got ${JSON.stringify(v)}`);
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

  /** A Go duration string ("10s", "1m30s"); returns the text as given, after checking it parses. */
  duration(name: string): string {
    const v = this.str(name);
    if (v !== '') parseDurationMs(v, this.field(name));
    return v;
  }

  strArray(name: string): string[] {
    const v = this.get(name);
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw invalid(this.field(name), `must be an array of strings, got ${typeName(v)}`);
    v.forEach((item, i) => {
      if (typeof item !== 'string') throw invalid(`${this.field(name)}[${i}]`, `must be a string, got ${typeName(item)}`);
    });
    return v as string[];
  }

  strMap(name: string): Record<string, string> {
    const v = this.get(name);
    if (v === undefined) return {};
    if (typeof v !== 'object' || Array.isArray(v)) throw invalid(this.field(name), `must be an object of strings, got ${typeName(v)}`);
    for (const [k, item] of Object.entries(v as Json)) {
      if (typeof item !== 'string') throw invalid(`${this.field(name)}.${k}`, `must be a string, got ${typeName(item)}`);
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
    if (typeof v !== 'object' || Array.isArray(v)) throw invalid(this.field(name), `must be an object, got ${typeName(v)}`);
    for (const [k, item] of Object.entries(v as Json)) out.set(k, Body.of(item, `${this.field(name)}.${k}`));
    return out;
  }
}
