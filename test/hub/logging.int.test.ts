// Every log line of a running hub is valid JSON with each key once: a module
// that binds `module` on a logger that already has it (pino then repeats the
// key in every line) is caught here. The hub runs in-process at debug level,
// takes a write, serves an xDS stream and a Subscribe stream, and shuts down.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { DEFAULTS } from '../../src/config';
import { ALL_PARTS, createHub } from '../../src/hub';
import { moduleLogger } from '../../src/logger';
import { TypeUrl } from '../../src/xds/transport/type-urls';
import { ScriptedClient } from '../xds/transport/helpers/client';
import { DELTA_ADS } from '../xds/transport/helpers/harness';

/** Top-level keys of one JSON line, in order, repeats included. */
function keys(line: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        // A string that ends right before ':' at depth 1 is a key.
        if (depth === 1 && line[i + 1] === ':') out.push(line.slice(start + 1, i));
      }
    } else if (c === '"') {
      inString = true;
      start = i;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return out;
}

test('moduleLogger binds a module once: same module → the same logger, another → `component`', () => {
  const root = pino({ level: 'silent' });
  const xds = moduleLogger(root, 'xds');
  assert.equal(moduleLogger(xds, 'xds'), xds);
  assert.deepEqual(moduleLogger(xds, 'views').bindings(), { module: 'xds', component: 'views' });
  assert.deepEqual(keys('{"a":1,"b":{"a":2},"c":"x\\"y:","a":3}'), ['a', 'b', 'c', 'a'], 'the key reader sees repeats');
});

test('a running hub logs no line with a key twice', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const config = {
    ...DEFAULTS,
    store: { kind: 'memory' as const },
    httpPort: 0,
    grpcPort: 0,
    nodeName: 'log-test',
    xdsDebounceMs: 5,
    xdsMaxDelayMs: 50,
  };
  const hub = await createHub(config, logger, { grpcGraceMs: 200, parts: ALL_PARTS });
  try {
    const res = await fetch(`${hub.httpUrl}/v1/catalog/register`, {
      method: 'PUT',
      body: JSON.stringify({ Node: 'n1', Address: '10.0.0.1', Service: { Service: 'web', Port: 8080 } }),
    });
    assert.equal(res.status, 200);
    const client = new ScriptedClient({ port: hub.grpcPort, path: DELTA_ADS, kind: 'delta' });
    client.send({ node: { id: 'log-node' }, typeUrl: TypeUrl.Cluster, resourceNamesSubscribe: ['web'] });
    const r = await client.next();
    assert.deepEqual(
      r.resources.map((x: { name: string }) => x.name),
      ['web'],
    );
    client.close();
  } finally {
    await hub.close();
  }
  const modules = new Set<string>();
  for (const line of lines) {
    const k = keys(line);
    assert.equal(new Set(k).size, k.length, `a key twice: ${line}`);
    const m = (JSON.parse(line) as { module?: string }).module;
    if (m) modules.add(m);
  }
  // The modules that logged: enough of them to make the check mean something.
  for (const m of ['subscribe', 'materializer', 'xds', 'xds-provider'])
    assert.ok(modules.has(m), `${m} logged (${[...modules].join(', ')})`);
});
