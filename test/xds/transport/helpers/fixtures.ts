// Real, encoded Envoy resources and a provider tests can mutate.
import { createHash } from 'node:crypto';
import { encodeResource } from '../../../../src/xds/transport/envoy-proto';
import type {
  ResourceChange,
  ResourceProvider,
  ResourceSet,
  XdsNode,
  XdsResource,
} from '../../../../src/xds/transport/provider';
import { TypeUrl } from '../../../../src/xds/transport/type-urls';

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

function resource(typeUrl: string, typeName: string, name: string, plain: Record<string, unknown>): XdsResource {
  const encoded = encodeResource(typeName, plain);
  return { name, typeUrl, encoded, version: createHash('sha256').update(encoded).digest('hex').slice(0, 16) };
}

export function cluster(name: string, timeoutSeconds = 5): XdsResource {
  return resource(TypeUrl.Cluster, 'envoy.config.cluster.v3.Cluster', name, {
    name,
    type: 'EDS',
    eds_cluster_config: { eds_config: { ads: {} } },
    connect_timeout: { seconds: timeoutSeconds },
    lb_policy: 'ROUND_ROBIN',
  });
}

export function cla(name: string, ports: number[] = [8080]): XdsResource {
  return resource(TypeUrl.ClusterLoadAssignment, 'envoy.config.endpoint.v3.ClusterLoadAssignment', name, {
    cluster_name: name,
    endpoints: [
      {
        locality: { region: 'r1' },
        load_balancing_weight: { value: 1 },
        lb_endpoints: ports.map((port) => ({
          endpoint: { address: { socket_address: { address: '10.0.0.1', port_value: port } } },
        })),
      },
    ],
  });
}

/** `statPrefix` and `vhost` only vary the content (a model test's last round must differ from anything it NACKed). */
export function listener(name: string, routeName: string, statPrefix = ''): XdsResource {
  return resource(TypeUrl.Listener, 'envoy.config.listener.v3.Listener', name, {
    name,
    api_listener: {
      api_listener: {
        '@type': HCM,
        ...(statPrefix ? { stat_prefix: statPrefix } : {}),
        rds: { route_config_name: routeName, config_source: { ads: {} } },
        http_filters: [{ name: 'router', typed_config: { '@type': ROUTER } }],
      },
    },
  });
}

export function route(name: string, clusterName: string, vhost = 'vh'): XdsResource {
  return resource(TypeUrl.RouteConfiguration, 'envoy.config.route.v3.RouteConfiguration', name, {
    name,
    virtual_hosts: [
      { name: vhost, domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster: clusterName } }] },
    ],
  });
}

/** A provider holding resources per type; `set`/`remove` announce the change like the real one. */
export class TestProvider implements ResourceProvider {
  private readonly byType = new Map<string, Map<string, XdsResource>>();
  /** Names left out of the wildcard set (like API listeners). */
  readonly notWildcard = new Set<string>();
  private readonly listeners = new Set<(c: readonly ResourceChange[]) => void>();
  /** Called on every get: lets a test await the moment the server computes a response. */
  onGet: ((typeUrl: string) => void) | undefined;

  /** Sets are built once per change and shared, as the real provider does. */
  private readonly sets = new Map<string, ResourceSet>();

  get(typeUrl: string, _node: XdsNode): ResourceSet {
    this.onGet?.(typeUrl);
    let set = this.sets.get(typeUrl);
    if (!set) {
      const byName = this.byType.get(typeUrl) ?? new Map<string, XdsResource>();
      set = { byName, wildcard: new Set([...byName.keys()].filter((n) => !this.notWildcard.has(n))) };
      this.sets.set(typeUrl, set);
    }
    return set;
  }

  onChange(listener: (c: readonly ResourceChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Puts resources (all at once, one change notification). */
  set(...resources: XdsResource[]): void {
    const changes = new Map<string, Set<string>>();
    for (const r of resources) {
      const m = new Map(this.byType.get(r.typeUrl));
      m.set(r.name, r);
      this.byType.set(r.typeUrl, m);
      if (!changes.has(r.typeUrl)) changes.set(r.typeUrl, new Set());
      changes.get(r.typeUrl)!.add(r.name);
    }
    this.emit(changes);
  }

  remove(typeUrl: string, ...names: string[]): void {
    const m = new Map(this.byType.get(typeUrl));
    for (const n of names) m.delete(n);
    this.byType.set(typeUrl, m);
    this.emit(new Map([[typeUrl, new Set(names)]]));
  }

  /** Puts resources and announces them as a change of the nodes whose cluster (else id) is `scope` only. */
  setScoped(scope: string, ...resources: XdsResource[]): void {
    for (const r of resources) {
      const m = new Map(this.byType.get(r.typeUrl));
      m.set(r.name, r);
      this.byType.set(r.typeUrl, m);
    }
    this.announce(resources.map((r) => ({ typeUrl: r.typeUrl, names: new Set([r.name]), nodeScope: scope })));
  }

  /** Announces changes as given (e.g. with a nodeScope), without touching content. */
  announce(changes: ResourceChange[]): void {
    for (const c of changes) this.sets.delete(c.typeUrl);
    for (const l of this.listeners) l(changes);
  }

  private emit(changes: Map<string, Set<string>>): void {
    for (const typeUrl of changes.keys()) this.sets.delete(typeUrl);
    const list = [...changes].map(([typeUrl, names]) => ({ typeUrl, names }));
    for (const l of this.listeners) l(list);
  }
}

/** Two clusters with endpoints, a listener and its route: what an Envoy sees at start. */
export function seed(p: TestProvider): void {
  p.set(cluster('c1'), cluster('c2'), cla('c1'), cla('c2'), listener('l1', 'r1'), route('r1', 'c1'));
}
