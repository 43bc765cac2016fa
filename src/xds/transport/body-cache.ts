// Shared responses: streams that get the same response get the same framed
// body and the same `sent` map (which then becomes those clients' held
// versions, see HeldVersions) — one change fanned out to N clients, or N
// Envoys' identical initial syncs, is framed once. A memo: the rules ask it for
// a response by a key that names its whole content, so what they return does
// not depend on whether it was a hit.
import type { XdsResource } from './provider';

/** A framed body and what it carries, shared by every stream that gets the same response. Never mutate. */
export interface SharedResponse {
  body: Uint8Array;
  sent: ReadonlyMap<string, string | null>;
  resources?: ReadonlyMap<string, XdsResource>;
}

/** LRU of shared responses, bounded by count and by bytes (initial syncs of big fleets are large). */
export class BodyCache {
  private readonly map = new Map<string, SharedResponse>();
  private bytes = 0;
  /**
   * The last one-resource Delta response asked for. A change pushed to N
   * streams asks for the same response N times in a row; recognising it by
   * the resource object (which names its version) skips building and hashing
   * its key every time (rules/response.ts sharedDelta).
   */
  lastDelta: { res: XdsResource; typeUrl: string; ttlMs: number; shared: SharedResponse } | undefined;
  constructor(
    private readonly maxEntries = 256,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}
  get(key: string, build: () => SharedResponse): SharedResponse {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key); // refresh its place in the LRU order
      this.map.set(key, hit);
      return hit;
    }
    const built = build();
    this.map.set(key, built);
    this.bytes += built.body.length;
    for (const [k, v] of this.map) {
      if (this.map.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v.body.length;
    }
    return built;
  }
}
