// The change that undoes a command: computed from the state before it
// (`before`), it puts back every object the command touched — a config entry
// as it was (or gone), nodes, services and checks as they were (or gone). It
// restores those objects only, so changes to other objects made since stay.
import type { CatalogReader } from '../catalog/catalog';
import type { CheckInput, Command, ConfigEntryInput, NodeInput, ServiceInput, TxnOp } from '../catalog/commands';
import type { ConfigEntryKind } from '../catalog/types';
import { HubError } from '../errors';

const strip = <T extends { CreateIndex?: number; ModifyIndex?: number }>(
  o: T,
): Omit<T, 'CreateIndex' | 'ModifyIndex'> => {
  const { CreateIndex: _c, ModifyIndex: _m, ...rest } = o;
  return rest;
};

function configInverse(before: CatalogReader, kind: ConfigEntryKind, name: string): Command {
  const old = before.configEntry(kind, name).value;
  return old ? { type: 'config-set', entry: strip(old) as ConfigEntryInput } : { type: 'config-delete', kind, name };
}

/** Puts node `name` back as it was: its record, every service and every check; or deletes it if it did not exist. */
function nodeRestore(before: CatalogReader, name: string): TxnOp[] {
  const rec = before.node(name).value;
  if (!rec) return [{ op: 'node-delete', node: name }];
  return [
    { op: 'node-set', node: strip(rec.Node) as NodeInput },
    ...rec.Services.map((s): TxnOp => ({ op: 'service-set', node: name, service: strip(s) as ServiceInput })),
    ...checksOf(before, name).map((c): TxnOp => ({ op: 'check-set', check: c })),
  ];
}

function checksOf(
  before: CatalogReader,
  node: string,
  filter: (c: CheckInput & { ServiceName?: string }) => boolean = () => true,
): CheckInput[] {
  return before
    .nodeChecks(node)
    .value.filter(filter)
    .map((c) => {
      const { ServiceName: _n, ServiceTags: _t, ...rest } = strip(c);
      return rest as CheckInput;
    });
}

function serviceRestore(before: CatalogReader, node: string, id: string): TxnOp[] {
  const rec = before.node(node).value;
  if (!rec) return [{ op: 'node-delete', node }];
  const svc = rec.Services.find((s) => s.ID === id);
  if (!svc) return [{ op: 'service-delete', node, serviceId: id }];
  return [
    { op: 'service-set', node, service: strip(svc) as ServiceInput },
    ...checksOf(before, node, (c) => c.ServiceID === id).map((c): TxnOp => ({ op: 'check-set', check: c })),
  ];
}

function checkRestore(before: CatalogReader, node: string, checkId: string): TxnOp[] {
  const old = checksOf(before, node, (c) => c.CheckID === checkId);
  return old.length > 0
    ? old.map((c): TxnOp => ({ op: 'check-set', check: c }))
    : [{ op: 'check-delete', node, checkId }];
}

/** Objects a command touches, as restore operations against `before`. */
function restores(before: CatalogReader, command: Command): TxnOp[] {
  switch (command.type) {
    case 'register': {
      const node = command.node.Node;
      if (!before.node(node).value) return [{ op: 'node-delete', node }];
      return [
        ...(command.skipNodeUpdate ? [] : nodeRestore(before, node).slice(0, 1)),
        ...(command.service ? serviceRestore(before, node, command.service.ID) : []),
        ...command.checks.flatMap((c) => checkRestore(before, node, c.CheckID)),
      ];
    }
    case 'deregister':
      if (command.checkId) return checkRestore(before, command.node, command.checkId);
      if (command.serviceId) return serviceRestore(before, command.node, command.serviceId);
      return nodeRestore(before, command.node);
    case 'txn':
      return command.ops.flatMap((op): TxnOp[] => {
        switch (op.op) {
          case 'node-set':
          case 'node-cas':
            return before.node(op.node.Node).value
              ? nodeRestore(before, op.node.Node).slice(0, 1)
              : [{ op: 'node-delete', node: op.node.Node }];
          case 'node-delete':
          case 'node-delete-cas':
            return nodeRestore(before, op.node);
          case 'service-set':
          case 'service-cas':
            return serviceRestore(before, op.node, op.service.ID);
          case 'service-delete':
          case 'service-delete-cas':
            return serviceRestore(before, op.node, op.serviceId);
          case 'check-set':
          case 'check-cas':
            return checkRestore(before, op.check.Node, op.check.CheckID);
          case 'check-delete':
          case 'check-delete-cas':
            return checkRestore(before, op.node, op.checkId);
          default:
            return []; // a get changes nothing
        }
      });
    default:
      throw new HubError('INVALID_ARGUMENT', `a ${command.type} change cannot be rolled out in stages`);
  }
}

export function inverseOf(before: CatalogReader, command: Command): Command {
  if (command.type === 'config-set')
    return configInverse(before, command.entry['Kind'] as ConfigEntryKind, command.entry['Name'] as string);
  if (command.type === 'config-delete') return configInverse(before, command.kind, command.name);
  const ops = restores(before, command);
  // A node deleted first and recreated by later ops would lose them: deletes go first, sets after.
  return {
    type: 'txn',
    ops: [...ops.filter((o) => o.op.endsWith('delete')), ...ops.filter((o) => !o.op.endsWith('delete'))],
  };
}
