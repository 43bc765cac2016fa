// The real consul-template (v0.33.0, MPL-2.0, as scripts/ensure-consul-template.sh
// builds it) against the hub, unchanged: `key`, `keyOrDefault`, `ls`, `tree`
// and `service` render once (-once) and then re-render while it runs as KV
// entries and services change, through the hub's blocking queries. Each
// re-render's delay from the write's acknowledgement to the new file is
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
  'ls={{ range ls "app/" }}{{ .Key }}:{{ .Value }},{{ end }}',
  'tree={{ range tree "app/" }}{{ .Key }}:{{ .Value }},{{ end }}',
  'web={{ range service "web" }}{{ .ID }}@{{ .Address }}:{{ .Port }},{{ end }}',
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

function run(out: string, once: boolean): ChildProcess {
  const args = ['-consul-addr', `127.0.0.1:${hub.httpPort}`, '-template', `${join(dir.path, 'in.tpl')}:${out}`];
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

const delays: Record<string, number> = {};

test('-once renders key, keyOrDefault (absent: the default), ls, tree and service from the hub', async () => {
  await put('/v1/kv/app/config', 'v1');
  await put('/v1/kv/app/a', '1');
  await put('/v1/kv/app/sub/b', '2');
  await put('/v1/agent/service/register', { ID: 'web1', Name: 'web', Address: '10.0.0.5', Port: 8080 });
  const out = join(dir.path, 'once.txt');
  const child = run(out, true);
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0);
  assert.equal(
    await readFile(out, 'utf8'),
    [
      'config=v1',
      'flag=off',
      'ls=a:1,config:v1,', // ls: the keys directly under the prefix
      'tree=a:1,config:v1,sub/b:2,',
      'web=web1@10.0.0.5:8080,',
      '',
    ].join('\n'),
  );
});

test('running, it re-renders on each KV and service change (delays printed)', async (t) => {
  const out = join(dir.path, 'live.txt');
  run(out, false);
  await rendered(out, /^config=v1$/m, 'the first render');
  const step = async (name: string, write: () => Promise<number>, wanted: RegExp) => {
    const acked = await write();
    await rendered(out, wanted, name);
    delays[name] = performance.now() - acked;
  };
  await step('key changed', () => put('/v1/kv/app/config', 'v2'), /^config=v2$/m);
  await step('keyOrDefault: key created', () => put('/v1/kv/app/flag', 'on'), /^flag=on$/m);
  await step(
    'keyOrDefault: key deleted',
    async () => {
      assert.equal((await call(hub, 'DELETE', '/v1/kv/app/flag')).status, 200);
      return performance.now();
    },
    /^flag=off$/m,
  );
  await step(
    'tree: key under a folder',
    () => put('/v1/kv/app/sub/c', '3'),
    /^tree=a:1,config:v2,sub\/b:2,sub\/c:3,$/m,
  );
  await step(
    'service: instance registered',
    () => put('/v1/agent/service/register', { ID: 'web2', Name: 'web', Address: '10.0.0.6', Port: 8081 }),
    /^web=web1@10\.0\.0\.5:8080,web2@10\.0\.0\.6:8081,$/m,
  );
  await step(
    'service: instance critical',
    () =>
      put('/v1/agent/check/register', {
        ID: 'web2-down',
        Name: 'down',
        ServiceID: 'web2',
        TTL: '10m',
        Status: 'critical',
      }),
    /^web=web1@10\.0\.0\.5:8080,$/m,
  );
  const ms = Object.entries(delays).map(([k, v]) => `${k}: ${v.toFixed(0)} ms`);
  t.diagnostic(`write acknowledged → file re-rendered: ${ms.join('; ')}`);
});
