// A real hub (memory log, HTTP and gRPC on port 0) with the Subscribe service
// attached, writes over real HTTP, and a background writer that keeps the hub
// busy with unrelated registrations while the tests' streams are open.
import type { Hub } from '../../src/hub';
import type { HubPublisher } from '../../src/subscribe/publisher';
import { startHub } from '../helpers/hub';
import { type SubscribeClient, subscribeClient } from './grpc-helpers';

export interface SubscribeHub {
  hub: Hub;
  publisher: HubPublisher;
  client: SubscribeClient;
  /** PUT /v1/catalog/register over the socket; resolves with X-Consul-Index. */
  register(body: Record<string, unknown>): Promise<bigint>;
  deregister(body: Record<string, unknown>): Promise<bigint>;
  instance(service: string, id: string, node?: string, meta?: Record<string, string>): Promise<bigint>;
  /** Starts writing unrelated registrations until stop() (which resolves with how many were written). */
  churn(): { stop(): Promise<number> };
  close(): Promise<void>;
}

export async function startSubscribeHub(
  options: { maxLag?: number; snapshotCacheTtlMs?: number } = {},
): Promise<SubscribeHub> {
  const hub = await startHub(
    { snapshotCacheTtlMs: options.snapshotCacheTtlMs ?? 10_000 },
    {
      grpcGraceMs: 100,
      parts: { subscribe: true },
      ...(options.maxLag !== undefined ? { publisher: { maxLag: options.maxLag } } : {}),
    },
  );
  const { publisher } = hub;
  const client = subscribeClient(`127.0.0.1:${hub.grpcPort}`);

  async function put(path: string, body: Record<string, unknown>): Promise<bigint> {
    const res = await fetch(`${hub.httpUrl}${path}`, {
      method: 'PUT',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    return BigInt(res.headers.get('x-consul-index') ?? '0');
  }
  const register = (body: Record<string, unknown>) => put('/v1/catalog/register', body);

  return {
    hub,
    publisher,
    client,
    register,
    deregister: (body) => put('/v1/catalog/deregister', body),
    instance: (service, id, node = 'n1', meta = {}) =>
      register({ Node: node, Address: '10.0.0.1', Service: { ID: id, Service: service, Port: 8080, Meta: meta } }),
    churn() {
      let running = true;
      let count = 0;
      const loop = (async () => {
        while (running) {
          await register({
            Node: 'churn-node',
            Address: '10.9.9.9',
            Service: { ID: `c${count % 20}`, Service: 'churn', Port: 1000 + count },
          });
          count++;
        }
      })();
      return {
        async stop() {
          running = false;
          await loop;
          return count;
        },
      };
    },
    async close() {
      client.close();
      await hub.close();
    },
  };
}
