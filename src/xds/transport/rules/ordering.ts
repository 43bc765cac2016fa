// Rule module: make-before-break on ADS (X-ORDER-1/2; docs/xds-rules.md).
// Pure: (stream state, type) → may it be pushed now, must it hold removals.
// Types go out in the order CDS, EDS, LDS, RDS (RESOURCE_TYPES); LDS and RDS
// wait while a CDS or EDS response is un-ACKed; CDS and EDS keep what the
// client holds but is gone until LDS and RDS have settled (removals last).
// Per-type streams are independent: none of this applies to them.
import { Clusters, Endpoints, Listeners, type ResourceType, Routes } from '../resource-types';
import { isDeferred, type StreamState } from '../stream-state';

const busy = (s: StreamState, t: ResourceType): boolean => {
  const st = s.types.get(t.typeUrl);
  return !!st && (st.dirty || st.pending !== undefined || isDeferred(st));
};

/** X-ORDER-2: on ADS, LDS and RDS are held while a CDS or EDS push to this client is un-ACKed, or waits for the next delivery (X-STREAM-4). */
export function waitsForClusters(s: StreamState, type: ResourceType): boolean {
  if (s.transport !== 'ads' || !type.waitsForClusters) return false;
  return inFlightOrDeferred(s, Clusters) || inFlightOrDeferred(s, Endpoints);
}

const inFlightOrDeferred = (s: StreamState, t: ResourceType): boolean => {
  const st = s.types.get(t.typeUrl);
  return !!st && (st.pending !== undefined || isDeferred(st));
};

/** X-ORDER-1 (removals last): on ADS, CDS and EDS keep removed resources while LDS or RDS has something to send or in flight. */
export function holdsRemovals(s: StreamState, type: ResourceType): boolean {
  return s.transport === 'ads' && !type.waitsForClusters && (busy(s, Listeners) || busy(s, Routes));
}
