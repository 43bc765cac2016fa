// Hubs with xDS and the operator tools (in-process, ports 0), and a scripted
// Delta ADS client over real gRPC that answers every response: ACK, or NACK
// when the test's rule says so.
import type { Config } from '../../src/config';
import { ALL_PARTS, type Hub } from '../../src/hub';
import type { Ops } from '../../src/ops/index';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { call, startHub } from '../helpers/hub';
import { until as poll, UNTIL_TIMEOUT_MS } from '../helpers/until';
import { decodeAny, type Plain, ScriptedClient } from '../xds/transport/helpers/client';

export interface OpsHub {
  hub: Hub;
  ops: Ops;
  close(): Promise<void>;
}

export async function startOpsHub(overrides: Partial<Config> = {}): Promise<OpsHub> {
  const hub = await startHub(
    { xdsDebounceMs: 5, xdsMaxDelayMs: 50, ...overrides },
    { grpcGraceMs: 200, parts: ALL_PARTS },
  );
  return { hub, ops: hub.ops, close: () => hub.close() };
}

const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';

export interface AutoClient {
  id: string;
  client: ScriptedClient;
  /** Every response received, with what the client answered. */
  seen: {
    typeUrl: string;
    nonce: string;
    resources: Map<string, string>;
    removed: string[];
    nacked: boolean;
    at: number;
  }[];
  /** What the client holds now (ACKed), per type URL: name → version. */
  held: Map<string, Map<string, string>>;
  close(): void;
}

/**
 * A Delta ADS client subscribed to every Cluster (wildcard) and to the
 * ClusterLoadAssignments named `eds`. `nack(typeUrl, resources)` returns a
 * message to NACK a response with, or undefined to ACK it.
 */
export function autoClient(
  grpcPort: number,
  id: string,
  opts: {
    cluster?: string;
    eds?: string[];
    token?: string;
    nack?: (typeUrl: string, resources: Plain[]) => string | undefined;
  } = {},
): AutoClient {
  const client = new ScriptedClient({
    port: grpcPort,
    path: DELTA_ADS,
    kind: 'delta',
    ...(opts.token === undefined ? {} : { token: opts.token }),
  });
  const out: AutoClient = { id, client, seen: [], held: new Map(), close: () => client.close() };
  const node = { id, cluster: opts.cluster ?? 'test', userAgentName: 'scripted' };
  client.send({ node, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['*'] });
  if (opts.eds?.length) client.send({ typeUrl: TypeUrl.ClusterLoadAssignment, resourceNamesSubscribe: opts.eds });
  void (async () => {
    for (;;) {
      const r = await client.next();
      const resources = new Map<string, string>(
        (r.resources as Plain[]).map((x) => [String(x.name), String(x.version)]),
      );
      const decoded = (r.resources as Plain[]).map((x) => decodeAny(x.resource));
      const message = opts.nack?.(r.typeUrl, decoded);
      out.seen.push({
        typeUrl: r.typeUrl,
        nonce: r.nonce,
        resources,
        removed: r.removedResources,
        nacked: message !== undefined,
        at: Date.now(),
      });
      if (message === undefined) {
        const held = out.held.get(r.typeUrl) ?? new Map<string, string>();
        for (const [n, v] of resources) held.set(n, v);
        for (const n of r.removedResources as string[]) held.delete(n);
        out.held.set(r.typeUrl, held);
        client.send({ typeUrl: r.typeUrl, responseNonce: r.nonce });
      } else client.send({ typeUrl: r.typeUrl, responseNonce: r.nonce, errorDetail: { code: 3, message } });
    }
  })();
  return out;
}

/**
 * Polls `pred` every 10 ms until it holds. The cap only bounds a failing test:
 * it is generous because the machine may be loaded (teammates' suites), and a
 * passing test never waits for it.
 */
export function until<T>(
  pred: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  capMs = UNTIL_TIMEOUT_MS,
): Promise<T> {
  return poll(pred, { what, timeout: capMs });
}

/** Registers service `name` on node `node` through the HTTP API; returns the write's index. */
export async function register(
  hub: Hub,
  name: string,
  port: number,
  node = 'n1',
  extra: Record<string, unknown> = {},
): Promise<bigint> {
  const res = await call(hub, 'PUT', '/v1/catalog/register', {
    Node: node,
    Address: '127.0.0.1',
    Service: { Service: name, ID: `${name}-${port}`, Port: port, ...extra },
  });
  if (res.status !== 200) throw new Error(`register ${name}: ${res.status} ${res.text}`);
  return res.index;
}
