// Every remaining difference between the hub and a real Consul v1.16.1 that the
// differential test (consul-oracle.int.test.ts) finds: one (request, JSON path)
// pair per entry, each under a cause that says what differs and why.
// docs/consul-differences.md carries renderTable()'s output (consul-differences.test.ts
// checks it; regenerate with `npx tsx test/hub/consul-differences.ts`).

export interface Cause {
  /** What a client sees differ. */
  what: string;
  /** Why, in one line. */
  why: string;
  /** Whether a client reading the answer could notice (not only a byte-level diff). */
  noticeable: boolean;
}

export interface KnownDifference {
  /** The step's name: `METHOD path` or its label in consul-oracle-script.ts. */
  request: string;
  /**
   * `status H vs C`, `$` (the whole body), or a JSON path: `[*]` a member of a list (or of a
   * map by ID) matched by identity, `.{a,b} (hub lacks)` / `(hub only)` keys only one side has.
   */
  path: string;
  cause: keyof typeof CAUSES;
}

export const CAUSES = {
  unservedKinds: {
    what:
      'a Consul kind the hub does not serve (`exported-services` here; also `sameness-group`, `api-gateway`, ' +
      '`tcp-route`, …) is refused, 400 `config entry kind "…" is not supported by this hub`',
    why: 'nothing in the hub acts on those kinds (no peering, no API gateways): an entry would be stored and ignored',
    noticeable: true,
  },
  proxyDefaultsName: {
    what: 'a proxy-defaults entry not named `global` is 400 naming `Name`; Consul answers 500 with the same words',
    why: "bad input is a 400 naming the field (the project's rule)",
    noticeable: true,
  },
  agentServiceGet: {
    what: '`GET /v1/agent/service/:id` shows empty `Kind`, `TaggedAddresses`, `Connect`, `Proxy.Mode` and upstream `Datacenter`/`LocalBindAddress` that Consul omits, and its `ContentHash` is its own',
    why: "the hub writes its record's zero values; the hash is over the hub's record (an opaque token for `?hash=` blocking)",
    noticeable: false,
  },
  registerNoNode: {
    what: 'a catalog register without `Node` is 400 `Node: is required`; Consul answers 500 `Must provide node`',
    why: "bad input is a 400 naming the field (the project's rule)",
    noticeable: true,
  },
  stateBogus: {
    what: '`/v1/health/state/:state` with an unknown state is 400; Consul answers 200 `[]`',
    why: "an unknown state is bad input, not an empty result (the project's rule)",
    noticeable: true,
  },
  ownNode: {
    what:
      "the server's own node has no `lan`/`wan` tagged addresses and no " +
      '`consul-version`/`consul-network-segment` meta',
    why: 'the hub is no Serf agent and no Consul version',
    noticeable: true,
  },
  consulService: {
    what: 'no `consul` service in the catalog',
    why: 'the hub is not a Consul server (no Raft/RPC port to advertise)',
    noticeable: true,
  },
  serfHealth: {
    what: "no `serfHealth` node check on the server's own node",
    why: 'the hub has no Serf membership to report',
    noticeable: true,
  },
  tagOrder: {
    what: '`/v1/catalog/services` tags are sorted; Consul lists them in first-registered order',
    why: "the hub's view keeps a sorted set of tags",
    noticeable: false,
  },
  emptyMaps: {
    what: 'an empty `TaggedAddresses`/`Meta`/`NodeMeta` is `{}` where Consul answers `null`',
    why: 'the hub stores maps normalized to objects',
    noticeable: false,
  },
  serviceZeroFields: {
    what:
      'zero-valued service fields Consul always writes are absent (`ServiceSocketPath`, `ServiceLocality`, ' +
      '`Proxy.{Mode,MeshGateway,Expose}`, `Connect`, `PeerName`)',
    why: 'the hub writes only fields of features it has (no socket paths, locality, peering)',
    noticeable: false,
  },
  emptyWritten: {
    what: 'empty fields Consul omits are written (`Kind: ""`, `TaggedAddresses: {}`, `Connect: {Native: false}`)',
    why: "the hub's shapes write every field it stores; Consul omits empty ones",
    noticeable: false,
  },
  virtualIp: {
    what: 'a sidecar has no `consul-virtual` tagged address',
    why: 'the hub assigns no virtual IPs (no transparent proxy)',
    noticeable: true,
  },
  upstreamDefaults: {
    what: "a sidecar's upstreams carry empty `Datacenter`/`LocalBindAddress`, its proxy an empty `Mode`",
    why: 'the hub writes the defaults it filled; Consul omits them',
    noticeable: false,
  },
  exposedPort: {
    what: 'checks have no `ExposedPort: 0`',
    why: 'the hub has no expose paths',
    noticeable: false,
  },
  checkDefinition: {
    what:
      "a check's `Definition` keeps `TTL`, `TCP`/`Interval`, `AliasService` in catalog and health reads; " +
      "Consul's is `{}`",
    why: "the hub stores the definition it runs with the check; Consul's agent keeps it local",
    noticeable: true,
  },
  agentCheckShape: {
    what:
      '`/v1/agent/health/service/*` checks carry `Type`, `ServiceTags: []`, `Interval`/`Timeout` and the stored ' +
      '`Definition`; Consul\'s have `Type: ""`, `ServiceTags: null` and a Definition of zero durations',
    why: "the hub answers from its catalog; Consul from the agent's local check structs",
    noticeable: true,
  },
  configZeroFields: {
    what:
      'service-defaults and proxy-defaults entries lack the empty `TransparentProxy`, `MeshGateway`, `Expose` ' +
      '(and `AccessLogs`) Consul writes',
    why: 'the hub writes only fields it was given',
    noticeable: false,
  },
  intentionEmpty: {
    what: 'intentions carry empty `ID`, `Description`, `SourcePartition`, `DestinationPartition`, `SourcePeer`, `Meta`',
    why: "the hub's intention shape writes every field; Consul omits empty ones",
    noticeable: false,
  },
} satisfies Record<string, Cause>;

function on(cause: keyof typeof CAUSES, pairs: Array<[string, string]>): KnownDifference[] {
  return pairs.map(([request, path]) => ({ request, path, cause }));
}

export function diffKey(request: string, path: string): string {
  return `${request} :: ${path}`;
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  ...on('registerNoNode', [
    ['PUT /v1/catalog/register (no Node)', 'status 400 vs 500'],
    ['PUT /v1/catalog/register (no Node)', '$'],
  ]),
  ...on('unservedKinds', [
    ['PUT /v1/config exported-services', 'status 400 vs 200'],
    ['PUT /v1/config exported-services', '$'],
    ['GET /v1/config/exported-services', 'status 400 vs 200'],
    ['GET /v1/config/exported-services', '$'],
  ]),
  ...on('proxyDefaultsName', [
    ['PUT /v1/config proxy-defaults (not global)', 'status 400 vs 500'],
    ['PUT /v1/config proxy-defaults (not global)', '$'],
  ]),
  ...on('emptyMaps', [
    ['GET /v1/catalog/nodes', '$[*].TaggedAddresses'],
    ['GET /v1/catalog/nodes', '$[*].Meta'],
    ['GET /v1/catalog/service/api', '$[*].TaggedAddresses'],
    ['GET /v1/catalog/service/api', '$[*].NodeMeta'],
    ['GET /v1/catalog/node-services/n2', '$.Node.TaggedAddresses'],
    ['GET /v1/catalog/node-services/n2', '$.Node.Meta'],
    ['GET /v1/health/service/api', '$[*].Node.TaggedAddresses'],
    ['GET /v1/health/service/api', '$[*].Node.Meta'],
    ['GET /v1/health/service/worker', '$[*].Service.Meta'],
  ]),
  ...on('ownNode', [
    ['GET /v1/catalog/nodes', '$[*].TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/catalog/nodes', '$[*].Meta.{consul-network-segment,consul-version} (hub lacks)'],
    ['GET /v1/catalog/service/web', '$[*].TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/catalog/service/web', '$[*].NodeMeta.{consul-network-segment,consul-version} (hub lacks)'],
    ['GET /v1/catalog/service/web-sidecar-proxy', '$[*].TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/catalog/service/web-sidecar-proxy', '$[*].NodeMeta.{consul-network-segment,consul-version} (hub lacks)'],
    ['GET /v1/catalog/connect/web', '$[*].TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/catalog/connect/web', '$[*].NodeMeta.{consul-network-segment,consul-version} (hub lacks)'],
    ['GET /v1/health/service/web?passing', '$[*].Node.TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/health/service/web?passing', '$[*].Node.Meta.{consul-network-segment,consul-version} (hub lacks)'],
    ['GET /v1/health/service/worker', '$[*].Node.TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/health/service/worker', '$[*].Node.Meta.{consul-network-segment,consul-version} (hub lacks)'],
    ['GET /v1/health/connect/web', '$[*].Node.TaggedAddresses.{lan,lan_ipv4,wan,wan_ipv4} (hub lacks)'],
    ['GET /v1/health/connect/web', '$[*].Node.Meta.{consul-network-segment,consul-version} (hub lacks)'],
  ]),
  ...on('consulService', [['GET /v1/catalog/services', '$.consul (hub lacks)']]),
  ...on('tagOrder', [['GET /v1/catalog/services', '$.api']]),
  ...on('serviceZeroFields', [
    ['GET /v1/catalog/service/api', '$[*].{ServiceSocketPath,ServiceLocality} (hub lacks)'],
    ['GET /v1/catalog/service/api', '$[*].ServiceProxy.{Mode,MeshGateway,Expose} (hub lacks)'],
    ['GET /v1/catalog/service/api?tag=v1', '$[*].{ServiceSocketPath,ServiceLocality} (hub lacks)'],
    ['GET /v1/catalog/service/api?tag=v1', '$[*].ServiceProxy.{Mode,MeshGateway,Expose} (hub lacks)'],
    ['GET /v1/catalog/service/web', '$[*].{ServiceSocketPath,ServiceLocality} (hub lacks)'],
    ['GET /v1/catalog/service/web', '$[*].ServiceProxy.{Mode,MeshGateway,Expose} (hub lacks)'],
    ['GET /v1/catalog/service/web-sidecar-proxy', '$[*].{ServiceSocketPath,ServiceLocality} (hub lacks)'],
    ['GET /v1/catalog/connect/web', '$[*].{ServiceSocketPath,ServiceLocality} (hub lacks)'],
    ['GET /v1/catalog/node/n1', '$.Services[*].{Proxy,Connect,PeerName} (hub lacks)'],
    ['GET /v1/catalog/node-services/n2', '$.Services[*].{Proxy,Connect,PeerName} (hub lacks)'],
    ['GET /v1/health/service/api', '$[*].Service.{Proxy,Connect,PeerName} (hub lacks)'],
    ['GET /v1/health/service/api?passing', '$[*].Service.{Proxy,Connect,PeerName} (hub lacks)'],
    ['GET /v1/health/service/web?passing', '$[*].Service.{Proxy,PeerName} (hub lacks)'],
    ['GET /v1/health/service/worker', '$[*].Service.{Proxy,Connect,PeerName} (hub lacks)'],
    ['GET /v1/health/connect/web', '$[*].Service.{Connect,PeerName} (hub lacks)'],
  ]),
  ...on('emptyWritten', [
    ['GET /v1/catalog/service/api', '$[*].ServiceTaggedAddresses (hub only)'],
    ['GET /v1/catalog/service/api?tag=v1', '$[*].ServiceTaggedAddresses (hub only)'],
    ['GET /v1/catalog/service/web', '$[*].ServiceTaggedAddresses (hub only)'],
    ['GET /v1/catalog/service/web', '$[*].ServiceConnect.Native (hub only)'],
    ['GET /v1/catalog/node/n1', '$.Services[*].{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/catalog/node-services/n2', '$.Services[*].{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/health/service/api', '$[*].Service.{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/health/service/api?passing', '$[*].Service.{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/health/service/web?passing', '$[*].Service.{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/health/service/web?passing', '$[*].Service.Connect.Native (hub only)'],
    ['GET /v1/health/service/worker', '$[*].Service.{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/agent/services', '$[*].{Kind,TaggedAddresses,Connect} (hub only)'],
    ['GET /v1/agent/services', '$[*].TaggedAddresses (hub only)'],
    ['GET /v1/agent/services', '$[*].{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/agent/health/service/id/worker1', '$.Service.{Kind,TaggedAddresses} (hub only)'],
    ['GET /v1/agent/health/service/name/web', '$[*].Service.{Kind,TaggedAddresses,Connect} (hub only)'],
  ]),
  ...on('virtualIp', [
    ['GET /v1/catalog/service/web-sidecar-proxy', '$[*].ServiceTaggedAddresses.consul-virtual (hub lacks)'],
    ['GET /v1/catalog/connect/web', '$[*].ServiceTaggedAddresses.consul-virtual (hub lacks)'],
    ['GET /v1/health/connect/web', '$[*].Service.TaggedAddresses.consul-virtual (hub lacks)'],
  ]),
  ...on('upstreamDefaults', [
    ['GET /v1/catalog/service/web-sidecar-proxy', '$[*].ServiceProxy.Upstreams[*].LocalBindAddress (hub only)'],
    ['GET /v1/catalog/connect/web', '$[*].ServiceProxy.Upstreams[*].LocalBindAddress (hub only)'],
    ['GET /v1/health/connect/web', '$[*].Service.Proxy.Upstreams[*].LocalBindAddress (hub only)'],
    ['GET /v1/agent/services', '$[*].Proxy.Mode (hub only)'],
    ['GET /v1/agent/services', '$[*].Proxy.Upstreams[*].{Datacenter,LocalBindAddress} (hub only)'],
  ]),
  ...on('exposedPort', [
    ['GET /v1/health/service/api', '$[*].Checks[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/service/api?passing', '$[*].Checks[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/service/web?passing', '$[*].Checks[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/service/worker', '$[*].Checks[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/connect/web', '$[*].Checks[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/checks/api', '$[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/checks/worker', '$[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/node/n2', '$[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/state/critical', '$[*].ExposedPort (hub lacks)'],
    ['GET /v1/health/state/warning', '$[*].ExposedPort (hub lacks)'],
    ['GET /v1/agent/checks', '$[*].ExposedPort (hub lacks)'],
    ['GET /v1/agent/health/service/id/worker1', '$.Checks[*].ExposedPort (hub lacks)'],
    ['GET /v1/agent/health/service/name/web', '$[*].Checks[*].ExposedPort (hub lacks)'],
  ]),
  ...on('serfHealth', [
    ['GET /v1/health/service/web?passing', '$[*].Checks[oracle/serfHealth/Serf Health Status] (hub lacks)'],
    ['GET /v1/health/service/worker', '$[*].Checks[oracle/serfHealth/Serf Health Status] (hub lacks)'],
    ['GET /v1/health/connect/web', '$[*].Checks[oracle/serfHealth/Serf Health Status] (hub lacks)'],
  ]),
  ...on('checkDefinition', [
    ['GET /v1/health/service/web?passing', '$[*].Checks[*].Definition.TTL (hub only)'],
    ['GET /v1/health/service/worker', '$[*].Checks[*].Definition.TTL (hub only)'],
    ['GET /v1/health/connect/web', '$[*].Checks[*].Definition.{TCP,Interval} (hub only)'],
    ['GET /v1/health/connect/web', '$[*].Checks[*].Definition.AliasService (hub only)'],
    ['GET /v1/health/checks/worker', '$[*].Definition.TTL (hub only)'],
    ['GET /v1/health/state/critical', '$[*].Definition.{TCP,Interval} (hub only)'],
    ['GET /v1/health/state/warning', '$[*].Definition.TTL (hub only)'],
    ['GET /v1/agent/checks', '$[*].Definition.TTL (hub only)'],
    ['GET /v1/agent/checks', '$[*].Definition.{TCP,Interval} (hub only)'],
    ['GET /v1/agent/checks', '$[*].Definition.AliasService (hub only)'],
  ]),
  ...on('stateBogus', [
    ['GET /v1/health/state/bogus', 'status 400 vs 200'],
    ['GET /v1/health/state/bogus', '$'],
  ]),
  ...on('agentServiceGet', [
    ['GET /v1/agent/service/web1', '$.{Kind,TaggedAddresses,Connect} (hub only)'],
    ['GET /v1/agent/service/web1', '$.ContentHash'],
    ['GET /v1/agent/service/web1-sidecar-proxy', '$.TaggedAddresses (hub only)'],
    ['GET /v1/agent/service/web1-sidecar-proxy', '$.ContentHash'],
    ['GET /v1/agent/service/web1-sidecar-proxy', '$.Proxy.Mode (hub only)'],
    ['GET /v1/agent/service/web1-sidecar-proxy', '$.Proxy.Upstreams[*].{Datacenter,LocalBindAddress} (hub only)'],
  ]),
  ...on('agentCheckShape', [
    ['GET /v1/agent/health/service/id/worker1', '$.Checks[*].{Interval,Timeout} (hub only)'],
    ['GET /v1/agent/health/service/id/worker1', '$.Checks[*].ServiceTags'],
    ['GET /v1/agent/health/service/id/worker1', '$.Checks[*].Type'],
    [
      'GET /v1/agent/health/service/id/worker1',
      '$.Checks[*].Definition.{Interval,Timeout,DeregisterCriticalServiceAfter,HTTP,Header,Method,' +
        'Body,TLSServerName,TLSSkipVerify,TCP,UDP,GRPC,OSService,GRPCUseTLS} (hub lacks)',
    ],
    ['GET /v1/agent/health/service/id/worker1', '$.Checks[*].Definition.TTL (hub only)'],
    ['GET /v1/agent/health/service/name/web', '$[*].Checks[*].{Interval,Timeout} (hub only)'],
    ['GET /v1/agent/health/service/name/web', '$[*].Checks[*].Type'],
    [
      'GET /v1/agent/health/service/name/web',
      '$[*].Checks[*].Definition.{Interval,Timeout,DeregisterCriticalServiceAfter,HTTP,Header,Method,' +
        'Body,TLSServerName,TLSSkipVerify,TCP,UDP,GRPC,OSService,GRPCUseTLS} (hub lacks)',
    ],
    ['GET /v1/agent/health/service/name/web', '$[*].Checks[*].Definition.TTL (hub only)'],
  ]),
  ...on('configZeroFields', [
    ['GET /v1/config/service-defaults', '$[*].{TransparentProxy,MeshGateway,Expose} (hub lacks)'],
    ['GET /v1/config/proxy-defaults', '$[*].{TransparentProxy,MeshGateway,Expose,AccessLogs} (hub lacks)'],
    ['GET /v1/config/proxy-defaults/global', '$.{TransparentProxy,MeshGateway,Expose,AccessLogs} (hub lacks)'],
  ]),
  ...on('intentionEmpty', [
    ['GET /v1/connect/intentions', '$[*].{ID,SourcePartition,DestinationPartition,SourcePeer,Meta} (hub only)'],
    [
      'GET /v1/connect/intentions',
      '$[*].{ID,Description,SourcePartition,DestinationPartition,SourcePeer,Meta} (hub only)',
    ],
    [
      'GET /v1/connect/intentions/exact?source=web&destination=api',
      '$.{ID,SourcePartition,DestinationPartition,SourcePeer,Meta} (hub only)',
    ],
    [
      'GET /v1/connect/intentions/match?by=destination&name=db',
      '$.db[*].{ID,Description,SourcePartition,DestinationPartition,SourcePeer,Meta} (hub only)',
    ],
  ]),
];

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** A table of causes, one row each, with the (where: path) pairs each explains. */
export function causeTable<K extends string>(
  causes: Record<K, Cause>,
  pairs: readonly { cause: K; where: string; path: string }[],
): string {
  const rows = ['| what differs | where (request: path) | why | a client notices |', '|---|---|---|---|'];
  for (const [key, cause] of Object.entries(causes) as Array<[K, Cause]>) {
    const where = pairs.filter((d) => d.cause === key).map((d) => `\`${d.where}\`: \`${d.path}\``);
    const notices = cause.noticeable ? 'yes' : 'no';
    rows.push(`| ${cell(cause.what)} | ${cell(where.join('; '))} | ${cell(cause.why)} | ${notices} |`);
  }
  return rows.join('\n');
}

/** The doc's table: one row per cause, with every (request, path) it explains. */
export function renderTable(): string {
  return causeTable(
    CAUSES,
    KNOWN_DIFFERENCES.map((d) => ({ cause: d.cause, where: d.request, path: d.path })),
  );
}

if (require.main === module) console.log(renderTable());
