// Consul's catalog transaction: ops run in order against one draft; every op is
// tried (so all errors are reported, as Consul does) and any error drops the draft.
import { ApplyError, deleteCheck, deleteService, upsertCheck, upsertNode, upsertService } from './catalog-ops';
import type { AnyTxnOp, TxnError } from './commands';
import { applyKvOp } from './kv-ops';
import type { KvEntry } from './kv-types';
import type { Draft } from './tables';
import type { HealthCheck, Node, NodeService } from './types';

function casOrThrow(
  current: { ModifyIndex: number } | undefined,
  index: number,
  what: string,
  mustExist: boolean,
): void {
  if (mustExist && current === undefined) throw new ApplyError('CONFLICT', `${what}, index is stale`);
  if ((current?.ModifyIndex ?? 0) !== index) throw new ApplyError('CONFLICT', `${what}, index is stale`);
}

/** A get's object, or Consul's per-op error for a missing one (the txn answers 409). */
function found<T>(value: T | undefined, missing: string): T {
  if (value === undefined) throw new ApplyError('CONFLICT', missing);
  return value;
}

/** Applies one op; returns Consul's TxnResult for ops that read back an object. */
type TxnResult = { Node: Node } | { Service: NodeService } | { Check: HealthCheck } | { KV: KvEntry };

/** A KV op's results: Consul's txn answers the value only for get and get-tree. */
function kvResults(draft: Draft, op: Extract<AnyTxnOp, { op: 'kv' }>): TxnResult[] {
  const entries = applyKvOp(draft, op.kv);
  const withValue = op.kv?.verb === 'get' || op.kv?.verb === 'get-tree';
  return entries.map((e) => ({ KV: withValue ? e : { ...e, Value: null } }));
}

function applyOp(draft: Draft, op: AnyTxnOp): TxnResult | TxnResult[] | undefined {
  switch (op.op) {
    case 'kv':
      return kvResults(draft, op);
    case 'node-set':
      return { Node: upsertNode(draft, op.node) };
    case 'node-cas':
      casOrThrow(draft.record(op.node?.Node)?.node, op.index, `failed to set node "${op.node?.Node}"`, false);
      return { Node: upsertNode(draft, op.node) };
    case 'node-delete':
      draft.deleteNode(op.node);
      return undefined;
    case 'node-delete-cas':
      casOrThrow(draft.record(op.node)?.node, op.index, `failed to delete node "${op.node}"`, true);
      draft.deleteNode(op.node);
      return undefined;
    case 'service-set':
      return { Service: upsertService(draft, op.node, op.service) };
    case 'service-cas':
      casOrThrow(
        draft.record(op.node)?.services.get(op.service?.ID),
        op.index,
        `failed to set service "${op.service?.ID}" on node "${op.node}"`,
        false,
      );
      return { Service: upsertService(draft, op.node, op.service) };
    case 'service-delete':
      deleteService(draft, op.node, op.serviceId);
      return undefined;
    case 'service-delete-cas':
      casOrThrow(
        draft.record(op.node)?.services.get(op.serviceId),
        op.index,
        `failed to delete service "${op.serviceId}" on node "${op.node}"`,
        true,
      );
      deleteService(draft, op.node, op.serviceId);
      return undefined;
    case 'check-set':
      return { Check: upsertCheck(draft, op.check?.Node, op.check) };
    case 'check-cas':
      casOrThrow(
        draft.record(op.check?.Node)?.checks.get(op.check?.CheckID)?.check,
        op.index,
        `failed to set check "${op.check?.CheckID}" on node "${op.check?.Node}"`,
        false,
      );
      return { Check: upsertCheck(draft, op.check.Node, op.check) };
    case 'check-delete':
      deleteCheck(draft, op.node, op.checkId);
      return undefined;
    case 'check-delete-cas':
      casOrThrow(
        draft.record(op.node)?.checks.get(op.checkId)?.check,
        op.index,
        `failed to delete check "${op.checkId}" on node "${op.node}"`,
        true,
      );
      deleteCheck(draft, op.node, op.checkId);
      return undefined;
    case 'node-get':
      return { Node: found(draft.record(op.node)?.node, `node "${op.node}" doesn't exist`) };
    case 'service-get': {
      const service = draft.record(op.node)?.services.get(op.serviceId);
      return { Service: found(service, `service "${op.serviceId}" on node "${op.node}" doesn't exist`) };
    }
    case 'check-get': {
      const check = draft.record(op.node)?.checks.get(op.checkId)?.check;
      return { Check: found(check, `check "${op.checkId}" on node "${op.node}" doesn't exist`) };
    }
    default:
      throw new ApplyError('INVALID_ARGUMENT', `unknown txn op ${JSON.stringify((op as { op?: unknown }).op)}`);
  }
}

export function applyTxn(draft: Draft, ops: readonly AnyTxnOp[]): { results: unknown[]; errors: TxnError[] } {
  if (!Array.isArray(ops)) throw new ApplyError('INVALID_ARGUMENT', 'ops: must be an array', 'ops');
  const results: unknown[] = [];
  const errors: TxnError[] = [];
  ops.forEach((op, i) => {
    try {
      const r = applyOp(draft, op);
      if (Array.isArray(r)) results.push(...r);
      else if (r !== undefined) results.push(r);
    } catch (err) {
      errors.push({ OpIndex: i, What: err instanceof Error ? err.message : String(err) });
    }
  });
  return { results, errors };
}
