// Which rights read and write each catalog object, as Consul decides them:
// instances need service:read on their service and node:read on their node;
// checks need node:read and, for a service check, service:read; config
// entries by kind, as each kind's registry entry says (catalog/config-kinds.ts).
import type { CatalogEvent, CheckServiceNode, ConfigEntry, ConfigEntryKind, HealthCheck, Node } from '../catalog/types';
import { configKind, type ConfigKindRight } from '../catalog/config-kinds';
import type { Authorizer, Level } from './authorizer';

export function canReadInstance(authz: Authorizer, csn: Pick<CheckServiceNode, 'Node' | 'Service'>): boolean {
  return authz.allowed('service', 'read', csn.Service.Service) && authz.allowed('node', 'read', csn.Node.Node);
}

export function canReadCheck(authz: Authorizer, check: Pick<HealthCheck, 'Node' | 'ServiceName'>): boolean {
  return authz.allowed('node', 'read', check.Node) && (check.ServiceName === '' || authz.allowed('service', 'read', check.ServiceName));
}

export function canReadNode(authz: Authorizer, node: Pick<Node, 'Node'>): boolean {
  return authz.allowed('node', 'read', node.Node);
}

/** The right a config entry of `kind` named `name` needs for `level` (undefined: anyone may). */
export function configEntryRight(kind: ConfigEntryKind, name: string, level: Level): ConfigKindRight | undefined {
  return configKind(kind).right(name, level);
}

export function canReadConfigEntry(authz: Authorizer, entry: Pick<ConfigEntry, 'Kind' | 'Name'>): boolean {
  const right = configEntryRight(entry.Kind, entry.Name, 'read');
  return right === undefined || authz.allowed(right.resource, 'read', right.name);
}

/** Subscribe: may this token see the event? (framing items carry no data and always pass) */
export function canReadEvent(authz: Authorizer, event: CatalogEvent): boolean {
  const p = event.payload;
  switch (p.type) {
    case 'service-health':
      return canReadInstance(authz, p.csn);
    case 'config-entry':
      return canReadConfigEntry(authz, p.entry);
    case 'service-list':
      return authz.allowed('service', 'read', p.name);
  }
}
