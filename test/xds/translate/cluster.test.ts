import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCluster, clusterDiffersByFlavor, grpcPolicyOf } from '../../../src/xds/translate/cluster';
import { encodeXdsResource } from '../../../src/xds/translate/encode';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { decode, entry, grpcJsError } from './helpers';

const encode = (plain: Record<string, unknown>) => encodeXdsResource(TypeUrl.Cluster, String(plain['name']), plain);

test('Cluster S: EDS over ADS v3, 5s connect timeout, ROUND_ROBIN by default, accepted by grpc-js', () => {
  const r = encode(buildCluster({ name: 'web' }, 'grpc'));
  const c = decode(r);
  assert.equal(c.name, 'web');
  assert.equal(c.type, 'EDS');
  assert.deepEqual(c.edsClusterConfig, { edsConfig: { ads: {}, resourceApiVersion: 'V3' } });
  assert.deepEqual(c.connectTimeout, { seconds: 5, nanos: 0 });
  assert.equal(c.lbPolicy, 'ROUND_ROBIN');
  assert.equal(c.typedExtensionProtocolOptions, undefined);
  assert.equal(grpcJsError(r), undefined);
});

test('connect_timeout comes from the resolver ConnectTimeout (Go duration or nanoseconds)', () => {
  const a = decode(
    encode(
      buildCluster({ name: 'web', resolver: entry('service-resolver', 'web', { ConnectTimeout: '1.5s' }) }, 'envoy'),
    ),
  );
  assert.deepEqual(a.connectTimeout, { seconds: 1, nanos: 500_000_000 });
  const b = decode(
    encode(
      buildCluster(
        { name: 'web', resolver: entry('service-resolver', 'web', { ConnectTimeout: 250_000_000 }) },
        'envoy',
      ),
    ),
  );
  assert.deepEqual(b.connectTimeout, { seconds: 0, nanos: 250_000_000 });
  const bad = decode(
    encode(
      buildCluster({ name: 'web', resolver: entry('service-resolver', 'web', { ConnectTimeout: 'soon' }) }, 'envoy'),
    ),
  );
  assert.deepEqual(bad.connectTimeout, { seconds: 5, nanos: 0 });
});

test('lb_policy mapping: Envoy gets the resolver policy; gRPC clients only ROUND_ROBIN or RING_HASH', () => {
  const cases: [string, string, string][] = [
    ['round_robin', 'ROUND_ROBIN', 'ROUND_ROBIN'],
    ['least_request', 'LEAST_REQUEST', 'ROUND_ROBIN'],
    ['ring_hash', 'RING_HASH', 'RING_HASH'],
    ['maglev', 'MAGLEV', 'RING_HASH'],
    ['random', 'RANDOM', 'ROUND_ROBIN'],
  ];
  for (const [policy, envoy, grpc] of cases) {
    const resolver = entry('service-resolver', 'web', { LoadBalancer: { Policy: policy } });
    assert.equal(decode(encode(buildCluster({ name: 'web', resolver }, 'envoy'))).lbPolicy, envoy, policy);
    const g = encode(buildCluster({ name: 'web', resolver }, 'grpc'));
    assert.equal(decode(g).lbPolicy, grpc, policy);
    assert.equal(grpcJsError(g), undefined, `grpc-js accepts the gRPC flavour of ${policy}`);
    assert.equal(grpcPolicyOf(resolver), grpc);
    assert.equal(clusterDiffersByFlavor({ name: 'web', resolver }), envoy !== grpc);
  }
  // The Envoy flavour of least_request is exactly what grpc-js would NACK: that is why there are two.
  const lr = encode(
    buildCluster(
      { name: 'web', resolver: entry('service-resolver', 'web', { LoadBalancer: { Policy: 'least_request' } }) },
      'envoy',
    ),
  );
  assert.match(grpcJsError(lr) ?? '', /LEAST_REQUEST/);
});

test('ring hash and least request settings are carried', () => {
  const ring = decode(
    encode(
      buildCluster(
        {
          name: 'w',
          resolver: entry('service-resolver', 'w', {
            LoadBalancer: { Policy: 'ring_hash', RingHashConfig: { MinimumRingSize: 64, MaximumRingSize: 4096 } },
          }),
        },
        'grpc',
      ),
    ),
  );
  assert.deepEqual(ring.ringHashLbConfig, { minimumRingSize: { value: 64 }, maximumRingSize: { value: 4096 } });
  const lr = decode(
    encode(
      buildCluster(
        {
          name: 'w',
          resolver: entry('service-resolver', 'w', {
            LoadBalancer: { Policy: 'least_request', LeastRequestConfig: { ChoiceCount: 3 } },
          }),
        },
        'envoy',
      ),
    ),
  );
  assert.deepEqual(lr.leastRequestLbConfig, { choiceCount: { value: 3 } });
});

test('HTTP/2 upstream protocol options when service-defaults Protocol is grpc or http2, not for http/tcp', () => {
  for (const protocol of ['grpc', 'http2', 'GRPC']) {
    const r = encode(
      buildCluster({ name: 'web', defaults: entry('service-defaults', 'web', { Protocol: protocol }) }, 'grpc'),
    );
    const opts = decode(r).typedExtensionProtocolOptions['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
    assert.equal(opts['@type'], 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions');
    assert.deepEqual(opts.explicitHttpConfig, { http2ProtocolOptions: {} });
    assert.equal(grpcJsError(r), undefined);
  }
  for (const protocol of ['http', 'tcp']) {
    const c = decode(
      encode(
        buildCluster({ name: 'web', defaults: entry('service-defaults', 'web', { Protocol: protocol }) }, 'envoy'),
      ),
    );
    assert.equal(c.typedExtensionProtocolOptions, undefined, protocol);
  }
});

test('circuit breakers and outlier detection from service-defaults UpstreamConfig.Defaults', () => {
  const defaults = entry('service-defaults', 'web', {
    UpstreamConfig: {
      Defaults: {
        Limits: { MaxConnections: 100, MaxPendingRequests: 10, MaxConcurrentRequests: 50 },
        PassiveHealthCheck: {
          Interval: '10s',
          MaxFailures: 5,
          EnforcingConsecutive5xx: 80,
          MaxEjectionPercent: 250,
          BaseEjectionTime: '30s',
        },
      },
    },
  });
  const r = encode(buildCluster({ name: 'web', defaults }, 'grpc'));
  const c = decode(r);
  assert.deepEqual(c.circuitBreakers, {
    thresholds: [{ maxConnections: { value: 100 }, maxPendingRequests: { value: 10 }, maxRequests: { value: 50 } }],
  });
  assert.deepEqual(c.outlierDetection, {
    interval: { seconds: 10, nanos: 0 },
    consecutive_5xx: { value: 5 },
    enforcingConsecutive_5xx: { value: 80 },
    maxEjectionPercent: { value: 100 }, // capped: clients reject percentages over 100
    baseEjectionTime: { seconds: 30, nanos: 0 },
  });
  assert.equal(grpcJsError(r), undefined);
  const none = decode(
    encode(buildCluster({ name: 'web', defaults: entry('service-defaults', 'web', { Protocol: 'http' }) }, 'envoy')),
  );
  assert.equal(none.circuitBreakers, undefined);
  assert.equal(none.outlierDetection, undefined);
});
