// The config entry kinds the hub stores, declared once. Each entry carries what
// the hub knows about its kind outside its body's validation: its name on the
// Subscribe wire (Consul's configentry.Kind value and the oneof member holding
// the body), its Subscribe topic, whether the xDS translation watches it, and
// the ACL right reading or writing an entry of it needs. Every other table
// about kinds derives from this one (types.ts, subscribe/wire.ts,
// materializer/from-wire.ts, xds/translate/view-inputs.ts, acl/catalog-rules.ts).
// A kind's body validator lives with the HTTP translation, in
// http/translate/config-entries.ts `VALIDATORS`, a record over every kind: a
// kind added here fails the build there until it has one, and
// test/catalog/config-kinds.test.ts checks each entry end to end.
import type { Level, Resource } from '../acl/authorizer';
import { Topic } from './topics';

/** The right an ACL check asks for: a resource, and the name for named resources. */
export interface ConfigKindRight {
  resource: Resource;
  name?: string;
}

export interface ConfigKindSpec {
  /** Consul's configentry.Kind enum value and the Subscribe oneof member holding the body. */
  readonly wire: { readonly kind: string; readonly member: string };
  readonly topic: Topic;
  /** The xDS translation reads it: the catalog provider watches its view. */
  readonly xds: boolean;
  /** The right reading (`read`) or writing (`write`) the entry named `name` needs; undefined: anyone may. */
  right(name: string, level: Level): ConfigKindRight | undefined;
}

const onService = (name: string): ConfigKindRight => ({ resource: 'service', name });
const onMesh = (): ConfigKindRight => ({ resource: 'mesh' });

/** Every kind, in the order lists of kinds are shown. Consul's rights for each (docs/security.md). */
export const CONFIG_KINDS = {
  'service-defaults': {
    wire: { kind: 'KindServiceDefaults', member: 'ServiceDefaults' },
    topic: Topic.ServiceDefaults,
    xds: true,
    right: onService,
  },
  'service-resolver': {
    wire: { kind: 'KindServiceResolver', member: 'ServiceResolver' },
    topic: Topic.ServiceResolver,
    xds: true,
    right: onService,
  },
  'ingress-gateway': {
    wire: { kind: 'KindIngressGateway', member: 'IngressGateway' },
    topic: Topic.IngressGateway,
    xds: true,
    right: (name, level) => (level === 'read' ? onService(name) : onMesh()),
  },
  'http-route': {
    wire: { kind: 'KindHTTPRoute', member: 'HTTPRoute' },
    topic: Topic.HTTPRoute,
    xds: true,
    right: onMesh,
  },
  mesh: {
    wire: { kind: 'KindMeshConfig', member: 'MeshConfig' },
    topic: Topic.MeshConfig,
    xds: true,
    right: (_name, level) => (level === 'read' ? undefined : onMesh()),
  },
  'service-intentions': {
    wire: { kind: 'KindServiceIntentions', member: 'ServiceIntentions' },
    topic: Topic.ServiceIntentions,
    xds: true,
    right: (name) => ({ resource: 'intention', name }),
  },
  'service-router': {
    wire: { kind: 'KindServiceRouter', member: 'ServiceRouter' },
    topic: Topic.ServiceRouter,
    xds: true,
    right: onService,
  },
  'service-splitter': {
    wire: { kind: 'KindServiceSplitter', member: 'ServiceSplitter' },
    topic: Topic.ServiceSplitter,
    xds: true,
    right: onService,
  },
  // The singleton `global` (docs/catalog.md "proxy-defaults"). Consul 1.16's
  // ProxyConfigEntry: anyone reads it, writing needs mesh:write (operator:write without a mesh rule).
  'proxy-defaults': {
    wire: { kind: 'KindProxyDefaults', member: 'ProxyDefaults' },
    topic: Topic.ProxyDefaults,
    xds: true,
    right: (_name, level) => (level === 'read' ? undefined : onMesh()),
  },
  // Consul 1.16's TerminatingGatewayConfigEntry: reading needs service:read on the gateway, writing mesh:write.
  'terminating-gateway': {
    wire: { kind: 'KindTerminatingGateway', member: 'TerminatingGateway' },
    topic: Topic.TerminatingGateway,
    xds: true,
    right: (name, level) => (level === 'read' ? onService(name) : onMesh()),
  },
} as const satisfies Record<string, ConfigKindSpec>;

export type ConfigEntryKind = keyof typeof CONFIG_KINDS;

export const CONFIG_ENTRY_KINDS = Object.keys(CONFIG_KINDS) as readonly ConfigEntryKind[];

/** The registry entry of `kind`. */
export function configKind(kind: ConfigEntryKind): ConfigKindSpec {
  return CONFIG_KINDS[kind];
}

export function isConfigEntryKind(kind: string): kind is ConfigEntryKind {
  return Object.hasOwn(CONFIG_KINDS, kind);
}

export const CONFIG_TOPIC_BY_KIND = Object.fromEntries(
  CONFIG_ENTRY_KINDS.map((kind) => [kind, CONFIG_KINDS[kind].topic]),
) as Readonly<Record<ConfigEntryKind, Topic>>;

/** The kinds the xDS translation reads. */
export const XDS_WATCHED_KINDS: readonly ConfigEntryKind[] = CONFIG_ENTRY_KINDS.filter((k) => CONFIG_KINDS[k].xds);

/** Consul's configentry.Kind wire value → the kind. */
export const KIND_BY_WIRE: ReadonlyMap<string, ConfigEntryKind> = new Map(
  CONFIG_ENTRY_KINDS.map((kind) => [CONFIG_KINDS[kind].wire.kind, kind]),
);
