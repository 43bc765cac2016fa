// The real consul-template (v0.33.0, MPL-2.0, as scripts/ensure-consul-template.sh
// builds it) against the hub, unchanged: `key`, `keyOrDefault`, `keyExists`,
// `ls`, `tree`, `service` (health) and `services` (catalog) render once
// (-once) and then re-render while it runs as KV entries and services change,
// through the hub's blocking queries (parked, as the blocking-queries gauge
// shows, not polled). Two bugs other servers had are pinned: `{{ key }}` on an
// absent key must render once the key is created (not hang), and
// `keyOrDefault` must render the value of a key that exists (not the default).
// Each re-render's delay from the write's acknowledgement to the new file is
// measured and printed (docs/kv.md "consul-template").

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Hub } from '../../src/hub';
import { call, REPO_ROOT, startHub } from '../helpers/hub';
import { killTree, spawnTracked } from '../helpers/procs';
import { tmpDir } from '../helpers/tmp';
import { until } from '../helpers/until';

const VERSION = 'v0.33.0';
const BINARY = join(REPO_ROOT, '.tmp', 'consul-template', `consul-template-${VERSION}`);

const TEMPLATE = [
  'config={{ key "app/config" }}',
  'flag={{ keyOrDefault "app/flag" "off" }}',
  'present={{ keyOrDefault "app/present" "the-default" }}',
  'exists={{ keyExists "app/flag" }}',
  'ls={{ range ls "app/" }}{{ .Key }}:{{ .Value }},{{ end }}',
  'tree={{ range tree "app/" }}{{ .Key }}:{{ .Value }},{{ end }}',
  'web={{ range service "web" }}{{ .ID }}@{{ .Address }}:{{ .Port }},{{ end }}',
  'services={{ range services }}{{ .Name }}[{{ join "," .Tags }}];{{ end }}',
  '',
].join('\n');

let hub: Hub;
let dir: { path: string; cleanup(): Promise<void> };
const children: ChildProcess[] = [];

before(async () => {
  if (!existsSync(BINARY))
    throw new Error(`consul-template is not built (${BINARY}): run bash scripts/ensure-consul-template.sh`);
  hub = await startHub();
  dir = await tmpDir('consul-template');
  await writeFile(join(dir.path, 'in.tpl'), TEMPLATE);
});
after(async () => {
  for (const c of children) killTree(c);
  await hub?.close();
  await dir?.cleanup();
});

async function put(path: string, body: unknown): Promise<number> {
  const res = await call(hub, 'PUT', path, body);
  assert.equal(res.status, 200, res.text);
  return performance.now();
}

async function del(path: string): Promise<number> {
  const res = await call(hub, 'DELETE', path);
  assert.equal(res.status, 200, res.text);
  return performance.now();
}

function run(template: string, out: string, once: boolean): ChildProcess {
  const args = ['-consul-addr', `127.0.0.1:${hub.httpPort}`, '-template', `${join(dir.path, template)}:${out}`];
  const child = spawnTracked(BINARY, once ? [...args, '-once'] : args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return child;
}

async function rendered(out: string, wanted: RegExp, what: string): Promise<string> {
  return until(
    async () => {
      const text = existsSync(out) ? await readFile(out, 'utf8') : '';
      return wanted.test(text) ? text : undefined;
    },
    { what, interval: 5 },
  );
}

/** Blocking queries parked in the hub right now (the xdshub_http_blocking_queries gauge). */
async function parked(): Promise<number> {
  const gauge = hub.metrics.registry.getSingleMetric('xdshub_http_blocking_queries');
  if (!gauge) throw new Error('the hub has no xdshub_http_blocking_queries gauge');
  return (await gauge.get()).values[0]?.value ?? 0;
}

/** Write acknowledged → file re-rendered, in ms, by step. */
const delays: Record<string, number> = {};

async function step(name: string, out: string, write: () => Promise<number>, wanted: RegExp): Promise<void> {
  const acked = await write();
  await rendered(out, wanted, name);
  delays[name] = performance.now() - acked;
}

test('-once renders key, keyOrDefault (absent: the default; present: the value), ls, tree, service, services', async () => {
  await put('/v1/kv/app/config', 'v1');
  await put('/v1/kv/app/present', 'the-value');
  await put('/v1/kv/app/a', '1');
  await put('/v1/kv/app/sub/b', '2');
  await put('/v1/agent/service/register', { ID: 'web1', Name: 'web', Address: '10.0.0.5', Port: 8080, Tags: ['v1'] });
  const out = join(dir.path, 'once.txt');
  const child = run('in.tpl', out, true);
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0);
  assert.equal(
    await readFile(out, 'utf8'),
    [
      'config=v1',
      'flag=off',
      'present=the-value', // keyOrDefault of a key that exists: its value, never the default
      'exists=false',
      'ls=a:1,config:v1,present:the-value,', // ls: the keys directly under the prefix
      'tree=a:1,config:v1,present:the-value,sub/b:2,',
      'web=web1@10.0.0.5:8080,',
      'services=web[v1];',
      '',
    ].join('\n'),
  );
});

test('running, it parks blocking queries and re-renders on each KV and service change', async () => {
  const out = join(dir.path, 'live.txt');
  const before = await parked();
  run('in.tpl', out, false);
  await rendered(out, /^config=v1$/m, 'the first render');
  // Its views wait in the hub's blocking queries (key, keyOrDefault × 2, keyExists, the app/ list, health,
  // catalog services): a hub answering at once would show none parked, only a polling loop.
  await until(async () => (await parked()) >= before + 6, { what: 'consul-template parked in blocking queries' });
  const live = (name: string, write: () => Promise<number>, wanted: RegExp) => step(name, out, write, wanted);
  await live('key changed', () => put('/v1/kv/app/config', 'v2'), /^config=v2$/m);
  const flag = (v: string, exists: boolean) => new RegExp(`^flag=${v}\npresent=the-value\nexists=${exists}$`, 'm');
  await live('keyOrDefault, keyExists: key created', () => put('/v1/kv/app/flag', 'on'), flag('on', true));
  await live('keyOrDefault, keyExists: key deleted', () => del('/v1/kv/app/flag'), flag('off', false));
  await live('ls: key added under the prefix', () => put('/v1/kv/app/d', '4'), /^ls=a:1,config:v2,d:4,present:/m);
  await live('tree: key under a folder', () => put('/v1/kv/app/sub/c', '3'), /^tree=.*sub\/b:2,sub\/c:3,$/m);
  await live(
    'tree: folder deleted (?recurse)',
    () => del('/v1/kv/app/sub?recurse'),
    /^tree=a:1,config:v2,d:4,present:the-value,$/m,
  );
  const web2 = { ID: 'web2', Name: 'web', Address: '10.0.0.6', Port: 8081 };
  await live(
    'service: instance registered',
    () => put('/v1/agent/service/register', web2),
    /^web=web1@10\.0\.0\.5:8080,web2@10\.0\.0\.6:8081,$/m,
  );
  const down = { ID: 'web2-ttl', Name: 'ttl', ServiceID: 'web2', TTL: '10m', Status: 'critical' };
  await live(
    'service: instance critical',
    () => put('/v1/agent/check/register', down),
    /^web=web1@10\.0\.0\.5:8080,$/m,
  );
  await live(
    'service: instance passing again',
    () => put('/v1/agent/check/pass/web2-ttl', undefined),
    /^web=web1@10\.0\.0\.5:8080,web2@10\.0\.0\.6:8081,$/m,
  );
  const api = { ID: 'api1', Name: 'api', Port: 9090, Tags: ['blue', 'grpc'] };
  await live(
    'services: service registered',
    () => put('/v1/agent/service/register', api),
    /^services=api\[blue,grpc\];web\[v1\];$/m,
  );
  await live(
    'services: service deregistered',
    () => put('/v1/agent/service/deregister/api1', undefined),
    /^services=web\[v1\];$/m,
  );
});

test('{{ key }} on an absent key: waits (parked), renders once the key is created', async () => {
  await writeFile(join(dir.path, 'late.tpl'), 'late={{ key "late/k" }}\n');
  const out = join(dir.path, 'late.txt');
  const before = await parked();
  run('late.tpl', out, false);
  await until(async () => (await parked()) > before, { what: 'the key query parked' });
  assert.equal(existsSync(out), false, 'nothing is rendered while the key is absent');
  await step('key: absent key created', out, () => put('/v1/kv/late/k', 'here'), /^late=here$/m);
  await step('key: changed again', out, () => put('/v1/kv/late/k', 'again'), /^late=again$/m);
});

test("re-render delays: printed, and their median within the issue's 1 s", (t) => {
  const entries = Object.entries(delays);
  assert.equal(entries.length, 13);
  t.diagnostic(
    `write acknowledged → file re-rendered: ${entries.map(([k, v]) => `${k}: ${v.toFixed(0)} ms`).join('; ')}`,
  );
  const sorted = entries.map(([, v]) => v).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  t.diagnostic(`median ${median.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`);
  // The median, not each figure: one step may meet consul-template's own 100 ms rate limit
  // or a stall of the loaded machine; a systematic delay (a poll instead of a wake-up) moves the median.
  assert.ok(median < 1000, `median re-render delay ${median.toFixed(0)} ms`);
});
