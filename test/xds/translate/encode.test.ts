import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { buildCluster } from '../../../src/xds/translate/cluster';
import { createEncodeCache, encodeXdsResource } from '../../../src/xds/translate/encode';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { entry } from './helpers';

test('version = sha256 of the encoded bytes (128-bit hex): equal content, equal version, on any hub', () => {
  const a = encodeXdsResource(TypeUrl.Cluster, 'web', buildCluster({ name: 'web' }, 'grpc'));
  const b = encodeXdsResource(TypeUrl.Cluster, 'web', buildCluster({ name: 'web' }, 'grpc'));
  assert.equal(a.version, createHash('sha256').update(a.encoded).digest('hex').slice(0, 32));
  assert.equal(a.version, b.version);
  assert.ok(Object.isFrozen(a));
  const c = encodeXdsResource(
    TypeUrl.Cluster,
    'web',
    buildCluster({ name: 'web', resolver: entry('service-resolver', 'web', { ConnectTimeout: '1s' }) }, 'grpc'),
  );
  assert.notEqual(c.version, a.version);
});

test('cache: identical input returns the same object without encoding; same bytes from new input keep the old object', () => {
  const cache = createEncodeCache();
  const first = cache.encode(TypeUrl.Cluster, 'web', buildCluster({ name: 'web' }, 'grpc'));
  assert.equal(cache.encode(TypeUrl.Cluster, 'web', buildCluster({ name: 'web' }, 'grpc')), first);
  assert.deepEqual(cache.stats(), { hits: 1, encodes: 1, size: 1 });
  // Different text (key order), same bytes (protobuf writes fields in number order).
  const a = cache.encode(TypeUrl.Cluster, 'other', { name: 'other', type: 'EDS' });
  const same = cache.encode(TypeUrl.Cluster, 'other', { type: 'EDS', name: 'other' });
  assert.equal(same, a);
  assert.equal(cache.stats().encodes, 3);
  const changed = cache.encode(
    TypeUrl.Cluster,
    'web',
    buildCluster({ name: 'web', resolver: entry('service-resolver', 'web', { ConnectTimeout: '2s' }) }, 'grpc'),
  );
  assert.notEqual(changed, first);
  cache.delete(TypeUrl.Cluster, 'web');
  assert.equal(cache.stats().size, 1);
});

test('encoding rejects a field the message does not have (a typo fails loudly)', () => {
  assert.throws(() => encodeXdsResource(TypeUrl.Cluster, 'x', { name: 'x', lb_polcy: 'ROUND_ROBIN' }), /lb_polcy/);
});
