// A second, independent Consul client, outside Node.js: HashiCorp's Go API
// (github.com/hashicorp/consul/api v1.34.5), unchanged, runs the scenario in
// test/clients/go/main.go against a real listening hub — registration, TTL
// checks, a blocking health query, filters, catalog reads, datacenters,
// members, check registration and maintenance, a catalog registration with a
// check (Go's "0s" durations), one agent service blocking on its ContentHash, and Connect (the CA
// configuration read and written back, roots, a leaf, intentions). scripts/ensure-go-consul.sh
// fetches and builds it into .tmp/go/ (from the Go module proxy).

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { REPO_ROOT, startHub } from '../helpers/hub';
import { execFileTracked } from '../helpers/procs';

const run = execFileTracked;
let hub: Hub;

before(async () => {
  await run('bash', [join(REPO_ROOT, 'scripts', 'ensure-go-consul.sh')], { cwd: REPO_ROOT, timeout: 170_000 });
  hub = await startHub({ nodeName: 'go-api-hub', datacenter: 'dc-go' });
});
after(() => hub?.close());

test('the Consul Go API client works against the hub unchanged', async () => {
  const binary = join(REPO_ROOT, '.tmp', 'go', 'consulapi-check');
  const { stdout } = await run(binary, ['-addr', `127.0.0.1:${hub.httpPort}`, '-dc', 'dc-go', '-node', 'go-api-hub'], {
    timeout: 60_000,
  }).catch((err: Error & { stdout?: string; stderr?: string }) => {
    throw new Error(`Go client failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  });
  const steps = stdout.trim().split('\n');
  assert.deepEqual(steps, [
    'ok catalog datacenters',
    'ok agent service register with TTL checks',
    'ok TTL checks: new checks are critical, UpdateTTL passes them',
    'ok blocking health query returns on a TTL failure',
    'ok filtered health query; a bad filter is an error',
    'ok catalog reads: services, service, nodes, node, node services',
    'ok agent members, check register, maintenance, service health',
    'ok connect: CA config round trip, roots, leaf, intentions (upsert, legacy create/update, check, delete)',
    'ok catalog register with a check (every HealthCheckDefinition carries Interval/Timeout "0s")',
    'ok agent service by ID, blocking on its ContentHash',
    'ok kv put, get, list, keys, delete, delete tree',
    'ok kv CAS: index 0 creates once, a stale index is refused',
    'ok session acquire and release: one holder at a time',
    'ok blocking kv get returns on the change',
    'ok txn: KV and catalog verbs in one transaction; a failing op rolls back all',
    'ok agent service deregister',
  ]);
});
