// Consul's catalog register/deregister bodies → catalog commands.

import type { CheckInput, Command, NodeInput } from '../../catalog/commands';
import { invalid } from '../../errors';
import { Body } from '../body';
import { parseCatalogCheck, uniqueCheckIds } from './checks';
import { parseService } from './service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface NodeDefaults {
  datacenter: string;
}

function checkDatacenter(body: Body, field: string, defaults: NodeDefaults): string {
  const dc = body.str(field) || defaults.datacenter;
  if (dc !== defaults.datacenter)
    throw invalid(body.field(field), `unknown datacenter "${dc}" (this hub serves "${defaults.datacenter}")`);
  return dc;
}

/** A node: Node and Address required; `metaField` is NodeMeta in a register body, Meta in a txn Node. */
export function parseNode(
  body: Body,
  defaults: NodeDefaults,
  metaField: 'NodeMeta' | 'Meta',
  addressRequired = true,
): NodeInput {
  const id = body.str('ID');
  if (id !== '' && !UUID.test(id)) throw invalid(body.field('ID'), `must be a UUID, got "${id}"`);
  const node: NodeInput = {
    ID: id,
    Node: body.requiredName('Node'),
    Address: addressRequired ? body.requiredStr('Address') : body.str('Address'),
    Datacenter: checkDatacenter(body, 'Datacenter', defaults),
    TaggedAddresses: body.strMap('TaggedAddresses'),
    Meta: body.meta(metaField),
  };
  const locality = body.obj('Locality');
  if (locality) node.Locality = { Region: locality.str('Region'), Zone: locality.str('Zone') };
  const partition = body.name('Partition');
  if (partition) node.Partition = partition;
  return node;
}

export function registerCommand(raw: unknown, defaults: NodeDefaults): Command {
  const body = Body.of(raw);
  const skipNodeUpdate = body.bool('SkipNodeUpdate');
  const node = parseNode(body, defaults, 'NodeMeta', !skipNodeUpdate);
  const serviceBody = body.obj('Service');
  const service = serviceBody ? parseService(serviceBody, 'Service', defaults) : undefined;

  const checkBodies = [...(body.obj('Check') ? [body.obj('Check')!] : []), ...body.objArray('Checks')];
  const checks: CheckInput[] = checkBodies.map((c) => {
    const check = parseCatalogCheck(c, node.Node);
    if (check.Node !== node.Node) throw invalid(c.field('Node'), `must match the registered node "${node.Node}"`);
    return check;
  });
  uniqueCheckIds(checks, checkBodies);
  return { type: 'register', node, ...(service ? { service } : {}), checks, skipNodeUpdate };
}

export function deregisterCommand(raw: unknown, defaults: NodeDefaults): Command {
  const body = Body.of(raw);
  checkDatacenter(body, 'Datacenter', defaults);
  const node = body.requiredName('Node');
  const serviceId = body.name('ServiceID');
  const checkId = body.name('CheckID');
  if (serviceId && checkId) throw invalid('CheckID', 'give either ServiceID or CheckID, not both');
  return {
    type: 'deregister',
    node,
    ...(serviceId ? { serviceId } : {}),
    ...(checkId ? { checkId } : {}),
  };
}
