// ACLs on xDS, Consul's model (docs/security.md, "xDS"): the hook the
// transport offers (admission, and a provider that decides what a node may
// see) filled with the token of each client and the node's identity in the
// mesh (xds-roles.ts). A node that is a registered proxy or gateway is served
// that proxy's or gateway's config, so its stream needs service:write on the
// service it fronts, as Consul's xDS server demands; without it the stream ends
// with PERMISSION_DENIED — at admission, or as soon as a registration makes the
// node a proxy or gateway. What each resource needs is in xds-rights.ts; a
// leaf's private key never reaches a token that cannot write its service,
// whatever node it claims to be. When a token's rights change its streams end
// (ABORTED, or PERMISSION_DENIED once it is gone) and the client reconnects
// under its new rights.
import type { Catalog } from '../catalog/catalog';
import type { ResourceProvider, ResourceSet, XdsNode } from '../xds/transport/provider';
import type { XdsStream } from '../xds/transport/stream';
import { TypeUrl } from '../xds/transport/type-urls';
import { HubError } from '../errors';
import type { Authorizer } from './authorizer';
import { permissionDenied } from './deny';
import type { AclResolver } from './resolver';
import { missingWrite, resourceVisible, type RightsContext } from './xds-rights';
import { createXdsRoles, type XdsIdentity, type XdsRoles } from './xds-roles';

export { serviceOfResource } from './xds-rights';

const EMPTY: ResourceSet = Object.freeze({ byName: new Map(), wildcard: new Set<string>() });
/** Cache keys for filtered sets whose rights do not depend on who the node is beyond sidecar or not. */
const PLAIN_KEY = {};
const SIDECAR_KEY = {};

export interface XdsAcl {
  /** Wraps a provider so each node gets only what its token may read. */
  provider(inner: ResourceProvider): ResourceProvider;
  /**
   * The transport's admission hook: an unknown or expired token is PERMISSION_DENIED "ACL not found";
   * a registered proxy's or gateway's node whose token cannot write the service it fronts is PERMISSION_DENIED.
   */
  admit(node: XdsNode): void;
  /**
   * Ends the streams whose token's rights or node's identity changed; call with the xDS server's live
   * streams. Returns stop().
   */
  watch(streams: () => readonly XdsStream[]): () => void;
}

/** The refusal for a node whose token cannot write what it fronts. */
function frontRefusal(authz: Authorizer, node: XdsNode, who: XdsIdentity, service: string): HubError {
  const base = permissionDenied(authz, 'service', 'write', service);
  return new HubError(
    'PERMISSION_DENIED',
    `${base.message}: xDS node "${node.id}" is the ${who.because.join(' and ')}; ` +
      'its stream needs service:write on the service it fronts',
  );
}

export function createXdsAcl(resolver: AclResolver, catalog: Catalog): XdsAcl {
  const enabled = resolver.settings.enabled;
  const roles: XdsRoles | undefined = enabled ? createXdsRoles(catalog) : undefined;
  const ctx: RightsContext = { datacenter: resolver.settings.datacenter };
  // Filtered sets per (shared set, authorizer, identity key): all stable until content, ACLs or registrations change.
  const filtered = new WeakMap<ResourceSet, WeakMap<Authorizer, WeakMap<object, ResourceSet>>>();
  const identityOf = (node: XdsNode) => roles?.identityOf(node);

  /** Resolves a node's token and checks it may be served as the node it is; throws the refusal. */
  function check(node: XdsNode): { authz: Authorizer; who: XdsIdentity | undefined } {
    const authz = resolver.resolve(node.credential ?? '');
    const who = identityOf(node);
    if (who && !authz.allowsAll) {
      const missing = missingWrite(authz, who);
      if (missing !== undefined) throw frontRefusal(authz, node, who, missing);
    }
    return { authz, who };
  }

  function filter(typeUrl: string, set: ResourceSet, authz: Authorizer, who: XdsIdentity | undefined): ResourceSet {
    // Own sets (listeners, clusters) name upstreams by the proxy's registration; shared ones need only sidecar-or-not.
    const key = who?.sidecar ? (typeUrl === TypeUrl.Listener ? who : SIDECAR_KEY) : PLAIN_KEY;
    let byAuthz = filtered.get(set);
    if (!byAuthz) filtered.set(set, (byAuthz = new WeakMap()));
    let byKey = byAuthz.get(authz);
    if (!byKey) byAuthz.set(authz, (byKey = new WeakMap()));
    let out = byKey.get(key);
    if (!out) {
      const byName = new Map([...set.byName].filter(([name]) => resourceVisible(typeUrl, name, authz, who, ctx)));
      const wildcard = new Set([...set.wildcard].filter((n) => byName.has(n)));
      out = byName.size === set.byName.size ? set : { byName, wildcard };
      byKey.set(key, out);
    }
    return out;
  }

  function closeIfRefused(s: XdsStream): void {
    if (s.isClosed || !s.node) return;
    try {
      check(s.node);
    } catch (err) {
      s.close(err instanceof HubError ? err : new HubError('INTERNAL', String(err)));
    }
  }

  return {
    provider(inner) {
      if (!enabled) return inner;
      return {
        onChange: (listener) => inner.onChange(listener),
        get(typeUrl, node) {
          const set = inner.get(typeUrl, node);
          let seen: { authz: Authorizer; who: XdsIdentity | undefined };
          try {
            seen = check(node);
          } catch {
            return EMPTY; // the token is gone or may not be this node: its stream is being ended (watch)
          }
          return seen.authz.allowsAll ? set : filter(typeUrl, set, seen.authz, seen.who);
        },
      };
    },
    admit(node) {
      check(node);
    },
    watch(streams) {
      if (!enabled) return () => {};
      const offAcl = resolver.onChange((affected) => {
        for (const s of streams()) {
          if (s.isClosed || !s.node) continue;
          let now: string | undefined; // undefined: deleted or expired
          try {
            now = resolver.resolve(s.node.credential ?? '').accessorId;
          } catch {
            now = undefined;
          }
          if (now !== undefined && affected !== 'all' && !affected.includes(now)) continue;
          s.close(
            now === undefined
              ? new HubError('PERMISSION_DENIED', 'ACL not found')
              : new HubError('SUBSCRIPTION_RESET', "the token's rights changed: reconnect to be served under them"),
          );
        }
      });
      // A registration can make an open stream's node a proxy or gateway: check it again at once,
      // before the provider (which follows the views, later) serves it as one.
      const offRoles = roles?.onChange((ids, gateways) => {
        for (const s of streams()) {
          const n = s.node;
          if (n && (ids.has(n.id) || gateways.has(n.cluster) || gateways.has(n.id))) closeIfRefused(s);
        }
      });
      return () => {
        offAcl();
        offRoles?.();
        roles?.close();
      };
    },
  };
}
