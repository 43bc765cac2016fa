// The xDS half of the oracle: the same sidecar, set up the same way on a real
// Consul (`consul agent -dev`, v1.16.1) and on the hub with Consul's own CLI —
// `consul config write` of api's service-defaults (http), `consul services
// register` of api and web with the sidecar shorthand (web with an upstream to
// api) — then `consul connect envoy -bootstrap -sidecar-for web1` against each,
// a real Envoy on each bootstrap, and the two Envoys' /config_dump compared
// resource by resource after normalizing what must differ between two servers
// (trust domains, certificates and keys, versions and times, the servers' own
// ports). The set of (resource, JSON path) pairs that differ must equal
// KNOWN_XDS_DIFFERENCES (consul-xds-differences.ts, documented in
// docs/consul-differences.md): a new difference fails the test, and so does a
// fixed one until it is struck off.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { freePort, startHubWithXds } from '../envoy/harness';
import { type ConsulAgent, startConsulAgent } from '../helpers/consul-agent';
import { runConsul } from '../helpers/consul-cli';
import { type Envoy, startEnvoy } from '../helpers/envoy';
import { diffKey, KNOWN_XDS_DIFFERENCES } from './consul-xds-differences';
import { type DiffRules, diffJson, isObject, same } from './json-diff';

let hub: Hub;
let consul: ConsulAgent;
let dir: string;
const envoys: Envoy[] = [];

before(async () => {
  await Promise.all([
    startConsulAgent('oracle').then((c) => (consul = c)),
    startHubWithXds({ nodeName: 'oracle' }).then((h) => (hub = h)),
  ]);
  dir = await mkdtemp(join(tmpdir(), 'xdshub-xds-oracle-'));
});
after(async () => {
  for (const e of envoys) await e.stop().catch(() => undefined);
  await Promise.all([hub?.close(), consul?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Per-config bookkeeping: when and at which version Envoy took it. */
const DROPPED = new Set(['version_info', 'last_updated']);

/** What must differ between two servers, replaced by placeholders; `selfPorts` are the servers' own gRPC ports. */
function normalize(value: unknown, selfPorts: readonly number[]): unknown {
  if (typeof value === 'string') return value.startsWith('-----BEGIN') ? '<pem>' : value.replace(UUID, '<uuid>');
  if (typeof value === 'number' && selfPorts.includes(value)) return '<self-port>';
  if (Array.isArray(value)) return value.map((v) => normalize(v, selfPorts));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!DROPPED.has(k)) out[k] = normalize(v, selfPorts);
    return out;
  }
  return value;
}

/** A config_dump entry's resource: what is inside its wrapper (`cluster`, `active_state.listener`, …). */
function resourceOf(entry: Record<string, any>): Record<string, any> {
  return (
    entry.cluster ??
    entry.active_state?.listener ??
    entry.endpoint_config ??
    entry.route_config ??
    entry.secret ??
    entry
  );
}

/** Every resource of a dump, by `<kind> <name>` (kind from the dump's section: Clusters, Listeners, …). */
function resources(dump: { configs: Record<string, unknown>[] }, selfPorts: number[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const section of dump.configs) {
    const kind = String(section['@type']).split('.').pop()!.replace('ConfigDump', '');
    if (kind === 'Bootstrap') continue; // both written by the same `consul connect envoy`
    for (const list of Object.values(section)) {
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        const r = resourceOf(entry);
        // A listener's name carries its port, a free one per run.
        const name = String(r.name ?? r.cluster_name)
          .replace(UUID, '<uuid>')
          .replace(/:\d+$/, ':<port>');
        out.set(`${kind} ${name}`, normalize(r, selfPorts));
      }
    }
  }
  return out;
}

/** List members of Envoy's config with a name (filters, clusters, virtual hosts, tags) compare by it. */
const RULES: DiffRules = {
  identity(item) {
    if (!isObject(item)) return undefined;
    const id = item.name ?? item.tag_name ?? item.san_type;
    return typeof id === 'string' ? id : undefined;
  },
  positional: true,
};

interface Side {
  name: 'hub' | 'consul';
  httpPort: number;
  grpcPort: number;
}

/** The same writes through the real CLI, then web1's sidecar on its own Envoy until its config holds still. */
async function sidecarDump(side: Side, ports: Record<string, number>): Promise<{ configs: Record<string, unknown>[] }> {
  const target = { httpAddr: `127.0.0.1:${side.httpPort}` };
  const files: Record<string, string> = {
    'defaults.hcl': 'Kind = "service-defaults"\nName = "api"\nProtocol = "http"\n',
    'api.hcl':
      `service {\n  name = "api"\n  id = "api1"\n  port = ${ports.api}\n` +
      `  connect { sidecar_service { port = ${ports.apiPublic} } }\n}\n`,
    'web.hcl':
      `service {\n  name = "web"\n  id = "web1"\n  port = ${ports.web}\n  connect {\n    sidecar_service {\n` +
      `      port = ${ports.webPublic}\n` +
      `      proxy { upstreams = [{ destination_name = "api", local_bind_port = ${ports.upstream} }] }\n` +
      '    }\n  }\n}\n',
  };
  for (const [file, body] of Object.entries(files)) await writeFile(join(dir, file), body);
  await runConsul(['config', 'write', join(dir, 'defaults.hcl')], target);
  for (const file of ['api.hcl', 'web.hcl']) await runConsul(['services', 'register', join(dir, file)], target);
  const boot = JSON.parse(
    (
      await runConsul(
        ['connect', 'envoy', '-bootstrap', '-sidecar-for', 'web1', '-grpc-addr', `127.0.0.1:${side.grpcPort}`],
        target,
      )
    ).stdout,
  );
  const envoy = await startEnvoy({ bootstrap: boot });
  envoys.push(envoy);
  // Complete (the upstream listener and api's endpoints are in) and unchanged between two reads.
  let previous = '';
  const dump = await envoy.until(
    async () => {
      const now = await envoy.configDump('?include_eds');
      const text = JSON.stringify(now).replace(/"last_updated":"[^"]*"/g, '');
      const complete = text.includes(`"port_value":${ports.upstream}`) && /"cluster_name":"api\./.test(text);
      const still = complete && text === previous;
      previous = text;
      return still ? now : undefined;
    },
    `${side.name}: web1's sidecar config, complete and settled`,
    90_000,
  );
  await envoy.stop();
  return dump;
}

test("the same sidecar's Envoy config from Consul and from the hub differs only as listed", {
  timeout: 170_000,
}, async () => {
  const ports: Record<string, number> = {};
  for (const name of ['api', 'apiPublic', 'web', 'webPublic', 'upstream']) ports[name] = await freePort();
  const selfPorts = [hub.grpcPort, consul.grpcPort];
  // One Envoy after the other: both bind the same sidecar ports.
  const oracle = resources(
    await sidecarDump({ name: 'consul', httpPort: consul.httpPort, grpcPort: consul.grpcPort }, ports),
    selfPorts,
  );
  const ours = resources(
    await sidecarDump({ name: 'hub', httpPort: hub.httpPort, grpcPort: hub.grpcPort }, ports),
    selfPorts,
  );
  const found: string[] = [];
  for (const key of [...new Set([...oracle.keys(), ...ours.keys()])].sort()) {
    if (!ours.has(key)) found.push(diffKey(key, '(hub lacks)'));
    else if (!oracle.has(key)) found.push(diffKey(key, '(hub only)'));
    else if (!same(ours.get(key), oracle.get(key))) {
      const paths: string[] = [];
      diffJson(ours.get(key), oracle.get(key), '$', paths, RULES);
      found.push(...[...new Set(paths)].map((p) => diffKey(key, p)));
    }
  }
  const detail = [...ours.keys(), ...oracle.keys()].map(
    (k) => `${k}\n  hub:    ${JSON.stringify(ours.get(k))}\n  consul: ${JSON.stringify(oracle.get(k))}`,
  );
  const dump = process.env.ORACLE_DUMP;
  if (dump) await writeFile(dump, JSON.stringify({ found, detail }, null, 1));
  const known = KNOWN_XDS_DIFFERENCES.map((d) => diffKey(d.resource, d.path));
  assert.deepEqual(
    { unexpected: found.filter((k) => !known.includes(k)), fixed: known.filter((k) => !found.includes(k)) },
    { unexpected: [], fixed: [] },
    `${oracle.size} resources from Consul, ${ours.size} from the hub (ORACLE_DUMP=file writes both)`,
  );
});
