// Envoy-in-the-loop harness: a hub with Subscribe and xDS (in process, memory
// log, ports 0), plain HTTP backends that answer with their name, an Envoy
// ingress gateway fed by the hub over a chosen transport, and a client that
// sends real HTTP requests through Envoy.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EnvoyBootstrapOptions, envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import type { Config } from '../../src/config';
import { ALL_PARTS, type Hub, type HubWith } from '../../src/hub';
import { type Envoy, HANG_CAP_MS, startEnvoy } from '../helpers/envoy';
import { startHub } from '../helpers/hub';

export async function startHubWithXds(overrides: Partial<Config> = {}): Promise<HubWith<typeof ALL_PARTS>> {
  const logLevel = process.env['HUB_LOG'] === undefined ? 'silent' : (process.env['HUB_LOG'] as 'debug');
  return startHub({ logLevel, ...overrides }, { grpcGraceMs: 200, parts: ALL_PARTS });
}

/** PUT/DELETE/GET on the hub's HTTP API; throws with the body on a non-2xx answer. */
export async function hubCall(hubUrl: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${hubUrl}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A port that was free a moment ago (ingress-gateway listener ports are fixed by the config entry, 1–65535). */
export { freePort } from '../helpers/ports';

export interface Backend {
  name: string;
  port: number;
  /** Requests this backend answered. */
  hits(): number;
  /** The last request's path and headers. */
  last(): { path: string; headers: http.IncomingHttpHeaders } | undefined;
  close(): Promise<void>;
}

/** A plain HTTP backend on 127.0.0.1:0 that answers 200 with its name (and the path it saw). */
export async function startBackend(
  name: string,
  respond?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean,
): Promise<Backend> {
  let hits = 0;
  let last: { path: string; headers: http.IncomingHttpHeaders } | undefined;
  const server = http.createServer((req, res) => {
    hits++;
    last = { path: req.url ?? '', headers: req.headers };
    req.resume();
    if (respond?.(req, res)) return;
    res.setHeader('content-type', 'text/plain');
    res.setHeader('x-backend', name);
    res.end(name);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    name,
    port,
    hits: () => hits,
    last: () => last,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * A single request gives up after this long: twice Envoy's 15 s route timeout,
 * so anything Envoy does to a request reaches the test as an answer first.
 */
export const REQUEST_GIVE_UP_MS = 30_000;

/** One HTTP/1.1 request through Envoy's listener on 127.0.0.1:port. */
export function request(
  port: number,
  path = '/',
  options: { host?: string; method?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        agent,
        headers: { host: options.host ?? 'svc', ...options.headers },
        timeout: options.timeoutMs ?? REQUEST_GIVE_UP_MS,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Resolves once `count` requests in a row got 200 from one of `names` and each
 * name answered at least once; rejects after capMs with what was seen.
 */
export async function untilServedBy(
  envoy: Envoy,
  port: number,
  names: string | readonly string[],
  opts: { path?: string; host?: string; count?: number; capMs?: number } = {},
): Promise<void> {
  const wanted = new Set(typeof names === 'string' ? [names] : names);
  const count = opts.count ?? Math.max(6, wanted.size * 4);
  let recent: string[] = [];
  await envoy.until(
    async () => {
      let answer: string;
      try {
        const res = await request(port, opts.path ?? '/', { host: opts.host, timeoutMs: 10_000 });
        answer = res.status === 200 ? res.body : `${res.status}:${res.body.slice(0, 60)}`;
      } catch (err) {
        answer = `error:${(err as Error).message}`;
      }
      recent = [...recent, answer].slice(-count);
      return (
        recent.length === count && recent.every((a) => wanted.has(a)) && [...wanted].every((w) => recent.includes(w))
      );
    },
    () => `traffic served by ${[...wanted].join('+')} (last: ${recent.join(',')})`,
    opts.capMs ?? HANG_CAP_MS,
  );
}

export type Transport = 'delta-ads' | 'sotw-ads' | 'delta' | 'sotw' | 'rest';
export const TRANSPORTS: readonly Transport[] = ['delta-ads', 'sotw-ads', 'delta', 'sotw', 'rest'];

export function bootstrapFor(
  hub: Hub,
  transport: Transport,
  node: { id: string; cluster: string },
  extra: Partial<EnvoyBootstrapOptions> = {},
): Record<string, any> {
  return envoyBootstrap({
    nodeId: node.id,
    cluster: node.cluster,
    transport: transport.startsWith('delta') ? 'delta' : transport.startsWith('sotw') ? 'sotw' : 'rest',
    ads: transport.endsWith('-ads'),
    adminBind: '127.0.0.1:0',
    grpcAddr: `127.0.0.1:${hub.grpcPort}`,
    httpAddr: `127.0.0.1:${hub.httpPort}`,
    refreshDelayMs: 200,
    datacenter: 'dc1',
    ...extra,
  });
}

/** An Envoy gateway: node.cluster = the ingress-gateway entry's name. */
export async function startGateway(
  hub: Hub,
  transport: Transport,
  gateway: string,
  id = `${gateway}-${transport}`,
): Promise<Envoy> {
  return startEnvoy({ bootstrap: bootstrapFor(hub, transport, { id, cluster: gateway }) });
}

/** Total NACKs the hub recorded (its admin counter). */
export async function hubNacks(hub: Hub): Promise<number> {
  const text = await (await fetch(`${hub.httpUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^xdshub_xds_nacks_total(?:\{[^}]*\})? (\d+)/.exec(line);
    if (m) total += Number(m[1]);
  }
  return total;
}
