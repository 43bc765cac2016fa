// A real Consul (`consul agent -dev`, v1.16.1) as the oracle: the hub and the
// agent get the same writes (consul-oracle-script.ts), then the same reads, and
// every answer is compared after normalizing what must differ between two
// servers (indexes, UUIDs, timestamps, the servers' own addresses, unspecified
// order). The set of (request, JSON path) pairs that still differ must equal
// KNOWN_DIFFERENCES (consul-differences.ts, documented in docs/consul-differences.md):
// a new difference fails the test, and so does a fixed one until it is struck off.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { ALL_PARTS, type HubWith } from '../../src/hub';
import { type ConsulAgent, consulBinary, startConsulAgent } from '../helpers/consul-agent';
import { startHub } from '../helpers/hub';
import { until } from '../helpers/until';
import { diffKey, KNOWN_DIFFERENCES } from './consul-differences';
import { READS, type Step, stepName, WRITES } from './consul-oracle-script';
import { type DiffRules, diffJson, same } from './json-diff';

interface Reply {
  status: number;
  body: unknown;
}

let hub: HubWith<typeof ALL_PARTS>;
let consul: ConsulAgent;
const selfAddresses: string[] = [];

before(async () => {
  consulBinary(); // a missing binary fails here, before anything starts
  // Each assigned as it starts, so that `after` closes whichever did when the other fails.
  await Promise.all([
    startConsulAgent('oracle').then((c) => (consul = c)),
    startHub({ nodeName: 'oracle', datacenter: 'dc1' }, { parts: ALL_PARTS }).then((h) => (hub = h)),
  ]);
  selfAddresses.push(`127.0.0.1:${hub.grpcPort}`, `127.0.0.1:${hub.httpPort}`);
  const leader = (await (await fetch(`${consul.httpUrl}/v1/status/leader`)).json()) as string;
  selfAddresses.push(leader, `127.0.0.1:${consul.httpPort}`, `127.0.0.1:${consul.grpcPort}`);
});
after(async () => {
  await Promise.all([hub?.close(), consul?.stop()]);
});

async function send(base: string, step: Step): Promise<Reply> {
  const init: RequestInit = { method: step.method };
  if (step.body !== undefined) {
    init.body = JSON.stringify(step.body);
    init.headers = { 'content-type': 'application/json' };
  }
  const res = await fetch(base + step.path, init);
  const text = await res.text();
  let body: unknown = text.trim();
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text is the answer (errors are text in Consul).
  }
  return { status: res.status, body };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;
/** Fields that are per-server bookkeeping by definition. */
const DROPPED = new Set(['CreateIndex', 'ModifyIndex', 'Index', 'LastContact']);

const PROBES = new Set(['tcp', 'http', 'grpc', 'h2ping', 'udp']);

/** What must differ between two servers, replaced by placeholders. */
function normalize(value: unknown): unknown {
  if (typeof value === 'string') {
    if (TIME.test(value)) return '<time>';
    if (selfAddresses.includes(value)) return '<self-address>';
    return value.replace(UUID, '<uuid>');
  }
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!DROPPED.has(k)) out[k] = normalize(v);
    // A probe's output says when it last ran (Consul staggers the first run): only that there is one compares.
    if (PROBES.has(String(out.Type)) && typeof out.Output === 'string') out.Output = '<probe output>';
    return out;
  }
  return value;
}

/** An array element's identity, so that lists compare by member rather than by position. */
function identity(item: unknown): string | undefined {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const o = item as Record<string, any>;
  const parts = [
    o.Node?.Node ?? (typeof o.Node === 'string' ? o.Node : undefined),
    o.Service?.ID ?? o.ServiceID,
    o.CheckID,
    o.Kind,
    o.Name ?? o.SourceName,
    o.DestinationName,
    o.OpIndex,
  ].filter((p) => p !== undefined && p !== '');
  if (parts.length === 0 && typeof o.ID === 'string' && o.ID !== '') return o.ID;
  return parts.length > 0 ? parts.join('/') : undefined;
}

/** A map from IDs to the objects carrying them (agent/services, a node's Services): compared as a list. */
function idMap(value: Record<string, unknown>): boolean {
  const entries = Object.entries(value);
  return (
    entries.length > 0 &&
    entries.every(([k, v]) => {
      const o = v as Record<string, unknown> | null;
      return !!o && typeof o === 'object' && (o.ID === k || o.CheckID === k);
    })
  );
}

const RULES: DiffRules = { identity, isIdMap: idMap };

/**
 * Whether Consul's agent copies the catalog's virtual IP into its own service is a race
 * (seen both ways on the same script): left out; the catalog reads still compare it.
 */
function withoutVirtualIps(services: unknown): void {
  for (const s of Object.values(services as Record<string, { TaggedAddresses?: Record<string, unknown> }>)) {
    if (!s.TaggedAddresses) continue;
    delete s.TaggedAddresses['consul-virtual'];
    if (Object.keys(s.TaggedAddresses).length === 0) delete s.TaggedAddresses;
  }
}

function compare(step: Step, hubReply: Reply, oracle: Reply): string[] {
  const paths: string[] = [];
  const [h, o] = [normalize(hubReply.body), normalize(oracle.body)];
  if (stepName(step) === 'GET /v1/agent/services') withoutVirtualIps(o);
  if (stepName(step).startsWith('GET /v1/agent/service/') && o && typeof o === 'object') withoutVirtualIps({ one: o });
  // A different status: the bodies are different answers, not one answer with different fields.
  if (hubReply.status !== oracle.status) {
    paths.push(`status ${hubReply.status} vs ${oracle.status}`, ...(same(h, o) ? [] : ['$']));
  } else diffJson(h, o, '$', paths, RULES);
  return [...new Set(paths)].map((p) => diffKey(stepName(step), p));
}

/** Consul's agent syncs its services and checks to the catalog in the background: wait until it has. */
let lastSync = '';
async function inSync(base: string): Promise<boolean> {
  const get = async (path: string) => (await fetch(base + path)).json();
  type Check = { CheckID: string; Status: string; Output: string; Type: string };
  type Service = { Proxy?: { Config?: unknown } };
  const agentChecks = (await get('/v1/agent/checks')) as Record<string, Check>;
  const nodeChecks = (await get('/v1/health/node/oracle')) as Check[];
  const agentServices = (await get('/v1/agent/services')) as Record<string, Service>;
  const node = (await get('/v1/catalog/node/oracle')) as { Services?: Record<string, Service> } | null;
  // Consul defers syncing a probe's output while its status holds (check_update_interval): statuses only there.
  const checksSynced = Object.entries(agentChecks).every(([id, c]) =>
    nodeChecks.some((n) => n.CheckID === id && n.Status === c.Status && (PROBES.has(c.Type) || n.Output === c.Output)),
  );
  // A proxy's Config follows central config (proxy-defaults) on Consul's agent, and reaches the catalog later.
  const catalogued = node?.Services ?? {};
  const ids = Object.keys(catalogued).filter((id) => id !== 'consul');
  const servicesSynced =
    same(Object.keys(agentServices).sort(), ids.sort()) &&
    Object.entries(agentServices).every(([id, s]) => same(s.Proxy?.Config, catalogued[id]?.Proxy?.Config));
  lastSync = JSON.stringify({ agentChecks, nodeChecks, agentServices, catalogued });
  return checksSynced && servicesSynced;
}

test('the hub answers as consul agent -dev does, but for the known differences', { timeout: 120_000 }, async () => {
  const found: string[] = [];
  const details = new Map<string, string>();
  const record = (step: Step, h: Reply, o: Reply) => {
    const paths = compare(step, h, o);
    found.push(...paths);
    if (paths.length === 0) return;
    details.set(stepName(step), `${stepName(step)}\n  hub:    ${JSON.stringify(h)}\n  consul: ${JSON.stringify(o)}`);
  };
  for (const step of WRITES) {
    const [h, o] = await Promise.all([send(`http://127.0.0.1:${hub.httpPort}`, step), send(consul.httpUrl, step)]);
    record(step, h, o);
  }
  for (const base of [`http://127.0.0.1:${hub.httpPort}`, consul.httpUrl]) {
    await until(() => inSync(base), {
      what: () => `${base}'s agent state in its catalog; last seen: ${lastSync}`,
      retryErrors: true,
      timeout: 30_000,
    });
  }
  for (const step of READS) {
    const [h, o] = await Promise.all([send(`http://127.0.0.1:${hub.httpPort}`, step), send(consul.httpUrl, step)]);
    record(step, h, o);
  }
  // ORACLE_DUMP=file: what differs, for updating KNOWN_DIFFERENCES and the doc.
  const dump = process.env.ORACLE_DUMP;
  if (dump) await writeFile(dump, JSON.stringify({ found, details: [...details.values()] }, null, 1));
  const known = KNOWN_DIFFERENCES.map((d) => diffKey(d.request, d.path));
  const unexpected = found.filter((k) => !known.includes(k));
  const fixed = known.filter((k) => !found.includes(k));
  const answers = [...new Set(unexpected.map((k) => k.split(' :: ')[0]!))].map((r) => details.get(r));
  assert.deepEqual(
    { unexpected, fixed },
    { unexpected: [], fixed: [] },
    `${WRITES.length + READS.length} requests compared; the answers that differ unexpectedly:\n${answers.join('\n')}`,
  );
});
