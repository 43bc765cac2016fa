// Every remaining difference between the Envoy config a sidecar gets from a real
// Consul v1.16.1 and from the hub, as consul-xds-oracle.int.test.ts finds them:
// one (resource, JSON path) pair per entry, each under a cause that says what
// differs and why. docs/consul-differences.md carries renderXdsTable()'s output
// (consul-differences.test.ts checks it; regenerate with
// `npx tsx test/hub/consul-xds-differences.ts`).
import { type Cause, causeTable, diffKey } from './consul-differences';

export { diffKey };

export const XDS_CAUSES = {
  sds: {
    what:
      'certificates reach Envoy by SDS (`tls_certificate_sds_secret_configs`, the trust bundle by ' +
      '`validation_context_sds_secret_config`, two Secrets); Consul inlines them (`tls_certificates`, `validation_context`)',
    why:
      'a rotated leaf or root is one Secret update, with no cluster or listener re-sent (docs/xds.md, SDS); ' +
      'the SPIFFE SAN check sits beside the SDS trust bundle in `combined_validation_context`',
    noticeable: false,
  },
  tlsPinned: {
    what: 'mesh TLS names its minimum version (TLS 1.2) and upstream clusters their ALPN (`http/1.1`, or `h2` for http2/grpc)',
    why: "the hub pins what Envoy would pick anyway (TLS 1.2 is Envoy's default minimum), so no Envoy default can change it",
    noticeable: false,
  },
  locality: {
    what: "an endpoint group carries `locality.region` (the datacenter) and weight 1; Consul's has neither",
    why: 'one assignment builder serves Envoy and gRPC clients, and gRPC drops a locality without weight; Envoy reads locality weights only with locality-weighted balancing, which no cluster sets',
    noticeable: false,
  },
  rds: {
    what: "an HTTP upstream's routes come by RDS (`rds`); Consul inlines them (`route_config`) while the chain is the default one",
    why: 'the hub always uses RDS, so a router, splitter or resolver written later changes the route alone, not the listener',
    noticeable: false,
  },
  rbac: {
    what:
      "with no intentions, the public listener's network RBAC allows the trust domain's SPIFFE IDs (`policies`); " +
      "Consul's denies nothing (`action: DENY`, no policies)",
    why: 'the hub always writes the default intention as a policy; either way only a peer with a certificate of the mesh CA gets through the TLS handshake',
    noticeable: false,
  },
} satisfies Record<string, Cause>;

export interface KnownXdsDifference {
  /** `<kind> <name>`: Clusters, Endpoints, Listeners, Routes or Secrets, and the resource's name. */
  resource: string;
  path: string;
  cause: keyof typeof XDS_CAUSES;
}

function on(cause: keyof typeof XDS_CAUSES, pairs: Array<[string, string]>): KnownXdsDifference[] {
  return pairs.map(([resource, path]) => ({ resource, path, cause }));
}

const API = 'Clusters api.default.dc1.internal.<uuid>.consul';
const PUBLIC = 'Listeners public_listener:0.0.0.0:<port>';
const TLS = '$.transport_socket.typed_config.common_tls_context';
const PUBLIC_TLS = '$.filter_chains[0].transport_socket.typed_config.common_tls_context';

export const KNOWN_XDS_DIFFERENCES: KnownXdsDifference[] = [
  ...on('sds', [
    [API, `${TLS}.{tls_certificates,validation_context} (hub lacks)`],
    [API, `${TLS}.{alpn_protocols,tls_certificate_sds_secret_configs,combined_validation_context} (hub only)`],
    [PUBLIC, `${PUBLIC_TLS}.{tls_certificates,validation_context} (hub lacks)`],
    [PUBLIC, `${PUBLIC_TLS}.{tls_certificate_sds_secret_configs,validation_context_sds_secret_config} (hub only)`],
    ['Secrets spiffe://<uuid>.consul', '(hub only)'],
    ['Secrets spiffe://<uuid>.consul/ns/default/dc/dc1/svc/web', '(hub only)'],
  ]),
  ...on('tlsPinned', [
    [API, `${TLS}.tls_params.tls_minimum_protocol_version (hub only)`],
    [PUBLIC, `${PUBLIC_TLS}.tls_params.tls_minimum_protocol_version (hub only)`],
  ]),
  ...on('locality', [
    ['Endpoints api.default.dc1.internal.<uuid>.consul', '$.endpoints[0].locality.region (hub only)'],
    ['Endpoints api.default.dc1.internal.<uuid>.consul', '$.endpoints[0].load_balancing_weight'],
  ]),
  ...on('rds', [
    ['Listeners api:127.0.0.1:<port>', '$.filter_chains[0].filters[*].typed_config.route_config (hub lacks)'],
    ['Listeners api:127.0.0.1:<port>', '$.filter_chains[0].filters[*].typed_config.rds (hub only)'],
  ]),
  ...on('rbac', [
    [PUBLIC, '$.filter_chains[0].filters[*].typed_config.rules.action (hub lacks)'],
    [PUBLIC, '$.filter_chains[0].filters[*].typed_config.rules.policies (hub only)'],
  ]),
];

export function renderXdsTable(): string {
  return causeTable(
    XDS_CAUSES,
    KNOWN_XDS_DIFFERENCES.map((d) => ({ cause: d.cause, where: d.resource, path: d.path })),
  );
}

if (require.main === module) console.log(renderXdsTable());
