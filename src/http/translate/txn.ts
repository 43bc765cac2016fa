// Consul's /v1/txn operations (Node, Service, Check) → one atomic `txn` command.

import type { AnyTxnOp, Command, TxnOp } from '../../catalog/commands';
import { HubError, invalid } from '../../errors';
import { Body } from '../body';
import { type NodeDefaults, parseNode } from './catalog';
import { parseCatalogCheck } from './checks';
import { kvTxnOp } from './kv';
import { parseService } from './service';

/** Consul's limit on operations per transaction. */
export const MAX_TXN_OPS = 128;

const VERBS = ['set', 'cas', 'delete', 'delete-cas'] as const;
type Verb = (typeof VERBS)[number];

function verbOf(op: Body): Verb {
  const verb = op.str('Verb');
  if (verb === 'get') throw invalid(op.field('Verb'), '"get" is not supported in transactions by this hub');
  return op.oneOf('Verb', VERBS, '' as Verb);
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

/** With KV operations the command is a `kv-txn` stamped with `now` (lock delays); without, a `txn`. */
export function txnCommand(raw: unknown, defaults: NodeDefaults, maxOps = MAX_TXN_OPS, now = Date.now()): Command {
  if (!Array.isArray(raw)) throw invalid('body', 'must be a JSON array of operations');
  if (raw.length === 0) throw invalid('body', 'must contain at least one operation');
  if (raw.length > maxOps) throw new TooManyOps(raw.length, maxOps);
  const ops = raw.map((item, i): AnyTxnOp => {
    const op = Body.of(item, `[${i}]`);
    const kinds = ['KV', 'Node', 'Service', 'Check', 'Intention', 'Session'].filter((k) => op.has(k));
    if (kinds.length !== 1) throw invalid(`[${i}]`, 'each operation needs exactly one of KV, Node, Service or Check');
    switch (kinds[0]) {
      case 'KV':
        return { op: 'kv', kv: kvTxnOp(op.obj('KV')!) };
      case 'Node':
        return nodeOp(op.obj('Node')!, defaults);
      case 'Service':
        return serviceOp(op.obj('Service')!, defaults);
      case 'Check':
        return checkOp(op.obj('Check')!);
      default:
        throw invalid(
          `[${i}].${kinds[0]}`,
          `${kinds[0]} operations are not supported (only KV, Node, Service and Check)`,
        );
    }
  });
  if (ops.some((o) => o.op === 'kv')) return { type: 'kv-txn', ops, now };
  return { type: 'txn', ops: ops as TxnOp[] };
}
