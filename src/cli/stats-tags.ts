// The stats tags `xdshub envoy bootstrap` gives Envoy, named as Consul's
// bootstrap names them, so dashboards built on Consul's metrics
// (`consul.destination.service`, `consul.upstream.service`, …) read the hub's
// sidecars unchanged (docs/envoy.md "Stats tags"). Each regex is Envoy's tag
// extractor form: the first capture group is cut from the stat's name, the
// second is the tag's value.
//
// What they parse, the hub's names (docs/mesh.md "What a sidecar gets"):
//   mesh clusters       cluster.[<subset>.]<service>.<namespace>.<dc>.internal.<trust domain>.consul.<stat>
//   upstream listeners  (tcp|http).upstream.<service>.<namespace>.<partition>.<dc>.<stat>

/** One path segment of a name. */
const SEG = '[^.]+';
/** A mesh cluster's name, its five fields captured: subset, service, namespace, datacenter, trust domain. */
const meshCluster = (capture: Record<'subset' | 'service' | 'ns' | 'dc' | 'td', boolean>): string => {
  const c = (on: boolean) => (on ? `(${SEG})` : SEG);
  return (
    `^cluster\\.((?:${c(capture.subset)}\\.)?${c(capture.service)}\\.${c(capture.ns)}\\.` +
    `${c(capture.dc)}\\.internal\\.${c(capture.td)}\\.consul\\.)`
  );
};
const none = { subset: false, service: false, ns: false, dc: false, td: false };

/** An upstream listener's stat prefix, one of its four fields captured (0 service … 3 datacenter). */
const upstream = (field: number): string => {
  const parts = [SEG, SEG, SEG, SEG].map((s, i) => (i === field ? `(${s})` : s));
  return `^(?:tcp|http)\\.upstream\\.(${parts.join('\\.')}\\.)`;
};

export interface StatsTag {
  tag_name: string;
  regex: string;
}

export const CONSUL_STATS_TAGS: readonly StatsTag[] = [
  { tag_name: 'consul.destination.service_subset', regex: meshCluster({ ...none, subset: true }) },
  { tag_name: 'consul.destination.service', regex: meshCluster({ ...none, service: true }) },
  { tag_name: 'consul.destination.namespace', regex: meshCluster({ ...none, ns: true }) },
  { tag_name: 'consul.destination.datacenter', regex: meshCluster({ ...none, dc: true }) },
  { tag_name: 'consul.destination.trust_domain', regex: meshCluster({ ...none, td: true }) },
  {
    tag_name: 'consul.destination.routing_type',
    regex: `^cluster\\.((?:${SEG}\\.)?${SEG}\\.${SEG}\\.${SEG}\\.(internal)\\.${SEG}\\.consul\\.)`,
  },
  {
    tag_name: 'consul.destination.target',
    regex: `^cluster\\.(((?:${SEG}\\.)?${SEG}\\.${SEG}\\.${SEG})\\.internal\\.${SEG}\\.consul\\.)`,
  },
  {
    tag_name: 'consul.destination.full_target',
    regex: `^cluster\\.(((?:${SEG}\\.)?${SEG}\\.${SEG}\\.${SEG}\\.internal\\.${SEG})\\.consul\\.)`,
  },
  { tag_name: 'consul.upstream.service', regex: upstream(0) },
  { tag_name: 'consul.upstream.namespace', regex: upstream(1) },
  { tag_name: 'consul.upstream.partition', regex: upstream(2) },
  { tag_name: 'consul.upstream.datacenter', regex: upstream(3) },
];
