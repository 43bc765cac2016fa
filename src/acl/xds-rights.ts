// The right a token needs to see one xDS resource (docs/security.md, "xDS").
// Names carry what is needed: the translator names every resource after the
// service it stands for (docs/xds.md, docs/mesh.md), so no resource is decoded
// here.
//
// - Secret: a leaf (`spiffe://<td>/ns/<ns>/dc/<dc>/svc/<S>`) carries S's private
//   key: service:write on S, for every node, whoever it claims to be. The trust
//   bundle (`spiffe://<td>`) is public, as /v1/connect/ca/roots is. Any other
//   secret is refused: it might carry a key.
// - A sidecar's own resources (`public_listener:…`, `local_app`): granted with
//   the stream, which needed service:write on the proxy's destination.
// - A sidecar's upstream resources: service:read on the upstream: its listener
//   `<upstream>:<addr>:<port>` and route `<upstream>` on the upstream's name, a
//   mesh cluster or assignment `<cluster>.default.<dc>.internal.<td>` on its
//   chain cluster's name (`S`, or `<subset>.S` as for plain clusters).
// - Everything else (plain and gateway nodes): service:read on the service a
//   name stands for: `S` for Cluster, ClusterLoadAssignment, RouteConfiguration
//   and Listener `S`, the gateway for an ingress listener or route `<gateway>:<port>`.
import { TypeUrl } from '../xds/transport/type-urls';
import type { Authorizer } from './authorizer';
import type { XdsIdentity } from './xds-roles';

const LEAF = /^spiffe:\/\/[^/]+\/ns\/[^/]+\/dc\/[^/]+\/svc\/([^/]+)$/;
const BUNDLE = /^spiffe:\/\/[^/]+$/;
const PUBLIC_LISTENER = 'public_listener:';
const LOCAL_APP = 'local_app';

/** The service a resource name stands for: the gateway of `<gateway>:<port>`, else the name itself. */
export function serviceOfResource(name: string): string {
  const colon = name.lastIndexOf(':');
  return colon > 0 && /^\d+$/.test(name.slice(colon + 1)) ? name.slice(0, colon) : name;
}

/** The service whose leaf a secret is (its private key inside), or undefined. */
export function leafServiceOf(secretName: string): string | undefined {
  return LEAF.exec(secretName)?.[1];
}

export interface RightsContext {
  datacenter: string;
}

/** A mesh cluster's chain cluster (`S` or `<subset>.S`), or undefined when the name is no mesh cluster. */
export function meshPlainCluster(name: string, datacenter: string): string | undefined {
  const marker = `.default.${datacenter}.internal.`;
  const at = name.lastIndexOf(marker);
  if (at <= 0) return undefined;
  const td = name.slice(at + marker.length);
  return td.endsWith('.consul') && !td.includes('/') ? name.slice(0, at) : undefined;
}

function secretVisible(name: string, authz: Authorizer): boolean {
  if (BUNDLE.test(name)) return true;
  const service = leafServiceOf(name);
  return service !== undefined && authz.allowed('service', 'write', service);
}

/** The upstream a listener `<upstream>:<addr>:<port>` belongs to: the longest upstream name it starts with. */
function upstreamOfListener(name: string, upstreams: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const u of upstreams) if (name.startsWith(`${u}:`) && (best === undefined || u.length > best.length)) best = u;
  return best;
}

function sidecarVisible(
  typeUrl: string,
  name: string,
  authz: Authorizer,
  who: XdsIdentity,
  ctx: RightsContext,
): boolean {
  const read = (s: string) => authz.allowed('service', 'read', s);
  switch (typeUrl) {
    case TypeUrl.Listener: {
      const upstream = upstreamOfListener(name, who.upstreams);
      if (upstream !== undefined) return read(upstream);
      return name.startsWith(PUBLIC_LISTENER);
    }
    case TypeUrl.Cluster: {
      if (name === LOCAL_APP) return true;
      const plain = meshPlainCluster(name, ctx.datacenter);
      return plain !== undefined && read(plain);
    }
    case TypeUrl.ClusterLoadAssignment: {
      const plain = meshPlainCluster(name, ctx.datacenter);
      return plain !== undefined && read(plain);
    }
    default:
      return read(name);
  }
}

/**
 * Whether a token may see a resource. `who` is the node's identity (undefined:
 * not a registered proxy or gateway); a stream whose token cannot write what
 * `who` fronts is refused before anything is filtered.
 */
export function resourceVisible(
  typeUrl: string,
  name: string,
  authz: Authorizer,
  who: XdsIdentity | undefined,
  ctx: RightsContext,
): boolean {
  if (typeUrl === TypeUrl.Secret) return secretVisible(name, authz);
  if (who?.sidecar) return sidecarVisible(typeUrl, name, authz, who, ctx);
  return authz.allowed('service', 'read', serviceOfResource(name));
}

/** The first service `who` fronts that the token cannot write (undefined: it may open the stream). */
export function missingWrite(authz: Authorizer, who: XdsIdentity): string | undefined {
  return who.fronts.find((s) => !authz.allowed('service', 'write', s));
}
