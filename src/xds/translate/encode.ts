// Encoding and versioning of translated resources (invariant 5, docs/architecture.md):
// each resource is encoded and hashed once per content change, and the
// resulting XdsResource object — bytes included — is shared by every stream.
//
// Translation builds deterministic plain objects (keys always in the same order,
// nested Any as `{'@type', ...fields}`), so the JSON text of a plain object is a
// cheap content key: identical input gives the identical cached object without
// touching protobufjs, and a new input that encodes to the same bytes still
// returns the old object, so callers can compare resources by identity.
import { createHash } from 'node:crypto';
import { encodeResource } from '../transport/envoy-proto';
import type { XdsResource } from '../transport/provider';

/** Message full name of a type URL (`type.googleapis.com/<name>`). */
export function messageNameOf(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/** Version of an encoded resource: sha256 of its bytes (hex, 128 bits), equal on every hub and across restarts. */
export function versionOf(encoded: Uint8Array): string {
  return createHash('sha256').update(encoded).digest('hex').slice(0, 32);
}

/** Encodes one resource without caching. */
export function encodeXdsResource(typeUrl: string, name: string, plain: Record<string, unknown>): XdsResource {
  const encoded = encodeResource(messageNameOf(typeUrl), plain);
  return Object.freeze({ name, typeUrl, version: versionOf(encoded), encoded });
}

export interface EncodeCache {
  /** The resource for this content: the cached object when the content (or its bytes) did not change. */
  encode(typeUrl: string, name: string, plain: Record<string, unknown>): XdsResource;
  /** Forgets a resource that no longer exists. */
  delete(typeUrl: string, name: string): void;
  /** Counts an encode (true) or a reuse (false) made outside the cache, so the counters cover every resource. */
  tally(encoded: boolean): void;
  /** Counters, for tests and the bench: how many encodes actually ran. */
  stats(): { hits: number; encodes: number; size: number };
}

interface Entry {
  key: string;
  resource: XdsResource;
}

export function createEncodeCache(): EncodeCache {
  const entries = new Map<string, Entry>();
  let hits = 0;
  let encodes = 0;
  const slot = (typeUrl: string, name: string) => `${typeUrl}\n${name}`;
  return {
    encode(typeUrl, name, plain) {
      const id = slot(typeUrl, name);
      const key = JSON.stringify(plain);
      const previous = entries.get(id);
      if (previous && previous.key === key) {
        hits++;
        return previous.resource;
      }
      encodes++;
      const fresh = encodeXdsResource(typeUrl, name, plain);
      const resource = previous && previous.resource.version === fresh.version ? previous.resource : fresh;
      entries.set(id, { key, resource });
      return resource;
    },
    delete(typeUrl, name) {
      entries.delete(slot(typeUrl, name));
    },
    tally(encoded) {
      if (encoded) encodes++;
      else hits++;
    },
    stats: () => ({ hits, encodes, size: entries.size }),
  };
}
