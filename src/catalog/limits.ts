// What the catalog accepts as names and as stored JSON. One set of rules, used
// twice: by the HTTP layer, to answer 400 naming the request field before
// anything is submitted, and by apply, which refuses a command that breaks
// them whoever wrote it (another producer, an entry from an older version), so
// nothing in the state can poison a read (docs/http-api.md, "Limits").

/** Node, service, check and config entry names and IDs: at most this many UTF-8 bytes. */
export const MAX_NAME_BYTES = 256;
/** Consul's limits on Meta maps (nodes, services, config entries). */
export const META_MAX_PAIRS = 64;
export const META_KEY_MAX_BYTES = 128;
export const META_VALUE_MAX_BYTES = 512;
/** Nesting of any JSON the hub takes in or stores (objects and arrays). */
export const MAX_JSON_DEPTH = 32;
/** One stored object (a node, service, check or config entry) as JSON. */
export const MAX_OBJECT_BYTES = 512 * 1024;

// C0 and C1 control characters and DEL (Unicode category Cc).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this regex's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function utf8Bytes(text: string): number {
  // Each UTF-16 unit is at most 3 bytes: skip the exact count for short strings.
  return text.length * 3 <= MAX_NAME_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
}

function codePoint(text: string, at: number): string {
  return `U+${text.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`;
}

// String.prototype.isWellFormed (ES2024; V8 has it since Node 20) is native and
// fast; the regex only says where the lone surrogate is.
const isWellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

/** Why `text` cannot be stored as any string: a lone surrogate is not Unicode text (it has no UTF-8 form). */
export function textProblem(text: string): string | undefined {
  if (isWellFormed(text)) return undefined;
  const m = LONE_SURROGATE.exec(text)!;
  return `is not valid Unicode: lone surrogate ${codePoint(text, m.index)} at position ${m.index}`;
}

/** Why `name` is not a valid name or ID (an empty one is the caller's business), or undefined. */
export function nameProblem(name: string, maxBytes = MAX_NAME_BYTES): string | undefined {
  const text = textProblem(name);
  if (text) return text;
  const m = CONTROL.exec(name);
  if (m) return `must not contain control characters (${codePoint(name, m.index)} at position ${m.index})`;
  const bytes = maxBytes === MAX_NAME_BYTES ? utf8Bytes(name) : Buffer.byteLength(name, 'utf8');
  if (bytes > maxBytes) return `must be at most ${maxBytes} bytes of UTF-8, got ${bytes}`;
  return undefined;
}

/** A bad key is named in JSON's escaped form, so the error message itself stays printable text. */
function keyPath(key: string): string {
  return `[${JSON.stringify(key)}]`;
}

export interface Problem {
  /** Path below the checked value ("" for the value itself): `.Config.a`, `[2]`, `.Meta.k`. */
  path: string;
  reason: string;
}

/** Consul's Meta rules: at most 64 pairs, keys (names, at most 128 bytes) and values (at most 512 bytes). */
export function metaProblem(meta: Readonly<Record<string, unknown>>): Problem | undefined {
  const keys = Object.keys(meta);
  if (keys.length > META_MAX_PAIRS)
    return { path: '', reason: `must have at most ${META_MAX_PAIRS} pairs, got ${keys.length}` };
  for (const key of keys) {
    if (key === '') return { path: '', reason: 'keys must not be empty' };
    const bad = nameProblem(key, META_KEY_MAX_BYTES);
    if (bad) return { path: keyPath(key), reason: `key ${bad}` };
    const value = meta[key];
    if (typeof value !== 'string') return { path: `.${key}`, reason: 'must be a string' };
    const badValue = textProblem(value);
    if (badValue) return { path: `.${key}`, reason: badValue };
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > META_VALUE_MAX_BYTES)
      return { path: `.${key}`, reason: `must be at most ${META_VALUE_MAX_BYTES} bytes, got ${bytes}` };
  }
  return undefined;
}

/**
 * Checks a JSON value: nesting at most `maxDepth`, every string and key valid
 * Unicode. It recurses, but never deeper than `maxDepth`, so a hostile nesting
 * cannot exhaust the stack here; the path is built only for a problem found.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): Problem | undefined {
  return walk(value, 0, maxDepth);
}

function walk(v: unknown, depth: number, maxDepth: number): Problem | undefined {
  if (typeof v === 'string') {
    const bad = textProblem(v);
    return bad ? { path: '', reason: bad } : undefined;
  }
  if (v === null || typeof v !== 'object') return undefined;
  if (depth >= maxDepth) return { path: '', reason: `nests deeper than ${maxDepth} levels` };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = walk(v[i], depth + 1, maxDepth);
      if (p) return { path: `[${i}]${p.path}`, reason: p.reason };
    }
    return undefined;
  }
  for (const k in v) {
    const bad = textProblem(k);
    if (bad) return { path: keyPath(k), reason: `key ${bad}` };
    const p = walk((v as Record<string, unknown>)[k], depth + 1, maxDepth);
    if (p) return { path: `.${k}${p.path}`, reason: p.reason };
  }
  return undefined;
}

/** Why a stored object's JSON text is too large, or undefined. */
export function sizeProblem(json: string, maxBytes = MAX_OBJECT_BYTES): string | undefined {
  if (json.length * 3 <= maxBytes) return undefined;
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes > maxBytes
    ? `is ${bytes} bytes as JSON, more than the ${maxBytes} bytes one object may have`
    : undefined;
}
