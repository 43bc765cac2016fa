// --resource-ttl-types: which xDS types carry the resource TTL.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../src/config';
import { ttlTypesAdvice } from '../../src/xds/transport/rules/ttl';

test('--resource-ttl-types takes type names (or LDS/RDS/CDS/EDS/SDS), from the flag or XDSHUB_RESOURCE_TTL_TYPES; empty means all', () => {
  assert.deepEqual(parseConfig([], {}).resourceTtlTypes, []);
  assert.deepEqual(parseConfig(['--resource-ttl-types', 'endpoints'], {}).resourceTtlTypes, ['EDS']);
  assert.deepEqual(parseConfig(['--resource-ttl-types', 'clusters, EDS,endpoints'], {}).resourceTtlTypes, [
    'CDS',
    'EDS',
  ]);
  assert.deepEqual(parseConfig([], { XDSHUB_RESOURCE_TTL_TYPES: 'listeners,routes' }).resourceTtlTypes, ['LDS', 'RDS']);
  assert.throws(
    () => parseConfig(['--resource-ttl-types', 'runtimes'], {}),
    /resource-ttl-types: expected listeners, routes, clusters, endpoints or secrets, got "runtimes"/,
  );
});

test('a TTL on endpoints without clusters is flagged at start: Envoy keeps the endpoints of an expired assignment', () => {
  assert.match(
    ttlTypesAdvice(1000, ['EDS']) ?? '',
    /Envoy lets an assignment's TTL run out but keeps routing to its endpoints/,
  );
  assert.match(ttlTypesAdvice(1000, ['LDS', 'EDS']) ?? '', /add clusters/);
  assert.equal(ttlTypesAdvice(1000, ['CDS', 'EDS']), undefined);
  assert.equal(ttlTypesAdvice(1000, []), undefined, 'empty means every type, clusters included');
  assert.equal(ttlTypesAdvice(0, ['EDS']), undefined, 'no TTL, nothing to say');
});
