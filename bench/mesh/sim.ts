// A simulated sidecar for bench/mesh: one Delta ADS stream with a proxy's node
// id, subscribing as a sidecar Envoy does — wildcard CDS and LDS, EDS for the
// mesh clusters it is given, SDS for its service's leaf and the trust bundle —
// and ACKing every response. Records bytes and, once armed, when the first
// response carrying a given resource name arrived.
import * as grpc from '@grpc/grpc-js';
import { CDS, DELTA_ADS, deltaRequest, deltaResponse, EDS, now } from '../xds/protocol';

const Req = deltaRequest();
const Res = deltaResponse();
const LDS = 'type.googleapis.com/envoy.config.listener.v3.Listener';
const SDS = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret';

interface Received {
  bytes: number;
  typeUrl: string;
  nonce: string;
  names: string[];
}

export class SimSidecar {
  private call: grpc.ClientDuplexStream<Record<string, unknown>, Received> | undefined;
  private readonly client: grpc.Client;
  private edsAsked = new Set<string>();
  readonly held = new Set<string>();
  bytes = 0;
  responses = 0;
  /** Type URLs of the responses since the last arm (what a change reached this sidecar with). */
  types = new Set<string>();
  private armed: { name: string; since: number } | undefined;
  arrivedAt = 0;
  private readyWaiters: (() => void)[] = [];

  constructor(
    port: number,
    readonly id: string,
    readonly cluster: string,
    /** Names that make it "ready": its public listener, its leaf, the bundle. */
    readonly wanted: readonly string[],
    readonly secrets: readonly string[],
  ) {
    this.client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    });
  }

  open(): void {
    const call = this.client.makeBidiStreamRequest(
      DELTA_ADS,
      (m: Record<string, unknown>) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
      (buf: Buffer): Received => {
        const msg = Res.decode(buf) as unknown as { typeUrl: string; nonce: string; resources: { name: string }[] };
        return { bytes: buf.length, typeUrl: msg.typeUrl, nonce: msg.nonce, names: msg.resources.map((r) => r.name) };
      },
    );
    this.call = call;
    call.on('data', (r: Received) => this.onResponse(r));
    call.on('error', () => undefined);
    call.write({
      node: { id: this.id, cluster: this.cluster, userAgentName: 'envoy' },
      typeUrl: CDS,
      resourceNamesSubscribe: ['*'],
    });
    call.write({ typeUrl: LDS, resourceNamesSubscribe: ['*'] });
    call.write({ typeUrl: SDS, resourceNamesSubscribe: [...this.secrets] });
  }

  private onResponse(r: Received): void {
    this.call!.write({ typeUrl: r.typeUrl, responseNonce: r.nonce });
    this.bytes += r.bytes;
    this.responses++;
    this.types.add(r.typeUrl.slice(r.typeUrl.lastIndexOf('.') + 1));
    for (const n of r.names) this.held.add(n);
    if (r.typeUrl === CDS) {
      const fresh = r.names.filter((n) => n !== 'local_app' && !this.edsAsked.has(n));
      fresh.forEach((n) => this.edsAsked.add(n));
      if (fresh.length > 0) this.call!.write({ typeUrl: EDS, resourceNamesSubscribe: fresh });
    }
    if (this.armed && this.arrivedAt === 0 && r.names.includes(this.armed.name)) this.arrivedAt = now();
    if (this.ready()) this.readyWaiters.splice(0).forEach((w) => w());
  }

  ready(): boolean {
    return this.wanted.every((n) => this.held.has(n));
  }

  whenReady(): Promise<void> {
    return this.ready() ? Promise.resolve() : new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** From now on, note when a response naming `name` arrives; bytes count from zero. */
  arm(name: string): void {
    this.armed = { name, since: now() };
    this.arrivedAt = 0;
    this.bytes = 0;
    this.responses = 0;
    this.types = new Set();
  }

  close(): void {
    this.call?.cancel();
    this.client.close();
  }
}
