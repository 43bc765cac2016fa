// Policy rules in Consul's syntax → PolicyRules. HCL goes through HashiCorp's
// own HCL parser (hcl/v2 compiled to WebAssembly, @cdktf/hcl2json); rules that
// start with `{` are Consul's JSON form. What this file adds is only the
// mapping from the parsed document to rule kinds, and its validation.
import { invalid } from '../errors';
import type { Access, NamedRules, PolicyRules } from './types';

/** Longest Rules text accepted (a policy is a few lines; this stops a huge body from reaching the parser). */
export const MAX_RULES_BYTES = 128 * 1024;

/**
 * Deepest nesting of brackets and braces accepted in HCL Rules (a policy nests two
 * or three). The HCL parser runs in Go compiled to WebAssembly, and input nested
 * about a thousand deep can abort the whole process there ("fatal error: malloc
 * deadlock" while its stack grows), so deeper text never reaches it.
 */
export const MAX_RULES_NESTING = 64;

/** The deepest nesting of `{`, `[` and `(` in `text`, outside double-quoted strings. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '{' || c === '[' || c === '(') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']' || c === ')') depth--;
  }
  return deepest;
}

const SCALARS = ['acl', 'operator', 'mesh', 'peering', 'keyring'] as const;
const GOVERNING = ['service', 'service_prefix', 'node', 'node_prefix', 'agent', 'agent_prefix'] as const;
/**
 * Kinds kept in PolicyRules.other: key and session rules govern KV and sessions
 * (the authorizer reads them there); event and query rules are accepted so Consul
 * policies load, and are inert (the hub has no events or prepared queries).
 */
const INERT = [
  'key',
  'key_prefix',
  'session',
  'session_prefix',
  'event',
  'event_prefix',
  'query',
  'query_prefix',
] as const;
const LEVELS: readonly string[] = ['read', 'write', 'deny'];

type Hcl2Json = { parse(filename: string, contents: string): Promise<Record<string, unknown>> };
let hcl: Hcl2Json | undefined;

/** The parser loads its WebAssembly module on first use, so processes that never parse HCL never pay for it. */
function hclParser(): Hcl2Json {
  hcl ??= require('@cdktf/hcl2json') as Hcl2Json;
  return hcl;
}

export function emptyRules(): PolicyRules {
  return {
    service: {},
    service_prefix: {},
    intentions: {},
    intentions_prefix: {},
    node: {},
    node_prefix: {},
    agent: {},
    agent_prefix: {},
    other: {},
  };
}

/** deny beats write beats read: the merge rule for two rules on the same name (Consul's). */
export function stronger<A extends string>(a: A | undefined, b: A): A {
  if (a === undefined) return b;
  for (const level of ['deny', 'write', 'list', 'read']) {
    if (a === level) return a;
    if (b === level) return b;
  }
  return b;
}

function fail(reason: string): never {
  throw invalid('Rules', reason);
}

function level(value: unknown, where: string, allowList = false): Access | 'list' {
  if (typeof value === 'string' && (LEVELS.includes(value) || (allowList && value === 'list')))
    return value as Access | 'list';
  return fail(
    `Invalid ${where} policy: ${JSON.stringify(value)} (expected read, write or deny${allowList ? ' or list' : ''})`,
  );
}

/**
 * A block kind's value as name → bodies. HCL gives `{name: [body, ...]}`; Consul's
 * JSON form allows `{name: body}`, `{name: [body]}` and a list of such objects.
 */
function blocks(kind: string, value: unknown): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  const objects = Array.isArray(value) ? value : [value];
  for (const obj of objects) {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
      fail(`${kind}: expected blocks like ${kind} "name" { policy = "read" }`);
    for (const [name, bodies] of Object.entries(obj as Record<string, unknown>)) {
      for (const body of Array.isArray(bodies) ? bodies : [bodies]) {
        if (body === null || typeof body !== 'object' || Array.isArray(body))
          fail(`${kind} "${name}": expected a block with a policy`);
        out.push([name, body as Record<string, unknown>]);
      }
    }
  }
  return out;
}

function put(rules: NamedRules, name: string, access: Access | 'list'): void {
  rules[name] = stronger(rules[name], access);
}

/** Maps a parsed HCL or JSON document to PolicyRules; refuses what Consul would refuse and what the hub does not know. */
export function rulesFromDocument(doc: unknown): PolicyRules {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    fail('Failed to parse ACL rules: expected an object of rules');
  const rules = emptyRules();
  for (const [kind, value] of Object.entries(doc as Record<string, unknown>)) {
    if ((SCALARS as readonly string[]).includes(kind)) {
      rules[kind as (typeof SCALARS)[number]] = level(value, kind) as Access;
      continue;
    }
    const governing = (GOVERNING as readonly string[]).includes(kind);
    if (!governing && !(INERT as readonly string[]).includes(kind)) {
      fail(
        `Failed to parse ACL rules: unknown rule kind "${kind}" (this hub knows ${[...SCALARS, ...GOVERNING, ...INERT].join(', ')})`,
      );
    }
    for (const [name, body] of blocks(kind, value)) {
      const allowed = kind.startsWith('service') ? ['policy', 'intentions'] : ['policy'];
      const extra = Object.keys(body).filter((k) => !allowed.includes(k));
      if (extra.length > 0)
        fail(`${kind} "${name}": unsupported field ${JSON.stringify(extra[0])} (expected ${allowed.join(' or ')})`);
      const isKey = kind === 'key' || kind === 'key_prefix';
      const access = level(body.policy, `${kind} "${name}"`, isKey);
      if (governing) put(rules[kind as (typeof GOVERNING)[number]], name, access);
      else put((rules.other[kind] ??= {}), name, access);
      if (body.intentions !== undefined) {
        const target = kind === 'service' ? rules.intentions : rules.intentions_prefix;
        put(target, name, level(body.intentions, `${kind} "${name}" intentions`));
      }
    }
  }
  return rules;
}

/** Parses a policy's Rules (HCL or JSON). Throws INVALID_ARGUMENT naming Rules. */
export async function parseRules(text: string): Promise<PolicyRules> {
  if (Buffer.byteLength(text) > MAX_RULES_BYTES) fail(`Rules are longer than ${MAX_RULES_BYTES} bytes`);
  if (text.trim() === '') return emptyRules();
  let doc: unknown;
  if (text.trimStart().startsWith('{')) {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      fail(`Failed to parse ACL rules: ${(err as Error).message}`);
    }
  } else {
    if (nestingDepth(text) > MAX_RULES_NESTING) fail(`Rules are nested deeper than ${MAX_RULES_NESTING} levels`);
    try {
      doc = await hclParser().parse('rules.hcl', text);
    } catch (err) {
      // HCL's diagnostics name line and column.
      const message = (err as Error).message.replace(/^parse config: \[?/, '').replace(/\]$/, '');
      fail(`Failed to parse ACL rules: ${message}`);
    }
  }
  return rulesFromDocument(doc);
}
