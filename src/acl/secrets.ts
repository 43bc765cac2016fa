// Token secrets: generated as UUIDs (Consul's format), stored only as SHA-256.
import { createHash, randomUUID } from 'node:crypto';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Consul's content hash of a token or policy (shown as `Hash`): base64 of SHA-256 over the given parts. */
export function contentHash(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64');
}

export function newId(): string {
  return randomUUID();
}

/**
 * The AccessorID of the initial management token, derived from its secret's
 * hash, so every hub that starts with the same flag writes the same token and
 * the second write is a no-op.
 */
export function accessorForInitialToken(secretHash: string): string {
  const h = sha256Hex(`initial-management:${secretHash}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
