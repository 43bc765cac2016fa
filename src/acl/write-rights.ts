// The rights a catalog command needs, decided against the current state as
// Consul's vetRegisterWithACL and friends do: registering needs service:write on
// the service (and on a proxy's destination), node:write only when the node's
// own fields would change; a check is a service check (service:write) or a node
// check (node:write); deregistering needs the right on what it removes.
import type { CatalogReader } from '../catalog/catalog';
import type { CheckInput, Command, NodeInput, ServiceInput, TxnOp } from '../catalog/commands';
import type { ConfigEntryKind } from '../catalog/types';
import { sameContent } from '../catalog/values';
import type { Level, Resource } from './authorizer';
import { configEntryRight, kvCommandRights } from './catalog-rules';

export interface Right {
  resource: Resource;
  level: Level;
  name?: string;
}

const w = (resource: Resource, name?: string): Right => ({
  resource,
  level: 'write',
  ...(name === undefined ? {} : { name }),
});

function existingService(catalog: CatalogReader, node: string, serviceId: string) {
  return catalog.node(node).value?.Services.find((s) => s.ID === serviceId);
}

function nodeRights(catalog: CatalogReader, node: NodeInput, skipNodeUpdate: boolean): Right[] {
  const current = catalog.node(node.Node).value?.Node;
  if (current && (skipNodeUpdate || sameContent(current, node))) return [];
  return [w('node', node.Node)];
}

function serviceRights(catalog: CatalogReader, node: string, service: ServiceInput): Right[] {
  const out = [w('service', service.Service)];
  const dest = service.Proxy?.DestinationServiceName;
  if (service.Kind === 'connect-proxy' && typeof dest === 'string' && dest !== '') out.push(w('service', dest));
  const old = existingService(catalog, node, service.ID);
  if (old && old.Service !== service.Service) out.push(w('service', old.Service));
  return out;
}

/** A check's right: service:write on its service (from the same command or the catalog), else node:write. */
function checkRight(
  catalog: CatalogReader,
  node: string,
  check: Pick<CheckInput, 'ServiceID'>,
  registering?: ServiceInput,
): Right {
  if (!check.ServiceID) return w('node', node);
  const name =
    registering?.ID === check.ServiceID
      ? registering.Service
      : existingService(catalog, node, check.ServiceID)?.Service;
  return w('service', name ?? check.ServiceID);
}

function existingCheckRight(catalog: CatalogReader, node: string, checkId: string): Right[] {
  const check = catalog.nodeChecks(node).value.find((c) => c.CheckID === checkId);
  if (!check) return [];
  return [check.ServiceID ? w('service', check.ServiceName) : w('node', node)];
}

function txnOpRights(catalog: CatalogReader, op: TxnOp): Right[] {
  switch (op.op) {
    case 'node-set':
    case 'node-cas':
      return nodeRights(catalog, op.node, false);
    case 'node-delete':
    case 'node-delete-cas':
      return [w('node', op.node)];
    case 'service-set':
    case 'service-cas':
      return serviceRights(catalog, op.node, op.service);
    case 'service-delete':
    case 'service-delete-cas': {
      const old = existingService(catalog, op.node, op.serviceId);
      return old ? [w('service', old.Service)] : [];
    }
    case 'check-set':
    case 'check-cas':
      return [checkRight(catalog, op.check.Node, op.check)];
    case 'check-delete':
    case 'check-delete-cas':
      return existingCheckRight(catalog, op.node, op.checkId);
    case 'node-get':
    case 'service-get':
    case 'check-get':
      // A read: what the token may not read is left out of the results (routes/txn.ts), as Consul filters them.
      return [];
  }
}

/** Every right `command` needs; empty when it needs none. ACL commands are checked by their routes. */
export function rightsFor(catalog: CatalogReader, command: Command): Right[] {
  switch (command.type) {
    case 'register': {
      const name = command.node.Node;
      return [
        ...nodeRights(catalog, command.node, command.skipNodeUpdate),
        ...(command.service ? serviceRights(catalog, name, command.service) : []),
        ...command.checks.map((c) => checkRight(catalog, name, c, command.service)),
        // An agent registration's sidecar proxy is a service of its own (and names the parent as destination).
        ...(command.sidecar ? serviceRights(catalog, name, command.sidecar.service) : []),
        ...(command.sidecar?.checks ?? []).map((c) => checkRight(catalog, name, c, command.sidecar!.service)),
      ];
    }
    case 'deregister':
      if (command.checkId) return existingCheckRight(catalog, command.node, command.checkId);
      if (command.serviceId) {
        const old = existingService(catalog, command.node, command.serviceId);
        return old ? [w('service', old.Service)] : [];
      }
      return [w('node', command.node)];
    case 'check-update':
      return existingCheckRight(catalog, command.node, command.checkId);
    case 'config-set': {
      const right = configEntryRight(command.entry.Kind as ConfigEntryKind, String(command.entry.Name), 'write');
      return right ? [{ ...right, level: 'write' }] : [];
    }
    case 'config-delete': {
      const right = configEntryRight(command.kind, command.name, 'write');
      return right ? [{ ...right, level: 'write' }] : [];
    }
    case 'txn':
      return command.ops.flatMap((op) => txnOpRights(catalog, op));
    default:
      // Restores, TTL expiries and ACL writes never come from a catalog route: operator:write.
      return (
        kvCommandRights(catalog, command, (op) => (op.op === 'kv' ? [] : txnOpRights(catalog, op))) ?? [w('operator')]
      );
  }
}
