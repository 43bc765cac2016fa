// Service → xDS resource names (docs/xds.md "Names"). Service S in the
// default namespace and partition is Cluster / ClusterLoadAssignment /
// RouteConfiguration / Listener `S`, so `xds:///S` works with no other setup;
// anything else appends `.<namespace>.<partition>`.

/** A service's identity as config entries and the service list spell it. */
export interface ServiceRef {
  name: string;
  namespace?: string;
  partition?: string;
}

const isDefault = (v: string | undefined): boolean => v === undefined || v === '' || v === 'default';

/** Resource name of a service: `S`, or `S.<namespace>.<partition>` outside the defaults. */
export function serviceResourceName(ref: ServiceRef): string {
  if (isDefault(ref.namespace) && isDefault(ref.partition)) return ref.name;
  return `${ref.name}.${isDefault(ref.namespace) ? 'default' : ref.namespace}.${isDefault(ref.partition) ? 'default' : ref.partition}`;
}

/** Name of an ingress-gateway listener and of its RouteConfiguration: `<gateway>:<port>`. */
export function gatewayListenerName(gateway: string, port: number): string {
  return `${gateway}:${port}`;
}

/**
 * The name a node is matched against ingress gateways by: `node.cluster`, or
 * `node.id` when the cluster is empty (Envoy's `--service-cluster` is optional).
 */
export function gatewayNameOf(node: { id: string; cluster: string }): string {
  return node.cluster !== '' ? node.cluster : node.id;
}
