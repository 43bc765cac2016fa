// A flood of streams on one gRPC connection is bounded per connection in
// HTTP/2 itself: the hub's SETTINGS allow --grpc-max-streams-per-connection
// plus STREAM_HEADROOM streams, so a grpc-js client opening 10,000 at once
// keeps the rest queued on its side; those the hub does see past the limit are
// refused at the door with RESOURCE_EXHAUSTED naming the flag. Meanwhile
// other clients are served: HTTP GETs and a normal xDS stream on another
// connection. A real `xdshub serve` process.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:http2';
import { join } from 'node:path';
import { test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { STREAM_HEADROOM } from '../../src/stream-limits';
import { lookupType } from '../../src/xds/transport/envoy-proto';
import { type SpawnedHub, spawnHub } from '../helpers/hub';
import { forkTracked } from '../helpers/procs';
import type { FloodResult } from './stream-flood-client';

const LIMIT = 100;
const FLOOD = 10_000;
const DELTA_ADS = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

/** The SETTINGS_MAX_CONCURRENT_STREAMS the hub's gRPC port sends a new HTTP/2 connection. */
async function advertisedMaxStreams(address: string): Promise<number | undefined> {
  const session = connect(`http://${address}`);
  try {
    await new Promise<void>((resolve, reject) => {
      session.once('remoteSettings', () => resolve());
      session.once('error', reject);
    });
    return session.remoteSettings.maxConcurrentStreams;
  } finally {
    session.destroy();
  }
}

const insecure = (name: string) => ({ 'grpc.use_local_subchannel_pool': 1, [name]: 1 }) as grpc.ChannelOptions;

/** `count` Subscribe streams on one connection, from a child process; its result once every stream settled. */
function flood(address: string, count: number): { child: ChildProcess; settled: Promise<FloodResult> } {
  const script = join(__dirname, 'stream-flood-client.ts');
  const child = forkTracked(script, [address, String(count)], { execArgv: ['--import', 'tsx'] });
  const settled = new Promise<FloodResult>((resolve, reject) => {
    child.once('message', (m: FloodResult) => resolve(m));
    child.once('exit', (code) => reject(new Error(`the flood client exited (${code}) before every stream settled`)));
  });
  return { child, settled };
}

/** GETs one after the other (10 s timeout each) until `stop()`; the statuses (0: timed out or failed). */
function gets(httpUrl: string): { stop(): Promise<number[]> } {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const status = await fetch(`${httpUrl}/v1/catalog/nodes`, { signal: AbortSignal.timeout(10_000) }).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        () => 0,
      );
      statuses.push(status);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return statuses;
    },
  };
}

/** A Delta ADS stream on its own connection; resolves with its first response's size. */
async function normalXdsStream(address: string): Promise<number> {
  const Req = lookupType('envoy.service.discovery.v3.DeltaDiscoveryRequest');
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), insecure('test.normal'));
  const call = client.makeBidiStreamRequest(
    DELTA_ADS,
    (b: Buffer) => b,
    (b: Buffer) => b,
  );
  const first = Req.fromObject({ node: { id: 'normal', cluster: 'c' }, typeUrl: CDS, resourceNamesSubscribe: ['*'] });
  call.write(Buffer.from(Req.encode(first).finish()));
  try {
    return await new Promise<number>((resolve, reject) => {
      call.on('data', (b: Buffer) => resolve(b.length));
      call.on('error', reject);
    });
  } finally {
    call.cancel();
    client.close();
  }
}

test(`${FLOOD} Subscribe streams on one connection: ${LIMIT} served, the rest refused, others served`, async () => {
  let hub: SpawnedHub | undefined;
  let floodClient: ChildProcess | undefined;
  const killAll = () => {
    hub?.child.kill('SIGKILL');
    floodClient?.kill('SIGKILL');
  };
  process.once('exit', killAll);
  try {
    const ports = ['--http-port', '0', '--grpc-port', '0'];
    hub = await spawnHub(['--store', 'memory', ...ports, '--grpc-max-streams-per-connection', String(LIMIT)]);
    const register = await fetch(`${hub.httpUrl}/v1/catalog/register`, {
      method: 'PUT',
      body: JSON.stringify({ Node: 'n1', Address: '10.0.0.1', Service: { ID: 'web-1', Service: 'web', Port: 80 } }),
    });
    assert.equal(register.status, 200);
    const advertised = await advertisedMaxStreams(hub.grpcAddress);
    assert.equal(advertised, LIMIT + STREAM_HEADROOM, 'the bound is in the HTTP/2 SETTINGS');

    const reads = gets(hub.httpUrl);
    const started = Date.now();
    const streams = flood(hub.grpcAddress, FLOOD);
    floodClient = streams.child;
    const served = await normalXdsStream(hub.grpcAddress);
    assert.ok(served > 0, 'the normal xDS stream got its first response during the flood');
    const { accepted, ended } = await streams.settled;
    const floodSeconds = (Date.now() - started) / 1000;
    const statuses = await reads.stop();

    assert.equal(accepted, LIMIT);
    const refusal = `too many concurrent streams on this connection: at most ${LIMIT} (--grpc-max-streams-per-connection)`;
    assert.deepEqual([...ended], [[`RESOURCE_EXHAUSTED: ${refusal}`, FLOOD - LIMIT]]);
    assert.ok(statuses.length > 0);
    assert.deepEqual([...new Set(statuses)], [200], `every GET answered (${statuses.length} sent)`);
    // The refusals are logged with a count, at most one line a second, not one line each.
    const refusalLines = hub
      .stderr()
      .split('\n')
      .filter((l) => l.includes('refusing Subscribe streams'));
    const lines = refusalLines.length;
    assert.ok(lines >= 1 && lines <= 1 + Math.ceil(floodSeconds), `${lines} refusal log lines in ${floodSeconds} s`);
  } finally {
    process.off('exit', killAll);
    floodClient?.kill('SIGKILL');
    await hub?.stop('SIGTERM');
  }
});
