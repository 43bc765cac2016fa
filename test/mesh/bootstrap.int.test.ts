// `xdshub envoy bootstrap --proxy-id ID` and `--sidecar-for SERVICE_ID`, the
// real CLI against a listening hub: the proxy is looked up on the agent API,
// node.id is its ID and node.cluster its name, the bootstrap is the one the
// mesh tests start their sidecars with and passes `envoy --mode validate`;
// unknown IDs, non-proxies and conflicting flags are errors.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { envoyBootstrap } from '../../src/cli/envoy-bootstrap';
import type { Hub } from '../../src/hub';
import { validateBootstrap } from '../helpers/envoy';
import { call, REPO_ROOT, startHub } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';

const run = execFileTracked;
let hub: Hub;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'envoy', 'bootstrap', ...args],
      { cwd: REPO_ROOT },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

before(async () => {
  hub = await startHub({ nodeName: 'boot-node' });
  const res = await call(hub, 'PUT', '/v1/agent/service/register', {
    Name: 'web',
    ID: 'web1',
    Port: 8080,
    Connect: { SidecarService: {} },
  });
  assert.equal(res.status, 200, res.text);
});
after(() => hub?.close());

test('--proxy-id and --sidecar-for print the sidecar’s bootstrap (node.id = proxy ID, node.cluster = its name); Envoy validates it', async () => {
  const common = [
    '--http-addr',
    `127.0.0.1:${hub.httpPort}`,
    '--grpc-addr',
    `127.0.0.1:${hub.grpcPort}`,
    '--admin-bind',
    '127.0.0.1:19555',
  ];
  const byId = await cli('--proxy-id', 'web1-sidecar-proxy', ...common);
  assert.equal(byId.code, 0, byId.stderr);
  const bootstrap = JSON.parse(byId.stdout);
  assert.deepEqual(bootstrap.node, {
    id: 'web1-sidecar-proxy',
    cluster: 'web-sidecar-proxy',
    locality: { region: 'dc1', zone: '' },
  });
  assert.deepEqual(
    bootstrap,
    envoyBootstrap({
      nodeId: 'web1-sidecar-proxy',
      cluster: 'web-sidecar-proxy',
      transport: 'delta',
      ads: true,
      adminBind: '127.0.0.1:19555',
      grpcAddr: `127.0.0.1:${hub.grpcPort}`,
      httpAddr: `127.0.0.1:${hub.httpPort}`,
      refreshDelayMs: 1000,
      datacenter: 'dc1',
    }),
    'the bootstrap the mesh tests start their sidecars with',
  );
  const bySidecarFor = await cli('--sidecar-for', 'web1', ...common);
  assert.equal(bySidecarFor.code, 0, bySidecarFor.stderr);
  assert.deepEqual(JSON.parse(bySidecarFor.stdout), bootstrap);
  const valid = validateBootstrap(bootstrap);
  assert.ok(valid.ok, valid.output);
});

test('unknown proxies, non-proxies and flags that do not fit are errors naming the problem', async () => {
  const addr = ['--http-addr', `127.0.0.1:${hub.httpPort}`];
  const unknown = await cli('--proxy-id', 'nope', ...addr);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no service with ID "nope"/);
  const notProxy = await cli('--proxy-id', 'web1', ...addr);
  assert.equal(notProxy.code, 1);
  assert.match(notProxy.stderr, /service "web1" is not a connect-proxy/);
  const noSidecar = await cli('--sidecar-for', 'api1', ...addr);
  assert.equal(noSidecar.code, 1);
  assert.match(noSidecar.stderr, /No sidecar proxy registered for api1/);
  const both = await cli('--proxy-id', 'web1-sidecar-proxy', '--node-id', 'x', ...addr);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /give one of --node-id, --proxy-id and --sidecar-for/);
  const rest = await cli('--proxy-id', 'web1-sidecar-proxy', '--transport', 'rest', ...addr);
  assert.equal(rest.code, 2);
  assert.match(rest.stderr, /transport: a sidecar needs ADS/);
  const down = await cli('--proxy-id', 'web1-sidecar-proxy', '--http-addr', '127.0.0.1:1');
  assert.equal(down.code, 1);
  assert.match(down.stderr, /cannot reach the hub at 127\.0\.0\.1:1/);
});
