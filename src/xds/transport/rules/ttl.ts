// Rule module: TTL and heartbeats (X-TTL-1..4; docs/xds-rules.md). Pure:
// (client, configured TTL) → the TTL it gets; (type state, resources) → the
// heartbeat response or nothing. Only v3 clients that announce the feature get
// a TTL; SotW clients get it only inside Resource wrappers, which they must
// announce too. A heartbeat re-sends what the client holds, without bodies.
import type { ResourceSet, XdsNode } from '../provider';
import type { ResourceType } from '../resource-types';
import { isDeferred, type StreamState, type TypeState } from '../stream-state';
import { type ApiVersion, type DeltaItem, deltaBody, type SotwItem, sotwBody, wireVersion } from '../wire';
import type { Computed } from './response';

export const FEATURE_TTL = 'xds.config.supports-resource-ttl';
export const FEATURE_RESOURCE_IN_SOTW = 'xds.config.resource-in-sotw';

/**
 * X-TTL-1, X-TTL-3: the TTL this client gets (0: none; v2 has no TTL field),
 * and whether its SotW resources are wrapped. Envoy (user_agent_name
 * "envoy") honours TTLs on Delta but announces no client features at all, so
 * it is taken at its name — for Delta only: its SotW client cannot take
 * heartbeats (X-TTL-5), so Envoy on SotW gets plain resources and no TTL.
 */
export function clientTtl(api: ApiVersion, node: XdsNode, configuredMs: number): { ttlMs: number; sotwWrap: boolean } {
  const envoy = node.userAgent === 'envoy';
  const ttlMs = api === 'v3' && (envoy || node.clientFeatures.includes(FEATURE_TTL)) ? configuredMs : 0;
  return { ttlMs, sotwWrap: ttlMs > 0 && node.clientFeatures.includes(FEATURE_RESOURCE_IN_SOTW) };
}

/**
 * The TTL carried by this stream's responses of one type: a SotW client without
 * wrappers has nowhere to carry one, and types outside --resource-ttl-types
 * (`ttlTypes`, empty = all) carry none.
 */
export function responseTtl(s: StreamState, type?: ResourceType, ttlTypes: readonly string[] = []): number {
  if (type && ttlTypes.length > 0 && !ttlTypes.includes(type.short)) return 0;
  return s.variant === 'sotw' && !s.sotwWrap ? 0 : s.ttlMs;
}

/** Whether this stream takes heartbeats at all. */
export function takesHeartbeats(s: StreamState): boolean {
  return s.node !== undefined && responseTtl(s) > 0;
}

/**
 * X-TTL-2: the resources the client holds at their current version, without
 * bodies; for a type with nothing in flight and nothing waiting. SotW: the whole
 * held set, under the same version_info, once that set is ACKed.
 */
export function heartbeatFor(
  s: StreamState,
  st: TypeState,
  set: ResourceSet,
  ttlTypes: readonly string[] = [],
): Computed | undefined {
  const ttlMs = responseTtl(s, st.type, ttlTypes);
  if (ttlMs === 0 || st.pending || st.dirty || isDeferred(st)) return undefined;
  if (s.variant === 'sotw') {
    if (st.ackedResources.size === 0 || st.lastSentVersion !== st.ackedVersion) return undefined;
    const resources = [...st.ackedResources.values()];
    const body = sotwBody(
      st.ackedVersion,
      st.wireTypeUrl,
      resources.map((res): SotwItem => ({ res, wrap: true, ttlMs, body: false })),
    );
    return {
      body,
      pending: { version: st.ackedVersion, sent: new Map(st.acked), resources: st.ackedResources, heartbeat: true },
      count: resources.length,
    };
  }
  const items: DeltaItem[] = [];
  for (const [name, version] of st.acked) {
    const res = set.byName.get(name);
    if (res && wireVersion(res, ttlMs) === version) items.push({ res, ttlMs, body: false });
  }
  if (items.length === 0) return undefined;
  return {
    body: deltaBody('', st.wireTypeUrl, items, []),
    pending: {
      version: '',
      sent: new Map(items.map((i) => [i.res.name, wireVersion(i.res, ttlMs)])),
      resources: undefined,
      heartbeat: true,
    },
    count: items.length,
  };
}

/**
 * What an operator must know about a TTL setting, or undefined: Envoy keeps a
 * ClusterLoadAssignment's endpoints when its TTL runs out (Envoy's EDS
 * cluster ignores the removal the expiry turns into; docs/envoy.md,
 * "Lifecycle"), so endpoints without clusters never take Envoy's endpoints
 * away. Logged once when the hub starts.
 */
export function ttlTypesAdvice(ttlMs: number, ttlTypes: readonly string[]): string | undefined {
  if (ttlMs <= 0) return undefined;
  const carries = (t: string) => ttlTypes.length === 0 || ttlTypes.includes(t);
  if (carries('EDS') && !carries('CDS')) {
    return (
      "--resource-ttl on endpoints without clusters: Envoy lets an assignment's TTL run out but keeps routing to its endpoints " +
      '(its EDS ignores the removal); add clusters (--resource-ttl-types clusters,endpoints) to have Envoy drop them with the cluster'
    );
  }
  return undefined;
}
