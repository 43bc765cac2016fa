// Canonical proto3 JSON, as Envoy's REST client parses it and its config dump
// prints it: the writer and the reader the REST endpoints and admin views use.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeResource, lookupType } from '../../src/xds/transport/envoy-proto';
import { bytesToJson, jsonToBytes } from '../../src/xds/transport/proto-json';

const CLUSTER = 'envoy.config.cluster.v3.Cluster';

test('writer: durations as "5s", wrappers bare, Any with @type, enums by name, 64-bit as strings, defaults left out, JSON names', () => {
  const bytes = encodeResource(CLUSTER, {
    name: 'web',
    type: 'EDS',
    connect_timeout: { seconds: 5, nanos: 0 },
    lb_policy: 'ROUND_ROBIN',
    per_connection_buffer_limit_bytes: { value: 1024 },
    outlier_detection: {
      enforcingConsecutive_5xx: { value: 100 },
      base_ejection_time: { seconds: 0, nanos: 250_000_000 },
    },
    typed_extension_protocol_options: {
      'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
        '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
        explicit_http_config: { http2_protocol_options: {} },
      },
    },
    metadata: { filter_metadata: { xdshub: { fields: { n: { numberValue: 2 }, s: { stringValue: 'x' } } } } },
    ring_hash_lb_config: { maximum_ring_size: { value: '8388608' } },
  });
  assert.deepEqual(bytesToJson(lookupType(CLUSTER), bytes), {
    name: 'web',
    type: 'EDS',
    connectTimeout: '5s',
    perConnectionBufferLimitBytes: 1024,
    outlierDetection: { enforcingConsecutive5xx: 100, baseEjectionTime: '0.250s' },
    typedExtensionProtocolOptions: {
      'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
        '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
        explicitHttpConfig: { http2ProtocolOptions: {} },
      },
    },
    metadata: { filterMetadata: { xdshub: { n: 2, s: 'x' } } },
    ringHashLbConfig: { maximumRingSize: '8388608' },
  });
});

test('reader: canonical JSON in either spelling round-trips; an unknown key is refused naming its path', () => {
  const json = {
    name: 'web',
    connect_timeout: '1.5s',
    perConnectionBufferLimitBytes: 7,
    metadata: { filter_metadata: { a: { list: [1, 'two', true, null], nested: { k: 'v' } } } },
    typed_extension_protocol_options: {
      x: {
        '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
        explicit_http_config: { http2_protocol_options: {} },
      },
    },
  };
  const type = lookupType(CLUSTER);
  const again = bytesToJson(type, jsonToBytes(type, json));
  assert.deepEqual(again, {
    name: 'web',
    connectTimeout: '1.500s',
    perConnectionBufferLimitBytes: 7,
    metadata: { filterMetadata: { a: { list: [1, 'two', true, null], nested: { k: 'v' } } } },
    typedExtensionProtocolOptions: {
      x: {
        '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
        explicitHttpConfig: { http2ProtocolOptions: {} },
      },
    },
  });
  assert.throws(
    () => jsonToBytes(type, { name: 'web', outlier_detection: { consecutive5xxx: 1 } }),
    /outlier_detection\.consecutive5xxx: no such field/,
  );
  assert.throws(() => jsonToBytes(type, { connect_timeout: '5 seconds' }), /connect_timeout: expected a duration/);
  assert.throws(() => jsonToBytes(type, { type: 'DNS' }), /type: "DNS" is not a DiscoveryType/);
  assert.throws(() => jsonToBytes(type, { name: 7 }), /name: expected a string/);
  assert.throws(
    () => jsonToBytes(type, { per_connection_buffer_limit_bytes: -1 }),
    /per_connection_buffer_limit_bytes: expected an integer of uint32/,
  );
  assert.throws(
    () => jsonToBytes(type, { type: 'STATIC', cluster_type: { name: 'x' } }),
    /cluster_type: oneof clusterDiscoveryType is already set by type/,
  );
  assert.ok(
    jsonToBytes(type, { max_requests_per_connection: '7' }).length > 0,
    '64-bit and wrapped numbers may come as strings',
  );
});
