// Scripted xDS clients over real grpc-js: they send exactly what a test says
// and hand back every response in order. Messages are encoded with the
// upstream Envoy protos (v3) or the project's v2 protos, independently of the
// server's hand framing.
import * as grpc from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';
import { lookupType, typeOfUrl } from '../../../../src/xds/transport/envoy-proto';
import { v3TypeUrlOf } from '../../../../src/xds/transport/resource-types';
import { v2Root } from '../../../../src/xds/transport/v2-proto';

export type Plain = Record<string, any>;

const OPTS: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, arrays: true };

function msgType(api: 'v3' | 'v2', name: string): protobuf.Type {
  return api === 'v3' ? lookupType(`envoy.service.discovery.v3.${name}`) : v2Root().lookupType(`envoy.api.v2.${name}`);
}

export interface ClientOptions {
  port: number;
  path: string;
  kind: 'sotw' | 'delta';
  api?: 'v3' | 'v2';
  /** Sent as gRPC metadata `x-consul-token`, as Envoy's initial_metadata does (ACLs on). */
  token?: string;
}

function metadataWith(token: string | undefined): grpc.Metadata {
  const md = new grpc.Metadata();
  if (token !== undefined) md.set('x-consul-token', token);
  return md;
}

export class ScriptedClient {
  readonly responses: Plain[] = [];
  private readonly waiters: ((r: Plain) => void)[] = [];
  private readonly queue: Plain[] = [];
  readonly status: Promise<grpc.StatusObject>;
  private readonly client: grpc.Client;
  private readonly call: grpc.ClientDuplexStream<Plain, Plain>;

  constructor(readonly opts: ClientOptions) {
    const api = opts.api ?? 'v3';
    const req = msgType(api, opts.kind === 'sotw' ? 'DiscoveryRequest' : 'DeltaDiscoveryRequest');
    const res = msgType(api, opts.kind === 'sotw' ? 'DiscoveryResponse' : 'DeltaDiscoveryResponse');
    this.client = new grpc.Client(`127.0.0.1:${opts.port}`, grpc.credentials.createInsecure());
    this.call = this.client.makeBidiStreamRequest(
      opts.path,
      (m: Plain) => Buffer.from(req.encode(req.fromObject(m)).finish()),
      (b: Buffer) => res.toObject(res.decode(b), OPTS),
      metadataWith(opts.token),
    );
    this.status = new Promise((resolve) => this.call.on('status', resolve));
    this.call.on('error', () => undefined); // the status promise carries the outcome
    this.call.on('data', (r: Plain) => {
      this.responses.push(r);
      const w = this.waiters.shift();
      if (w) w(r);
      else this.queue.push(r);
    });
  }

  send(m: Plain): void {
    this.call.write(m);
  }

  /** The next response, in order. */
  next(): Promise<Plain> {
    const r = this.queue.shift();
    if (r) return Promise.resolve(r);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Responses received but not yet taken with next(). */
  get unread(): number {
    return this.queue.length;
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

/** Resource names in a SotW response (decoding the Any, or the Resource wrapper inside it). */
export function sotwNames(r: Plain): string[] {
  return (r.resources as Plain[]).map((a) => {
    const m = decodeAny(a);
    return String(m.name ?? m.clusterName); // a ClusterLoadAssignment is named by cluster_name
  });
}

/** Decodes an Any (v2 type URLs are read as the v3 message with the same field numbers). */
export function decodeAny(a: Plain): Plain {
  const url = String(a.type_url); // protobufjs bundles Any with its proto field names
  const t = typeOfUrl(v3TypeUrlOf(url) ?? url);
  return t.toObject(t.decode(a.value), OPTS);
}

/** Decodes an Any whose type URL names a v3 message (v2 URLs mapped by the caller). */
export function decodeAs(typeName: string, bytes: Uint8Array): Plain {
  const t = lookupType(typeName);
  return t.toObject(t.decode(bytes), OPTS);
}

export const node = (id: string, features: string[] = []): Plain => ({
  id,
  cluster: 'test',
  clientFeatures: features,
  userAgentName: 'scripted',
});
