// The extension points a hub is assembled from (docs/architecture.md,
// "Extension points"). A feature declares which it uses; assemble() calls them
// in the order listed on HubFeature, every feature in the order of its list, so
// nothing is attached to a part after the part was built and handed out.
import type { FastifyInstance } from 'fastify';
import type { AclResolver } from '../acl/resolver';
import { createXdsAcl } from '../acl/xds';
import type { Catalog } from '../catalog/catalog';
import { installForwarding } from '../fanout/forward';
import type { RelayPublisher } from '../fanout/relay';
import type { WriteHook } from '../http/write';
import type { ViewStore } from '../materializer/types';
import type { Ops } from '../ops/index';
import type { XdsCallbacks } from '../xds/transport/callbacks';
import type { ResourceProvider } from '../xds/transport/provider';
import type { XdsServer } from '../xds/transport/server';

/** A stop function, or nothing to stop. */
export type Stop = (() => void) | undefined;

export interface HubFeature {
  readonly name: string;
  /** 1. Wraps the views the xDS provider reads (the operator tools see each result's index). */
  views?(inner: ViewStore): ViewStore;
  /** 2. Told of the catalog provider, before any layer: its onChange marks a translation. */
  translated?(provider: ResourceProvider): Stop;
  /** 3. A provider layer: wraps what the transport serves (first feature innermost). */
  provider?(inner: ResourceProvider): ResourceProvider;
  /** 4. The transport's callbacks (admission, sent responses, ACK/NACK). */
  readonly callbacks?: XdsCallbacks;
  /** 5. The xDS server exists: the feature may list or end its streams from now on. */
  serving?(xds: XdsServer): Stop;
  /** 6. A write hook: every HTTP write passes through it before the log (dry runs, rollouts). */
  readonly writeHook?: WriteHook;
  /** 6. The config a node got at a log index (`GET /v1/xds/config/:node?index=`). */
  configAt?(node: string, index: string, cluster: string | undefined): Promise<unknown>;
  /** 6. Routes and hooks on the HTTP app, before it listens. */
  http?(app: FastifyInstance): void;
  /** At shutdown, after the streams ended and before the source closes; reverse feature order. */
  close?(): void | Promise<void>;
}

/** The operator tools (docs/operator-tools.md) through the extension points. */
export function opsFeature(ops: Ops): HubFeature {
  return {
    name: 'ops',
    views: (inner) => ops.tracker.views(inner),
    translated: (provider) => ops.tracker.follow(provider),
    provider: (inner) => ops.serve(inner),
    callbacks: ops.observer,
    writeHook: ops.writeHook,
    serving: (xds) => {
      ops.attach(xds);
      return undefined;
    },
    configAt: (node, index, cluster) => ops.configAt(node, index, cluster),
    http: (app) => ops.registerHttp(app),
    close: () => ops.close(),
  };
}

/** ACLs on xDS (docs/security.md): each node sees what its token may read; a token's change ends its streams. */
export function xdsAclFeature(resolver: AclResolver, catalog: Catalog): HubFeature {
  const acl = createXdsAcl(resolver, catalog);
  return {
    name: 'acl',
    provider: (inner) => acl.provider(inner),
    ...(resolver.settings.enabled ? { callbacks: { admit: (node) => acl.admit(node) } } : {}),
    serving: (xds) => acl.watch(() => xds.streams()),
  };
}

/** A fan-out hub's HTTP requests its views cannot answer go to the upstream (docs/fanout.md). */
export function forwardingFeature(upstreamHttp: string, relay: RelayPublisher): HubFeature {
  return { name: 'forwarding', http: (app) => installForwarding(app, { upstreamHttp, relay }) };
}
