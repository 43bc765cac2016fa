// A ResourceProvider that is not the catalog's: resources come from a plain
// table of rows (type, name, resource as a plain object), encoded with the
// upstream protos. The transport must serve it exactly as it serves the
// catalog's (docs/xds-transport.md, "Seams").
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

export type TableType = 'listener' | 'route' | 'cluster' | 'endpoints';

export interface TableRow {
  type: TableType;
  name: string;
  /** The resource as proto3 JSON-like plain object (snake_case or camelCase). */
  resource: Record<string, unknown>;
  /** Left out of a wildcard subscription (like an API listener). Default: in it. */
  byNameOnly?: boolean;
}

const TYPES: Record<TableType, { typeUrl: string; message: string }> = {
  listener: { typeUrl: TypeUrl.Listener, message: 'envoy.config.listener.v3.Listener' },
  route: { typeUrl: TypeUrl.RouteConfiguration, message: 'envoy.config.route.v3.RouteConfiguration' },
  cluster: { typeUrl: TypeUrl.Cluster, message: 'envoy.config.cluster.v3.Cluster' },
  endpoints: { typeUrl: TypeUrl.ClusterLoadAssignment, message: 'envoy.config.endpoint.v3.ClusterLoadAssignment' },
};

export interface TableProvider extends ResourceProvider {
  /** Replaces the whole table; announces the names whose bytes changed, appeared or went. */
  load(rows: readonly TableRow[]): void;
}

export function tableProvider(initial: readonly TableRow[] = []): TableProvider {
  let sets = new Map<string, ResourceSet>();
  const listeners = new Set<(changes: readonly ResourceChange[]) => void>();
  const empty: ResourceSet = { byName: new Map(), wildcard: new Set() };

  function build(rows: readonly TableRow[]): Map<string, ResourceSet> {
    const out = new Map<string, { byName: Map<string, XdsResource>; wildcard: Set<string> }>();
    for (const row of rows) {
      const { typeUrl, message } = TYPES[row.type];
      const encoded = encodeResource(message, row.resource);
      const res: XdsResource = {
        name: row.name,
        typeUrl,
        encoded,
        version: createHash('sha256').update(encoded).digest('hex').slice(0, 24),
      };
      let set = out.get(typeUrl);
      if (!set) out.set(typeUrl, (set = { byName: new Map(), wildcard: new Set() }));
      set.byName.set(row.name, res);
      if (!row.byNameOnly) set.wildcard.add(row.name);
    }
    return out;
  }

  const provider: TableProvider = {
    get: (typeUrl: string, _node: XdsNode) => sets.get(typeUrl) ?? empty,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    load(rows) {
      const next = build(rows);
      const changes: ResourceChange[] = [];
      for (const typeUrl of new Set([...sets.keys(), ...next.keys()])) {
        const before = sets.get(typeUrl)?.byName ?? new Map<string, XdsResource>();
        const after = next.get(typeUrl)?.byName ?? new Map<string, XdsResource>();
        const names = new Set<string>();
        for (const [n, r] of after) if (before.get(n)?.version !== r.version) names.add(n);
        for (const n of before.keys()) if (!after.has(n)) names.add(n);
        if (names.size > 0) changes.push({ typeUrl, names });
      }
      sets = next;
      if (changes.length > 0) for (const l of listeners) l(changes);
    },
  };
  provider.load(initial);
  return provider;
}
