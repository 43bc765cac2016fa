// Envoy's own verdict on resources before any node receives them (#25): the
// resources go into a bootstrap as static resources and `envoy --mode
// validate` loads it, so what Envoy would NACK is reported with Envoy's own
// message. Envoy takes clusters and listeners statically, not routes or
// endpoints, so each RouteConfiguration rides inline in a listener of its own
// and each ClusterLoadAssignment in a STATIC cluster of its own; EDS clusters
// and RDS listeners keep their ADS config sources (the bootstrap names an ADS
// server it never dials). API listeners (proxyless gRPC's) are left out. When
// the whole set fails, each resource is tried alone to name the ones Envoy
// rejects. docs/operator-tools.md, "Envoy validation".
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { XdsResource } from '../xds/transport/provider';
import { type NodeResources, type ResourceDiff, resourceJson, type TypeRest } from './diff';

type Json = Record<string, unknown>;

export interface ValidatedResource {
  type: TypeRest;
  name: string;
  /** proto3 JSON (as resourceJson gives it); `@type` is dropped. */
  resource: Json;
}

export interface EnvoyRejection {
  /** The resource Envoy rejected alone; absent when only the set as a whole fails. */
  type?: TypeRest;
  name?: string;
  message: string;
}

export type EnvoyVerdict = { ok: true; ms: number } | { ok: false; rejected: EnvoyRejection[]; ms: number };

export interface EnvoyValidateOptions {
  /** Per Envoy run (default 30 s): a run that takes longer counts as a failure to validate, not a rejection. */
  timeoutMs?: number;
}

const ADS_CLUSTER = 'xdshub-validate-ads';
const ADS = { apiType: 'GRPC', transportApiVersion: 'V3', grpcServices: [{ envoyGrpc: { clusterName: ADS_CLUSTER } }] };
const ROUTER = {
  name: 'envoy.filters.http.router',
  typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
};
const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const HTTP2 = {
  'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
    '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
    explicitHttpConfig: { http2ProtocolOptions: {} },
  },
};

function withoutType(r: Json): Json {
  const { '@type': _type, ...rest } = r;
  return rest;
}

const address = (port: number) => ({ socketAddress: { address: '127.0.0.1', portValue: port } });

/** The bootstrap carrying `resources` as static resources (ports are never bound in validate mode). */
export function validationBootstrap(resources: readonly ValidatedResource[]): Json {
  const listeners: Json[] = [];
  const clusters: Json[] = [
    {
      name: ADS_CLUSTER,
      type: 'STATIC',
      connectTimeout: '1s',
      typedExtensionProtocolOptions: HTTP2,
      loadAssignment: {
        clusterName: ADS_CLUSTER,
        endpoints: [{ lbEndpoints: [{ endpoint: { address: address(1) } }] }],
      },
    },
  ];
  resources.forEach(({ type, name, resource }, i) => {
    const r = withoutType(resource);
    if (type === 'clusters') clusters.push(r);
    // An API listener is for proxyless gRPC clients: Envoy has none to check it with.
    else if (type === 'listeners') {
      if (!('apiListener' in r)) listeners.push(r);
    } else if (type === 'endpoints') {
      const cluster = `xdshub-validate-eds-${i}`;
      const loadAssignment = { ...r, clusterName: cluster };
      clusters.push({ name: cluster, type: 'STATIC', connectTimeout: '1s', loadAssignment });
    } else {
      // Routes from RDS are not held to clusters Envoy knows (validate_clusters defaults to false there).
      const routeConfig = { ...r, validateClusters: false };
      const hcm = { '@type': HCM, statPrefix: `validate_${i}`, routeConfig, httpFilters: [ROUTER] };
      const filter = { name: 'envoy.filters.network.http_connection_manager', typedConfig: hcm };
      const listener = `xdshub-validate-rds-${i}-${name}`;
      listeners.push({ name: listener, address: address(20_000 + i), filterChains: [{ filters: [filter] }] });
    }
  });
  return {
    node: { id: 'xdshub-validate', cluster: 'xdshub-validate' },
    staticResources: { listeners, clusters },
    dynamicResources: { adsConfig: ADS },
  };
}

/** Envoy's message out of its log: the text after "error initializing configuration '…': ". */
export function envoyMessage(output: string): string {
  const m = /error initializing configuration '[^']*': ([^\n]*)/.exec(output);
  return (m?.[1] ?? output.trim().split('\n').at(-1) ?? '').trim();
}

function runEnvoy(binary: string, file: string, timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const args = ['--mode', 'validate', '-c', file, '--log-level', 'error'];
    execFile(binary, args, { timeout: timeoutMs, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (!err) resolve({ ok: true, output });
      else if (err.killed || typeof err.code !== 'number') {
        reject(new Error(`envoy --mode validate did not finish: ${err.message}`));
      } else resolve({ ok: false, output });
    });
  });
}

/** Runs Envoy's validation on `resources`; when the set fails, each one alone (two at a time) to name the culprits. */
export async function envoyValidate(
  binary: string,
  resources: readonly ValidatedResource[],
  options: EnvoyValidateOptions = {},
): Promise<EnvoyVerdict> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const dir = await mkdtemp(join(tmpdir(), 'xdshub-envoy-validate-'));
  let n = 0;
  const check = async (set: readonly ValidatedResource[]) => {
    const file = join(dir, `bootstrap-${n++}.json`);
    await writeFile(file, JSON.stringify(validationBootstrap(set)));
    return runEnvoy(binary, file, timeoutMs);
  };
  try {
    const whole = await check(resources);
    if (whole.ok) return { ok: true, ms: performance.now() - started };
    const rejected: EnvoyRejection[] = [];
    const queue = [...resources];
    const worker = async () => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        const alone = await check([r]);
        if (!alone.ok) rejected.push({ type: r.type, name: r.name, message: envoyMessage(alone.output) });
      }
    };
    await Promise.all([worker(), worker()]);
    if (rejected.length === 0) rejected.push({ message: envoyMessage(whole.output) });
    rejected.sort((a, b) => (`${a.type}/${a.name}` < `${b.type}/${b.name}` ? -1 : 1));
    return { ok: false, rejected, ms: performance.now() - started };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The one call a dry run (or a rollout, before its canary) makes: Envoy's
 * verdict on what `diff` adds or changes, taken from the resources a node
 * would hold afterwards (`after`, as coveredResources gives them).
 */
export function validateChanges(
  binary: string,
  after: NodeResources,
  diff: ResourceDiff,
  options?: EnvoyValidateOptions,
): Promise<EnvoyVerdict> {
  const picked: ValidatedResource[] = [];
  for (const ref of [...diff.added, ...diff.changed]) {
    const res: XdsResource | undefined = after[ref.type].get(ref.name);
    if (res) picked.push({ type: ref.type, name: ref.name, resource: resourceJson(res) });
  }
  if (picked.length === 0) return Promise.resolve({ ok: true, ms: 0 });
  return envoyValidate(binary, picked, options);
}
