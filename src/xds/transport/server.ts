// The xDS server: every v3 and v2 service on one grpc.Server, the push
// pipeline, heartbeats, admission of new streams, metrics and admin views.
import type {
  Server,
  ServerDuplexStream,
  ServerUnaryCall,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../../config';
import { grpcStatusOf, HubError, isHubError } from '../../errors';
import { noteLargeWrite } from '../../heap-growth';
import { moduleLogger } from '../../logger';
import {
  createMemoryTrimmer,
  MEMORY_TRIM_DEFAULTS,
  type MemoryTrimOptions,
  type MemoryTrimStats,
} from '../../memory-trim';
import { admitStream, refusalLog, type StreamCounter } from '../../stream-limits';
import { type ClientInfo, clientInfo, type NodeConfig, nodeConfig } from './admin';
import { createAdmission, MAX_HEAP_SHARE } from './admission';
import { BodyCache } from './body-cache';
import type { XdsCallbacks } from './callbacks';
import { type FetchResult, fetchSotw } from './fetch';
import { tooManyNames } from './limits';
import { createXdsMetrics, type XdsMetrics } from './metrics';
import { nameInterner } from './name-sets';
import type { StreamPacing } from './pacing';
import type { ResourceProvider, XdsNode } from './provider';
import { PushPipeline } from './push';
import { RESOURCE_TYPES, type ResourceType } from './resource-types';
import { serviceDefinitions, type XdsMethod } from './services';
import { StepMemo } from './step-memo';
import { type StreamDeps, XdsStream } from './stream';
import { createSyncGate, type SyncGateOptions } from './sync-gate';
import { type ApiVersion, decodeSotwRequest, type SotwRequest, type XdsResponse } from './wire';

export type XdsConfig = Pick<
  Config,
  'resourceTtlMs' | 'heartbeatIntervalMs' | 'xdsDebounceMs' | 'xdsMaxDelayMs' | 'xdsMaxStreams' | 'memoryTrim'
> &
  Partial<Pick<Config, 'resourceTtlTypes'>>;

export interface XdsServerOptions {
  provider: ResourceProvider;
  config: XdsConfig;
  logger: Logger;
  registry?: Registry;
  /** Initial-sync concurrency (see sync-gate.ts); defaults to SYNC_GATE_DEFAULTS. */
  syncGate?: Partial<SyncGateOptions>;
  /** When and how to trim after large writes; defaults to MEMORY_TRIM_DEFAULTS (switched by config.memoryTrim). */
  memoryTrim?: Partial<Pick<MemoryTrimOptions, 'minBytes' | 'idleMs' | 'maxDelayMs' | 'trim' | 'rss'>>;
  /**
   * The features' callbacks (callbacks.ts): admission once a stream or fetch names
   * its node (ACLs: throw a HubError to refuse), every response and every ACK/NACK
   * (the per-node history, rollouts).
   */
  callbacks?: XdsCallbacks;
  /** Replaces the pacing built from the config (pacing.ts: push window, sync gate, trim notes). */
  pacing?: StreamPacing;
  /** Streams per gRPC connection, counted with Subscribe's (--grpc-max-streams-per-connection). */
  connections?: StreamCounter;
  /** Resource names one request may name (--xds-max-resource-names); unbounded when absent. */
  maxResourceNames?: number;
  /** Streams in the same state share their rule steps (step-memo.ts); true by default (false: tests that compare). */
  shareSteps?: boolean;
}

/** The metadata key an xDS client's token travels in (Consul's). */
const TOKEN_METADATA_KEY = 'x-consul-token';

export interface XdsServer {
  /** Registers every v3 and v2 xDS service on the server. */
  addTo(server: Server): void;
  /** Per-stream state for GET /v1/xds/clients. */
  clients(): ClientInfo[];
  /** What a node gets now (connected by id, or offline by id + cluster). */
  configFor(nodeId: string, cluster?: string): NodeConfig | undefined;
  /** One-shot SotW fetch (REST, unary Fetch*). Throws HubError on bad input. */
  fetch(type: ResourceType, api: ApiVersion, req: SotwRequest): FetchResult;
  /** Live streams (for tests and admin). */
  streams(): readonly XdsStream[];
  /** The malloc_trim that follows bursts of initial syncs (memory-trim.ts). */
  memoryTrim(): MemoryTrimStats;
  /** Delivers coalesced changes now instead of at the end of the debounce window. */
  flushChanges(): void;
  /** Rule steps taken from a stream of the same class, and computed; response steps held (step-memo.ts; tests, bench). */
  stepStats(): { hits: number; misses: number; held: number };
  readonly metrics: XdsMetrics;
  /** Ends every stream with UNAVAILABLE and stops the pipeline. */
  close(): void;
}

/** The most polling nodes the admin view remembers (oldest forgotten first). */
const MAX_POLLED_NODES = 10_000;

/** What the server's parts share: its options, the live streams, the pipeline and the per-stream dependencies. */
interface ServerCore {
  readonly options: XdsServerOptions;
  readonly logger: Logger;
  readonly live: Set<XdsStream>;
  readonly metrics: XdsMetrics;
  readonly pipeline: PushPipeline;
  readonly trimmer: ReturnType<typeof createMemoryTrimmer>;
  readonly bodyCache: BodyCache;
  readonly steps: StepMemo;
  readonly deps: StreamDeps;
  /** Nodes that fetch without a stream (REST polling), so the admin view can show what they get. */
  readonly polled: Map<string, XdsNode>;
  closing: boolean;
}

function serverCore(options: XdsServerOptions): ServerCore {
  const { provider, config } = options;
  const logger = moduleLogger(options.logger, 'xds');
  const live = new Set<XdsStream>();
  const metrics = createXdsMetrics(options.registry, () => subscriptionCounts(live));
  const steps = new StepMemo();
  // The pipeline and the streams share steps through it unless told not to.
  const sharing = options.shareSteps === false ? {} : { steps };
  const pipeline = new PushPipeline(provider, {
    debounceMs: config.xdsDebounceMs,
    maxDelayMs: config.xdsMaxDelayMs,
    ...sharing,
  });
  const bodyCache = new BodyCache();
  // Initial syncs are the large writes; the trim after a burst of them gives their freed memory back (memory-trim.ts).
  const trimmer = createMemoryTrimmer({
    ...MEMORY_TRIM_DEFAULTS,
    ...options.memoryTrim,
    enabled: config.memoryTrim,
    logger,
    ...(options.registry ? { registry: options.registry } : {}),
  });
  const syncGate = createSyncGate(options.syncGate);
  const deps: StreamDeps = {
    get: (typeUrl, node) => provider.get(typeUrl, node),
    resourceTtlMs: config.resourceTtlMs,
    resourceTtlTypes: config.resourceTtlTypes ?? [],
    logger,
    metrics,
    bodyCache,
    ...sharing,
    pacing: options.pacing ?? {
      syncGate,
      largeWritten: (bytes) => {
        trimmer.note(bytes);
        noteLargeWrite();
      },
      windowOpen: () => pipeline.windowOpen(),
      defer: (stream, at) => pipeline.defer(stream, at),
    },
    registry: {
      subscriptionChanged: (stream, typeUrl, delta, names, wildcard) =>
        pipeline.update(stream, typeUrl, delta, names, wildcard),
      names: nameInterner(),
      closed: (stream) => {
        if (!live.delete(stream)) return;
        pipeline.remove(stream);
        metrics.streams.dec({ variant: stream.variant, transport: stream.transport, api: stream.api });
        logger.debug({ stream: stream.id, node: stream.node?.id }, 'xds stream closed');
      },
    },
    ...(options.callbacks ? { callbacks: options.callbacks } : {}),
    ...(options.maxResourceNames ? { maxResourceNames: options.maxResourceNames } : {}),
  };
  return {
    options,
    logger,
    live,
    metrics,
    pipeline,
    trimmer,
    bodyCache,
    steps,
    deps,
    polled: new Map(),
    closing: false,
  };
}

/** Heartbeats for resources that carry a TTL (X-TTL-2); none when TTLs are off. */
function startHeartbeats(core: ServerCore): NodeJS.Timeout | undefined {
  const { resourceTtlMs, heartbeatIntervalMs } = core.options.config;
  if (resourceTtlMs <= 0) return undefined;
  const every = heartbeatIntervalMs > 0 ? heartbeatIntervalMs : Math.max(1, Math.floor(resourceTtlMs / 2));
  return setInterval(() => {
    for (const s of core.live) s.heartbeat();
  }, every);
}

/** Admission of new streams: per connection first, then hub-wide (stream count, heap); a stream per admitted call. */
function streamOpener(core: ServerCore): (m: XdsMethod, call: ServerDuplexStream<Buffer, XdsResponse>) => void {
  const { options, logger, live, metrics, deps } = core;
  const admission = createAdmission({ maxStreams: options.config.xdsMaxStreams, maxHeapShare: MAX_HEAP_SHARE });
  // Refusals are logged once per second with a count, not once per stream: a storm past the bound would flood the log.
  let refusedSinceLog = 0;
  let lastRefusalLog = 0;
  let nextId = 1;
  const refusedOnConnection = refusalLog(logger, 'refusing xDS streams past --grpc-max-streams-per-connection');
  return (m, call) => {
    if (core.closing) return endCall(call, new HubError('SHUTTING_DOWN', 'xDS server is shutting down'));
    // First, before any per-stream work: a flood on one connection is refused for next to nothing.
    const release = admitStream(options.connections, call, refusedOnConnection);
    if (!release) return;
    const refusal = admission.check(live.size);
    if (refusal) {
      release();
      metrics.rejectedStreams.inc();
      refusedSinceLog++;
      const now = Date.now();
      if (now - lastRefusalLog >= 1000) {
        logger.warn({ refused: refusedSinceLog, open: live.size, reason: refusal.message }, 'refusing new xDS streams');
        refusedSinceLog = 0;
        lastRefusalLog = now;
      }
      return endCall(call, refusal);
    }
    const credential = call.metadata.get(TOKEN_METADATA_KEY)[0];
    const registry = {
      ...deps.registry,
      closed: (s: XdsStream) => {
        release();
        deps.registry.closed(s);
      },
    };
    const stream = new XdsStream(
      call,
      { ...deps, registry },
      {
        id: nextId++,
        variant: m.kind === 'delta' ? 'delta' : 'sotw',
        transport: m.transport,
        api: m.api,
        ...(typeof credential === 'string' ? { credential } : {}),
      },
    );
    live.add(stream);
    metrics.streams.inc({ variant: stream.variant, transport: stream.transport, api: stream.api });
  };
}

/** One SotW fetch (REST, unary Fetch*): admission, the name bound, the set; the node remembered for the admin view. */
function fetchOnce(core: ServerCore, type: ResourceType, api: ApiVersion, req: SotwRequest): FetchResult {
  const { options, polled } = core;
  if (req.node) options.callbacks?.admit?.(req.node);
  if (options.maxResourceNames && req.resourceNames.length > options.maxResourceNames)
    throw tooManyNames(req.resourceNames.length, options.maxResourceNames);
  const result = fetchSotw(core.deps.get, type, api, req, core.bodyCache);
  if (req.node) {
    polled.delete(req.node.id);
    polled.set(req.node.id, req.node);
    if (polled.size > MAX_POLLED_NODES) polled.delete(polled.keys().next().value!);
  }
  return result;
}

function unaryFetch(
  core: ServerCore,
  m: XdsMethod,
  call: ServerUnaryCall<Buffer, Buffer>,
  cb: sendUnaryData<Buffer>,
): void {
  const type = RESOURCE_TYPES.find((t) => t.short === m.transport)!;
  let req: SotwRequest;
  try {
    req = decodeSotwRequest(m.api, call.request);
  } catch (err) {
    const message = `DiscoveryRequest: cannot decode: ${(err as Error).message}`;
    return cb(grpcStatusOf(new HubError('INVALID_ARGUMENT', message, { cause: err })));
  }
  try {
    const credential = call.metadata.get(TOKEN_METADATA_KEY)[0];
    if (req.node)
      req.node = { ...req.node, configSource: 'grpc', ...(typeof credential === 'string' ? { credential } : {}) };
    cb(null, Buffer.from(fetchOnce(core, type, m.api, req).body));
  } catch (err) {
    // A HubError is the request's (bad node, too many names, refused); anything else is the hub's own fault.
    if (!isHubError(err)) core.logger.error({ err, method: m.name, node: req.node?.id }, 'fetch: internal error');
    const internal = () => new HubError('INTERNAL', `internal error: ${(err as Error).message}`, { cause: err });
    cb(grpcStatusOf(isHubError(err) ? err : internal()));
  }
}

export function createXdsServer(options: XdsServerOptions): XdsServer {
  const core = serverCore(options);
  const { live, pipeline, trimmer } = core;
  const heartbeatTimer = startHeartbeats(core);
  const open = streamOpener(core);
  return {
    metrics: core.metrics,
    addTo(server) {
      for (const { definition, methods } of serviceDefinitions().values()) {
        const impl: UntypedServiceImplementation = {};
        for (const m of methods) {
          impl[m.name] =
            m.kind === 'fetch'
              ? (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => unaryFetch(core, m, call, cb)
              : (call: ServerDuplexStream<Buffer, XdsResponse>) => open(m, call);
        }
        server.addService(definition, impl);
      }
    },
    clients: () => [...live].map(clientInfo),
    configFor(nodeId, cluster) {
      const streams = [...live].filter((s) => s.node?.id === nodeId);
      const node: XdsNode | undefined =
        streams[0]?.node ??
        core.polled.get(nodeId) ??
        (cluster !== undefined ? { id: nodeId, cluster, clientFeatures: [], userAgent: '' } : undefined);
      return node ? nodeConfig(options.provider, node, streams) : undefined;
    },
    fetch: (type, api, req) => fetchOnce(core, type, api, req),
    streams: () => [...live],
    memoryTrim: () => trimmer.stats(),
    flushChanges: () => pipeline.deliver(),
    stepStats: () => ({ ...core.steps.stats, held: core.steps.held }),
    close() {
      core.closing = true;
      pipeline.close();
      trimmer.close();
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      for (const s of [...live]) s.close(new HubError('SHUTTING_DOWN', 'xDS server is shutting down'));
    },
  };
}

function subscriptionCounts(live: ReadonlySet<XdsStream>): { variant: string; type: string; count: number }[] {
  const counts = new Map<string, { variant: string; type: string; count: number }>();
  for (const s of live) {
    for (const st of s.types.values()) {
      const key = `${s.variant}|${st.type.short}`;
      const c = counts.get(key) ?? { variant: s.variant, type: st.type.short, count: 0 };
      c.count++;
      counts.set(key, c);
    }
  }
  return [...counts.values()];
}

/** Ends a call that has no XdsStream (refused at the door) with an error from the taxonomy. */
function endCall(call: ServerDuplexStream<Buffer, XdsResponse>, err: unknown): void {
  call.emit('error', grpcStatusOf(err));
}
