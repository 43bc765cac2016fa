// Real gRPC plumbing for the Subscribe tests: a server on 127.0.0.1:0 with the
// Subscribe service, and a client built from the project's protos that reads a
// stream as a queue of decoded Events plus its final status.
import * as grpc from '@grpc/grpc-js';
import pino from 'pino';
import type { Event__Output } from '../../src/gen/subscribe/subscribe/Event';
import type { SubscribeRequest } from '../../src/gen/subscribe/subscribe/SubscribeRequest';
import { addSubscribeService } from '../../src/subscribe/grpc';
import { loadSubscribeProto } from '../../src/subscribe/proto';
import type { Publisher } from '../../src/subscribe/types';

export const silent = pino({ level: 'silent' });

export async function startSubscribeServer(
  publisher: Publisher,
  port = 0,
): Promise<{ server: grpc.Server; port: number; address: string; close(): Promise<void> }> {
  const server = new grpc.Server();
  addSubscribeService(server, { publisher, logger: silent, datacenter: 'dc1' });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    server,
    port: bound,
    address: `127.0.0.1:${bound}`,
    close: async () => server.forceShutdown(), // open streams would keep tryShutdown waiting
  };
}

export interface SubscribeClient extends grpc.Client {
  Subscribe(req: SubscribeRequest): grpc.ClientReadableStream<Event__Output>;
}

export function subscribeClient(address: string): SubscribeClient {
  const Ctor = grpc.makeGenericClientConstructor(loadSubscribeProto().service, 'StateChangeSubscription');
  return new Ctor(address, grpc.credentials.createInsecure()) as unknown as SubscribeClient;
}

/** A client stream read as a queue: next() gives the next Event; status settles with the stream's end. */
export class StreamReader<T = Event__Output> {
  private readonly queue: T[] = [];
  private waiter: ((v: T) => void) | undefined;
  readonly status: Promise<grpc.StatusObject>;
  private readonly headers: Promise<void>;
  constructor(readonly call: grpc.ClientReadableStream<T>) {
    this.headers = new Promise((resolve) => call.once('metadata', () => resolve()));
    call.on('data', (m: T) => {
      const w = this.waiter;
      this.waiter = undefined;
      if (w) w(m);
      else this.queue.push(m);
    });
    this.status = new Promise((resolve) => call.on('status', resolve));
    call.on('error', () => {}); // the status promise carries the outcome
  }
  next(): Promise<T> {
    const m = this.queue.shift();
    if (m !== undefined) return Promise.resolve(m);
    return new Promise((resolve) => (this.waiter = resolve));
  }
  async take(n: number): Promise<T[]> {
    const out: T[] = [];
    while (out.length < n) out.push(await this.next());
    return out;
  }
  /** Resolves when the server has registered the subscription (it sends headers then). */
  subscribed(): Promise<void> {
    return this.headers;
  }
  pending(): number {
    return this.queue.length;
  }
}

/** Compact rendering of Events for assertions: "5:register-w1", "eos@5", "nstf", "batch@6[...]". */
export function describe(e: Event__Output): string {
  switch (e.Payload) {
    case 'EndOfSnapshot':
      return `eos@${e.Index}`;
    case 'NewSnapshotToFollow':
      return 'nstf';
    case 'EventBatch':
      return `batch@${e.Index}[${(e.EventBatch?.Events ?? []).map(describe).join(',')}]`;
    case 'ServiceHealth':
      return `${e.Index}:${e.ServiceHealth?.Op.toLowerCase()}-${e.ServiceHealth?.CheckServiceNode?.Service?.ID}`;
    case 'ConfigEntry':
      return `${e.Index}:${e.ConfigEntry?.Op.toLowerCase()}-${e.ConfigEntry?.ConfigEntry?.Name}`;
    case 'Service':
      return `${e.Index}:${e.Service?.Op.toLowerCase()}-${e.Service?.Name}`;
    default:
      return `?${JSON.stringify(e)}`;
  }
}
