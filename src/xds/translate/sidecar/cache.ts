// Encoding for sidecar resources. Unlike a service's resources, one name can
// hold different content on different sidecars (`local_app`, a mesh cluster
// whose client certificate is the source's leaf), so resources are cached by
// (type, name, content): equal content is encoded once and shared by every
// sidecar that has it (invariant 5, docs/architecture.md), and a sidecar whose content
// did not change gets the same object back, so changes are found by identity.
// What no sidecar used in the last build is dropped.
import type { XdsResource } from '../../transport/provider';
import { encodeXdsResource } from '../encode';

export interface ContentCache {
  encode(typeUrl: string, name: string, plain: Record<string, unknown>): XdsResource;
  /** Drops what was not encoded (or hit) since the last sweep. */
  sweep(): void;
  stats(): { encodes: number; hits: number; size: number };
}

export function createContentCache(): ContentCache {
  let live = new Map<string, XdsResource>();
  let previous = new Map<string, XdsResource>();
  let encodes = 0;
  let hits = 0;
  return {
    encode(typeUrl, name, plain) {
      const key = `${typeUrl}\n${name}\n${JSON.stringify(plain)}`;
      let res = live.get(key) ?? previous.get(key);
      if (res) hits++;
      else {
        encodes++;
        res = encodeXdsResource(typeUrl, name, plain);
      }
      live.set(key, res);
      return res;
    },
    sweep() {
      // Two generations: what a partial build did not touch stays one more round.
      previous = live;
      live = new Map();
    },
    stats: () => ({ encodes, hits, size: live.size + previous.size }),
  };
}
