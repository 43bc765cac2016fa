// Consul's /v1/txn operations (Node, Service, Check) → one atomic `txn` command.

import type { AnyTxnOp, Command, TxnOp } from '../../catalog/commands';
import { HubError, invalid } from '../../errors';
import { Body } from '../body';
import { type NodeDefaults, parseNode } from './catalog';
import { parseCatalogCheck } from './checks';
import { KV_READ_VERBS, KV_TXN_VERBS, kvTxnOp } from './kv';
import { parseService } from './service';

/** Consul's limit on operations per transaction. */
export const MAX_TXN_OPS = 128;

const VERBS = ['get', 'set', 'cas', 'delete', 'delete-cas'] as const;
type Verb = (typeof VERBS)[number];

/** The verbs Consul's state store takes for each kind of txn operation. */
const KIND_VERBS: Record<string, readonly string[]> = { KV: KV_TXN_VERBS, Node: VERBS, Service: VERBS, Check: VERBS };

/**
 * Operations with a verb Consul does not know. Consul runs the transaction and
 * reports them per op, 409 with JSON `Errors` (`unknown Node verb "x"`); the
 * hub refuses before running it, with the same answer (docs/http-api.md).
 */
export class TxnOpErrors extends HubError {
  constructor(readonly errors: { OpIndex: number; What: string }[]) {
    super('CONFLICT', errors.map((e) => `op ${e.OpIndex}: ${e.What}`).join('; '));
  }
}

function verbOf(op: Body): Verb {
  return op.oneOf('Verb', VERBS, '' as Verb);
}

/** Consul's error for an operation whose verb its kind does not have, or undefined. */
function unknownVerb(kind: string, op: Body): string | undefined {
  const verb = op.get('Verb');
  if (typeof verb === 'string' && KIND_VERBS[kind]?.includes(verb)) return undefined;
  return `unknown ${kind} verb ${JSON.stringify(typeof verb === 'string' ? verb : '')}`;
}

/** Whether every op only reads (Consul serves such a transaction as a read, with query meta). */
export function readOnlyTxn(command: Command): boolean {
  if (command.type !== 'txn' && command.type !== 'kv-txn') return false;
  return command.ops.every((o) => (o.op === 'kv' ? KV_READ_VERBS.includes(o.kv.verb) : o.op.endsWith('-get')));
}

function casIndex(obj: Body): number {
  const index = obj.int('ModifyIndex', 0, { min: 0 });
  return index;
}

function nodeOp(op: Body, defaults: NodeDefaults): TxnOp {
  const verb = verbOf(op);
  const node = op.obj('Node');
  if (!node) throw invalid(op.field('Node'), 'is required');
  switch (verb) {
    case 'get':
      return { op: 'node-get', node: node.requiredName('Node') };
    case 'set':
      return { op: 'node-set', node: parseNode(node, defaults, 'Meta') };
    case 'cas':
      return { op: 'node-cas', node: parseNode(node, defaults, 'Meta'), index: casIndex(node) };
    case 'delete':
      return { op: 'node-delete', node: node.requiredName('Node') };
    case 'delete-cas':
      return { op: 'node-delete-cas', node: node.requiredName('Node'), index: casIndex(node) };
  }
}

function serviceOp(op: Body, defaults: NodeDefaults): TxnOp {
  const verb = verbOf(op);
  const nodeName = op.requiredName('Node');
  const service = op.obj('Service');
  if (!service) throw invalid(op.field('Service'), 'is required');
  switch (verb) {
    case 'get':
      return { op: 'service-get', node: nodeName, serviceId: service.requiredName('ID') };
    case 'set':
      return { op: 'service-set', node: nodeName, service: parseService(service, 'Service', defaults) };
    case 'cas':
      return {
        op: 'service-cas',
        node: nodeName,
        service: parseService(service, 'Service', defaults),
        index: casIndex(service),
      };
    case 'delete':
      return { op: 'service-delete', node: nodeName, serviceId: service.requiredName('ID') };
    case 'delete-cas':
      return {
        op: 'service-delete-cas',
        node: nodeName,
        serviceId: service.requiredName('ID'),
        index: casIndex(service),
      };
  }
}

function checkOp(op: Body): TxnOp {
  const verb = verbOf(op);
  const check = op.obj('Check');
  if (!check) throw invalid(op.field('Check'), 'is required');
  switch (verb) {
    case 'get':
      return { op: 'check-get', node: check.requiredName('Node'), checkId: check.requiredName('CheckID') };
    case 'set':
      return { op: 'check-set', check: parseCatalogCheck(check, '') };
    case 'cas':
      return { op: 'check-cas', check: parseCatalogCheck(check, ''), index: casIndex(check) };
    case 'delete':
      return { op: 'check-delete', node: check.requiredName('Node'), checkId: check.requiredName('CheckID') };
    case 'delete-cas':
      return {
        op: 'check-delete-cas',
        node: check.requiredName('Node'),
        checkId: check.requiredName('CheckID'),
        index: casIndex(check),
      };
  }
}

/** Thrown for more than MAX_TXN_OPS operations; Consul answers 413. */
export class TooManyOps extends HubError {
  constructor(count: number, max: number) {
    super(
      'INVALID_ARGUMENT',
      `Transaction contains too many operations (${count} > ${max}), the limit set by --txn-max-ops`,
      { field: 'body' },
    );
  }
}

/** One operation of the body; undefined when its verb is unknown (recorded in `verbErrors`). */
function txnOp(
  item: unknown,
  i: number,
  defaults: NodeDefaults,
  verbErrors: TxnOpErrors['errors'],
): AnyTxnOp | undefined {
  const op = Body.of(item, `[${i}]`);
  const kinds = ['KV', 'Node', 'Service', 'Check', 'Intention', 'Session'].filter((k) => op.has(k));
  if (kinds.length !== 1) throw invalid(`[${i}]`, 'each operation needs exactly one of KV, Node, Service or Check');
  const kind = kinds[0]!;
  if (kind === 'Intention' || kind === 'Session')
    throw invalid(`[${i}].${kind}`, `${kind} operations are not supported (only KV, Node, Service and Check)`);
  const inner = op.obj(kind);
  if (!inner) throw invalid(`[${i}].${kind}`, 'must be an object');
  const unknown = unknownVerb(kind, inner);
  if (unknown !== undefined) {
    verbErrors.push({ OpIndex: i, What: unknown });
    return undefined;
  }
  switch (kind) {
    case 'KV':
      return { op: 'kv', kv: kvTxnOp(inner) };
    case 'Node':
      return nodeOp(inner, defaults);
    case 'Service':
      return serviceOp(inner, defaults);
    default:
      return checkOp(inner);
  }
}

/** With KV operations the command is a `kv-txn` stamped with `now` (lock delays); without, a `txn`. */
export function txnCommand(raw: unknown, defaults: NodeDefaults, maxOps = MAX_TXN_OPS, now = Date.now()): Command {
  if (!Array.isArray(raw)) throw invalid('body', 'must be a JSON array of operations');
  if (raw.length === 0) throw invalid('body', 'must contain at least one operation');
  if (raw.length > maxOps) throw new TooManyOps(raw.length, maxOps);
  const verbErrors: TxnOpErrors['errors'] = [];
  const ops = raw.flatMap((item, i) => txnOp(item, i, defaults, verbErrors) ?? []);
  if (verbErrors.length > 0) throw new TxnOpErrors(verbErrors);
  if (ops.some((o) => o.op === 'kv')) return { type: 'kv-txn', ops, now };
  return { type: 'txn', ops: ops as TxnOp[] };
}
