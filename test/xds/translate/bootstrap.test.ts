import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseStrict } from './proto-json';

const BOOTSTRAP = 'envoy.config.bootstrap.v3.Bootstrap';
const read = (name: string) => readFileSync(join(__dirname, '../../../examples', name), 'utf8');

function checkAdsDelta(b: any, hubAddress: string) {
  assert.match(b.node.id, /./, 'a node id');
  assert.match(b.node.cluster, /./, 'a node cluster (it names an ingress gateway)');
  const ads = b.dynamicResources.adsConfig;
  assert.equal(ads.apiType, 'DELTA_GRPC');
  assert.equal(ads.transportApiVersion, 'V3');
  assert.equal(ads.grpcServices[0].envoyGrpc.clusterName, 'xdshub');
  for (const k of ['cdsConfig', 'ldsConfig']) {
    assert.deepEqual(b.dynamicResources[k], { ads: {}, resourceApiVersion: 'V3' }, k);
  }
  const hub = b.staticResources.clusters.find((c: any) => c.name === 'xdshub');
  const addr = hub.loadAssignment.endpoints[0].lbEndpoints[0].endpoint.address.socketAddress;
  assert.deepEqual([addr.address, addr.portValue], [hubAddress, 8502]);
  const http = hub.typedExtensionProtocolOptions['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
  assert.deepEqual(
    http.explicitHttpConfig,
    { http2ProtocolOptions: {} },
    'xDS is gRPC: the hub cluster must speak HTTP/2',
  );
  assert.ok(b.admin.address.socketAddress.portValue > 0);
}

test('examples/envoy-bootstrap.json decodes strictly as Bootstrap: ADS over Delta v3 to the hub on 127.0.0.1:8502', () => {
  const b = parseStrict(BOOTSTRAP, read('envoy-bootstrap.json'));
  checkAdsDelta(b, '127.0.0.1');
  assert.equal(b.staticResources.clusters[0].type, 'STATIC');
});

test('examples/envoy-bootstrap.compose.json decodes strictly and points at the compose service "fanout" (the fan-out hub)', () => {
  const b = parseStrict(BOOTSTRAP, read('envoy-bootstrap.compose.json'));
  checkAdsDelta(b, 'fanout');
  assert.equal(b.staticResources.clusters[0].type, 'STRICT_DNS', 'a hostname needs a DNS cluster');
});

test('the strict reader fails on unknown fields, bad enums, bad durations, wrong scalar kinds and doubly-set oneofs (so the tests above can fail)', () => {
  const good = JSON.parse(read('envoy-bootstrap.json'));
  const cluster = good.static_resources.clusters[0];
  const bad: [unknown, RegExp][] = [
    [{ ...good, nodes: good.node }, /nodes: no such field/],
    [
      {
        ...good,
        dynamic_resources: {
          ...good.dynamic_resources,
          ads_config: { ...good.dynamic_resources.ads_config, api_type: 'DELTA' },
        },
      },
      /api_type: "DELTA" is not a ApiType/,
    ],
    [
      { ...good, static_resources: { clusters: [{ ...cluster, connect_timeout: '1 second' }] } },
      /connect_timeout: expected a duration/,
    ],
    [
      {
        ...good,
        static_resources: {
          clusters: [
            {
              ...cluster,
              typed_extension_protocol_options: {
                x: {
                  '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
                  explicit_http_config: { http3: {} },
                },
              },
            },
          ],
        },
      },
      /http3: no such field/,
    ],
    [{ ...good, static_resources: { clusters: [{ ...cluster, name: 7 }] } }, /clusters\[0\]\.name: expected a string/],
    [
      { ...good, static_resources: { clusters: [{ ...cluster, per_connection_buffer_limit_bytes: -1 }] } },
      /per_connection_buffer_limit_bytes: expected an integer of uint32/,
    ],
    [
      { ...good, static_resources: { clusters: [{ ...cluster, type: 'STATIC', cluster_type: { name: 'x' } }] } },
      /cluster_type: oneof clusterDiscoveryType is already set by type/,
    ],
  ];
  for (const [b, message] of bad) assert.throws(() => parseStrict(BOOTSTRAP, JSON.stringify(b)), message);
});
