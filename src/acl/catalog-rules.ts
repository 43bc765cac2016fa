// Which rights read and write each catalog object, as Consul decides them:
// instances need service:read on their service and node:read on their node;
// checks need node:read and, for a service check, service:read; config
// entries by kind, as each kind's registry entry says (catalog/config-kinds.ts);
// KV entries by key and sessions by their node (docs/kv.md, "ACLs").
import type { CatalogReader } from '../catalog/catalog';
import type { AnyTxnOp, Command } from '../catalog/commands';
import { type ConfigKindRight, configKind } from '../catalog/config-kinds';
import type { KvEntry, KvOp, Session } from '../catalog/kv-types';
import type { CatalogEvent, CheckServiceNode, ConfigEntry, ConfigEntryKind, HealthCheck, Node } from '../catalog/types';
import type { Authorizer, Level } from './authorizer';
import type { Right } from './write-rights';

export function canReadInstance(authz: Authorizer, csn: Pick<CheckServiceNode, 'Node' | 'Service'>): boolean {
  return authz.allowed('service', 'read', csn.Service.Service) && authz.allowed('node', 'read', csn.Node.Node);
}

export function canReadCheck(authz: Authorizer, check: Pick<HealthCheck, 'Node' | 'ServiceName'>): boolean {
  return (
    authz.allowed('node', 'read', check.Node) &&
    (check.ServiceName === '' || authz.allowed('service', 'read', check.ServiceName))
  );
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

export function canReadKv(authz: Authorizer, entry: Pick<KvEntry, 'Key'>): boolean {
  return authz.allowed('key', 'read', entry.Key);
}

/** A key listed by ?keys (perhaps cut at a separator): readable as a key. */
export function canReadKey(authz: Authorizer, key: string): boolean {
  return authz.allowed('key', 'read', key);
}

export function canReadSession(authz: Authorizer, session: Pick<Session, 'Node'>): boolean {
  return authz.allowed('session', 'read', session.Node);
}

const keyRight = (level: Level, name: string): Right => ({ resource: 'key', level, name });

/**
 * A KV operation's rights (Consul's vetTxnOp and KVS.Apply): get and get-tree
 * need none up front (their results are filtered by key:read), check-index and
 * check-session need key:read, the rest key:write. delete-tree needs key:write
 * on the prefix and on every key it would delete (where Consul asks that no rule
 * under the prefix withholds write).
 */
export function kvOpRights(catalog: CatalogReader, op: KvOp): Right[] {
  switch (op.verb) {
    case 'get':
    case 'get-tree':
      return [];
    case 'check-index':
    case 'check-session':
      return [keyRight('read', op.key)];
    case 'delete-tree':
      return [keyRight('write', op.key), ...catalog.kvList(op.key).value.map((e) => keyRight('write', e.Key))];
    default:
      return [keyRight('write', op.key)];
  }
}

/** session:write on the session's node; nothing for a session that does not exist (its destroy changes nothing). */
function sessionRights(catalog: CatalogReader, id: string): Right[] {
  const s = catalog.session(id).value;
  return s ? [{ resource: 'session', level: 'write', name: s.Node }] : [];
}

/** The rights of KV and session commands; undefined for other commands. */
export function kvCommandRights(
  catalog: CatalogReader,
  command: Command,
  txnOp: (op: AnyTxnOp) => Right[],
): Right[] | undefined {
  switch (command.type) {
    case 'kv':
      return kvOpRights(catalog, command.op);
    case 'kv-txn':
      return command.ops.flatMap((op) => (op.op === 'kv' ? kvOpRights(catalog, op.kv) : txnOp(op)));
    case 'session-create':
      return [{ resource: 'session', level: 'write', name: command.session.Node }];
    case 'session-destroy':
    case 'session-renew':
      return sessionRights(catalog, command.id);
    default:
      return undefined;
  }
}
