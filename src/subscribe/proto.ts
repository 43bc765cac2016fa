// Loads the project's Subscribe protos (proto/pbsubscribe and what it imports)
// once, for both the gRPC service definition and protobufjs message types.
//
// Options: keepCase so field names stay Consul's PascalCase (Index,
// EndOfSnapshot, NamedSubject) in objects on both sides; longs as decimal
// strings (uint64 indexes); enums as their names ("ServiceHealth",
// "Deregister"); defaults and oneofs so a decoded Event always has `Payload`
// naming the member that is set. src/gen/ is generated with the same options
// (scripts/gen-types.sh), so its *__Output types describe what arrives.

import type { ServiceDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type * as protobuf from 'protobufjs';
import { loadProtoRoot, protoDir } from '../proto-dir';

export const PROTO_ROOT = protoDir();
export const SUBSCRIBE_PROTO_FILE = 'pbsubscribe/subscribe.proto';
export const SUBSCRIBE_METHOD_PATH = '/subscribe.StateChangeSubscription/Subscribe';

export const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;

export interface SubscribeProto {
  /** grpc-js service definition for StateChangeSubscription (server.addService / makeGenericClientConstructor). */
  service: ServiceDefinition;
  /** The protobufjs root holding every message of the Subscribe wire format. */
  root: protobuf.Root;
  Event: protobuf.Type;
  SubscribeRequest: protobuf.Type;
  /** Encodes a plain Event object (PascalCase fields, decimal-string indexes, enum names). */
  encodeEvent(event: object): Buffer;
  /** Decodes Event bytes with LOADER_OPTIONS, as a grpc-js client would. */
  decodeEvent(bytes: Uint8Array): Record<string, unknown>;
}

let cached: SubscribeProto | undefined;

export function loadSubscribeProto(): SubscribeProto {
  if (cached !== undefined) return cached;
  const packageDefinition = protoLoader.loadSync(SUBSCRIBE_PROTO_FILE, {
    ...LOADER_OPTIONS,
    includeDirs: [PROTO_ROOT],
  });
  const serviceDef = packageDefinition['subscribe.StateChangeSubscription'] as unknown as ServiceDefinition;
  const root = loadRoot();
  const Event = root.lookupType('subscribe.Event');
  const SubscribeRequest = root.lookupType('subscribe.SubscribeRequest');
  cached = {
    service: serviceDef,
    root,
    Event,
    SubscribeRequest,
    encodeEvent: (event) => Buffer.from(Event.encode(Event.fromObject(event)).finish()),
    decodeEvent: (bytes) => Event.toObject(Event.decode(bytes), LOADER_OPTIONS) as Record<string, unknown>,
  };
  return cached;
}

// Same resolution as proto-loader: project protos from PROTO_ROOT, google/protobuf/*
// from the definitions bundled with protobufjs.
function loadRoot(): protobuf.Root {
  return loadProtoRoot([PROTO_ROOT], [SUBSCRIBE_PROTO_FILE], { keepCase: true });
}
