// The standing fault suite of the Redis log, with real processes: a hub process
// (`xdshub serve --store redis://…`) takes 8 concurrent HTTP writers while its
// redis-server (AOF, fsync always) is SIGKILLed and restarted on the same port and
// data 1, 3, 6 and 20 s later. Every case asserts: no request is left without an
// answer; every answer is 200 or a 503 naming the log; writes made while Redis is
// down are refused promptly; writing resumes by itself; every acknowledged write is
// in the log afterwards. A second hub SIGTERMed right after the kill, with writes
// in flight, exits cleanly within its shutdown timeout.
// The four outages run side by side (each with its own Redis and hub), so the file
// costs about the longest outage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULTS } from '../../src/config';
import { DEFAULT_WRITE_TIMEOUT_MS } from '../../src/log/redis';
import { call, type SpawnedHub, spawnHub, startHub } from '../helpers/hub';
import { type RunningRedis, startRedis } from '../helpers/redis';
import { tmpDir } from '../helpers/tmp';
import { letTimePass } from '../helpers/until';
import { startWriters, type WriteOutcome, type Writers } from '../helpers/writers';

const WRITERS = 8;
/** A request without an answer after this long is a hang (the longest legitimate wait is the write timeout). */
const HANG_MS = 15_000;
/** Slack on top of the write timeout for "answered while Redis was still down". */
const PROMPT_SLACK_MS = 2_000;
const LOG_503 = /^redis log redis:\/\/127\.0\.0\.1:\d+ is unavailable: /;

/** Resolves when the writers reach `predicate`, or fails naming `what` after `ms`. */
async function within(writers: Writers, ms: number, what: string, predicate: (o: readonly WriteOutcome[]) => boolean) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `${what}: not within ${ms} ms; in flight: ${writers.inFlight().size}, outcomes: ${summary(writers.outcomes)}`,
          ),
        ),
      ms,
    );
  });
  try {
    await Promise.race([writers.until(predicate), late]);
  } finally {
    clearTimeout(timer);
  }
}

function summary(outcomes: readonly WriteOutcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(String(o.status), (counts.get(String(o.status)) ?? 0) + 1);
  return JSON.stringify(Object.fromEntries(counts));
}

/** Nodes in the log as a fresh hub on the same Redis reads it (not the running hub's memory). */
async function nodesInLog(url: string): Promise<Set<string>> {
  const reader = await startHub({ store: { kind: 'redis', url } });
  try {
    const res = await call(reader, 'GET', '/v1/catalog/nodes');
    assert.equal(res.status, 200, res.text);
    return new Set((res.json as Array<{ Node: string }>).map((n) => n.Node));
  } finally {
    await reader.close();
  }
}

/** fastify's answer to requests that arrive while the server closes. */
const CLOSING_503 = /"message":"Service Unavailable"/;

function assertAnswers(outcomes: readonly WriteOutcome[], label: string, closing = false) {
  const hung = outcomes.filter((o) => o.status === 'timeout');
  assert.deepEqual(
    hung.map((o) => o.node),
    [],
    `${label}: ${hung.length} writes got no answer within ${HANG_MS} ms`,
  );
  for (const o of outcomes) {
    if (o.status === 200) continue;
    // A hub that is shutting down refuses new requests, then stops listening.
    if (closing && (o.status === 'error' || (o.status === 503 && CLOSING_503.test(o.body)))) continue;
    assert.equal(o.status, 503, `${label}: ${o.node} answered ${o.status}: ${o.body}`);
    assert.match(o.body, LOG_503, `${label}: the 503 names the log: ${o.body}`);
  }
}

async function outageCase(outageMs: number): Promise<void> {
  const dir = await tmpDir(`xdshub-outage-${outageMs}`);
  let redis: RunningRedis = await startRedis({ appendonly: true, dir: dir.path });
  const hubArgs = (name: string) => ['--store', redis.url, '--http-port', '0', '--grpc-port', '0', '--node-name', name];
  const hubs: SpawnedHub[] = [];
  const writerSets: Writers[] = [];
  try {
    const hub = await spawnHub(hubArgs(`outage-${outageMs}`));
    hubs.push(hub);
    // The shutdown check rides on the longest outage: a second hub, stopped while Redis is down.
    const stopping = outageMs >= 20_000 ? await spawnHub(hubArgs(`outage-stop-${outageMs}`)) : undefined;
    if (stopping) hubs.push(stopping);

    const writers = startWriters({ urls: [hub.httpUrl], workers: WRITERS, prefix: `o${outageMs}`, timeoutMs: HANG_MS });
    writerSets.push(writers);
    const stopWriters =
      stopping && startWriters({ urls: [stopping.httpUrl], workers: 2, prefix: `s${outageMs}`, timeoutMs: HANG_MS });
    if (stopWriters) writerSets.push(stopWriters);
    await within(writers, 30_000, 'warm-up', (o) => o.filter((x) => x.status === 200).length >= 100);

    const killedAt = Date.now();
    await redis.stop(); // SIGKILL
    let stopped: Promise<{ code: number | string; ms: number }> | undefined;
    if (stopping) {
      const t0 = Date.now();
      stopped = stopping.stop('SIGTERM').then((code) => ({ code, ms: Date.now() - t0 }));
    }
    await letTimePass(outageMs, 'the outage lasts this long');
    const restartedAt = Date.now();
    redis = await startRedis({ appendonly: true, dir: dir.path, port: redis.port });

    // Writing resumes by itself: acknowledgements for writes sent after the restart.
    await within(
      writers,
      20_000,
      'recovery after the restart',
      (o) => o.filter((x) => x.status === 200 && x.started > restartedAt).length >= 50,
    );
    await writers.stop();
    await stopWriters?.stop();

    const all = writers.outcomes;
    assertAnswers(all, `${outageMs} ms outage`);
    const during = all.filter((o) => o.started > killedAt && o.started < restartedAt);
    // Prompt: a write sent while Redis was down is answered within the write timeout
    // (plus slack for a loaded machine), or before Redis is back, whichever is first.
    for (const o of during) {
      const waited = o.ended - o.started;
      assert.ok(
        o.ended < restartedAt || waited <= DEFAULT_WRITE_TIMEOUT_MS + PROMPT_SLACK_MS,
        `${o.node}, sent ${o.started - killedAt} ms into the outage, waited ${waited} ms and was answered ${o.ended - restartedAt} ms after Redis came back`,
      );
    }
    // Once the writes caught in flight have given up (after the write timeout), new
    // ones are refused at once; a 1 or 3 s outage may be over before that happens.
    if (outageMs >= 6_000) {
      assert.ok(
        during.some((o) => o.status === 503 && o.ended < restartedAt),
        `writes during the outage were refused while it lasted (${summary(during)})`,
      );
    }

    if (stopping && stopped && stopWriters) {
      const { code, ms } = await stopped;
      assert.equal(code, 0, `SIGTERM during the outage: exit ${code} after ${ms} ms\n${stopping.stderr()}`);
      assert.ok(ms < DEFAULTS.shutdownTimeoutMs, `shutdown took ${ms} ms`);
      assertAnswers(stopWriters.outcomes, 'hub stopped during the outage', true);
    }

    // No acknowledged write lost (read back through a fresh hub, i.e. from the log).
    const present = await nodesInLog(redis.url);
    const acked = writerSets.flatMap((w) => w.acked());
    const lost = acked.filter((o) => !present.has(o.node)).map((o) => o.node);
    assert.deepEqual(lost, [], `${lost.length} of ${acked.length} acknowledged writes lost`);
    assert.equal(new Set(acked.map((o) => o.index)).size, acked.length, 'every acknowledgement has its own index');
  } finally {
    await Promise.all(writerSets.map((w) => w.stop()));
    for (const h of hubs) await h.stop('SIGKILL');
    await redis.stop();
    await dir.cleanup();
  }
}

describe('a Redis-backed hub under 8 writers while redis-server is killed and restarted', { concurrency: true }, () => {
  for (const outageMs of [1_000, 3_000, 6_000, 20_000]) {
    test(`after ${outageMs / 1000} s: no hang, prompt 503s naming the log, recovery, no acknowledged write lost`, () =>
      outageCase(outageMs));
  }
});
