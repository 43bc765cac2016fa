// What a filter may select, per kind of data: the field names Consul documents
// for each endpoint, and each field's type. The type decides which operators a
// field takes and how a value is read, as go-bexpr decides from the Go types:
//
//   string            ==, !=, in/contains (substring), matches
//   int, bool         ==, !=   (the value must parse as one)
//   list of strings   in/contains (membership), is empty
//   map of X          in/contains (has key), is empty; `Map.key` / `Map["key"]` selects a value
//   list of structs   is empty; `List.Field` is true when any element matches
//   struct            no operators; `Struct.Field` selects a field
import type { MatchOp } from './ast';

export type Field =
  | { kind: 'string' }
  | { kind: 'int' }
  | { kind: 'bool' }
  | { kind: 'strings' }
  | { kind: 'map'; of: Field }
  | { kind: 'struct'; fields: Fields }
  | { kind: 'structs'; fields: Fields };

export type Fields = Readonly<Record<string, Field>>;

export const STRING: Field = { kind: 'string' };
export const INT: Field = { kind: 'int' };
export const BOOL: Field = { kind: 'bool' };
export const STRINGS: Field = { kind: 'strings' };
export const STRING_MAP: Field = { kind: 'map', of: STRING };
const struct = (fields: Fields): Field => ({ kind: 'struct', fields });
const structs = (fields: Fields): Field => ({ kind: 'structs', fields });

export function operatorsOf(field: Field): readonly MatchOp[] {
  switch (field.kind) {
    case 'string':
      return ['equal', 'notEqual', 'in', 'notIn', 'matches', 'notMatches'];
    case 'int':
    case 'bool':
      return ['equal', 'notEqual'];
    case 'strings':
    case 'map':
      return ['in', 'notIn', 'isEmpty', 'isNotEmpty'];
    case 'structs':
      return ['isEmpty', 'isNotEmpty'];
    case 'struct':
      return [];
  }
}

// ── Consul's data, as its endpoints expose it to filters ──

const WEIGHTS = struct({ Passing: INT, Warning: INT });
const SERVICE_ADDRESS = struct({ Address: STRING, Port: INT });
const UPSTREAM = structs({
  DestinationType: STRING,
  DestinationNamespace: STRING,
  DestinationPartition: STRING,
  DestinationPeer: STRING,
  DestinationName: STRING,
  Datacenter: STRING,
  LocalBindAddress: STRING,
  LocalBindPort: INT,
  LocalBindSocketPath: STRING,
  CentrallyConfigured: BOOL,
});
const PROXY = struct({
  DestinationServiceName: STRING,
  DestinationServiceID: STRING,
  LocalServiceAddress: STRING,
  LocalServicePort: INT,
  LocalServiceSocketPath: STRING,
  Mode: STRING,
  Upstreams: UPSTREAM,
  MeshGateway: struct({ Mode: STRING }),
  TransparentProxy: struct({ OutboundListenerPort: INT, DialedDirectly: BOOL }),
});
const CONNECT = struct({ Native: BOOL });

/** A node (/v1/catalog/nodes). */
export const NODE_FIELDS: Fields = {
  ID: STRING,
  Node: STRING,
  Address: STRING,
  Datacenter: STRING,
  TaggedAddresses: STRING_MAP,
  Meta: STRING_MAP,
};

/** A service on a node (/v1/catalog/node/:n, /node-services/:n, /v1/agent/services). */
export const NODE_SERVICE_FIELDS: Fields = {
  Kind: STRING,
  ID: STRING,
  Service: STRING,
  Tags: STRINGS,
  Address: STRING,
  TaggedAddresses: { kind: 'map', of: SERVICE_ADDRESS },
  Meta: STRING_MAP,
  Port: INT,
  Weights: WEIGHTS,
  EnableTagOverride: BOOL,
  Proxy: PROXY,
  Connect: CONNECT,
};

/** A health check (/v1/health/checks|node|state, /v1/agent/checks). */
export const HEALTH_CHECK_FIELDS: Fields = {
  Node: STRING,
  CheckID: STRING,
  Name: STRING,
  Status: STRING,
  Notes: STRING,
  Output: STRING,
  ServiceID: STRING,
  ServiceName: STRING,
  ServiceTags: STRINGS,
  Type: STRING,
  Interval: STRING,
  Timeout: STRING,
  Definition: struct({
    HTTP: STRING,
    TLSServerName: STRING,
    TLSSkipVerify: BOOL,
    Method: STRING,
    Body: STRING,
    TCP: STRING,
    GRPC: STRING,
    GRPCUseTLS: BOOL,
    Interval: STRING,
    Timeout: STRING,
    DeregisterCriticalServiceAfter: STRING,
  }),
};

/** An instance with its node and checks (/v1/health/service|connect|ingress/:s). */
export const CHECK_SERVICE_NODE_FIELDS: Fields = {
  Node: struct(NODE_FIELDS),
  Service: struct(NODE_SERVICE_FIELDS),
  Checks: structs(HEALTH_CHECK_FIELDS),
};

/** Consul's flattened ServiceNode (/v1/catalog/service|connect/:s, /v1/catalog/services). */
export const SERVICE_NODE_FIELDS: Fields = {
  ID: STRING,
  Node: STRING,
  Address: STRING,
  Datacenter: STRING,
  TaggedAddresses: STRING_MAP,
  NodeMeta: STRING_MAP,
  ServiceKind: STRING,
  ServiceID: STRING,
  ServiceName: STRING,
  ServiceTags: STRINGS,
  ServiceAddress: STRING,
  ServiceTaggedAddresses: { kind: 'map', of: SERVICE_ADDRESS },
  ServiceWeights: WEIGHTS,
  ServiceMeta: STRING_MAP,
  ServicePort: INT,
  ServiceEnableTagOverride: BOOL,
  ServiceProxy: PROXY,
  ServiceConnect: CONNECT,
};
