// Consul's KV and session shapes on the wire (docs/kv.md): /v1/kv query
// options → a KV operation, /v1/txn KV operations, session create bodies, and
// DirEntry JSON written by hand so Flags (uint64) stay exact.

import type { KvEntry, KvOp, KvVerb, ServiceCheckRef, SessionInput } from '../../catalog/kv-types';
import { SERF_CHECK_ID } from '../../catalog/kv-types';
import { parseDurationMs } from '../../config';
import { invalid } from '../../errors';
import { Body } from '../body';
import { many } from '../shapes';

type Query = Record<string, unknown>;

/** Consul's kv_max_value_size default (512 KiB). */
export const KV_MAX_VALUE_BYTES = 512 * 1024;
/** Consul's session TTL bounds (session_ttl_min default, and its maximum). */
export const SESSION_TTL_MIN_MS = 10_000;
export const SESSION_TTL_MAX_MS = 86_400_000;
/** Numbers below this are seconds, at or above it nanoseconds (Consul's lockDelayMinThreshold). */
const LOCK_DELAY_SECONDS_BELOW = 1000;
const DEFAULT_LOCK_DELAY_NS = 15_000_000_000;
const MAX_UINT64 = (1n << 64n) - 1n;

const last = (q: Query, name: string): string | undefined => many(q[name]).at(-1);

/** One DirEntry as Consul's JSON; `Value` null unless `withValue`. */
export function dirEntryJson(e: KvEntry, withValue = true): string {
  const session = e.Session === undefined ? '' : `,"Session":${JSON.stringify(e.Session)}`;
  const value = withValue ? JSON.stringify(e.Value) : 'null';
  const head = `{"LockIndex":${e.LockIndex},"Key":${JSON.stringify(e.Key)},"Flags":${e.Flags},"Value":${value}`;
  return `${head}${session},"CreateIndex":${e.CreateIndex},"ModifyIndex":${e.ModifyIndex}}`;
}

/** Consul refuses a request naming more than one of `names` ("Conflicting flags"). */
export function refuseConflicts(q: Query, names: readonly string[]): void {
  const given = names.filter((n) => n in q);
  if (given.length > 1) throw invalid(given[1]!, `Conflicting flags: ${given.join(', ')} cannot be combined`);
}

function uint64(text: string, field: string): string {
  if (!/^\d{1,20}$/.test(text) || BigInt(text) > MAX_UINT64)
    throw invalid(field, `not an unsigned 64-bit integer: "${text}"`);
  return BigInt(text).toString();
}

function index(text: string, field: string): number {
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) throw invalid(field, `not an index: "${text}"`);
  return Number(text);
}

/** PUT /v1/kv/<key>: the operation its query asks for (release, acquire, cas or set). */
export function kvPutOp(key: string, q: Query, body: Buffer | undefined): KvOp {
  if (key === '') throw invalid('key', 'Missing key name');
  refuseConflicts(q, ['cas', 'acquire', 'release']);
  const flags = last(q, 'flags');
  const value = body && body.length > 0 ? body.toString('base64') : null;
  const op: KvOp = {
    verb: 'set',
    key,
    value,
    flags: flags === undefined || flags === '' ? '0' : uint64(flags, 'flags'),
  };
  const session = (name: string) => {
    const id = last(q, name) ?? '';
    if (id === '') throw invalid(name, 'needs a session ID');
    return id;
  };
  if ('release' in q) return { ...op, verb: 'unlock', session: session('release') };
  if ('acquire' in q) return { ...op, verb: 'lock', session: session('acquire') };
  if ('cas' in q) return { ...op, verb: 'cas', index: index(last(q, 'cas') ?? '', 'cas') };
  return op;
}

/** DELETE /v1/kv/<key>: delete, delete-tree (?recurse) or delete-cas (?cas). */
export function kvDeleteOp(key: string, q: Query, recurse: boolean): KvOp {
  refuseConflicts(q, ['recurse', 'cas']);
  if (recurse) return { verb: 'delete-tree', key };
  if (key === '') throw invalid('key', 'Missing key name');
  if ('cas' in q) return { verb: 'delete-cas', key, index: index(last(q, 'cas') ?? '', 'cas') };
  return { verb: 'delete', key };
}

/** The KV verbs of /v1/txn (Consul's api.KVOp). */
export const KV_TXN_VERBS: readonly KvVerb[] = [
  'set',
  'cas',
  'lock',
  'unlock',
  'get',
  'get-tree',
  'check-index',
  'check-session',
  'check-not-exists',
  'delete',
  'delete-tree',
  'delete-cas',
];

/** The KV verbs that only read (Consul's isWrite is false for them). */
export const KV_READ_VERBS: readonly KvVerb[] = ['get', 'get-tree', 'check-index', 'check-session', 'check-not-exists'];

/** A /v1/txn KV operation ({Verb, Key, Value, Flags, Index, Session}). */
export function kvTxnOp(kv: Body): KvOp {
  const verb = kv.oneOf('Verb', KV_TXN_VERBS, '' as KvVerb);
  if ((verb as string) === '') throw invalid(kv.field('Verb'), `is required (one of ${KV_TXN_VERBS.join(', ')})`);
  const key = kv.str('Key');
  if (key === '' && verb !== 'get-tree' && verb !== 'delete-tree') throw invalid(kv.field('Key'), 'Missing key name');
  const op: KvOp = { verb, key };
  if (['set', 'cas', 'lock', 'unlock'].includes(verb)) {
    const value = kv.str('Value');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw invalid(kv.field('Value'), 'must be base64');
    op.value = value === '' ? null : value;
    // JSON numbers past 2^53 lose digits before they reach here: refused rather than stored wrong.
    op.flags = String(kv.int('Flags', 0, { min: 0, max: Number.MAX_SAFE_INTEGER }));
  }
  if (['cas', 'delete-cas', 'check-index'].includes(verb)) op.index = kv.int('Index', 0, { min: 0 });
  if (['lock', 'unlock', 'check-session'].includes(verb)) op.session = kv.str('Session');
  if ((verb === 'lock' || verb === 'unlock') && op.session === '') throw invalid(kv.field('Session'), 'is required');
  return op;
}

function checkList(body: Body, name: string): string[] | undefined {
  const v = body.get(name);
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((c) => typeof c !== 'string' || c === ''))
    throw invalid(body.field(name), 'must be a list of check IDs');
  return v as string[];
}

function serviceChecks(body: Body): ServiceCheckRef[] | null {
  const v = body.get('ServiceChecks');
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw invalid(body.field('ServiceChecks'), 'must be a list of {ID, Namespace}');
  return v.map((item, i) => {
    const c = Body.of(item, `${body.field('ServiceChecks')}[${i}]`);
    return { ID: c.requiredStr('ID'), Namespace: c.str('Namespace') };
  });
}

/** LockDelay as Consul's agent reads it: a duration text, or a number (seconds below 1000, else nanoseconds). */
function lockDelayNs(body: Body): number {
  const v = body.get('LockDelay');
  if (v === undefined || v === null) return DEFAULT_LOCK_DELAY_NS;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0)
    return v < LOCK_DELAY_SECONDS_BELOW ? v * 1e9 : Math.floor(v);
  if (typeof v === 'string') return parseDurationMs(v, body.field('LockDelay')) * 1e6;
  throw invalid(body.field('LockDelay'), 'must be a duration ("15s") or a number');
}

function sessionTtl(body: Body): string {
  const ttl = body.str('TTL');
  if (ttl === '') return '';
  const ms = parseDurationMs(ttl, body.field('TTL'));
  if (ms === 0) return '';
  if (ms < SESSION_TTL_MIN_MS || ms > SESSION_TTL_MAX_MS) {
    throw invalid(body.field('TTL'), `Invalid Session TTL '${ttl}', must be between [10s=24h0m0s]`);
  }
  return ttl;
}

/** PUT /v1/session/create's body → a session (ID generated by the caller). */
export function sessionInput(raw: unknown, id: string, agentNode: string): SessionInput {
  // No body: every default (the Go API sends none for a nil entry). Anything but an object is refused.
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    throw invalid('body', 'must be a JSON object (a session entry)');
  }
  const body = Body.of(raw ?? {}, '');
  const checks = checkList(body, 'Checks');
  const nodeChecks = checkList(body, 'NodeChecks');
  const services = serviceChecks(body);
  // Consul's defaults: the old Checks field means node checks; none at all means serfHealth.
  const bound = nodeChecks ?? checks ?? (services ? [] : [SERF_CHECK_ID]);
  return {
    ID: id,
    Name: body.str('Name'),
    Node: body.str('Node') || agentNode,
    LockDelay: lockDelayNs(body),
    Behavior: body.oneOf('Behavior', ['release', 'delete'] as const, 'release'),
    TTL: sessionTtl(body),
    NodeChecks: bound,
    ServiceChecks: services,
  };
}
