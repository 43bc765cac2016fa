// A SQLite-backed hub process takes concurrent writes over HTTP and is stopped
// mid-stream — with SIGKILL, or SIGTERM (ordered shutdown) — then restarts on
// the same data dir: every acknowledged write is there and indexes keep increasing.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { tmpDir } from '../helpers/tmp';

const WORKERS = 16;
const KILL_AFTER_ACKS = 400;

/** Concurrent writers against `url` until each one's request fails; acknowledged writes by node name. */
function startWriters(url: string, onAck: (count: number) => void) {
  const acked = new Map<string, bigint>();
  const statuses = new Map<number, number>();
  const worker = async (w: number) => {
    for (let n = 0; ; n++) {
      const node = `d-${w}-${n}`;
      let res: Response;
      try {
        res = await fetch(`${url}/v1/catalog/register`, {
          method: 'PUT',
          body: JSON.stringify({ Node: node, Address: '10.0.0.1', Service: { Service: 'dur', ID: node, Port: n } }),
        });
        await res.arrayBuffer();
      } catch {
        return;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status !== 200) return;
      acked.set(node, BigInt(res.headers.get('x-consul-index')!));
      onAck(acked.size);
    }
  };
  const done = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return { acked, statuses, done };
}

test('SIGTERM mid-stream: writes in flight finish, the hub exits 0, every acknowledged write is there', async () => {
  const dir = await tmpDir('xdshub-sigterm');
  const args = [
    '--store',
    'sqlite',
    '--data-dir',
    dir.path,
    '--http-port',
    '0',
    '--grpc-port',
    '0',
    '--node-name',
    'term',
  ];
  let hub: SpawnedHub | undefined;
  try {
    hub = await spawnHub(args);
    let reachedTarget!: () => void;
    const target = new Promise<void>((resolve) => (reachedTarget = resolve));
    const writers = startWriters(hub.httpUrl, (n) => n >= KILL_AFTER_ACKS && reachedTarget());
    await target;
    assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
    await writers.done;
    // Each request was answered 200 (finished before the log closed) or refused
    // with 503 while closing (or its connection closed): never a 500.
    for (const status of writers.statuses.keys())
      assert.ok(status === 200 || status === 503, `unexpected status ${status}`);

    hub = await spawnHub(args);
    const nodes = (await (await fetch(`${hub.httpUrl}/v1/catalog/nodes`)).json()) as Array<{ Node: string }>;
    const present = new Set(nodes.map((n) => n.Node));
    const lost = [...writers.acked.keys()].filter((n) => !present.has(n));
    assert.deepEqual(lost, [], `${lost.length} of ${writers.acked.size} acknowledged writes lost`);
    assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
    hub = undefined;
  } finally {
    await hub?.stop('SIGKILL');
    await dir.cleanup();
  }
});

test('every acknowledged write survives SIGKILL', async () => {
  const dir = await tmpDir('xdshub-durability');
  const args = [
    '--store',
    'sqlite',
    '--data-dir',
    dir.path,
    '--http-port',
    '0',
    '--grpc-port',
    '0',
    '--node-name',
    'dur',
  ];
  let hub: SpawnedHub | undefined;
  try {
    hub = await spawnHub(args);
    let reachedTarget!: () => void;
    const target = new Promise<void>((resolve) => (reachedTarget = resolve));
    const writers = startWriters(hub.httpUrl, (n) => n >= KILL_AFTER_ACKS && reachedTarget());
    await target;
    assert.equal(await hub.stop('SIGKILL'), 'SIGKILL');
    await writers.done;
    const acked = writers.acked;
    const maxAcked = [...acked.values()].reduce((a, b) => (b > a ? b : a), 0n);

    hub = await spawnHub(args);
    const nodes = (await (await fetch(`${hub.httpUrl}/v1/catalog/nodes`)).json()) as Array<{ Node: string }>;
    const present = new Set(nodes.map((n) => n.Node));
    const lost = [...acked.keys()].filter((n) => !present.has(n));
    assert.deepEqual(lost, [], `${lost.length} of ${acked.size} acknowledged writes lost`);

    const after = await fetch(`${hub.httpUrl}/v1/catalog/register`, {
      method: 'PUT',
      body: JSON.stringify({ Node: 'after-restart', Address: '10.0.0.2' }),
    });
    assert.equal(after.status, 200);
    await after.arrayBuffer();
    assert.ok(BigInt(after.headers.get('x-consul-index')!) > maxAcked, 'indexes continue after the restart');
    assert.equal(await hub.stop('SIGTERM'), 0, hub.stderr());
    hub = undefined;
  } finally {
    await hub?.stop('SIGKILL');
    await dir.cleanup();
  }
});
