// A real grpc-js ADS client (Delta or SotW) that carries a token in gRPC
// metadata `x-consul-token`, as Envoy's initial_metadata does: it sends what a
// test says and hands back responses in order, or the stream's final status.
import * as grpc from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';
import { lookupType } from '../../src/xds/transport/envoy-proto';
import { decodeAny, type Plain } from '../xds/transport/helpers/client';

const OPTS: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, arrays: true };
const PATHS = {
  delta: '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources',
  sotw: '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources',
};

export class AdsClient {
  private readonly client: grpc.Client;
  private readonly call: grpc.ClientDuplexStream<Plain, Plain>;
  private readonly queue: Plain[] = [];
  private readonly waiters: ((r: Plain | undefined) => void)[] = [];
  private ended = false;
  readonly status: Promise<grpc.StatusObject>;
  private first = true;

  constructor(
    port: number,
    readonly kind: 'delta' | 'sotw',
    readonly nodeId: string,
    token: string | undefined,
    readonly cluster = 'test',
  ) {
    const req = lookupType(
      `envoy.service.discovery.v3.${kind === 'delta' ? 'DeltaDiscoveryRequest' : 'DiscoveryRequest'}`,
    );
    const res = lookupType(
      `envoy.service.discovery.v3.${kind === 'delta' ? 'DeltaDiscoveryResponse' : 'DiscoveryResponse'}`,
    );
    this.client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    if (token !== undefined) md.set('x-consul-token', token);
    this.call = this.client.makeBidiStreamRequest(
      PATHS[kind],
      (m: Plain) => Buffer.from(req.encode(req.fromObject(m)).finish()),
      (b: Buffer) => res.toObject(res.decode(b), OPTS),
      md,
    );
    this.status = new Promise((resolve) =>
      this.call.on('status', (s) => {
        this.ended = true;
        this.waiters.splice(0).forEach((w) => w(undefined));
        resolve(s);
      }),
    );
    this.call.on('error', () => undefined); // the status promise carries the outcome
    this.call.on('data', (r: Plain) => {
      const w = this.waiters.shift();
      if (w) w(r);
      else this.queue.push(r);
    });
  }

  private node(): Plain | undefined {
    if (!this.first) return undefined;
    this.first = false;
    return { id: this.nodeId, cluster: this.cluster, userAgentName: 'envoy' };
  }

  /** Delta: subscribe to names of a type (['*'] for the wildcard). */
  subscribe(typeUrl: string, names: string[]): void {
    this.call.write({ node: this.node(), typeUrl, resourceNamesSubscribe: names });
  }

  /** SotW: request names of a type ([] for the wildcard), answering `nonce`/`version` when given. */
  request(typeUrl: string, names: string[], version = '', nonce = ''): void {
    this.call.write({ node: this.node(), typeUrl, resourceNames: names, versionInfo: version, responseNonce: nonce });
  }

  /** Delta: ACK a response. */
  ack(r: Plain): void {
    this.call.write({ typeUrl: r.typeUrl, responseNonce: r.nonce });
  }

  /** The next response, or undefined once the stream has ended. */
  next(): Promise<Plain | undefined> {
    const r = this.queue.shift();
    if (r || this.ended) return Promise.resolve(r);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next response of a type (others are acked and kept in `seen`). */
  async nextOf(typeUrl: string, seen: Plain[] = []): Promise<Plain> {
    for (;;) {
      const r = await this.next();
      if (!r) throw new Error(`stream ended before a ${typeUrl} response: ${JSON.stringify(await this.status)}`);
      if (r.typeUrl === typeUrl) return r;
      seen.push(r);
      if (this.kind === 'delta') this.ack(r);
    }
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

/** Names and decoded messages of a response's resources (Delta wraps each in a Resource). */
export function resourcesOf(r: Plain): { name: string; msg: Plain }[] {
  const list = r.resources as Plain[];
  return list.map((x) => {
    const any = x.resource ?? x;
    const msg = decodeAny(any);
    return { name: String(x.name ?? msg.name ?? msg.clusterName), msg };
  });
}
