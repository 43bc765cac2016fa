// ACLs on xDS: the hook the transport offers (admission, and a provider that
// decides what a node may see) filled with the token of each client. A node
// sees the resources of the services its token may read (service:read on the
// resource's service: `S` for Cluster, ClusterLoadAssignment, RouteConfiguration
// and Listener `S`; the gateway for an ingress listener or route `<gateway>:<port>`).
// When a token's rights change its streams end (ABORTED, or PERMISSION_DENIED
// once it is gone) and the client reconnects under its new rights.
import type { ResourceProvider, ResourceSet, XdsNode } from '../xds/transport/provider';
import type { XdsStream } from '../xds/transport/stream';
import { HubError } from '../errors';
import type { Authorizer } from './authorizer';
import type { AclResolver } from './resolver';

const EMPTY: ResourceSet = { byName: new Map(), wildcard: new Set() };

/** The service a resource name stands for: the gateway of `<gateway>:<port>`, else the name itself. */
export function serviceOfResource(name: string): string {
  const colon = name.lastIndexOf(':');
  return colon > 0 && /^\d+$/.test(name.slice(colon + 1)) ? name.slice(0, colon) : name;
}

export interface XdsAcl {
  /** Wraps a provider so each node gets only what its token may read. */
  provider(inner: ResourceProvider): ResourceProvider;
  /** The transport's admission hook: an unknown or expired token is PERMISSION_DENIED "ACL not found". */
  admit(node: XdsNode): void;
  /** Ends the streams whose token's rights changed; call with the xDS server's live streams. Returns stop(). */
  watch(streams: () => readonly XdsStream[]): () => void;
}

export function createXdsAcl(resolver: AclResolver): XdsAcl {
  // Filtered sets per (shared set, authorizer): both identities are stable until content or ACLs change.
  const filtered = new WeakMap<ResourceSet, WeakMap<Authorizer, ResourceSet>>();
  const accessorOf = (node: XdsNode | undefined): string | undefined => {
    if (!node) return undefined;
    try {
      return resolver.resolve(node.credential ?? '').accessorId;
    } catch {
      return undefined;
    }
  };

  function filter(set: ResourceSet, authz: Authorizer): ResourceSet {
    let byAuthz = filtered.get(set);
    if (!byAuthz) filtered.set(set, (byAuthz = new WeakMap()));
    let out = byAuthz.get(authz);
    if (!out) {
      const byName = new Map([...set.byName].filter(([name]) => authz.allowed('service', 'read', serviceOfResource(name))));
      out = { byName, wildcard: new Set([...set.wildcard].filter((n) => byName.has(n))) };
      byAuthz.set(authz, out);
    }
    return out;
  }

  return {
    provider(inner) {
      if (!resolver.settings.enabled) return inner;
      return {
        onChange: (listener) => inner.onChange(listener),
        get(typeUrl, node) {
          const set = inner.get(typeUrl, node);
          let authz: Authorizer;
          try {
            authz = resolver.resolve(node.credential ?? '');
          } catch {
            return EMPTY; // the token is gone: its stream is being ended (watch)
          }
          return authz.allowsAll ? set : filter(set, authz);
        },
      };
    },
    admit(node) {
      resolver.resolve(node.credential ?? '');
    },
    watch(streams) {
      if (!resolver.settings.enabled) return () => {};
      return resolver.onChange((affected) => {
        for (const s of streams()) {
          if (s.isClosed || !s.node) continue;
          const now = accessorOf(s.node); // undefined: deleted or expired
          if (now !== undefined && affected !== 'all' && !affected.includes(now)) continue;
          s.close(
            now === undefined
              ? new HubError('PERMISSION_DENIED', 'ACL not found')
              : new HubError('SUBSCRIPTION_RESET', "the token's rights changed: reconnect to be served under them"),
          );
        }
      });
    },
  };
}
