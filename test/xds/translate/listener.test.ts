import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeXdsResource } from '../../../src/xds/translate/encode';
import { buildGateway } from '../../../src/xds/translate/ingress';
import { buildApiListener } from '../../../src/xds/translate/listener';
import { gatewayNameOf, serviceResourceName } from '../../../src/xds/translate/names';
import { routesForService } from '../../../src/xds/translate/route';
import { TypeUrl } from '../../../src/xds/transport/type-urls';
import { cCoreError, decode, entry, grpcJsError } from './helpers';

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';

test('API listener S: HCM with RDS S over ADS v3 and exactly one http filter, the router, last', () => {
  const r = encodeXdsResource(TypeUrl.Listener, 'web', buildApiListener('web'));
  const l = decode(r);
  assert.equal(l.name, 'web');
  const hcm = l.apiListener.apiListener;
  assert.equal(hcm['@type'], HCM);
  assert.deepEqual(hcm.rds, { routeConfigName: 'web', configSource: { ads: {}, resourceApiVersion: 'V3' } });
  assert.deepEqual(hcm.httpFilters, [
    {
      name: 'envoy.filters.http.router',
      typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
    },
  ]);
  assert.ok(hcm.statPrefix.length > 0, 'Envoy requires a stat_prefix');
  assert.equal(grpcJsError(r), undefined);
  assert.equal(cCoreError(r), undefined);
});

test('names: S, S.<ns>.<partition>, gateway match by node.cluster else node.id', () => {
  assert.equal(serviceResourceName({ name: 'a' }), 'a');
  assert.equal(serviceResourceName({ name: 'a', namespace: 'default', partition: 'default' }), 'a');
  assert.equal(serviceResourceName({ name: 'a', namespace: 'ns' }), 'a.ns.default');
  assert.equal(serviceResourceName({ name: 'a', partition: 'p' }), 'a.default.p');
  assert.equal(gatewayNameOf({ id: 'envoy-1', cluster: 'gw' }), 'gw');
  assert.equal(gatewayNameOf({ id: 'gw', cluster: '' }), 'gw');
});

const gateway = entry('ingress-gateway', 'gw', {
  Listeners: [
    { Port: 8080, Protocol: 'http', Services: [{ Name: 'web' }, { Name: 'api', Hosts: ['api.example.com'] }] },
    { Port: 9090, Protocol: 'tcp', Services: [{ Name: 'db' }] },
    { Port: 9091, Protocol: 'tcp', Services: [{ Name: 'a' }, { Name: 'b' }] },
    { Port: 8443, Protocol: 'http', Services: [{ Name: '*' }] },
  ],
});
const ctx = {
  services: [{ name: 'web' }, { name: 'api' }, { name: 'gw' }],
  routesFor: (ref: { name: string }) => routesForService(ref, []),
};

test('ingress http listener: <gateway>:<port> on 0.0.0.0, HCM with RDS of the same name, a virtual host per service', () => {
  const built = buildGateway(gateway, ctx);
  assert.deepEqual([...built.listeners.keys()], ['gw:8080', 'gw:9090', 'gw:8443']);
  assert.match(built.skipped[0]!, /gw:9091: a tcp listener needs exactly one service/);
  const lr = encodeXdsResource(TypeUrl.Listener, 'gw:8080', built.listeners.get('gw:8080')!);
  const l = decode(lr);
  assert.deepEqual(l.address, { socketAddress: { address: '0.0.0.0', portValue: 8080 } });
  const hcm = l.filterChains[0].filters[0];
  assert.equal(hcm.name, 'envoy.filters.network.http_connection_manager');
  assert.equal(hcm.typedConfig['@type'], HCM);
  assert.equal(hcm.typedConfig.rds.routeConfigName, 'gw:8080');
  assert.equal(hcm.typedConfig.stripAnyHostPort, true);
  assert.equal(grpcJsError(lr), undefined);
  const rr = encodeXdsResource(TypeUrl.RouteConfiguration, 'gw:8080', built.routes.get('gw:8080')!);
  const rc = decode(rr);
  assert.deepEqual(
    rc.virtualHosts.map((v: any) => [v.name, v.domains, v.routes.at(-1).route.cluster]),
    [
      ['web', ['web.ingress.*'], 'web'],
      ['api', ['api.example.com'], 'api'],
    ],
  );
  assert.equal(grpcJsError(rr), undefined);
  // '*' lists every service but the gateway itself.
  const star = decode(encodeXdsResource(TypeUrl.RouteConfiguration, 'gw:8443', built.routes.get('gw:8443')!));
  assert.deepEqual(
    star.virtualHosts.map((v: any) => v.name),
    ['web', 'api'],
  );
});

test('ingress tcp listener: tcp_proxy to the single listed service cluster', () => {
  const built = buildGateway(gateway, ctx);
  const l = decode(encodeXdsResource(TypeUrl.Listener, 'gw:9090', built.listeners.get('gw:9090')!));
  const f = l.filterChains[0].filters[0];
  assert.equal(f.name, 'envoy.filters.network.tcp_proxy');
  assert.equal(f.typedConfig['@type'], 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy');
  assert.equal(f.typedConfig.cluster, 'db');
  assert.ok(f.typedConfig.statPrefix.length > 0);
  assert.equal(built.routes.has('gw:9090'), false);
});
