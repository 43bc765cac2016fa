import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeXdsResource } from '../../../src/xds/translate/encode';
import { buildRouteConfiguration, routeNamesParent, scaleWeights } from '../../../src/xds/translate/route';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { cCoreError, decode, entry, grpcJsError } from './helpers';

const encode = (plain: Record<string, unknown>) =>
  encodeXdsResource(TypeUrl.RouteConfiguration, String(plain['name']), plain);

test('RouteConfiguration S: one virtual host S, domains ["*"], default route prefix "" → cluster S', () => {
  const r = encode(buildRouteConfiguration({ name: 'web' }, []));
  assert.deepEqual(decode(r), {
    name: 'web',
    virtualHosts: [{ name: 'web', domains: ['*'], routes: [{ match: { prefix: '' }, route: { cluster: 'web' } }] }],
  });
  assert.equal(grpcJsError(r), undefined);
  assert.equal(cCoreError(r), undefined);
});

test('non-default namespace/partition names resources S.<ns>.<partition>', () => {
  const rc = decode(encode(buildRouteConfiguration({ name: 'web', namespace: 'team', partition: 'p1' }, [])));
  assert.equal(rc.name, 'web.team.p1');
  assert.equal(rc.virtualHosts[0].routes[0].route.cluster, 'web.team.p1');
});

const httpRoute = entry('http-route', 'web-routes', {
  Parents: [{ Kind: 'service', Name: 'web' }],
  Rules: [
    {
      Matches: [
        { Path: { Match: 'exact', Value: '/health' } },
        {
          Path: { Match: 'prefix', Value: '/api' },
          Headers: [
            { Match: 'exact', Name: 'x-canary', Value: 'yes' },
            { Match: 'present', Name: 'x-user' },
          ],
          Method: 'post',
        },
      ],
      Services: [{ Name: 'web-canary' }],
    },
    {
      Matches: [
        { Path: { Match: 'regex', Value: '^/v[0-9]+/.*' }, Query: [{ Match: 'exact', Name: 'debug', Value: '1' }] },
      ],
      Services: [
        { Name: 'web-v1', Weight: 1 },
        { Name: 'web-v2', Weight: 2 },
      ],
      Filters: { URLRewrite: { Path: '/' } },
    },
  ],
});

test('http-route rules naming S become routes before the default, in order, with matches and weighted backends', () => {
  assert.ok(routeNamesParent(httpRoute, { name: 'web' }));
  assert.ok(!routeNamesParent(httpRoute, { name: 'other' }));
  const r = encode(
    buildRouteConfiguration({ name: 'web' }, [
      httpRoute,
      entry('http-route', 'unrelated', { Parents: [{ Name: 'x' }], Rules: [{ Services: [{ Name: 'x' }] }] }),
    ]),
  );
  const routes = decode(r).virtualHosts[0].routes;
  assert.equal(routes.length, 4);
  assert.deepEqual(routes[0], { match: { path: '/health' }, route: { cluster: 'web-canary' } });
  assert.deepEqual(routes[1], {
    match: {
      prefix: '/api',
      headers: [
        // RouteConfiguration S is for proxyless gRPC: C-core 1.51 NACKs string_match header matchers.
        { name: 'x-canary', exactMatch: 'yes' },
        { name: 'x-user', presentMatch: true },
        { name: ':method', exactMatch: 'POST' },
      ],
    },
    route: { cluster: 'web-canary' },
  });
  assert.deepEqual(routes[2].match, {
    safeRegex: { regex: '^/v[0-9]+/.*' },
    queryParameters: [{ name: 'debug', stringMatch: { exact: '1' } }],
  });
  assert.equal(routes[2].route.prefixRewrite, '/');
  const wc = routes[2].route.weightedClusters;
  assert.deepEqual(
    wc.clusters.map((c: any) => [c.name, c.weight.value]),
    [
      ['web-v1', 33],
      ['web-v2', 67],
    ],
  );
  assert.equal(
    wc.clusters.reduce((s: number, c: any) => s + c.weight.value, 0),
    100,
  );
  assert.deepEqual(routes[3], { match: { prefix: '' }, route: { cluster: 'web' } });
  assert.equal(grpcJsError(r), undefined);
  assert.equal(cCoreError(r), undefined, 'C-core 1.51: weights sum to the total (100 when unset)');
});

test('scaleWeights always sums to 100 and drops shares that round to 0', () => {
  for (const weights of [[1, 1, 1], [1, 2], [50, 50], [7], [1, 1000], [3, 3, 3, 3, 3, 3, 3]]) {
    const out = scaleWeights(weights.map((weight, i) => ({ name: `c${i}`, weight })));
    assert.equal(
      out.reduce((s, c) => s + c.weight.value, 0),
      100,
      String(weights),
    );
    assert.ok(out.every((c) => c.weight.value > 0));
  }
});
