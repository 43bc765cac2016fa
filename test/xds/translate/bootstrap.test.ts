import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  assert.deepEqual(http.explicitHttpConfig, { http2ProtocolOptions: {} }, 'xDS is gRPC: the hub cluster must speak HTTP/2');
  assert.ok(b.admin.address.socketAddress.portValue > 0);
}

test('examples/envoy-bootstrap.json decodes strictly as Bootstrap: ADS over Delta v3 to the hub on 127.0.0.1:8502', () => {
  const b = parseStrict(BOOTSTRAP, read('envoy-bootstrap.json'));
  checkAdsDelta(b, '127.0.0.1');
  assert.equal(b.staticResources.clusters[0].type, 'STATIC');
});

test('examples/envoy-bootstrap.compose.json decodes strictly and points at the compose service "xdshub"', () => {
  const b = parseStrict(BOOTSTRAP, read('envoy-bootstrap.compose.json'));
  checkAdsDelta(b, 'xdshub');
  assert.equal(b.staticResources.clusters[0].type, 'STRICT_DNS', 'a hostname needs a DNS cluster');
});

test('the strict reader fails on unknown fields, bad enums and bad durations (so the tests above can fail)', () => {
  const good = JSON.parse(read('envoy-bootstrap.json'));
  const bad = [
    { ...good, nodes: good.node },
    { ...good, dynamic_resources: { ...good.dynamic_resources, ads_config: { ...good.dynamic_resources.ads_config, api_type: 'DELTA' } } },
    { ...good, static_resources: { clusters: [{ ...good.static_resources.clusters[0], connect_timeout: '1 second' }] } },
    { ...good, static_resources: { clusters: [{ ...good.static_resources.clusters[0], typed_extension_protocol_options: { x: { '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions', explicit_http_config: { http3: {} } } } }] } },
  ];
  for (const b of bad) assert.throws(() => parseStrict(BOOTSTRAP, JSON.stringify(b)), TypeError);
});
