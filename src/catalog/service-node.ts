// Consul's flattened ServiceNode (/v1/catalog/service/:s): one instance with
// its node's fields beside the service's. It is also what filters on those
// endpoints select from, so views that filter build it too.
import type { CheckServiceNode } from './types';

export function serviceNode(csn: CheckServiceNode): Record<string, unknown> {
  const { Node: n, Service: s } = csn;
  return {
    ID: n.ID,
    Node: n.Node,
    Address: n.Address,
    Datacenter: n.Datacenter,
    TaggedAddresses: n.TaggedAddresses,
    NodeMeta: n.Meta,
    ServiceKind: s.Kind,
    ServiceID: s.ID,
    ServiceName: s.Service,
    ServiceTags: s.Tags,
    ServiceAddress: s.Address,
    ServiceTaggedAddresses: s.TaggedAddresses,
    ServiceWeights: s.Weights,
    ServiceMeta: s.Meta,
    ServicePort: s.Port,
    ServiceEnableTagOverride: s.EnableTagOverride,
    ServiceProxy: s.Proxy ?? {},
    ServiceConnect: s.Connect ?? {},
    ...(s.Locality ? { ServiceLocality: s.Locality } : {}),
    CreateIndex: s.CreateIndex,
    ModifyIndex: s.ModifyIndex,
  };
}
