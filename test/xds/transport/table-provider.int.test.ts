// The transport serves any ResourceProvider, not only the catalog's: a table of
// four plain resources (names chosen unlike the catalog's S/S/S/S) is served
// through the real xDS server to a real @grpc/grpc-js-xds client, whose RPCs
// reach the backend the table names and follow the table when it changes.
// Also: nothing under src/xds/transport imports the catalog, the views or the
// translation.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ECHO_METHOD, type EchoBackend, startEcho } from '../e2e/echo-backend';
import { type ClientProcess, startGrpcJsClient } from '../e2e/harness';
import { type Hub, startHub } from './helpers/harness';
import { type TableRow, tableProvider } from './helpers/table-provider';

const HCM = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

function table(backendPort: number, clusterName: string): TableRow[] {
  return [
    {
      type: 'listener',
      name: 'greeter',
      byNameOnly: true,
      resource: {
        name: 'greeter',
        api_listener: {
          api_listener: {
            '@type': HCM,
            stat_prefix: 'greeter',
            rds: { route_config_name: 'greeter-routes', config_source: { ads: {}, resource_api_version: 'V3' } },
            http_filters: [{ name: 'router', typed_config: { '@type': ROUTER } }],
          },
        },
      },
    },
    {
      type: 'route',
      name: 'greeter-routes',
      resource: {
        name: 'greeter-routes',
        virtual_hosts: [
          { name: 'any', domains: ['*'], routes: [{ match: { prefix: '' }, route: { cluster: clusterName } }] },
        ],
      },
    },
    ...['blue', 'green'].flatMap((c): TableRow[] => [
      {
        type: 'cluster',
        name: c,
        resource: {
          name: c,
          type: 'EDS',
          eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
          connect_timeout: { seconds: 1 },
          lb_policy: 'ROUND_ROBIN',
        },
      },
      {
        type: 'endpoints',
        name: c,
        resource: {
          cluster_name: c,
          endpoints: [
            {
              locality: { region: 'table' },
              load_balancing_weight: { value: 1 },
              lb_endpoints: [
                { endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: backendPort } } } },
              ],
            },
          ],
        },
      },
    ]),
  ];
}

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

test('a table-driven provider served through the real transport: grpc-js-xds follows it', async () => {
  const one: EchoBackend = await startEcho('table-one');
  const two: EchoBackend = await startEcho('table-two');
  closers.push(
    () => one.close(),
    () => two.close(),
  );
  const provider = tableProvider(table(one.port, 'blue'));
  const hub: Hub = await startHub(provider);
  closers.push(() => hub.stop());
  const client: ClientProcess = startGrpcJsClient(hub.port, 'xds:///greeter', ECHO_METHOD);
  closers.push(() => client.stop());
  await client.untilServing('table-one');

  // The route now names cluster green, whose endpoints are the second backend.
  const next = table(one.port, 'green').map((r) =>
    r.type === 'endpoints' && r.name === 'green'
      ? table(two.port, 'green').find((x) => x.type === 'endpoints' && x.name === 'green')!
      : r,
  );
  provider.load(next);
  await client.untilServing('table-two', 8);

  const [stream] = hub.xds.clients();
  assert.ok(stream);
  const names = Object.fromEntries(stream.types.map((t) => [t.type, t.names]));
  assert.deepEqual(names, { CDS: ['green'], EDS: ['green'], LDS: ['greeter'], RDS: ['greeter-routes'] });
  for (const t of stream.types) assert.equal(t.lastNack, null, `${t.type} NACKed: ${JSON.stringify(t.lastNack)}`);
});

test('the transport imports nothing of the catalog, its views or the translation', () => {
  const dir = join(__dirname, '../../../src/xds/transport');
  const offenders: string[] = [];
  for (const file of readdirSync(dir, { recursive: true }) as string[]) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/from '([^']+)'/g)) {
      if (/\/(catalog|materializer|subscribe|translate|http)\//.test(`${m[1]}/`) && m[1]!.startsWith('.'))
        offenders.push(`${file}: ${m[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
