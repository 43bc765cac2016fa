// The xDS part of a hub: catalog views → the catalog provider → its layers →
// the transport, with the features' callbacks (docs/architecture.md).
//
//   views ─(feature views layers)─▶ catalog provider ─▶ client config sources
//         ─(feature provider layers, first innermost)─▶ xDS server ◀─ callbacks
import type pino from 'pino';
import type { Config } from '../config';
import type { ConnectSource } from '../connect/source';
import type { ViewStore } from '../materializer/types';
import type { HubMetrics } from '../metrics';
import type { StreamCounter } from '../stream-limits';
import { type CatalogXdsProvider, createCatalogXdsProvider } from '../xds/translate/catalog-provider';
import { withClientConfigSources } from '../xds/translate/config-sources';
import { combineCallbacks } from '../xds/transport/callbacks';
import { createXdsServer, type XdsServer } from '../xds/transport/server';
import type { HubFeature } from './features';

export interface XdsPart {
  readonly xds: XdsServer;
  readonly provider: CatalogXdsProvider;
  /** Ends the streams and the features' watches of them (the provider is closed after the features). */
  endStreams(): void;
}

export interface XdsPartOptions {
  config: Config;
  logger: pino.Logger;
  metrics: HubMetrics;
  views: ViewStore;
  /** Sidecars' certificates (docs/mesh.md); absent on a fan-out hub. */
  connect?: ConnectSource;
  streams: StreamCounter;
  features: readonly HubFeature[];
}

export function buildXds(options: XdsPartOptions): XdsPart {
  const { config, features } = options;
  const views = features.reduce((v, f) => (f.views ? f.views(v) : v), options.views);
  const provider = createCatalogXdsProvider({
    views,
    logger: options.logger,
    ...(options.connect ? { connect: options.connect } : {}),
    datacenter: config.datacenter,
    defaultIntention: config.defaultIntention,
  });
  const stops = features.map((f) => f.translated?.(provider));
  // Per-type and REST clients get config sources they can follow (docs/envoy.md).
  const served = features.reduce((p, f) => (f.provider ? f.provider(p) : p), withClientConfigSources(provider));
  const callbacks = combineCallbacks(features.flatMap((f) => (f.callbacks ? [f.callbacks] : [])));
  const xds = createXdsServer({
    provider: served,
    config,
    logger: options.logger,
    registry: options.metrics.registry,
    callbacks,
    connections: options.streams,
    maxResourceNames: config.limits.xdsMaxResourceNames,
  });
  stops.push(...features.map((f) => f.serving?.(xds)));
  return {
    xds,
    provider,
    endStreams() {
      for (const stop of stops.reverse()) stop?.();
      xds.close();
    },
  };
}
