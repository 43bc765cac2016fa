// The catalog's data, in Consul's JSON API shape (PascalCase), so the HTTP layer
// can return it as-is. CreateIndex/ModifyIndex are JSON numbers here (Consul's
// API does the same); log positions elsewhere are bigint.
import type { ConfigEntryKind } from './config-kinds';
import { Topic } from './topics';

export type HealthStatus = 'passing' | 'warning' | 'critical' | 'maintenance';

export interface Locality {
  Region: string;
  Zone: string;
}

export interface Node {
  ID: string;
  Node: string;
  Address: string;
  Datacenter: string;
  TaggedAddresses: Record<string, string>;
  Meta: Record<string, string>;
  Locality?: Locality;
  Partition?: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export interface ServiceAddress {
  Address: string;
  Port: number;
}

export interface Weights {
  Passing: number;
  Warning: number;
}

export interface NodeService {
  Kind: string; // "" | "connect-proxy" | "mesh-gateway" | "terminating-gateway" | "ingress-gateway"
  ID: string;
  Service: string;
  Tags: string[];
  Address: string;
  TaggedAddresses: Record<string, ServiceAddress>;
  Meta: Record<string, string>;
  Port: number;
  Weights: Weights;
  EnableTagOverride: boolean;
  /** Connect proxy settings, as Consul's JSON (kept opaque beyond DestinationServiceName). */
  Proxy?: { DestinationServiceName?: string; DestinationServiceID?: string; [k: string]: unknown };
  Connect?: { Native?: boolean; [k: string]: unknown };
  Namespace?: string;
  Partition?: string;
  Locality?: Locality;
  CreateIndex: number;
  ModifyIndex: number;
}

export interface HealthCheckDefinition {
  HTTP?: string;
  TCP?: string;
  GRPC?: string;
  Method?: string;
  Interval?: string; // Go duration string, e.g. "10s"
  Timeout?: string;
  TTL?: string;
  DeregisterCriticalServiceAfter?: string;
  [k: string]: unknown;
}

export interface HealthCheck {
  Node: string;
  CheckID: string;
  Name: string;
  Status: HealthStatus;
  Notes: string;
  Output: string;
  ServiceID: string;
  ServiceName: string;
  ServiceTags: string[];
  Type: string; // "ttl" | "http" | "tcp" | "grpc" | "" ...
  Interval: string;
  Timeout: string;
  Definition: HealthCheckDefinition;
  Namespace?: string;
  Partition?: string;
  CreateIndex: number;
  ModifyIndex: number;
}

/** One instance with its node and every check that applies to it (node-level checks included). */
export interface CheckServiceNode {
  Node: Node;
  Service: NodeService;
  Checks: HealthCheck[];
}

/** A config entry as Consul's /v1/config returns it: Kind, Name, kind-specific fields, indexes. */
export interface ConfigEntry {
  Kind: ConfigEntryKind;
  Name: string;
  Namespace?: string;
  Partition?: string;
  Meta?: Record<string, string>;
  CreateIndex: number;
  ModifyIndex: number;
  [field: string]: unknown;
}

export { CONFIG_ENTRY_KINDS, CONFIG_TOPIC_BY_KIND } from './config-kinds';
export type { ConfigEntryKind };
export { Topic };

/** Subject of every ServiceList event (Consul's SubjectNone); consumed only by wildcard. */
export const SUBJECT_NONE = 'none';
/** Consul's wildcard subject string. */
export const SUBJECT_WILDCARD = '\u2663';

export type EventPayload =
  | { type: 'service-health'; op: 'register' | 'deregister'; csn: CheckServiceNode }
  | { type: 'config-entry'; op: 'upsert' | 'delete'; entry: ConfigEntry }
  | { type: 'service-list'; op: 'register' | 'deregister'; name: string; namespace: string; partition: string };

/**
 * One change as Consul's state store would publish it. Events produced by one
 * log entry share that entry's index.
 * Subjects: health topics → lower-cased service name; config topics →
 * "<partition>/<namespace>/<name>" with "default" for empty; ServiceList → SUBJECT_NONE.
 */
export interface CatalogEvent {
  topic: Topic;
  subject: string;
  index: bigint;
  payload: EventPayload;
}
