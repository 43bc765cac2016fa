// One-shot SotW fetch: REST-JSON (POST /v3/discovery:*) and the unary Fetch*
// gRPC methods. No stream, so no nonce and no ACK; an unchanged version is
// reported so REST can answer 304.
import { invalid } from '../../errors';
import type { BodyCache } from './body-cache';
import type { ResourceSet, XdsNode } from './provider';
import { type ResourceType, resourceTypeOf } from './resource-types';
import { computeSotw } from './rules/response';
import { applySotwNames, sendWholeSet } from './rules/subscription';
import { newTypeState } from './stream-state';
import type { ApiVersion, SotwRequest } from './wire';

export interface FetchResult {
  version: string;
  /** The client already holds this version. */
  notModified: boolean;
  /** An encoded DiscoveryResponse (no nonce). */
  body: Uint8Array;
}

export function fetchSotw(
  get: (typeUrl: string, node: XdsNode) => ResourceSet,
  type: ResourceType,
  api: ApiVersion,
  req: SotwRequest,
  bodyCache: BodyCache,
): FetchResult {
  if (!req.node || req.node.id === '') throw invalid('node.id', 'required: the node decides which resources it gets');
  if (req.typeUrl !== '' && resourceTypeOf(req.typeUrl) !== type) {
    throw invalid('type_url', `"${req.typeUrl}" does not match this ${type.rest} endpoint`);
  }
  const wire = req.typeUrl !== '' ? req.typeUrl : api === 'v3' ? type.typeUrl : type.v2TypeUrl;
  const fresh = newTypeState(type, wire);
  const { sub } = applySotwNames(fresh.sub, type, req.resourceNames);
  const st = sendWholeSet({ ...fresh, sub });
  const out = computeSotw(st, {
    set: get(type.typeUrl, req.node),
    ttlMs: 0,
    sotwWrap: false,
    holdRemovals: false,
    memo: bodyCache,
  }).response!;
  return { version: out.pending.version, notModified: req.versionInfo === out.pending.version, body: out.body };
}
