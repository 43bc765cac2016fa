// What translation reads from config entries. Entries arrive in Consul's JSON
// shape (PascalCase, kind-specific fields untyped); these helpers pull out the
// fields the mapping uses and tolerate what the HTTP layer let through
// (a bad duration falls back to the default rather than failing a whole push).
import { isIP } from 'node:net';
import type { ConfigEntry } from '../../catalog/types';
import { serviceProtocol } from '../../connect/central-config';
import type { ServiceRef } from './names';

/** A protobuf Duration as a plain object. */
export interface PlainDuration {
  seconds: number;
  nanos: number;
}

export function durationOfMs(ms: number): PlainDuration {
  const whole = Math.floor(ms / 1000);
  return { seconds: whole, nanos: Math.round((ms - whole * 1000) * 1e6) };
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A config-entry duration in ms: Go duration text ("15s", "1m30s") or a number of
 * nanoseconds (Go's JSON encoding of time.Duration). undefined when absent or malformed.
 */
export function entryDurationMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value / 1e6;
  if (typeof value !== 'string' || value === '') return undefined;
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed > 0 && consumed === value.length ? total : undefined;
}

/** A non-negative integer field, or undefined. */
export function entryUint(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The service a config entry (or a reference inside one) names. */
export function refOf(obj: Record<string, unknown>, nameField = 'Name'): ServiceRef | undefined {
  const name = str(obj[nameField]);
  if (name === undefined) return undefined;
  return { name, namespace: str(obj['Namespace']), partition: str(obj['Partition']) };
}

/**
 * A service's protocol as Consul resolves it: its service-defaults `Protocol`,
 * else proxy-defaults `global` Config.protocol, else "tcp"; lower-cased.
 */
export function protocolOf(defaults: ConfigEntry | undefined, proxyDefaults?: ConfigEntry): string {
  return serviceProtocol(defaults, proxyDefaults).protocol;
}

/** proxy-defaults `global`, from the entries of its kind. */
export function globalProxyDefaults(entries: readonly ConfigEntry[]): ConfigEntry | undefined {
  return entries.find((e) => e.Name === 'global');
}

/** gRPC clients accept only IP literals as endpoint addresses (grpc-js-xds uses net.isIPv4/isIPv6). */
export function isIpLiteral(address: string): boolean {
  return isIP(address) !== 0;
}
