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
import { HubError } from '../errors';
import type { ResourceProvider, ResourceSet, XdsNode } from '../xds/transport/provider';
import type { XdsStream } from '../xds/transport/stream';
import { TypeUrl } from '../xds/transport/type-urls';
import type { Authorizer } from './authorizer';
import { permissionDenied } from './deny';
import type { AclAffected, AclResolver } from './resolver';
import { missingWrite, type RightsContext, resourceVisible } from './xds-rights';
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

/** What the hook holds: the token resolver, the nodes' roles and the filtered sets. */
interface State {
  readonly resolver: AclResolver;
  readonly roles: XdsRoles | undefined;
  readonly ctx: RightsContext;
  // Filtered sets per (shared set, authorizer, identity key): all stable until content, ACLs or registrations change.
  readonly filtered: WeakMap<ResourceSet, WeakMap<Authorizer, WeakMap<object, ResourceSet>>>;
}

export function createXdsAcl(resolver: AclResolver, catalog: Catalog): XdsAcl {
  const enabled = resolver.settings.enabled;
  const s: State = {
    resolver,
    roles: enabled ? createXdsRoles(catalog) : undefined,
    ctx: { datacenter: resolver.settings.datacenter },
    filtered: new WeakMap(),
  };
  return {
    provider: (inner) => (enabled ? filteredProvider(s, inner) : inner),
    admit(node) {
      check(s, node);
    },
    watch: (streams) => (enabled ? watch(s, streams) : () => {}),
  };
}

/** Resolves a node's token and checks it may be served as the node it is; throws the refusal. */
function check(s: State, node: XdsNode): { authz: Authorizer; who: XdsIdentity | undefined } {
  const authz = s.resolver.resolve(node.credential ?? '');
  const who = s.roles?.identityOf(node);
  if (who && !authz.allowsAll) {
    const missing = missingWrite(authz, who);
    if (missing !== undefined) throw frontRefusal(authz, node, who, missing);
  }
  return { authz, who };
}

function filteredProvider(s: State, inner: ResourceProvider): ResourceProvider {
  return {
    onChange: (listener) => inner.onChange(listener),
    get(typeUrl, node) {
      const set = inner.get(typeUrl, node);
      let seen: { authz: Authorizer; who: XdsIdentity | undefined };
      try {
        seen = check(s, node);
      } catch {
        return EMPTY; // the token is gone or may not be this node: its stream is being ended (watch)
      }
      return seen.authz.allowsAll ? set : filter(s, typeUrl, set, seen.authz, seen.who);
    },
  };
}

function filter(
  s: State,
  typeUrl: string,
  set: ResourceSet,
  authz: Authorizer,
  who: XdsIdentity | undefined,
): ResourceSet {
  // Own sets (listeners, clusters) name upstreams by the proxy's registration; shared ones need only sidecar-or-not.
  const key = who?.sidecar ? (typeUrl === TypeUrl.Listener ? who : SIDECAR_KEY) : PLAIN_KEY;
  let byAuthz = s.filtered.get(set);
  if (!byAuthz) s.filtered.set(set, (byAuthz = new WeakMap()));
  let byKey = byAuthz.get(authz);
  if (!byKey) byAuthz.set(authz, (byKey = new WeakMap()));
  let out = byKey.get(key);
  if (!out) {
    const byName = new Map([...set.byName].filter(([name]) => resourceVisible(typeUrl, name, authz, who, s.ctx)));
    const wildcard = new Set([...set.wildcard].filter((n) => byName.has(n)));
    out = byName.size === set.byName.size ? set : { byName, wildcard };
    byKey.set(key, out);
  }
  return out;
}

function watch(s: State, streams: () => readonly XdsStream[]): () => void {
  const { resolver, roles } = s;
  const offAcl = resolver.onChange((affected) => endChangedTokens(resolver, streams(), affected));
  // A registration can make an open stream's node a proxy or gateway: check it again at once,
  // before the provider (which follows the views, later) serves it as one.
  const offRoles = roles?.onChange((ids, gateways) => {
    for (const stream of streams()) {
      const n = stream.node;
      if (n && (ids.has(n.id) || gateways.has(n.cluster) || gateways.has(n.id))) closeIfRefused(s, stream);
    }
  });
  return () => {
    offAcl();
    offRoles?.();
    roles?.close();
  };
}

/** Ends the streams whose token is gone or among those whose rights changed. */
function endChangedTokens(resolver: AclResolver, streams: readonly XdsStream[], affected: AclAffected): void {
  for (const s of streams) {
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
}

function closeIfRefused(s: State, stream: XdsStream): void {
  if (stream.isClosed || !stream.node) return;
  try {
    check(s, stream.node);
  } catch (err) {
    stream.close(err instanceof HubError ? err : new HubError('INTERNAL', String(err)));
  }
}
