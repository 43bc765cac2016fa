// The script of the differential test against a real Consul
// (consul-oracle.int.test.ts): the writes both servers get, in order, then the
// reads whose answers are compared. Agent-level writes land on each server's own
// node, which both call `oracle`; catalog writes name nodes n1..n3.

export interface Step {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  /** Overrides `METHOD path` as the step's name in KNOWN_DIFFERENCES. */
  label?: string;
}

const ttl = (name: string) => ({ Name: name, TTL: '10m' });
const put = (path: string, body?: unknown, label?: string): Step => ({
  method: 'PUT',
  path,
  body,
  ...(label ? { label } : {}),
});
const get = (path: string): Step => ({ method: 'GET', path });
const configEntry = (label: string, body: unknown) => put('/v1/config', body, `PUT /v1/config ${label}`);

/** A step's name in KNOWN_DIFFERENCES: its label, else `METHOD path`. */
export function stepName(step: Step): string {
  return step.label ?? `${step.method} ${step.path}`;
}

/** Names a request sent more than once `METHOD path #2`, `#3`…, so that every step's name is its own. */
function numbered(steps: Step[]): Step[] {
  const seen = new Map<string, number>();
  return steps.map((step) => {
    const n = (seen.get(stepName(step)) ?? 0) + 1;
    seen.set(stepName(step), n);
    return n === 1 ? step : { ...step, label: `${stepName(step)} #${n}` };
  });
}

export const WRITES: Step[] = numbered([
  {
    method: 'PUT',
    path: '/v1/catalog/register',
    body: {
      Node: 'n1',
      Address: '10.0.0.1',
      NodeMeta: { rack: 'r1' },
      TaggedAddresses: { lan: '10.0.0.1' },
      Service: { ID: 'api1', Service: 'api', Port: 9090, Tags: ['v1', 'primary'], Meta: { version: '1' } },
      Check: { CheckID: 'api1-alive', Name: 'api alive', Status: 'passing', ServiceID: 'api1', Output: 'ok' },
    },
  },
  {
    method: 'PUT',
    path: '/v1/catalog/register',
    body: {
      Node: 'n2',
      Address: '10.0.0.2',
      Service: {
        ID: 'api2',
        Service: 'api',
        Port: 9091,
        Tags: ['v2'],
        Meta: { version: '2' },
        Weights: { Passing: 3, Warning: 1 },
      },
      Checks: [
        { CheckID: 'api2-alive', Name: 'api alive', Status: 'critical', ServiceID: 'api2', Notes: 'down on purpose' },
        { CheckID: 'n2-disk', Name: 'disk', Status: 'warning' },
      ],
    },
  },
  put('/v1/catalog/register', {
    Node: 'n2',
    Address: '10.0.0.2',
    Service: { ID: 'cache1', Service: 'cache', Port: 6379 },
  }),
  { method: 'PUT', path: '/v1/catalog/deregister', body: { Node: 'n2', ServiceID: 'cache1' } },
  put('/v1/catalog/register', { Node: 'n3', Address: '10.0.0.3', Service: { ID: 'db1', Service: 'db', Port: 5432 } }),
  { method: 'PUT', path: '/v1/catalog/deregister', body: { Node: 'n3' } },
  put('/v1/catalog/register', { Address: '10.0.0.9' }, 'PUT /v1/catalog/register (no Node)'),
  {
    method: 'PUT',
    path: '/v1/agent/service/register',
    body: {
      Name: 'web',
      ID: 'web1',
      Port: 8080,
      Tags: ['edge'],
      Meta: { team: 'a' },
      Check: ttl('web ttl'),
      Connect: { SidecarService: { Proxy: { Upstreams: [{ DestinationName: 'api', LocalBindPort: 9191 }] } } },
    },
  },
  { method: 'PUT', path: '/v1/agent/check/pass/service:web1?note=fine' },
  put('/v1/agent/service/register', { Name: 'worker', ID: 'worker1', Port: 7000, Checks: [ttl('w1'), ttl('w2')] }),
  { method: 'PUT', path: '/v1/agent/check/warn/service:worker1:1?note=slow' },
  { method: 'PUT', path: '/v1/agent/check/update/service:worker1:2', body: { Status: 'passing', Output: 'all good' } },
  { method: 'PUT', path: '/v1/agent/service/register', body: { Name: 'tmp', ID: 'tmp1', Port: 1 } },
  { method: 'PUT', path: '/v1/agent/service/deregister/tmp1' },
  { method: 'PUT', path: '/v1/agent/service/deregister/nope' },
  { method: 'PUT', path: '/v1/agent/check/pass/nope' },
  configEntry('proxy-defaults (not global)', { Kind: 'proxy-defaults', Name: 'other', Config: { protocol: 'grpc' } }),
  configEntry('proxy-defaults', { Kind: 'proxy-defaults', Name: 'global', Config: { protocol: 'http' } }),
  configEntry('exported-services', { Kind: 'exported-services', Name: 'default', Services: [] }),
  configEntry('service-defaults', { Kind: 'service-defaults', Name: 'api', Protocol: 'http' }),
  {
    method: 'PUT',
    path: '/v1/config',
    label: 'PUT /v1/config service-resolver',
    body: {
      Kind: 'service-resolver',
      Name: 'api',
      DefaultSubset: 'v1',
      ConnectTimeout: '5s',
      Subsets: { v1: { Filter: 'Service.Meta.version == 1' }, v2: { Filter: 'Service.Meta.version == 2' } },
    },
  },
  {
    method: 'PUT',
    path: '/v1/config',
    label: 'PUT /v1/config service-router',
    body: {
      Kind: 'service-router',
      Name: 'api',
      Routes: [{ Match: { HTTP: { PathPrefix: '/admin' } }, Destination: { Service: 'api', ServiceSubset: 'v2' } }],
    },
  },
  {
    method: 'PUT',
    path: '/v1/config',
    label: 'PUT /v1/config service-splitter',
    body: {
      Kind: 'service-splitter',
      Name: 'api',
      Splits: [
        { Weight: 90, ServiceSubset: 'v1' },
        { Weight: 10, ServiceSubset: 'v2' },
      ],
    },
  },
  configEntry('service-defaults web', { Kind: 'service-defaults', Name: 'web', Protocol: 'http' }),
  configEntry('(unknown kind)', { Kind: 'no-such-kind', Name: 'x' }),
  put('/v1/connect/intentions/exact?source=web&destination=api', { Action: 'allow', Description: 'web calls api' }),
  {
    method: 'PUT',
    path: '/v1/config',
    label: 'PUT /v1/config service-intentions',
    body: {
      Kind: 'service-intentions',
      Name: 'db',
      Sources: [
        { Name: 'web', Action: 'deny' },
        { Name: '*', Action: 'allow' },
      ],
    },
  },
  { method: 'DELETE', path: '/v1/config/service-defaults/web' },
]);

export const READS: Step[] = numbered([
  get('/v1/catalog/datacenters'),
  get('/v1/status/leader'),
  get('/v1/status/peers'),
  get('/v1/catalog/nodes'),
  get('/v1/catalog/services'),
  get('/v1/catalog/service/api'),
  get('/v1/catalog/service/api?tag=v1'),
  get('/v1/catalog/service/web'),
  get('/v1/catalog/service/web-sidecar-proxy'),
  get('/v1/catalog/connect/web'),
  get('/v1/catalog/service/nope'),
  get('/v1/catalog/node/n1'),
  get('/v1/catalog/node/n3'),
  get('/v1/catalog/node-services/n2'),
  get('/v1/health/service/api'),
  get('/v1/health/service/api?passing'),
  get('/v1/health/service/web?passing'),
  get('/v1/health/service/worker'),
  get('/v1/health/connect/web'),
  get('/v1/health/checks/api'),
  get('/v1/health/checks/worker'),
  get('/v1/health/node/n2'),
  get('/v1/health/state/critical'),
  get('/v1/health/state/warning'),
  get('/v1/health/state/bogus'),
  get('/v1/agent/services'),
  get('/v1/agent/checks'),
  get('/v1/agent/service/web1'),
  get('/v1/agent/service/web1-sidecar-proxy'),
  get('/v1/agent/health/service/id/worker1'),
  get('/v1/agent/health/service/name/web'),
  get('/v1/config/proxy-defaults'),
  get('/v1/config/proxy-defaults/global'),
  get('/v1/config/exported-services'),
  get('/v1/config/service-defaults'),
  get('/v1/config/service-defaults/web'),
  get('/v1/config/service-resolver/api'),
  get('/v1/config/service-router/api'),
  get('/v1/config/service-splitter/api'),
  get('/v1/config/service-intentions'),
  get('/v1/connect/intentions'),
  get('/v1/connect/intentions/exact?source=web&destination=api'),
  get('/v1/connect/intentions/match?by=destination&name=db'),
  get('/v1/connect/intentions/check?source=web&destination=db'),
  get('/v1/connect/intentions/check?source=other&destination=db'),
  put('/v1/txn', [{ Node: { Verb: 'get', Node: { Node: 'n1' } } }], 'PUT /v1/txn (node get)'),
  {
    method: 'PUT',
    path: '/v1/txn',
    label: 'PUT /v1/txn (missing service)',
    body: [{ Service: { Verb: 'get', Node: 'n1', Service: { ID: 'nope' } } }],
  },
  { method: 'PUT', path: '/v1/txn', label: 'PUT /v1/txn (KV)', body: [{ KV: { Verb: 'get', Key: 'nope' } }] },
  put('/v1/txn', [{ Node: { Verb: 'explode', Node: { Node: 'n1' } } }], 'PUT /v1/txn (bad verb)'),
]);
